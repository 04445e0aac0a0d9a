-- Cluster mode needs PostgreSQL; SQLite keeps the same table (and numbering) so both
-- schemas stay in step. Keep in step with ../postgres/0006_room_leases_listed.sql.
ALTER TABLE room_leases ADD COLUMN listed INTEGER NOT NULL DEFAULT 1;
