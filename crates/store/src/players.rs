//! Players: guest creation (a player and its first session) and look-up by id or
//! by a session's token hash.

use crate::codec::micros;
use crate::error::StoreError;
use crate::model::Player;
use crate::store::{with_pool, Store};
use chrono::{DateTime, Utc};
use uuid::Uuid;

#[derive(sqlx::FromRow)]
struct PlayerRow {
    id: Uuid,
    name: String,
    created_at: DateTime<Utc>,
    username: Option<String>,
}

impl From<PlayerRow> for Player {
    fn from(r: PlayerRow) -> Player {
        Player {
            id: r.id,
            name: r.name,
            created_at: r.created_at,
            username: r.username,
        }
    }
}

const INSERT: &str =
    "INSERT INTO players (id, name, token_hash, created_at) VALUES ($1, $2, $3, $4)";
pub(crate) const INSERT_SESSION: &str = "INSERT INTO sessions \
    (id, player_id, token_hash, client, created_at, last_used_at) VALUES ($1, $2, $3, $4, $5, $5)";
const BY_TOKEN: &str = "SELECT p.id, p.name, p.created_at, p.username FROM sessions s \
    JOIN players p ON p.id = s.player_id WHERE s.token_hash = $1 AND p.deleted_at IS NULL";
const BY_ID: &str =
    "SELECT id, name, created_at, username FROM players WHERE id = $1 AND deleted_at IS NULL";

pub(crate) fn is_token_hash(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl Store {
    /// Records a guest and its first session, in one transaction: `token_hash` is
    /// the SHA-256 of its bearer token as 64 lowercase hex digits; `created_at` is
    /// now. Returns the session's id (a new random UUID; its client string is empty
    /// until the first `hello`).
    ///
    /// Errors: [`StoreError::Invalid`] for a malformed hash, [`StoreError::Conflict`]
    /// when the id or the token hash is taken (nothing is written).
    pub async fn create_guest(
        &self,
        id: Uuid,
        name: &str,
        token_hash: &str,
    ) -> Result<Uuid, StoreError> {
        self.create_guest_at(id, name, token_hash, Utc::now()).await
    }

    /// [`Store::create_guest`] at time `at` (the server's clock: a session's idle
    /// expiry is counted from it).
    pub async fn create_guest_at(
        &self,
        id: Uuid,
        name: &str,
        token_hash: &str,
        at: DateTime<Utc>,
    ) -> Result<Uuid, StoreError> {
        if !is_token_hash(token_hash) {
            return Err(StoreError::Invalid(
                "token_hash must be 64 lowercase hex digits".into(),
            ));
        }
        let now = micros(at);
        let session = Uuid::new_v4();
        let res = with_pool!(self, pool => async {
            let mut tx = crate::store::begin_write(pool).await?;
            sqlx::query(INSERT)
                .bind(id)
                .bind(name)
                .bind(token_hash)
                .bind(now)
                .execute(&mut *tx)
                .await?;
            sqlx::query(INSERT_SESSION)
                .bind(session)
                .bind(id)
                .bind(token_hash)
                .bind("")
                .bind(now)
                .execute(&mut *tx)
                .await?;
            tx.commit().await
        }
        .await);
        match res.map(|()| session) {
            Err(sqlx::Error::Database(db)) if db.is_unique_violation() => {
                Err(StoreError::Conflict("player id or token"))
            }
            other => other.map_err(StoreError::from),
        }
    }

    /// The player whose session's token hashes to `token_hash`, if any (not a
    /// deleted account; the session's idle expiry is checked by
    /// [`Store::session_by_token_hash`], which the server uses).
    pub async fn player_by_token_hash(
        &self,
        token_hash: &str,
    ) -> Result<Option<Player>, StoreError> {
        let row: Option<PlayerRow> = with_pool!(self, pool => sqlx::query_as(BY_TOKEN)
            .bind(token_hash)
            .fetch_optional(pool)
            .await)?;
        Ok(row.map(Player::from))
    }

    /// The player with this id, if any and not deleted.
    pub async fn player(&self, id: Uuid) -> Result<Option<Player>, StoreError> {
        let row: Option<PlayerRow> = with_pool!(self, pool => sqlx::query_as(BY_ID)
            .bind(id)
            .fetch_optional(pool)
            .await)?;
        Ok(row.map(Player::from))
    }
}
