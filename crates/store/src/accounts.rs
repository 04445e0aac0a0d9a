//! Accounts and sessions (issue 29): a guest claims its identity as an account
//! (username, Argon2id password hash), signs in on other devices (a new session
//! each time), lists and signs out sessions, changes its name or password, and
//! deletes the account.
//!
//! Times are compared in Rust, not in SQL: SQLite keeps them as text whose
//! fraction digits vary, so text order is not time order.

use crate::codec::micros;
use crate::error::StoreError;
use crate::model::{NewSession, Player, Session};
use crate::players::{is_token_hash, INSERT_SESSION};
use crate::store::{with_pool, Store};
use chrono::{DateTime, Utc};
use uuid::Uuid;

#[derive(sqlx::FromRow)]
struct SessionRow {
    id: Uuid,
    player_id: Uuid,
    client: String,
    created_at: DateTime<Utc>,
    last_used_at: DateTime<Utc>,
}

impl From<SessionRow> for Session {
    fn from(r: SessionRow) -> Session {
        Session {
            id: r.id,
            player_id: r.player_id,
            client: r.client,
            created_at: r.created_at,
            last_used_at: r.last_used_at,
        }
    }
}

#[derive(sqlx::FromRow)]
struct SessionPlayerRow {
    id: Uuid,
    player_id: Uuid,
    client: String,
    created_at: DateTime<Utc>,
    last_used_at: DateTime<Utc>,
    name: String,
    player_created_at: DateTime<Utc>,
    username: Option<String>,
}

const SESSION_BY_TOKEN: &str = "SELECT s.id, s.player_id, s.client, s.created_at, \
    s.last_used_at, p.name, p.created_at AS player_created_at, p.username \
    FROM sessions s JOIN players p ON p.id = s.player_id \
    WHERE s.token_hash = $1 AND p.deleted_at IS NULL";
const SESSIONS_OF: &str = "SELECT id, player_id, client, created_at, last_used_at \
    FROM sessions WHERE player_id = $1";
const TOUCH: &str = "UPDATE sessions SET last_used_at = $2 WHERE id = $1";
const TOUCH_CLIENT: &str = "UPDATE sessions SET last_used_at = $2, client = $3 WHERE id = $1";
const DELETE_SESSION: &str = "DELETE FROM sessions WHERE id = $1 AND player_id = $2";
const DELETE_ONE: &str = "DELETE FROM sessions WHERE id = $1";
const DELETE_OTHERS: &str = "DELETE FROM sessions WHERE player_id = $1 AND id <> $2 RETURNING id";
const CLAIM: &str = "UPDATE players SET username = $2, username_key = $3, password_hash = $4 \
    WHERE id = $1 AND username_key IS NULL AND deleted_at IS NULL";
const CREDENTIALS: &str = "SELECT id, password_hash FROM players \
    WHERE username_key = $1 AND deleted_at IS NULL AND password_hash IS NOT NULL";
const PASSWORD_OF: &str = "SELECT password_hash FROM players WHERE id = $1 AND deleted_at IS NULL";
const SET_PASSWORD: &str = "UPDATE players SET password_hash = $2 \
    WHERE id = $1 AND deleted_at IS NULL AND password_hash IS NOT NULL";
const RENAME: &str = "UPDATE players SET name = $2 WHERE id = $1 AND deleted_at IS NULL";
const SEATED_IN_RUNNING: &str = "SELECT s.match_id FROM match_seats s \
    JOIN matches m ON m.id = s.match_id \
    WHERE s.player_id = $1 AND m.status = 'running' AND s.left_seq IS NULL LIMIT 1";
const SESSION_IDS: &str = "SELECT id FROM sessions WHERE player_id = $1";
/// Deleting an account: the player row keeps its id (finished matches' seats and
/// rating history reference it) with every personal field gone; `token_hash` (a
/// retired column) gets a fresh random value.
const ERASE_PLAYER: &str = "UPDATE players SET name = '', username = NULL, username_key = NULL, \
    password_hash = NULL, deleted_at = $2, token_hash = $3 WHERE id = $1 AND deleted_at IS NULL";
const ERASE_SEAT_NAMES: &str = "UPDATE match_seats SET name = '' WHERE player_id = $1";
const ERASE_CHAT: &str = "UPDATE match_chat SET name = '', text = '' \
    WHERE EXISTS (SELECT 1 FROM match_seats s WHERE s.match_id = match_chat.match_id \
    AND s.seat = match_chat.seat AND s.player_id = $1)";
const ERASE_SESSIONS: &str = "DELETE FROM sessions WHERE player_id = $1";
const ERASE_PASSKEYS: &str = "DELETE FROM passkeys WHERE player_id = $1";
const ERASE_CHALLENGES: &str = "DELETE FROM webauthn_challenges WHERE player_id = $1";

fn check_hash(token_hash: &str) -> Result<(), StoreError> {
    if is_token_hash(token_hash) {
        Ok(())
    } else {
        Err(StoreError::Invalid(
            "token_hash must be 64 lowercase hex digits".into(),
        ))
    }
}

