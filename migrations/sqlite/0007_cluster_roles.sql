-- Cluster mode: roles one node of the cluster holds at a time (the quick-play
-- matchmaker). Keep in step with ../postgres/0007_cluster_roles.sql. Cluster mode
-- needs PostgreSQL; the table exists here so both schemas keep the same numbering.
CREATE TABLE cluster_roles (
    role       TEXT PRIMARY KEY,
    node_id    TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
