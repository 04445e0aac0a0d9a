//! Guest players: creation and look-up by id or token hash.

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
}

impl From<PlayerRow> for Player {
    fn from(r: PlayerRow) -> Player {
        Player {
            id: r.id,
            name: r.name,
            created_at: r.created_at,
        }
    }
}

const INSERT: &str =
    "INSERT INTO players (id, name, token_hash, created_at) VALUES ($1, $2, $3, $4)";
const BY_TOKEN: &str = "SELECT id, name, created_at FROM players WHERE token_hash = $1";
const BY_ID: &str = "SELECT id, name, created_at FROM players WHERE id = $1";

fn is_token_hash(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl Store {
    /// Records a guest: `token_hash` is the SHA-256 of its bearer token as 64
    /// lowercase hex digits; `created_at` is now.
    ///
    /// Errors: [`StoreError::Invalid`] for a malformed hash, [`StoreError::Conflict`]
    /// when the id or the token hash is taken (nothing is written).
    pub async fn create_guest(
        &self,
        id: Uuid,
        name: &str,
        token_hash: &str,
    ) -> Result<(), StoreError> {
        if !is_token_hash(token_hash) {
            return Err(StoreError::Invalid(
                "token_hash must be 64 lowercase hex digits".into(),
            ));
        }
        let now = micros(Utc::now());
        let res = with_pool!(self, pool => sqlx::query(INSERT)
            .bind(id)
            .bind(name)
            .bind(token_hash)
            .bind(now)
            .execute(pool)
            .await
            .map(|_| ()));
        match res {
            Err(sqlx::Error::Database(db)) if db.is_unique_violation() => {
                Err(StoreError::Conflict("player id or token"))
            }
            other => other.map_err(StoreError::from),
        }
    }

    /// The guest whose token hashes to `token_hash`, if any.
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

    /// The guest with this id, if any.
    pub async fn player(&self, id: Uuid) -> Result<Option<Player>, StoreError> {
        let row: Option<PlayerRow> = with_pool!(self, pool => sqlx::query_as(BY_ID)
            .bind(id)
            .fetch_optional(pool)
            .await)?;
        Ok(row.map(Player::from))
    }
}
