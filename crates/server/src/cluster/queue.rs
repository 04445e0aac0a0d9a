//! One quick-play queue for the whole cluster: players queued on different nodes
//! are matched together, and the bot fill runs on one clock.
//!
//! * One node at a time is the cluster's *matchmaker*: it holds the PostgreSQL role
//!   row `matchmaker` (`cluster_roles`, [`store::Store::claim_role`]), renewed every
//!   third of `--lease-ms`, and while it does it answers NATS requests on
//!   `<prefix>.matchmaker` ([`QueueWire`], JSON). Its own sockets use its
//!   matchmaker directly.
//! * Another node sends `join_queue`, `leave_queue`, the leave of a socket that
//!   closed, and a queued player's `hello` there (its local presence stays
//!   `Queued` meanwhile, so "already busy" is still decided on the socket's node).
//!   The matchmaker claims the player's presence itself, and holds a *stand-in*
//!   connection for the remote socket (as [`super::remote`] does for room
//!   commands): `ack`, `queue_status`, `match_started` and the match's frames reach
//!   the socket through it. The match starts on the matchmaker node, which owns its
//!   lease; the players' later commands reach it as remote room commands.
//! * When a remote player leaves the queue (left, socket closed, or seated) the
//!   matchmaker tells the socket's node on `<prefix>.mm.dequeued.<node>`, which
//!   frees the player's local `Queued` presence; `hello` then finds the player's
//!   match in PostgreSQL (`Store::running_match_of`).
//! * No matchmaker (none elected yet, or it just died): `join_queue` answers
//!   `internal` ("matchmaking is not available"). The queue of a matchmaker that
//!   dies is lost: its players queue again.

use super::Cluster;
use crate::matchmaker::MmCmd;
use crate::presence::Busy;
use crate::state::AppState;
use crate::ws::ConnHandle;
use engine::Mode;
use futures_util::StreamExt;
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use uuid::Uuid;

/// The role row of the cluster's matchmaker.
pub const MATCHMAKER_ROLE: &str = "matchmaker";

/// A queue request from another node's socket to the matchmaker node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueueWire {
    /// The node holding the socket.
    pub origin: String,
    /// The socket's connection id there.
    pub conn: u64,
    /// The signed-in player.
    pub player: Uuid,
    /// What it asks.
    pub cmd: QueueCmd,
}

/// What a [`QueueWire`] asks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum QueueCmd {
    /// `join_queue`.
    Join {
        /// The player's display name.
        name: String,
        /// journey or clash.
        mode: Mode,
    },
    /// `leave_queue`, or the socket closed (`closed`).
    Leave {
        /// The socket closed.
        closed: bool,
    },
    /// A queued player's new socket (`hello`): send it its `queue_status`.
    Status,
}

/// The matchmaker node's refusal of a [`QueueWire`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Refused {
    /// The error code for the client.
    pub code: ErrorCode,
    /// Its text.
    pub message: String,
}

/// A remote player left the queue: the notice to its socket's node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Dequeued {
    player: Uuid,
    mode: Mode,
}

/// The answer when no node runs the cluster's matchmaker.
fn unavailable() -> Refused {
    Refused {
        code: ErrorCode::Internal,
        message: "matchmaking is not available".into(),
    }
}

impl Cluster {
    /// True while this node is the cluster's matchmaker.
    pub fn is_matchmaker(&self) -> bool {
        self.mm_leader.load(Ordering::SeqCst)
    }

    /// The stand-in connection of a remote player queued here (matchmaker node).
    pub fn stand_in(&self, player: Uuid) -> Option<ConnHandle> {
        self.stand_ins.get(&player).map(|s| s.1.clone())
    }

