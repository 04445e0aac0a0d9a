-- Initial schema (PostgreSQL). Keep in step with ../sqlite/0001_initial_schema.sql:
-- same tables, columns and constraints; only the column types differ.

-- Guest players. A guest is identified by a bearer token; only the SHA-256 of the
-- token (64 lowercase hex digits) is stored.
CREATE TABLE players (
    id         UUID PRIMARY KEY,
    name       TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TIMESTAMPTZ NOT NULL
);

-- One row per match. `seed` stays NULL until the match has ended (RULES.md §10:
-- only the commitment is public while it runs).
CREATE TABLE matches (
    id              UUID PRIMARY KEY,
    mode            TEXT NOT NULL CHECK (mode IN ('journey', 'clash')),
    rules           JSONB NOT NULL,
    dice_commitment TEXT NOT NULL,
    seed            TEXT,
    created_at      TIMESTAMPTZ NOT NULL,
    started_at      TIMESTAMPTZ NOT NULL,
    ended_at        TIMESTAMPTZ,
    status          TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'ended')),
    end_reason      TEXT CHECK (end_reason IN ('all_finished', 'clock')),
    CHECK ((status = 'ended') = (seed IS NOT NULL AND ended_at IS NOT NULL AND end_reason IS NOT NULL))
);
CREATE INDEX matches_running ON matches (status) WHERE status = 'running';

-- The four seats of a match; the result columns are NULL until the match has ended.
CREATE TABLE match_seats (
    match_id  UUID NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat      TEXT NOT NULL CHECK (seat IN ('green', 'red', 'blue', 'yellow')),
    player_id UUID REFERENCES players (id),
    is_bot    BOOLEAN NOT NULL,
    name      TEXT NOT NULL,
    place     INTEGER,
    progress  BIGINT,
    combat    BIGINT,
    bonus     BIGINT,
    total     BIGINT,
    finished  INTEGER,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX match_seats_player ON match_seats (player_id) WHERE player_id IS NOT NULL;

-- The append-only turn log, written as turns resolve.
CREATE TABLE turns (
    match_id    UUID NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    turn_number INTEGER NOT NULL CHECK (turn_number >= 1),
    seat        TEXT NOT NULL CHECK (seat IN ('green', 'red', 'blue', 'yellow')),
    dice        JSONB NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('plan', 'pass', 'timeout')),
    plan        JSONB NOT NULL,
    events      JSONB NOT NULL,
    PRIMARY KEY (match_id, turn_number)
);

CREATE FUNCTION turns_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'turns are append-only';
END
$$;
CREATE TRIGGER turns_no_update BEFORE UPDATE ON turns
    FOR EACH ROW EXECUTE FUNCTION turns_append_only();
