update "mail_outbox" set "state" = 'sent', "sent_at" = $1, "last_attempt_at" = $2, "last_error" = null where "id" = $3 and "state" = 'pending' returning "code_id"
