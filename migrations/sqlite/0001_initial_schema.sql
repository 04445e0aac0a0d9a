-- Initial schema (SQLite). Keep in step with ../postgres/0001_initial_schema.sql:
-- same tables, columns and constraints. UUIDs are 16-byte BLOBs, times RFC 3339 TEXT
-- in UTC (ordered as text), JSON documents TEXT.

-- Guest players. A guest is identified by a bearer token; only the SHA-256 of the
-- token (64 lowercase hex digits) is stored.
CREATE TABLE players (
    id         BLOB PRIMARY KEY NOT NULL,
    name       TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
);

-- One row per match. `seed` stays NULL until the match has ended (RULES.md §10:
-- only the commitment is public while it runs).
CREATE TABLE matches (
    id              BLOB PRIMARY KEY NOT NULL,
    mode            TEXT NOT NULL CHECK (mode IN ('journey', 'clash')),
    rules           TEXT NOT NULL,
    dice_commitment TEXT NOT NULL,
    seed            TEXT,
    created_at      TEXT NOT NULL,
    started_at      TEXT NOT NULL,
    ended_at        TEXT,
    status          TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'ended')),
    end_reason      TEXT CHECK (end_reason IN ('all_finished', 'clock')),
    CHECK ((status = 'ended') = (seed IS NOT NULL AND ended_at IS NOT NULL AND end_reason IS NOT NULL))
);
CREATE INDEX matches_running ON matches (status) WHERE status = 'running';

-- The four seats of a match; the result columns are NULL until the match has ended.
CREATE TABLE match_seats (
    match_id  BLOB NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat      TEXT NOT NULL CHECK (seat IN ('green', 'red', 'blue', 'yellow')),
    player_id BLOB REFERENCES players (id),
    is_bot    BOOLEAN NOT NULL,
    name      TEXT NOT NULL,
    place     INTEGER,
    progress  INTEGER,
    combat    INTEGER,
    bonus     INTEGER,
    total     INTEGER,
    finished  INTEGER,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX match_seats_player ON match_seats (player_id) WHERE player_id IS NOT NULL;

-- The append-only turn log, written as turns resolve.
CREATE TABLE turns (
    match_id    BLOB NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    turn_number INTEGER NOT NULL CHECK (turn_number >= 1),
    seat        TEXT NOT NULL CHECK (seat IN ('green', 'red', 'blue', 'yellow')),
    dice        TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('plan', 'pass', 'timeout')),
    plan        TEXT NOT NULL,
    events      TEXT NOT NULL,
    PRIMARY KEY (match_id, turn_number)
);

CREATE TRIGGER turns_no_update BEFORE UPDATE ON turns
BEGIN
    SELECT RAISE(ABORT, 'turns are append-only');
END;
