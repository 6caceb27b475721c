select * from "mail_outbox" where "id" = $1
