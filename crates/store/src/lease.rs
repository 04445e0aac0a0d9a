//! Room leases for cluster mode: several server nodes on one PostgreSQL database,
//! each running match owned by exactly one node at a time (table `room_leases`,
//! migration 0005).
//!
//! * A node that creates a match takes its lease with fencing token 1 in the same
//!   transaction as the match's row ([`crate::WriteOp::CreateMatch`] through a
//!   writer started with [`crate::spawn_writer_fenced`]).
//! * The owner extends its leases ([`Store::renew_leases`]); a lease not extended
//!   expires `lease` after the last renewal, on the database's clock (nodes' clocks
//!   never compare).
//! * Any node claims matches whose lease expired ([`Store::claim_expired`]): the token
//!   goes up by one and the match is resumed from its stored log.
//! * **Fencing**: every write of a fenced writer carries the token its node held when
//!   the room made it; the writer's transaction reads the current tokens of its
//!   matches (`FOR SHARE`, so a claim waits for the transaction and a transaction
//!   waits for a claim) and skips every op whose token is no longer the current one.
//!   A node that lost a match (it was paused, partitioned or slow) thus writes
//!   nothing more for it, whatever it still believes.
//! * A node leaving on SIGTERM releases its leases ([`Store::release_leases`]) so the
//!   others claim them at once.
//!
//! PostgreSQL only: on SQLite these calls answer [`StoreError::Invalid`].

use crate::error::StoreError;
use crate::store::{Backend, Store};
use crate::writer::WriteOp;
use sqlx::PgPool;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use uuid::Uuid;

/// The matches one node holds, with their fencing tokens, and its lease settings.
/// Shared by the node's writer (which stamps each op with its match's token) and the
/// cluster tasks that renew, claim and release.
#[derive(Debug)]
pub struct Leases {
    node_id: String,
    lease: Duration,
    held: Mutex<Held>,
}

/// The matches held (with tokens) and those of them whose creation (and so their
/// lease row) is not committed yet: a renewal does not count those as lost.
#[derive(Debug, Default)]
struct Held {
    tokens: HashMap<Uuid, i64>,
    creating: std::collections::HashSet<Uuid>,
    /// New matches not to list for spectators (private lobbies').
    unlisted: std::collections::HashSet<Uuid>,
}

/// The token of a match this node does not hold: no stored lease has it (tokens
/// start at 1), so a write stamped with it is always fenced.
pub const NOT_HELD: i64 = 0;

impl Leases {
    /// A node `node_id` holding nothing yet; its leases last `lease` from each renewal.
    pub fn new(node_id: impl Into<String>, lease: Duration) -> Arc<Leases> {
        Arc::new(Leases {
            node_id: node_id.into(),
            lease,
            held: Mutex::new(Held::default()),
        })
    }

    /// This node's id.
    pub fn node_id(&self) -> &str {
        &self.node_id
    }

    /// How long a lease lasts after its last renewal.
    pub fn lease(&self) -> Duration {
        self.lease
    }

