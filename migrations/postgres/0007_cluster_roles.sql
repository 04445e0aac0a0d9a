-- Cluster mode: roles one node of the cluster holds at a time (the quick-play
-- matchmaker). Keep in step with ../sqlite/0007_cluster_roles.sql.
--
-- One row per role: the node holding it and until when (the holder extends it; any
-- node may take it once it has expired). `store::Store::claim_role`.
CREATE TABLE cluster_roles (
    role       TEXT PRIMARY KEY,
    node_id    TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
