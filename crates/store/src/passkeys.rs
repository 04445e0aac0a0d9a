//! Passkeys (issue 29): the WebAuthn credentials of an account (table `passkeys`,
//! migration 0012). A credential id is registered to at most one account; an
//! account holds a bounded number of them; deleting the account deletes them
//! ([`Store::delete_account`]).

use crate::codec::micros;
use crate::error::StoreError;
use crate::model::StoredPasskey;
use crate::store::{with_pool, Store};
use chrono::{DateTime, Utc};
use uuid::Uuid;

#[derive(sqlx::FromRow)]
struct PasskeyRow {
    id: String,
    player_id: Uuid,
    passkey: String,
    name: String,
    created_at: DateTime<Utc>,
    last_used_at: Option<DateTime<Utc>>,
}

impl From<PasskeyRow> for StoredPasskey {
    fn from(r: PasskeyRow) -> StoredPasskey {
        StoredPasskey {
            id: r.id,
            player_id: r.player_id,
            passkey: r.passkey,
            name: r.name,
            created_at: r.created_at,
            last_used_at: r.last_used_at,
        }
    }
}

const COLUMNS: &str = "k.id, k.player_id, k.passkey, k.name, k.created_at, k.last_used_at";
const COUNT_OF: &str = "SELECT COUNT(*) FROM passkeys WHERE player_id = $1";
const IS_ACCOUNT: &str = "SELECT COUNT(*) FROM players \
    WHERE id = $1 AND deleted_at IS NULL AND username_key IS NOT NULL";
const INSERT: &str =
    "INSERT INTO passkeys (id, player_id, passkey, name, created_at, last_used_at) \
    VALUES ($1, $2, $3, $4, $5, NULL)";
const DELETE: &str = "DELETE FROM passkeys WHERE id = $1 AND player_id = $2";
const USED: &str = "UPDATE passkeys SET passkey = $2, last_used_at = $3 WHERE id = $1";

impl Store {
    /// Adds passkey `p` to account `p.player_id` (`p.last_used_at` is ignored: a new
    /// passkey has not signed in yet), unless the account already holds `max`
    /// passkeys. Checked and written in one transaction.
    ///
    /// Errors: [`StoreError::Conflict`]`("passkey")` when the credential id is
    /// registered already (to any account); [`StoreError::Conflict`]`("too_many")`
    /// at `max`; [`StoreError::Invalid`] when the player is not an account (a guest,
    /// unknown or deleted). Nothing is written then.
    pub async fn add_passkey(&self, p: &StoredPasskey, max: usize) -> Result<(), StoreError> {
        let max = i64::try_from(max).unwrap_or(i64::MAX);
        let res: Result<Result<(), StoreError>, sqlx::Error> = with_pool!(self, pool => async {
            let mut tx = crate::store::begin_write(pool).await?;
            let accounts: i64 = sqlx::query_scalar(IS_ACCOUNT)
                .bind(p.player_id)
                .fetch_one(&mut *tx)
                .await?;
            if accounts != 1 {
                return Ok(Err(StoreError::Invalid("not an account".into())));
            }
            let n: i64 = sqlx::query_scalar(COUNT_OF)
                .bind(p.player_id)
                .fetch_one(&mut *tx)
                .await?;
            if n >= max {
                return Ok(Err(StoreError::Conflict("too_many")));
            }
            let inserted = sqlx::query(INSERT)
                .bind(&p.id)
                .bind(p.player_id)
                .bind(&p.passkey)
                .bind(&p.name)
                .bind(micros(p.created_at))
                .execute(&mut *tx)
                .await;
            match inserted {
                Err(sqlx::Error::Database(db)) if db.is_unique_violation() => {
                    return Ok(Err(StoreError::Conflict("passkey")));
                }
                other => other.map(|_| ())?,
            }
            tx.commit().await.map(Ok)
        }
        .await);
        res?
    }

    /// `player`'s passkeys, oldest first (then by id).
    pub async fn passkeys_of(&self, player: Uuid) -> Result<Vec<StoredPasskey>, StoreError> {
        let q = format!("SELECT {COLUMNS} FROM passkeys k WHERE k.player_id = $1");
        let rows: Vec<PasskeyRow> = with_pool!(self, pool => sqlx::query_as(&q)
            .bind(player)
            .fetch_all(pool)
            .await)?;
        let mut out: Vec<StoredPasskey> = rows.into_iter().map(StoredPasskey::from).collect();
        out.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(out)
    }

    /// The passkey with credential id `id`, if it belongs to an account that is not
    /// deleted.
    pub async fn passkey(&self, id: &str) -> Result<Option<StoredPasskey>, StoreError> {
        let q = format!(
            "SELECT {COLUMNS} FROM passkeys k JOIN players p ON p.id = k.player_id \
             WHERE k.id = $1 AND p.deleted_at IS NULL"
        );
        let row: Option<PasskeyRow> = with_pool!(self, pool => sqlx::query_as(&q)
            .bind(id)
            .fetch_optional(pool)
            .await)?;
        Ok(row.map(StoredPasskey::from))
    }

    /// Removes passkey `id` of `player`: true when it existed (and was `player`'s).
    pub async fn delete_passkey(&self, player: Uuid, id: &str) -> Result<bool, StoreError> {
        let n = with_pool!(self, pool => sqlx::query(DELETE)
            .bind(id)
            .bind(player)
            .execute(pool)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(n == 1)
    }

    /// Records a sign-in with passkey `id` at `at`: its serialized credential becomes
    /// `passkey` (the signature counter moved on). True when the passkey exists.
    pub async fn passkey_used(
        &self,
        id: &str,
        passkey: &str,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let n = with_pool!(self, pool => sqlx::query(USED)
            .bind(id)
            .bind(passkey)
            .bind(micros(at))
            .execute(pool)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(n == 1)
    }
}