    fn map(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The matches held, with their tokens (new matches included).
    pub fn held(&self) -> Vec<(Uuid, i64)> {
        self.map().tokens.iter().map(|(&id, &t)| (id, t)).collect()
    }

    /// The token this node holds for `match_id`, if it holds it.
    pub fn token(&self, match_id: Uuid) -> Option<i64> {
        self.map().tokens.get(&match_id).copied()
    }

    /// The matches held whose creation is committed (their lease rows exist), with
    /// their tokens: what a renewal can find. Taken under one lock, so a match
    /// created while the renewal runs is not taken for lost.
    pub fn settled(&self) -> Vec<(Uuid, i64)> {
        let m = self.map();
        m.tokens
            .iter()
            .filter(|(id, _)| !m.creating.contains(id))
            .map(|(&id, &t)| (id, t))
            .collect()
    }

    /// True while `match_id`'s creation is not committed (its lease row may not
    /// exist yet).
    pub fn is_creating(&self, match_id: Uuid) -> bool {
        self.map().creating.contains(&match_id)
    }

    /// Records that this node holds `match_id` with `token` (after a claim).
    pub fn hold(&self, match_id: Uuid, token: i64) {
        self.map().tokens.insert(match_id, token);
    }

    /// Forgets `match_id` if it is held with `token`; true when it was.
    pub fn forget(&self, match_id: Uuid, token: i64) -> bool {
        let mut m = self.map();
        if m.tokens.get(&match_id) == Some(&token) {
            m.tokens.remove(&match_id);
            m.creating.remove(&match_id);
            true
        } else {
            false
        }
    }

    /// The token to stamp `op` with: 1 for a new match (which this node then holds,
    /// as being created until [`Leases::created`]), else the held token, or
    /// [`NOT_HELD`].
    pub(crate) fn stamp(&self, op: &WriteOp) -> i64 {
        match op {
            WriteOp::CreateMatch(m) => {
                let mut h = self.map();
                h.tokens.insert(m.id, 1);
                h.creating.insert(m.id);
                1
            }
            other => self.token(other.match_id()).unwrap_or(NOT_HELD),
        }
    }

    /// The creation of `match_id` (and its lease row) is committed.
    pub(crate) fn created(&self, match_id: Uuid) {
        let mut h = self.map();
        h.creating.remove(&match_id);
        h.unlisted.remove(&match_id);
    }

    /// Marks the match about to be created as not listed for spectators (its lease
    /// row says so: [`Store::listed_matches`]). Call before sending its
    /// [`WriteOp::CreateMatch`].
    pub fn unlist(&self, match_id: Uuid) {
        self.map().unlisted.insert(match_id);
    }

    /// False for a new match marked with [`Leases::unlist`].
    pub(crate) fn is_listed(&self, match_id: Uuid) -> bool {
        !self.map().unlisted.contains(&match_id)
    }
}

/// Extends the leases given (match, token) of `$1` where the token is still current.
const RENEW: &str = "UPDATE room_leases l SET expires_at = now() + make_interval(secs => $2) \
    FROM unnest($3::uuid[], $4::bigint[]) AS h(id, token) \
    WHERE l.match_id = h.id AND l.fencing_token = h.token AND l.node_id = $1 \
    RETURNING l.match_id";
/// Running matches without a lease (stored before cluster mode): an expired lease
/// with token 1, for the claim that follows.
const ADOPT: &str = "INSERT INTO room_leases (match_id, node_id, fencing_token, expires_at) \
    SELECT m.id, '', 1, now() - interval '1 second' FROM matches m \
    WHERE m.status = 'running' \
    AND NOT EXISTS (SELECT 1 FROM room_leases l WHERE l.match_id = m.id) \
    ON CONFLICT (match_id) DO NOTHING";
/// Claims up to `$3` expired leases of running matches for `$1` (token + 1), except
/// those in `$4` (held here already), skipping rows another node is claiming.
const CLAIM: &str = "UPDATE room_leases SET node_id = $1, fencing_token = fencing_token + 1, \
    expires_at = now() + make_interval(secs => $2) \
    WHERE match_id IN (SELECT l.match_id FROM room_leases l JOIN matches m ON m.id = l.match_id \
        WHERE l.expires_at < now() AND m.status = 'running' AND NOT (l.match_id = ANY($4)) \
        ORDER BY l.expires_at LIMIT $3 FOR UPDATE OF l SKIP LOCKED) \
    RETURNING match_id, fencing_token";
/// Leases of running matches held by another node than `$1` (and not adopted ones)
/// that expired less than `$2` seconds ago.
const RECENTLY_EXPIRED: &str = "SELECT l.match_id, l.node_id FROM room_leases l \
    JOIN matches m ON m.id = l.match_id \
    WHERE m.status = 'running' AND l.node_id <> $1 AND l.node_id <> '' \
    AND l.expires_at < now() AND l.expires_at >= now() - make_interval(secs => $2) \
    ORDER BY l.node_id, l.expires_at LIMIT $3";
/// Ends the leases given (match, token) of `$1` now.
const RELEASE: &str = "UPDATE room_leases l SET expires_at = now() - interval '1 second' \
    FROM unnest($2::uuid[], $3::bigint[]) AS h(id, token) \
    WHERE l.match_id = h.id AND l.fencing_token = h.token AND l.node_id = $1";
const RUNNING_MATCH_OF: &str = "SELECT m.id FROM matches m \
    JOIN match_seats s ON s.match_id = m.id \
    WHERE s.player_id = $1 AND m.status = 'running' AND s.left_seq IS NULL \
    ORDER BY m.started_at DESC LIMIT 1";
const LISTED: &str = "SELECT l.match_id FROM room_leases l JOIN matches m ON m.id = l.match_id \
    WHERE l.listed AND m.status = 'running' ORDER BY m.started_at DESC, m.id DESC LIMIT $1";
const LEASE_OF: &str = "SELECT node_id, fencing_token FROM room_leases WHERE match_id = $1";
/// The node holding `$1`'s lease, when it has not expired.
const LIVE_OWNER: &str = "SELECT node_id FROM room_leases \
    WHERE match_id = $1 AND expires_at > now() AND node_id <> ''";
/// Takes or extends the role `$1` for node `$2` (for `$3` seconds) when it is free,
/// expired or held by `$2` already; returns a row only then.
const CLAIM_ROLE: &str = "INSERT INTO cluster_roles (role, node_id, expires_at) \
    VALUES ($1, $2, now() + make_interval(secs => $3)) \
    ON CONFLICT (role) DO UPDATE SET node_id = EXCLUDED.node_id, expires_at = EXCLUDED.expires_at \
    WHERE cluster_roles.node_id = EXCLUDED.node_id OR cluster_roles.expires_at < now() \
    RETURNING node_id";
/// Ends node `$2`'s hold of role `$1` now.
const RELEASE_ROLE: &str = "UPDATE cluster_roles SET expires_at = now() - interval '1 second' \
    WHERE role = $1 AND node_id = $2";

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

impl Store {
    fn pg(&self) -> Result<&PgPool, StoreError> {
        match &self.backend {
            Backend::Pg(pool) => Ok(pool),
            Backend::Sqlite(_) => Err(StoreError::Invalid(
                "room leases (cluster mode) need PostgreSQL".into(),
            )),
        }
    }

