select * from "payouts" where "id" = $1