    /// Sends `cmd` of the local socket `conn` (signed in as `player`) to the
    /// cluster's matchmaker and waits for its answer; the caller then answers the
    /// request (`ack`), so one socket's requests are answered in order. Frames for
    /// the socket (`queue_status`, `match_started`, …) arrive separately, through
    /// the forward loop.
    ///
    /// Errors: the matchmaker's refusal, or `internal` when no node answers.
    pub async fn queue_remote(
        &self,
        player: Uuid,
        cmd: QueueCmd,
        conn: &ConnHandle,
    ) -> Result<(), Refused> {
        let wire = QueueWire {
            origin: self.node_id().to_string(),
            conn: conn.id(),
            player,
            cmd,
        };
        let payload = serde_json::to_vec(&wire).map_err(|_| unavailable())?;
        self.conns.insert(conn.id(), conn.clone());
        let asked = self
            .nats
            .request(self.subject("matchmaker"), payload.into());
        match tokio::time::timeout(super::remote::REMOTE_TIMEOUT, asked).await {
            Ok(Ok(reply)) => match serde_json::from_slice::<Option<Refused>>(&reply.payload) {
                Ok(None) => Ok(()),
                Ok(Some(r)) => Err(r),
                Err(_) => Err(unavailable()),
            },
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "no matchmaker answered");
                Err(unavailable())
            }
            Err(_) => {
                tracing::warn!("the matchmaker did not answer in time");
                Err(unavailable())
            }
        }
    }

    /// Matchmaker node: `player` left the queue of `mode` (left, closed, or seated).
    /// When it queued from another node, its stand-in is dropped here (a room holds
    /// its own handle) and that node frees the player's `Queued` presence.
    pub fn dequeued(&self, player: Uuid, mode: Mode) {
        let Some((_, (origin, _))) = self.stand_ins.remove(&player) else {
            return;
        };
        let Ok(payload) = serde_json::to_vec(&Dequeued { player, mode }) else {
            return;
        };
        let nats = self.nats.clone();
        let subject = self.subject(&format!("mm.dequeued.{origin}"));
        tokio::spawn(async move {
            if let Err(e) = nats.publish(subject, payload.into()).await {
                tracing::warn!(error = %e, "dequeue notice not sent");
            }
        });
    }

    /// Every node: frees the local `Queued` presence of players the matchmaker node
    /// took out of its queue.
    pub(super) async fn dequeued_loop(self: Arc<Self>, state: AppState) {
        let token = state.shutdown_token().clone();
        let subject = self.subject(&format!("mm.dequeued.{}", self.node_id()));
        let mut sub = match self.nats.subscribe(subject).await {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(error = %e, "cannot subscribe to dequeue notices");
                return;
            }
        };
        loop {
            let msg = tokio::select! {
                _ = token.cancelled() => return,
                m = sub.next() => match m { Some(m) => m, None => return },
            };
            if let Ok(d) = serde_json::from_slice::<Dequeued>(&msg.payload) {
                state.presence().release(d.player, Busy::Queued(d.mode));
            }
        }
    }

    /// Every node: takes or renews the matchmaker role every third of the lease,
    /// and serves `<prefix>.matchmaker` while it holds it.
    pub(super) async fn matchmaker_loop(self: Arc<Self>, state: AppState) {
        let token = state.shutdown_token().clone();
        let mut tick = tokio::time::interval(self.settings.lease / 3);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut serving: Option<tokio_util::sync::CancellationToken> = None;
        loop {
            tokio::select! {
                _ = token.cancelled() => break,
                _ = tick.tick() => {}
            }
            let held = match state
                .store()
                .claim_role(MATCHMAKER_ROLE, self.node_id(), self.settings.lease)
                .await
            {
                Ok(h) => h,
                Err(e) => {
                    tracing::warn!(error = %e, "matchmaker role not renewed");
                    false
                }
            };
            match (held, serving.is_some()) {
                (true, false) => {
                    let stop = token.child_token();
                    let Some(sub) = self.serve_matchmaker_sub().await else {
                        continue;
                    };
                    tracing::info!(
                        node = self.node_id(),
                        "this node is the cluster's matchmaker"
                    );
                    self.mm_leader.store(true, Ordering::SeqCst);
                    let (me, st, s) = (self.clone(), state.clone(), stop.clone());
                    state
                        .tasks()
                        .spawn(async move { me.serve_matchmaker(st, sub, s).await });
                    serving = Some(stop);
                }
                (false, true) => {
                    tracing::warn!(node = self.node_id(), "this node lost the matchmaker role");
                    self.mm_leader.store(false, Ordering::SeqCst);
                    if let Some(s) = serving.take() {
                        s.cancel();
                    }
                }
                _ => {}
            }
        }
        if let Some(s) = serving {
            s.cancel();
        }
    }

    async fn serve_matchmaker_sub(&self) -> Option<async_nats::Subscriber> {
        match self.nats.subscribe(self.subject("matchmaker")).await {
            Ok(s) => Some(s),
            Err(e) => {
                tracing::error!(error = %e, "cannot serve the cluster's queue");
                None
            }
        }
    }

    /// Leaving (SIGTERM): gives up the matchmaker role so another node takes it at
    /// its next claim.
    pub(super) async fn release_matchmaker(&self, store: &store::Store) {
        if !self.mm_leader.swap(false, Ordering::SeqCst) {
            return;
        }
        if let Err(e) = store.release_role(MATCHMAKER_ROLE, self.node_id()).await {
            tracing::warn!(error = %e, "matchmaker role not released");
        }
    }

    async fn serve_matchmaker(
        self: Arc<Self>,
        state: AppState,
        mut sub: async_nats::Subscriber,
        stop: tokio_util::sync::CancellationToken,
    ) {
        loop {
            let msg = tokio::select! {
                _ = stop.cancelled() => break,
                m = sub.next() => match m { Some(m) => m, None => break },
            };
            let Some(reply) = msg.reply.clone() else {
                continue;
            };
            let Ok(wire) = serde_json::from_slice::<QueueWire>(&msg.payload) else {
                tracing::warn!("unreadable queue request");
                continue;
            };
            let (me, st) = (self.clone(), state.clone());
            // One request at a time per socket is the sender's rule; requests of
            // different sockets may be answered in any order.
            tokio::spawn(async move {
                let answer = me.queue_local(&st, wire).await;
                let payload = serde_json::to_vec(&answer.err()).unwrap_or_default();
                let _ = me.nats.publish(reply, payload.into()).await;
            });
        }
        let _ = sub.unsubscribe().await;
    }

    /// Matchmaker node: handles a remote socket's queue request.
    async fn queue_local(&self, state: &AppState, wire: QueueWire) -> Result<(), Refused> {
        let QueueWire {
            origin,
            conn,
            player,
            cmd,
        } = wire;
        let standin =
            |me: &Cluster| me.proxy(state, &origin, conn, state.shutdown_token().child_token());
        let sent = match cmd {
            QueueCmd::Join { name, mode } => {
                if let Err(b) = state.presence().claim(player, Busy::Queued(mode)) {
                    return Err(Refused {
                        code: ErrorCode::AlreadyBusy,
                        message: crate::ws::connection::busy_text(b).into(),
                    });
                }
                let proxy = standin(self);
                self.stand_ins
                    .insert(player, (origin.clone(), proxy.clone()));
                let (rconn, answered) = proxy.for_request();
                let cmd = MmCmd::Join {
                    player,
                    name,
                    mode,
                    conn: rconn,
                    req: None,
                };
                if state.matchmaker().send(cmd).await.is_err() {
                    self.stand_ins.remove(&player);
                    state.presence().release(player, Busy::Queued(mode));
                    return Err(unavailable());
                }
                Some(answered)
            }
            QueueCmd::Leave { closed } => {
                let (conn, answered) = if closed {
                    (None, None)
                } else {
                    let proxy = self.stand_in(player).unwrap_or_else(|| standin(self));
                    let (c, a) = proxy.for_request();
                    (Some(c), Some(a))
                };
                let cmd = MmCmd::Leave {
                    player,
                    conn,
                    req: None,
                };
                if state.matchmaker().send(cmd).await.is_err() {
                    return Err(unavailable());
                }
                answered
            }
            QueueCmd::Status => {
                let proxy = standin(self);
                // The player's newest socket gets the queue's updates from now on.
                if let Some(mut s) = self.stand_ins.get_mut(&player) {
                    *s = (origin.clone(), proxy.clone());
                }
                let cmd = MmCmd::Status {
                    player,
                    conn: proxy,
                };
                if state.matchmaker().send(cmd).await.is_err() {
                    return Err(unavailable());
                }
                None
            }
        };
        if let Some(a) = sent {
            let _ = tokio::time::timeout(super::remote::REMOTE_TIMEOUT, a.wait()).await;
        }
        Ok(())
    }
}
