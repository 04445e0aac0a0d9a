-- SQLite only, run by `Store::migrate` after the sqlx migrations while the table
-- still lacks 'abandoned' in its end_reason CHECK (SQLite cannot change a CHECK in
-- place, and sqlx runs every migration inside a transaction, where foreign keys
-- cannot be switched off). The caller switches foreign keys off around this script:
-- the documented 12-step table rebuild (new table, copy, drop, rename, check).
BEGIN;
CREATE TABLE matches_new (
    id              BLOB PRIMARY KEY NOT NULL,
    mode            TEXT NOT NULL CHECK (mode IN ('journey', 'clash')),
    rules           TEXT NOT NULL,
    dice_commitment TEXT NOT NULL,
    seed            TEXT,
    created_at      TEXT NOT NULL,
    started_at      TEXT NOT NULL,
    ended_at        TEXT,
    status          TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'ended')),
    end_reason      TEXT CHECK (end_reason IN ('all_finished', 'clock', 'abandoned')),
    secret_seed     TEXT,
    CHECK ((status = 'ended') = (seed IS NOT NULL AND ended_at IS NOT NULL AND end_reason IS NOT NULL))
);
INSERT INTO matches_new (id, mode, rules, dice_commitment, seed, created_at, started_at,
    ended_at, status, end_reason, secret_seed)
    SELECT id, mode, rules, dice_commitment, seed, created_at, started_at, ended_at,
        status, end_reason, secret_seed FROM matches;
DROP TABLE matches;
ALTER TABLE matches_new RENAME TO matches;
CREATE INDEX matches_running ON matches (status) WHERE status = 'running';
COMMIT;
