-- Accounts and sessions (issue 29, proto/README.md "Accounts"). Keep in step with
-- ../postgres/0012_accounts.sql.

-- A claimed account: `username` as chosen (NFC, the names policy), `username_key`
-- its case fold (unique: usernames are unique ignoring case), `password_hash` an
-- Argon2id PHC string. All three NULL for a guest. `deleted_at`: the account was
-- deleted (its name is '' then, and it has no credentials, sessions or ratings).
ALTER TABLE players ADD COLUMN username TEXT;
ALTER TABLE players ADD COLUMN username_key TEXT;
ALTER TABLE players ADD COLUMN password_hash TEXT;
ALTER TABLE players ADD COLUMN deleted_at TEXT;
CREATE UNIQUE INDEX players_username_key ON players (username_key);

-- Every sign-in (and every guest) is a session: a random bearer token stored only as
-- its SHA-256 (64 lowercase hex digits), with the `client` string of its last
-- `hello` (or the User-Agent it signed in with). A signed-out or expired session's
-- row is deleted. `players.token_hash` is no longer read: tokens live here.
CREATE TABLE sessions (
    id           BLOB PRIMARY KEY NOT NULL,
    player_id    BLOB NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    token_hash   TEXT NOT NULL UNIQUE,
    client       TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    last_used_at TEXT NOT NULL
);
CREATE INDEX sessions_player ON sessions (player_id);

-- Each existing guest token becomes a session, last used now (no guest expires at
-- the upgrade).
INSERT INTO sessions (id, player_id, token_hash, client, created_at, last_used_at)
SELECT randomblob(16), id, token_hash, '', created_at, strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') FROM players;

-- Passkeys (WebAuthn credentials) of an account: `id` is the credential id
-- (base64url), `passkey` the library's serialized credential (JSON).
CREATE TABLE passkeys (
    id           TEXT PRIMARY KEY,
    player_id    BLOB NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    passkey      TEXT NOT NULL,
    name         TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    last_used_at TEXT
);
CREATE INDEX passkeys_player ON passkeys (player_id);

-- A WebAuthn ceremony in progress (registration or sign-in): its state (JSON), kept
-- in the database so that the finishing request may reach any node. Deleted when
-- used or expired.
CREATE TABLE webauthn_challenges (
    id         BLOB PRIMARY KEY NOT NULL,
    player_id  BLOB REFERENCES players (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind = 'register' OR kind = 'sign_in'),
    state      TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