    /// Extends every lease `leases` holds by [`Leases::lease`] from now (database
    /// clock) where this node still owns it with the same token. Returns the held
    /// (match, token) pairs that were NOT renewed: another node claimed them (or the
    /// match ended); the caller stops those rooms. Pairs forgotten meanwhile (a match
    /// whose result was just written) are not returned.
    ///
    /// Errors: [`StoreError::Unavailable`]; [`StoreError::Invalid`] on SQLite.
    pub async fn renew_leases(&self, leases: &Leases) -> Result<Vec<(Uuid, i64)>, StoreError> {
        let pool = self.pg()?;
        // Only matches whose lease row existed before the query: one whose creation
        // commits while the query runs is not in its snapshot, and is not lost.
        let held = leases.settled();
        if held.is_empty() {
            return Ok(Vec::new());
        }
        let (ids, tokens): (Vec<Uuid>, Vec<i64>) = held.iter().copied().unzip();
        let renewed: Vec<(Uuid,)> = sqlx::query_as(RENEW)
            .bind(leases.node_id())
            .bind(secs(leases.lease()))
            .bind(&ids)
            .bind(&tokens)
            .fetch_all(pool)
            .await?;
        let renewed: std::collections::HashSet<Uuid> =
            renewed.into_iter().map(|(id,)| id).collect();
        Ok(held
            .into_iter()
            .filter(|(id, token)| {
                !renewed.contains(id)
                    && !leases.is_creating(*id)
                    && leases.token(*id) == Some(*token)
            })
            .collect())
    }

    /// Claims for this node up to `limit` running matches whose lease has expired
    /// (another node died, was paused, or left), and running matches that have no
    /// lease at all (stored before cluster mode). Each claim adds one to the match's
    /// fencing token, is recorded in `leases`, and is returned as (match, token):
    /// the caller resumes those matches. Rows another node is claiming at the same
    /// time are skipped (`FOR UPDATE SKIP LOCKED`), so each match goes to one node.
    ///
    /// Matches in `spared` are not claimed (their owner still runs them, see
    /// [`Store::recently_expired`]).
    ///
    /// Errors: [`StoreError::Unavailable`]; [`StoreError::Invalid`] on SQLite.
    pub async fn claim_expired(
        &self,
        leases: &Leases,
        limit: u32,
        spared: &[Uuid],
    ) -> Result<Vec<(Uuid, i64)>, StoreError> {
        let pool = self.pg()?;
        let mut held: Vec<Uuid> = leases.held().into_iter().map(|(id, _)| id).collect();
        held.extend_from_slice(spared);
        let mut tx = pool.begin().await?;
        sqlx::query(ADOPT).execute(&mut *tx).await?;
        let claimed: Vec<(Uuid, i64)> = sqlx::query_as(CLAIM)
            .bind(leases.node_id())
            .bind(secs(leases.lease()))
            .bind(i64::from(limit))
            .bind(&held)
            .fetch_all(&mut *tx)
            .await?;
        tx.commit().await?;
        for &(id, token) in &claimed {
            leases.hold(id, token);
        }
        Ok(claimed)
    }

    /// Up to `limit` running matches whose lease, held by another node than
    /// `leases`' own, expired less than `within` ago, as (match, owner node id),
    /// grouped by node. The owner may only have been unable to renew (the database
    /// was unreachable): the caller asks it before claiming (cluster lease grace).
    ///
    /// Errors: [`StoreError::Unavailable`]; [`StoreError::Invalid`] on SQLite.
    pub async fn recently_expired(
        &self,
        leases: &Leases,
        within: Duration,
        limit: u32,
    ) -> Result<Vec<(Uuid, String)>, StoreError> {
        let pool = self.pg()?;
        Ok(sqlx::query_as(RECENTLY_EXPIRED)
            .bind(leases.node_id())
            .bind(secs(within))
            .bind(i64::from(limit))
            .fetch_all(pool)
            .await?)
    }

