-- Leaving a match and abandoned matches. Keep in step with
-- ../postgres/0003_leaving_and_abandoned.sql.
--
-- The end_reason CHECK gains 'abandoned' in ../sqlite-rebuild/matches_end_reason.sql,
-- which `Store::migrate` runs after this migration (a table rebuild needs foreign
-- keys off, which cannot be switched inside the transaction sqlx runs this in).

-- The `seq` of the `seat_left` message when the seat's player left the match (a bot
-- plays the seat from then on and it ranks below every seat that stayed); NULL for a
-- seat that stayed.
ALTER TABLE match_seats ADD COLUMN left_seq INTEGER;
