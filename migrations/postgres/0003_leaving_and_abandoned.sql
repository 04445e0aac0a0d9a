-- Leaving a match and abandoned matches. Keep in step with
-- ../sqlite/0003_leaving_and_abandoned.sql.

-- A match whose humans all left or were away too long ends as 'abandoned'.
ALTER TABLE matches DROP CONSTRAINT IF EXISTS matches_end_reason_check;
ALTER TABLE matches ADD CONSTRAINT matches_end_reason_check
    CHECK (end_reason IN ('all_finished', 'clock', 'abandoned'));

-- The `seq` of the `seat_left` message when the seat's player left the match (a bot
-- plays the seat from then on and it ranks below every seat that stayed); NULL for a
-- seat that stayed.
ALTER TABLE match_seats ADD COLUMN left_seq BIGINT;
