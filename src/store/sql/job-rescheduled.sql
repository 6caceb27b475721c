update "jobs" set "run_at" = $1, "locked_until" = null, "last_error" = null, "attempts" = 0 where "id" = $2
