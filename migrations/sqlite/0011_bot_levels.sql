-- Bot levels (issue 32): the level of the bot that plays a seat (`beginner`,
-- `casual`, `greedy`, `expert`), shown on seats and in replays; NULL for a human's
-- seat and for seats stored before levels existed. Keep in step with the other
-- backend's 0011_bot_levels.sql.
ALTER TABLE match_seats ADD COLUMN bot_level TEXT;
