select "currency", "amount" from "account_balances" where "account_id" = $1 and "book" = $2
