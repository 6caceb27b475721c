select * from "mail_outbox" where id = any($1::int8[])
