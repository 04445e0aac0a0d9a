-- Cluster mode needs PostgreSQL; SQLite keeps the same table (and numbering) so both
-- schemas stay in step. Keep in step with ../postgres/0004_room_leases.sql.
CREATE TABLE room_leases (
    match_id      BLOB PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    node_id       TEXT NOT NULL,
    fencing_token INTEGER NOT NULL CHECK (fencing_token >= 1),
    expires_at    TEXT NOT NULL
);
CREATE INDEX room_leases_expires_at ON room_leases (expires_at);
CREATE INDEX room_leases_node_id ON room_leases (node_id);
