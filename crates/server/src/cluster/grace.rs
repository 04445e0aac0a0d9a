//! The lease grace (issue 34.4): a database outage shorter than `--lease-grace-ms`
//! moves no match.
//!
//! While the database refuses connections no node can renew a lease, so every lease
//! expires — and no node can claim one either, since a claim is a database write. So
//! when the database answers again, a lease that expired during the outage is still
//! its owner's unless someone claimed it since. Before claiming an expired lease a
//! node asks its owner over NATS (`<prefix>.holds.<owner>`, a JSON array of match
//! ids) which of those matches it still runs; the owner answers with the ones it
//! does, and those are left to it: it renews them at its next renewal (every third
//! of the lease). Fencing still decides: an owner that lost a lease anyway writes
//! nothing more for that match.
//!
//! A lease is left to its owner only while its expiry is less than the grace ago
//! and the owner answers within [`HOLDS_ASK`]: a dead node (NATS answers "no
//! responders" at once), a paused one (no answer) or one that no longer runs the
//! match gets its matches claimed as before, and an owner alive on NATS that cannot
//! reach the database for longer than the grace loses them too.

use super::Cluster;
use crate::game::Game;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

/// How long a node waits for an owner's answer before claiming its expired leases
/// (1 s: right after a database outage every node is busy with its backlog, and an
/// owner answering late loses its matches; a dead owner's NATS answers "no
/// responders" at once, so only a paused one is claimed this much later).
pub(crate) const HOLDS_ASK: Duration = Duration::from_millis(1_000);
/// Most recently expired leases one scan asks about.
const ASK_LIMIT: u32 = 1024;

impl Cluster {
    fn holds_subject(&self, node: &str) -> String {
        self.subject(&format!("holds.{node}"))
    }

    /// Answers `<prefix>.holds.<this node>`: of the match ids asked (a JSON array),
    /// those this node still runs with a lease it holds (a JSON array). A malformed
    /// question gets `[]`.
    pub(super) async fn holds_loop(self: Arc<Self>, game: Game) {
        let Some(mut inbox) = self
            .listen(
                &game,
                self.holds_subject(self.node_id()),
                "cannot subscribe to lease questions; other nodes claim this node's expired leases at once",
            )
            .await
        else {
            return;
        };
        while let Some(msg) = inbox.next().await {
            let Some(reply) = msg.reply else { continue };
            let asked: Vec<Uuid> = serde_json::from_slice(&msg.payload).unwrap_or_default();
            let runs: Vec<Uuid> = asked
                .into_iter()
                .filter(|id| self.leases.token(*id).is_some() && game.registries().runs_room(*id))
                .collect();
            let body = serde_json::to_vec(&runs).unwrap_or_else(|_| b"[]".to_vec());
            if let Err(e) = self.nats.publish(reply, body.into()).await {
                tracing::warn!(error = %e, "lease answer not sent");
            }
        }
    }

    /// The matches whose lease expired less than the grace ago and whose owner
    /// answered that it still runs them: not to be claimed now. Empty with a zero
    /// grace.
    ///
    /// Errors: the store could not list the recently expired leases. The caller
    /// then claims nothing this scan: right after a database outage the next query
    /// may well succeed, and a claim without this list would take every expired
    /// lease from owners that still run their matches.
    pub(super) async fn spared(&self, game: &Game) -> Result<Vec<Uuid>, store::StoreError> {
        let grace = self.settings.lease_grace;
        if grace.is_zero() {
            return Ok(Vec::new());
        }
        let expired = game
            .store()
            .recently_expired(&self.leases, grace, ASK_LIMIT)
            .await?;
        let mut by_owner: BTreeMap<String, Vec<Uuid>> = BTreeMap::new();
        for (id, node) in expired {
            by_owner.entry(node).or_default().push(id);
        }
        let asks = by_owner
            .into_iter()
            .map(|(node, ids)| async move { self.ask_holds(&node, &ids).await });
        Ok(futures_util::future::join_all(asks)
            .await
            .into_iter()
            .flatten()
            .collect())
    }

    /// Which of `ids` node `node` still runs: its answer within [`HOLDS_ASK`], or
    /// none (no answer, no such node, NATS unreachable).
    async fn ask_holds(&self, node: &str, ids: &[Uuid]) -> Vec<Uuid> {
        let body = serde_json::to_vec(ids).unwrap_or_default();
        let asked = self.nats.request(self.holds_subject(node), body.into());
        let runs: Vec<Uuid> = match tokio::time::timeout(HOLDS_ASK, asked).await {
            Ok(Ok(reply)) => serde_json::from_slice(&reply.payload).unwrap_or_default(),
            _ => return Vec::new(),
        };
        // Only what was asked: an answer cannot spare other matches.
        let runs: Vec<Uuid> = runs.into_iter().filter(|id| ids.contains(id)).collect();
        if !runs.is_empty() {
            tracing::info!(
                owner = node,
                matches = runs.len(),
                "expired leases left to their owner, which still runs the matches (lease grace)"
            );
        }
        runs
    }
}
