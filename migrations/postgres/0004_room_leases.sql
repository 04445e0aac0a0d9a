-- Cluster mode (several server nodes on one database): who owns each running match.
-- Keep in step with ../sqlite/0004_room_leases.sql.
--
-- One row per running match of a cluster: the node that runs its room, the fencing
-- token of that ownership (1 when the match is created, +1 at every takeover) and
-- when the lease expires (the owner extends it; another node may claim the match
-- once it has expired). Every write of the match checks its token in the same
-- transaction (`store::Store::apply_batch`), so a node that lost the match writes
-- nothing more for it. The row is deleted with the match's result.
CREATE TABLE room_leases (
    match_id      UUID PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    node_id       TEXT NOT NULL,
    fencing_token BIGINT NOT NULL CHECK (fencing_token >= 1),
    expires_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX room_leases_expires_at ON room_leases (expires_at);
CREATE INDEX room_leases_node_id ON room_leases (node_id);
