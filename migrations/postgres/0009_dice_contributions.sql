-- Player-contributed dice entropy (issue 31, proto/README.md §10). Keep in step with
-- ../sqlite/0009_dice_contributions.sql. (New tables, not new columns of `matches`:
-- SQLite's one-time rebuild of `matches`, ../sqlite-rebuild/matches_end_reason.sql,
-- copies a fixed column list.)

-- Which inputs key a match's dice: 'contributed' (HKDF-SHA256 of the seed and each
-- seat's contribution; every match created since this migration has a row) or
-- 'server_seed' (the seed alone). A match without a row (stored before this
-- migration) is 'server_seed'. `dice_sealed_seq`: the `seq` of the match's
-- `dice_sealed` message once its contribution window closed (every seat's row
-- below is stored then); NULL before.
CREATE TABLE match_dice (
    match_id        UUID PRIMARY KEY NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    dice_scheme     TEXT NOT NULL
        CHECK (dice_scheme = 'server_seed' OR dice_scheme = 'contributed'),
    dice_sealed_seq BIGINT
);

-- Each seat's contribution: a player's bytes (hex, 16..=64 bytes) stored when it is
-- accepted, before its `ack`; the defaults ('' and defaulted) of the seats that sent
-- none are stored with the seal, before the first roll is shown.
CREATE TABLE match_contributions (
    match_id  UUID NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat      TEXT NOT NULL
        CHECK (seat = 'green' OR seat = 'red' OR seat = 'blue' OR seat = 'yellow'),
    entropy   TEXT NOT NULL,
    defaulted BOOLEAN NOT NULL,
    PRIMARY KEY (match_id, seat)
);