    /// Ends every lease `leases` holds now (a node leaving on SIGTERM, after its
    /// rooms stopped and its writer flushed) and forgets them, so other nodes claim
    /// the matches at their next scan instead of waiting for expiry.
    ///
    /// Errors: [`StoreError::Unavailable`]; [`StoreError::Invalid`] on SQLite.
    pub async fn release_leases(&self, leases: &Leases) -> Result<usize, StoreError> {
        let pool = self.pg()?;
        let held = leases.held();
        let (ids, tokens): (Vec<Uuid>, Vec<i64>) = held.iter().copied().unzip();
        let n = sqlx::query(RELEASE)
            .bind(leases.node_id())
            .bind(&ids)
            .bind(&tokens)
            .execute(pool)
            .await?
            .rows_affected();
        for (id, token) in held {
            leases.forget(id, token);
        }
        Ok(n as usize)
    }

    /// Up to `limit` running matches of the whole cluster that may be listed for
    /// spectators (not a private lobby's), newest first: one query over the leases.
    ///
    /// Errors: [`StoreError::Unavailable`]; [`StoreError::Invalid`] on SQLite.
    pub async fn listed_matches(&self, limit: u32) -> Result<Vec<Uuid>, StoreError> {
        let pool = self.pg()?;
        Ok(sqlx::query_scalar(LISTED)
            .bind(i64::from(limit))
            .fetch_all(pool)
            .await?)
    }

    /// The running match `player` has a seat in (and did not leave), if any,
    /// whichever node runs it.
    ///
    /// Errors: [`StoreError::Unavailable`]; [`StoreError::Invalid`] on SQLite.
    pub async fn running_match_of(&self, player: Uuid) -> Result<Option<Uuid>, StoreError> {
        let pool = self.pg()?;
        Ok(sqlx::query_scalar(RUNNING_MATCH_OF)
            .bind(player)
            .fetch_optional(pool)
            .await?)
    }

    /// The owner node and fencing token of `match_id`'s lease, if it has one.
    ///
    /// Errors: [`StoreError::Unavailable`]; [`StoreError::Invalid`] on SQLite.
    pub async fn lease_of(&self, match_id: Uuid) -> Result<Option<(String, i64)>, StoreError> {
        let pool = self.pg()?;
        Ok(sqlx::query_as(LEASE_OF)
            .bind(match_id)
            .fetch_optional(pool)
            .await?)
    }

    /// The node whose lease on `match_id` has not expired (database clock), if any:
    /// `None` when the match has no lease, or its lease expired or was released
    /// (its owner stopped or lost it: another node may resume the match).
    ///
    /// Errors: [`StoreError::Unavailable`]; [`StoreError::Invalid`] on SQLite.
    pub async fn live_owner(&self, match_id: Uuid) -> Result<Option<String>, StoreError> {
        let pool = self.pg()?;
        Ok(sqlx::query_scalar(LIVE_OWNER)
            .bind(match_id)
            .fetch_optional(pool)
            .await?)
    }

    /// Takes the cluster-wide role `role` (e.g. `"matchmaker"`) for `node` for
    /// `lease` from now (database clock), or extends it, when no other node holds it
    /// unexpired. True when `node` holds the role now; at most one node does.
    ///
    /// Errors: [`StoreError::Unavailable`]; [`StoreError::Invalid`] on SQLite.
    pub async fn claim_role(
        &self,
        role: &str,
        node: &str,
        lease: Duration,
    ) -> Result<bool, StoreError> {
        let pool = self.pg()?;
        let held: Option<String> = sqlx::query_scalar(CLAIM_ROLE)
            .bind(role)
            .bind(node)
            .bind(secs(lease))
            .fetch_optional(pool)
            .await?;
        Ok(held.is_some())
    }

    /// Ends `node`'s hold of `role` now (no-op when it does not hold it), so another
    /// node takes it at its next claim.
    ///
    /// Errors: [`StoreError::Unavailable`]; [`StoreError::Invalid`] on SQLite.
    pub async fn release_role(&self, role: &str, node: &str) -> Result<(), StoreError> {
        let pool = self.pg()?;
        sqlx::query(RELEASE_ROLE)
            .bind(role)
            .bind(node)
            .execute(pool)
            .await?;
        Ok(())
    }
}