impl Store {
    /// The session whose token hashes to `token_hash`, with its player (not a
    /// deleted account), if any. The caller decides whether it has expired (by
    /// `last_used_at`) and refreshes it with [`Store::touch_session`].
    pub async fn session_by_token_hash(
        &self,
        token_hash: &str,
    ) -> Result<Option<(Session, Player)>, StoreError> {
        let row: Option<SessionPlayerRow> = with_pool!(self, pool => sqlx::query_as(SESSION_BY_TOKEN)
                .bind(token_hash)
                .fetch_optional(pool)
                .await)?;
        Ok(row.map(|r| {
            (
                Session {
                    id: r.id,
                    player_id: r.player_id,
                    client: r.client,
                    created_at: r.created_at,
                    last_used_at: r.last_used_at,
                },
                Player {
                    id: r.player_id,
                    name: r.name,
                    created_at: r.player_created_at,
                    username: r.username,
                },
            )
        }))
    }

    /// Stores a new session of `player` (a sign-in).
    ///
    /// Errors: [`StoreError::Invalid`] for a malformed hash; [`StoreError::Conflict`]
    /// when the id or token hash is taken.
    pub async fn create_session(&self, player: Uuid, s: &NewSession) -> Result<(), StoreError> {
        check_hash(&s.token_hash)?;
        let res = with_pool!(self, pool => sqlx::query(INSERT_SESSION)
            .bind(s.id)
            .bind(player)
            .bind(&s.token_hash)
            .bind(&s.client)
            .bind(micros(s.at))
            .execute(pool)
            .await
            .map(|_| ()));
        match res {
            Err(sqlx::Error::Database(db)) if db.is_unique_violation() => {
                Err(StoreError::Conflict("session id or token"))
            }
            other => other.map_err(StoreError::from),
        }
    }

    /// Marks session `id` used at `at`, and records `client` when given (the
    /// `hello`'s client string).
    pub async fn touch_session(
        &self,
        id: Uuid,
        at: DateTime<Utc>,
        client: Option<&str>,
    ) -> Result<(), StoreError> {
        let at = micros(at);
        with_pool!(self, pool => match client {
            Some(c) => sqlx::query(TOUCH_CLIENT).bind(id).bind(at).bind(c).execute(pool).await.map(|_| ()),
            None => sqlx::query(TOUCH).bind(id).bind(at).execute(pool).await.map(|_| ()),
        })?;
        Ok(())
    }

    /// `player`'s sessions, most recently used first (then newest, then id).
    pub async fn sessions_of(&self, player: Uuid) -> Result<Vec<Session>, StoreError> {
        let rows: Vec<SessionRow> = with_pool!(self, pool => sqlx::query_as(SESSIONS_OF)
            .bind(player)
            .fetch_all(pool)
            .await)?;
        let mut out: Vec<Session> = rows.into_iter().map(Session::from).collect();
        out.sort_by(|a, b| {
            (b.last_used_at, b.created_at, b.id).cmp(&(a.last_used_at, a.created_at, a.id))
        });
        Ok(out)
    }

