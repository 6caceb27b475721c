select distinct "kind" from "blocks" where (("kind" = 'email' and "value" = $1) or ("kind" = 'tax_number' and "value" = $2) or ("kind" = 'euid' and "value" = $3))
