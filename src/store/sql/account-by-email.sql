select * from "accounts" where "email" = $1
