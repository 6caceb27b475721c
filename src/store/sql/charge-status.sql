select "id", "status", "payer_name", "payer_tax_number", "payer_euid", "value_cents", "paid_cents", "updated_at", "hold_reason", "metadata", "merchant_account_id" from "charges" where "id" = $1