    /// Signs out session `id` of `player`: true when it existed (and was `player`'s).
    pub async fn delete_session(&self, player: Uuid, id: Uuid) -> Result<bool, StoreError> {
        let n = with_pool!(self, pool => sqlx::query(DELETE_SESSION)
            .bind(id)
            .bind(player)
            .execute(pool)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(n == 1)
    }

    /// Deletes session `id` whoever it belongs to (an expired session found in use).
    pub async fn expire_session(&self, id: Uuid) -> Result<(), StoreError> {
        with_pool!(self, pool => sqlx::query(DELETE_ONE).bind(id).execute(pool).await.map(|_| ()))?;
        Ok(())
    }

    /// Signs out every session of `player` but `keep`; returns the ids signed out.
    pub async fn delete_other_sessions(
        &self,
        player: Uuid,
        keep: Uuid,
    ) -> Result<Vec<Uuid>, StoreError> {
        Ok(with_pool!(self, pool => sqlx::query_scalar(DELETE_OTHERS)
            .bind(player)
            .bind(keep)
            .fetch_all(pool)
            .await)?)
    }

    /// Makes guest `player` an account: `username` as shown, `username_key` its case
    /// fold (unique), `password_hash` an Argon2id PHC string.
    ///
    /// Errors: [`StoreError::Conflict`]`("username")` when another account has the
    /// key; [`StoreError::Conflict`]`("already claimed")` when `player` is already
    /// an account (or unknown or deleted). Nothing is written then.
    pub async fn claim_account(
        &self,
        player: Uuid,
        username: &str,
        username_key: &str,
        password_hash: &str,
    ) -> Result<(), StoreError> {
        let res = with_pool!(self, pool => sqlx::query(CLAIM)
            .bind(player)
            .bind(username)
            .bind(username_key)
            .bind(password_hash)
            .execute(pool)
            .await
            .map(|r| r.rows_affected()));
        match res {
            Ok(1) => Ok(()),
            Ok(_) => Err(StoreError::Conflict("already claimed")),
            Err(sqlx::Error::Database(db)) if db.is_unique_violation() => {
                Err(StoreError::Conflict("username"))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The account whose username folds to `username_key`: its player id and
    /// password hash.
    pub async fn credentials(
        &self,
        username_key: &str,
    ) -> Result<Option<(Uuid, String)>, StoreError> {
        Ok(with_pool!(self, pool => sqlx::query_as(CREDENTIALS)
            .bind(username_key)
            .fetch_optional(pool)
            .await)?)
    }

    /// `player`'s password hash: `None` for a guest (or an unknown or deleted player).
    pub async fn password_hash(&self, player: Uuid) -> Result<Option<String>, StoreError> {
        let h: Option<Option<String>> = with_pool!(self, pool => sqlx::query_scalar(PASSWORD_OF)
            .bind(player)
            .fetch_optional(pool)
            .await)?;
        Ok(h.flatten())
    }

    /// Replaces account `player`'s password hash and signs out every other session
    /// (all but `keep`), in one transaction; returns the ids signed out.
    ///
    /// Errors: [`StoreError::Invalid`] when `player` is not an account.
    pub async fn set_password(
        &self,
        player: Uuid,
        password_hash: &str,
        keep: Uuid,
    ) -> Result<Vec<Uuid>, StoreError> {
        let res: Result<Option<Vec<Uuid>>, sqlx::Error> = with_pool!(self, pool => async {
            let mut tx = crate::store::begin_write(pool).await?;
            let n = sqlx::query(SET_PASSWORD)
                .bind(player)
                .bind(password_hash)
                .execute(&mut *tx)
                .await
                .map(|r| r.rows_affected())?;
            if n != 1 {
                return Ok(None);
            }
            let ids: Vec<Uuid> = sqlx::query_scalar(DELETE_OTHERS)
                .bind(player)
                .bind(keep)
                .fetch_all(&mut *tx)
                .await?;
            tx.commit().await.map(|()| Some(ids))
        }
        .await);
        res?.ok_or_else(|| StoreError::Invalid("not an account".into()))
    }

    /// Changes `player`'s display name (already checked by the names policy); true
    /// when the player exists.
    pub async fn rename_player(&self, player: Uuid, name: &str) -> Result<bool, StoreError> {
        let n = with_pool!(self, pool => sqlx::query(RENAME)
            .bind(player)
            .bind(name)
            .execute(pool)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(n == 1)
    }

    /// Deletes `player`'s account (or guest identity) in one transaction: its name,
    /// username, password, sessions and passkeys go; its rating rows stay, numbers
    /// under an id with no name (the other players' ratings were computed with them,
    /// and [`Store::recompute_ratings`] still agrees), but the leaderboards and
    /// [`Store::player`] no longer show it; its seats in finished
    /// matches keep their results with the name `""`, its chat lines lose name and
    /// text; turns, seeds and dice stay, so replays still verify. Returns the ids of
    /// the sessions it had (to close their sockets). `retired_token_hash` replaces
    /// the retired `players.token_hash` (a random value nobody holds).
    ///
    /// Errors: [`StoreError::Conflict`]`("in_match")` while the player sits in a
    /// running match it has not left; [`StoreError::Invalid`] for an unknown or
    /// already deleted player. Nothing is written then.
    pub async fn delete_account(
        &self,
        player: Uuid,
        retired_token_hash: &str,
    ) -> Result<Vec<Uuid>, StoreError> {
        check_hash(retired_token_hash)?;
        let now = micros(Utc::now());
        let res: Result<Result<Vec<Uuid>, StoreError>, sqlx::Error> = with_pool!(self, pool => async {
            let mut tx = crate::store::begin_write(pool).await?;
            let running: Option<Uuid> = sqlx::query_scalar(SEATED_IN_RUNNING)
                .bind(player)
                .fetch_optional(&mut *tx)
                .await?;
            if running.is_some() {
                return Ok(Err(StoreError::Conflict("in_match")));
            }
            let ids: Vec<Uuid> = sqlx::query_scalar(SESSION_IDS)
                .bind(player)
                .fetch_all(&mut *tx)
                .await?;
            let n = sqlx::query(ERASE_PLAYER)
                .bind(player)
                .bind(now)
                .bind(retired_token_hash)
                .execute(&mut *tx)
                .await
                .map(|r| r.rows_affected())?;
            if n != 1 {
                return Ok(Err(StoreError::Invalid("no such player".into())));
            }
            for q in [
                ERASE_SEAT_NAMES,
                ERASE_CHAT,
                ERASE_SESSIONS,
                ERASE_PASSKEYS,
                ERASE_CHALLENGES,
            ] {
                sqlx::query(q).bind(player).execute(&mut *tx).await.map(|_| ())?;
            }
            tx.commit().await.map(|()| Ok(ids))
        }
        .await);
        res?
    }
}
