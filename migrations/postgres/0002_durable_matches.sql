-- Durable matches (resume after a crash or restart). Keep in step with
-- ../sqlite/0002_durable_matches.sql.

-- The seed, stored server-side when the match starts so a restarted server can
-- resume the match (RULES.md §10: it is revealed, in `seed`, only once the match has
-- ended; no API reads this column).
ALTER TABLE matches ADD COLUMN secret_seed TEXT;

-- Per turn: the `seq` of its `turn_resolved` message (its `turn_started` successor
-- has seq + 1) and the match clock used when it resolved (ms, rule 9.1), so a resumed
-- room continues the same message sequence and charges no downtime to the clock.
-- NULL for turns stored before this migration.
ALTER TABLE turns ADD COLUMN seq BIGINT;
ALTER TABLE turns ADD COLUMN clock_ms BIGINT;

-- Chat lines of a match: sequenced match messages like the turns, stored before
-- anyone sees them.
CREATE TABLE match_chat (
    match_id UUID NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seq      BIGINT NOT NULL,
    seat     TEXT CHECK (seat IN ('green', 'red', 'blue', 'yellow')),
    name     TEXT NOT NULL,
    text     TEXT NOT NULL,
    sent_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (match_id, seq)
);
