-- The turns table's two CHECK constraints, written without IN lists (issue 14: CPU
-- per turn). SQLite evaluates `seat IN ('green', 'red', 'blue', 'yellow')` in a
-- CHECK with a temporary b-tree of the listed values, which it builds anew at every
-- INSERT: a page cache created, a page zeroed, four rows inserted and all of it
-- freed, twice per turn (seat and kind). Under callgrind that was about a third of
-- the instructions of appending a turn. The same constraints as OR chains are
-- plain comparisons. Columns, key, foreign key and trigger are unchanged.
--
-- SQLite cannot change a CHECK in place: the table is rebuilt (new table, copy,
-- drop, rename). No other table references `turns`, so this runs inside the
-- migration's transaction with foreign keys on (each copied row is checked against
-- `matches` again). Once, at the first start after an upgrade: a large database
-- takes a while to copy.
CREATE TABLE turns_new (
    match_id    BLOB NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    turn_number INTEGER NOT NULL CHECK (turn_number >= 1),
    seat        TEXT NOT NULL
        CHECK (seat = 'green' OR seat = 'red' OR seat = 'blue' OR seat = 'yellow'),
    dice        TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind = 'plan' OR kind = 'pass' OR kind = 'timeout'),
    plan        TEXT NOT NULL,
    events      TEXT NOT NULL,
    seq         INTEGER,
    clock_ms    INTEGER,
    PRIMARY KEY (match_id, turn_number)
);

INSERT INTO turns_new (match_id, turn_number, seat, dice, kind, plan, events, seq, clock_ms)
    SELECT match_id, turn_number, seat, dice, kind, plan, events, seq, clock_ms FROM turns;

DROP TABLE turns;

ALTER TABLE turns_new RENAME TO turns;

CREATE TRIGGER turns_no_update BEFORE UPDATE ON turns
BEGIN
    SELECT RAISE(ABORT, 'turns are append-only');
END;
