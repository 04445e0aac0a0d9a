-- Cluster mode: whether a running match may be listed for spectators
-- (GET /api/v1/matches/live lists every node's matches from this table; a private
-- lobby's match is not listed). Keep in step with ../sqlite/0006_room_leases_listed.sql.
ALTER TABLE room_leases ADD COLUMN listed BOOLEAN NOT NULL DEFAULT TRUE;
