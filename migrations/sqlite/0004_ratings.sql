-- Skill ratings (Weng-Lin / OpenSkill) per player and mode. Keep in step with
-- ../postgres/0004_ratings.sql.
--
-- Scale: OpenSkill's. A new player has mu = 25 and sigma = 25/3 (skill points); the
-- conservative rating shown on the leaderboard is mu - 3 * sigma (0 for a new player).
--
-- No column is added to `matches`: on a new database
-- ../sqlite-rebuild/matches_end_reason.sql rebuilds that table after every migration
-- with its own column list, so the match order lives in `rated_matches`.

-- Each human player's current rating in a mode: the result of every rated match of
-- that mode it played, applied in `rated_matches.seq` order.
CREATE TABLE player_ratings (
    player_id    BLOB NOT NULL REFERENCES players (id),
    mode         TEXT NOT NULL CHECK (mode IN ('journey', 'clash')),
    mu           REAL NOT NULL,
    sigma        REAL NOT NULL,
    -- mu - 3 * sigma, kept for the leaderboard's order.
    conservative REAL NOT NULL,
    -- Rated matches of this mode the player played.
    matches      INTEGER NOT NULL CHECK (matches >= 1),
    PRIMARY KEY (player_id, mode)
);
CREATE INDEX player_ratings_board ON player_ratings (mode, conservative DESC);

-- The matches that changed ratings (two or more human seats), in the order they did:
-- written in the same transaction as the match's result. Re-computing the ratings
-- from the stored results applies the matches in this order.
CREATE TABLE rated_matches (
    seq      INTEGER PRIMARY KEY CHECK (seq >= 1),
    match_id BLOB NOT NULL UNIQUE REFERENCES matches (id) ON DELETE CASCADE
);

-- Per rated seat: its player's rating before and after the match; NULL for a bot
-- and in a match that rated nothing.
ALTER TABLE match_seats ADD COLUMN mu_before REAL;
ALTER TABLE match_seats ADD COLUMN sigma_before REAL;
ALTER TABLE match_seats ADD COLUMN mu_after REAL;
ALTER TABLE match_seats ADD COLUMN sigma_after REAL;
