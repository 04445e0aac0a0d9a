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
//!   commands): `ack` (the request's `id` travels with it), then `queue_status`,
//!   `match_started` and the match's frames reach the socket through it, in that
//!   order. The match starts on the matchmaker node, which owns its lease; the
//!   players' later commands reach it as remote room commands, and a socket that
//!   closes reaches its seat ([`super::closed`]).
//! * When a remote player leaves the queue (left, socket closed, or seated) the
//!   matchmaker tells the socket's node on `<prefix>.mm.dequeued.<node>`, which
//!   frees the player's local `Queued` presence; `hello` then finds the player's
//!   match in PostgreSQL (`Store::running_match_of`).
//! * No matchmaker (none elected yet, or it just died): `join_queue` answers
//!   `internal` ("matchmaking is not available").
//! * The queue survives the matchmaker's death: each node remembers the players
//!   it queued at the matchmaker (name, mode, socket, first queue time). A node
//!   that takes the role serves `<prefix>.matchmaker`, queues its own such players
//!   in its queue, then announces itself on `<prefix>.mm.elected`; every other node
//!   then sends its players' joins there again with their first queue time
//!   (`since_ms`), so they keep their place and bot-fill wait and send nothing.
//!   The players queued on the dead node's own sockets are gone with the sockets.
//!   As a safety net each node also asks the matchmaker every [`CHECK_EVERY`]
//!   whether it holds its queued players (`Check`) and queues again those it does
//!   not (a refused join is tried at the next check). A matchmaker that loses its
//!   role without dying (paused past its lease) empties its queue
//!   ([`MmCmd::Drain`]): its own sockets' players are queued at the new one by
//!   that check, the other nodes' by theirs.

use super::Cluster;
use crate::game::Game;
use crate::matchmaker::MmCmd;
use crate::presence::Busy;
use crate::ws::outbound::Answered;
use crate::ws::ConnHandle;
use engine::Mode;
use futures_util::StreamExt;
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use uuid::Uuid;

/// The role row of the cluster's matchmaker.
pub(crate) const MATCHMAKER_ROLE: &str = "matchmaker";

/// A queue request from another node's socket to the matchmaker node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct QueueWire {
    /// The node holding the socket.
    pub origin: String,
    /// The socket's connection id there.
    pub conn: u64,
    /// The signed-in player.
    pub player: Uuid,
    /// The client frame's `id`: the matchmaker answers `join_queue` and
    /// `leave_queue` (`ack`) through the stand-in, so the `ack` comes before the
    /// `queue_status` that follows it.
    #[serde(default)]
    pub req: Option<String>,
    /// What it asks.
    pub cmd: QueueCmd,
    /// Unix ms after which the matchmaker must not apply it
    /// ([`super::remote::apply_deadline_ms`]).
    #[serde(default)]
    pub deadline_ms: Option<u64>,
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
        /// When the player first queued (Unix ms): set when its node queues it
        /// again at a new matchmaker (it keeps its place and bot-fill wait).
        #[serde(default)]
        since_ms: Option<u64>,
        /// `join_queue.bot_level`.
        #[serde(default)]
        bot_level: protocol::BotLevel,
    },
    /// `leave_queue`, or the socket closed (`closed`).
    Leave {
        /// The socket closed.
        closed: bool,
    },
    /// A queued player's new socket (`hello`): send it its `queue_status`.
    Status,
    /// Is the player in this matchmaker's queue? (Its node asks every
    /// [`CHECK_EVERY`] and queues it again when not: a matchmaker that changed
    /// without the node hearing of it.) Refused when it is not.
    Check,
}

/// How often a node checks that its queued players are in the matchmaker's queue.
pub(crate) const CHECK_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

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

/// A player queued at the matchmaker from this node: what it takes to queue it
/// again at a new matchmaker.
#[derive(Debug, Clone)]
pub(super) struct Requeue {
    name: String,
    mode: Mode,
    /// When it first queued (Unix ms, this node's clock).
    since_ms: u64,
    /// The bot level it asked for.
    bot_level: protocol::BotLevel,
    /// Its socket here.
    conn: ConnHandle,
}

impl Requeue {
    /// A player of this node queued with `name`, `mode`, since `since_ms` (Unix ms)
    /// at `bot_level`, its socket here `conn`.
    pub(super) fn new(
        name: String,
        mode: Mode,
        since_ms: u64,
        bot_level: protocol::BotLevel,
        conn: ConnHandle,
    ) -> Requeue {
        Requeue {
            name,
            mode,
            since_ms,
            bot_level,
            conn,
        }
    }

    /// What it takes to queue the player of `cmd` again, when `cmd` is a join
    /// from the local socket `conn`: its name, mode and bot level, and its first
    /// queue time (`since_ms`, Unix ms; now when the join does not carry one).
    /// `None` for any other command.
    fn of_join(cmd: &QueueCmd, conn: &ConnHandle) -> Option<Requeue> {
        match cmd {
            QueueCmd::Join {
                name,
                mode,
                since_ms,
                bot_level,
            } => Some(Requeue {
                name: name.clone(),
                mode: *mode,
                since_ms: since_ms.unwrap_or_else(crate::clock::now_ms),
                bot_level: *bot_level,
                conn: conn.clone(),
            }),
            _ => None,
        }
    }

    /// When it first queued (Unix ms).
    pub(super) fn since_ms(&self) -> u64 {
        self.since_ms
    }

    /// The bot level it asked for.
    pub(super) fn bot_level(&self) -> protocol::BotLevel {
        self.bot_level
    }
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

    /// Sends `cmd` of the local socket `conn` (signed in as `player`, request
    /// `req`) to the cluster's matchmaker and waits for its answer, so one socket's
    /// requests are handled in order. On success the matchmaker has answered the
    /// request (`ack`) through the stand-in, before any `queue_status`; frames for
    /// the socket arrive through the forward loop. A join that succeeded is
    /// remembered here, to be queued again at a new matchmaker.
    ///
    /// A join without an answer in `super::remote::REMOTE_TIMEOUT` (delivered,
    /// but the matchmaker may have died after acking it) counts as queued: the
    /// periodic check (`CHECK_EVERY`) queues the player again at the current
    /// matchmaker if it does not hold it (the socket then gets no `ack` if the
    /// dead one had not sent it).
    ///
    /// Errors (not sent to the socket; the caller sends them): the matchmaker's
    /// refusal, or `internal` when no node runs the matchmaker.
    pub async fn queue_remote(
        &self,
        player: Uuid,
        cmd: QueueCmd,
        req: Option<String>,
        conn: &ConnHandle,
    ) -> Result<(), Refused> {
        let rejoin = Requeue::of_join(&cmd, conn);
        let wire = QueueWire {
            origin: self.node_id().to_string(),
            conn: conn.id(),
            player,
            req,
            cmd,
            deadline_ms: Some(super::remote::apply_deadline_ms()),
        };
        let payload = serde_json::to_vec(&wire).map_err(|_| unavailable())?;
        if !self.messaging_up() {
            return Err(Cluster::unreachable());
        }
        self.conns.insert(conn.id(), conn.clone());
        let asked = self
            .nats
            .request(self.subject("matchmaker"), payload.into());
        match tokio::time::timeout(super::remote::REMOTE_TIMEOUT, asked).await {
            Ok(Ok(reply)) => match serde_json::from_slice::<Option<Refused>>(&reply.payload) {
                Ok(None) => {
                    if let Some(r) = rejoin {
                        self.queued_here.insert(player, r);
                    }
                    Ok(())
                }
                Ok(Some(r)) => Err(r),
                Err(_) => Err(unavailable()),
            },
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "no matchmaker answered");
                Err(unavailable())
            }
            Err(_) => {
                tracing::warn!("the matchmaker did not answer in time");
                match rejoin {
                    // Delivered, maybe handled (and acked through the stand-in)
                    // before the matchmaker died: kept as queued; the next check
                    // queues the player again where it is missing.
                    Some(r) => {
                        self.queued_here.insert(player, r);
                        Ok(())
                    }
                    None => Err(unavailable()),
                }
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
        self.notify(
            self.subject(&format!("mm.dequeued.{origin}")),
            payload,
            "dequeue notice not sent",
        );
    }

    /// Every node: frees the local `Queued` presence of players the matchmaker node
    /// took out of its queue.
    pub(super) async fn dequeued_loop(self: Arc<Self>, game: Game) {
        let subject = self.subject(&format!("mm.dequeued.{}", self.node_id()));
        let Some(mut inbox) = self
            .listen(&game, subject, "cannot subscribe to dequeue notices")
            .await
        else {
            return;
        };
        while let Some(msg) = inbox.next().await {
            if let Ok(d) = serde_json::from_slice::<Dequeued>(&msg.payload) {
                self.queued_here.remove(&d.player);
                game.presence().release(d.player, Busy::Queued(d.mode));
            }
        }
    }

    /// Every node: takes or renews the matchmaker role every third of the lease,
    /// and serves `<prefix>.matchmaker` while it holds it.
    pub(super) async fn matchmaker_loop(self: Arc<Self>, game: Game) {
        let token = game.shutdown_token().clone();
        let mut tick = tokio::time::interval(self.settings.lease / 3);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut serving: Option<tokio_util::sync::CancellationToken> = None;
        loop {
            tokio::select! {
                _ = token.cancelled() => break,
                _ = tick.tick() => {}
            }
            let held = match game
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
                    let (me, st, s) = (self.clone(), game.clone(), stop.clone());
                    game.tasks()
                        .spawn(async move { me.serve_matchmaker(st, sub, s).await });
                    serving = Some(stop);
                    self.requeue_here(&game).await;
                    self.announce_elected().await;
                }
                (false, true) => {
                    tracing::warn!(node = self.node_id(), "this node lost the matchmaker role");
                    self.mm_leader.store(false, Ordering::SeqCst);
                    if let Some(s) = serving.take() {
                        s.cancel();
                    }
                    self.hand_over_queue(&game).await;
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
            Ok(s) => {
                // In place at the NATS server before the other nodes hear of it.
                if let Err(e) = self.nats.flush().await {
                    tracing::warn!(error = %e, "matchmaker subscription not flushed");
                }
                Some(s)
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot serve the cluster's queue");
                None
            }
        }
    }

    /// The new matchmaker (this node): queues this node's players that were
    /// queued at the previous one into its own queue, with their first queue time.
    async fn requeue_here(&self, game: &Game) {
        let here: Vec<(Uuid, Requeue)> = self
            .queued_here
            .iter()
            .map(|e| (*e.key(), e.value().clone()))
            .collect();
        for (player, r) in here {
            self.queued_here.remove(&player);
            if game.presence().get(player) != Some(Busy::Queued(r.mode)) || r.conn.is_closed() {
                continue;
            }
            let cmd = MmCmd::Join {
                player,
                name: r.name,
                mode: r.mode,
                conn: r.conn,
                req: None,
                since_ms: Some(r.since_ms),
                bot_level: r.bot_level,
            };
            if game.matchmaker().send(cmd).await.is_err() {
                game.presence().release(player, Busy::Queued(r.mode));
            }
        }
    }

    /// This node lost the matchmaker role without stopping: it empties its queue
    /// (so it forms no more matches). Its own sockets' players are remembered to
    /// be queued at the new matchmaker (by the next check); the stand-ins of other
    /// nodes' players are dropped here (their nodes queue them again there).
    async fn hand_over_queue(&self, game: &Game) {
        let (tx, rx) = tokio::sync::oneshot::channel();
        if game
            .matchmaker()
            .send(MmCmd::Drain { reply: tx })
            .await
            .is_err()
        {
            return;
        }
        let Ok(drained) = rx.await else { return };
        for d in drained {
            match (self.stand_ins.remove(&d.player), game.session(d.player)) {
                (None, Some(conn)) => {
                    self.queued_here.insert(
                        d.player,
                        Requeue {
                            name: d.name,
                            mode: d.mode,
                            since_ms: d.since_ms,
                            bot_level: d.bot_level,
                            conn,
                        },
                    );
                }
                // Another node's player (or one whose socket is gone): free here.
                _ => {
                    game.presence().release(d.player, Busy::Queued(d.mode));
                }
            }
        }
    }

    /// Tells every node that this node is the matchmaker now
    /// (`<prefix>.mm.elected`): they queue their queued players again here.
    async fn announce_elected(&self) {
        if let Err(e) = self
            .nats
            .publish(
                self.subject("mm.elected"),
                self.node_id().to_string().into(),
            )
            .await
        {
            tracing::warn!(error = %e, "matchmaker election not announced");
        }
    }

    /// Every node: when another node becomes the matchmaker, queues this node's
    /// queued players again there (their first queue time kept): the queue of a
    /// matchmaker that died is not lost. A refused join is tried again at the next
    /// check. Every [`CHECK_EVERY`] it also asks the
    /// matchmaker whether it holds them, and queues again those it does not (an
    /// election this node did not hear of, or a matchmaker that lost its role
    /// without dying and emptied its queue).
    pub(super) async fn elected_loop(self: Arc<Self>, game: Game) {
        let token = game.shutdown_token().clone();
        let Some(mut sub) = self
            .subscribe_or_log(
                self.subject("mm.elected"),
                "cannot subscribe to matchmaker elections",
            )
            .await
        else {
            return;
        };
        let mut check = tokio::time::interval(CHECK_EVERY);
        check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let elected = tokio::select! {
                _ = token.cancelled() => return,
                _ = check.tick() => false,
                m = sub.next() => match m {
                    Some(m) => {
                        if m.payload.as_ref() == self.node_id().as_bytes() {
                            continue;
                        }
                        true
                    }
                    None => return,
                },
            };
            if self.is_matchmaker() {
                continue;
            }
            let mut here: Vec<(Uuid, Requeue)> = self
                .queued_here
                .iter()
                .map(|e| (*e.key(), e.value().clone()))
                .collect();
            if !elected {
                // The periodic check: only the players the matchmaker does not hold.
                here = self.not_held(here).await;
            }
            self.queue_again(&game, here).await;
        }
    }

    /// The periodic check of [`Cluster::elected_loop`]: those of `here` (players
    /// queued at the matchmaker from this node, with what it takes to queue them
    /// again) that the matchmaker does not hold, asked one at a time
    /// ([`QueueCmd::Check`]; any error counts as not held: a refusal, no
    /// matchmaker, or no answer in time).
    async fn not_held(&self, here: Vec<(Uuid, Requeue)>) -> Vec<(Uuid, Requeue)> {
        let mut missing = Vec::new();
        for (player, r) in here {
            let held = self
                .queue_remote(player, QueueCmd::Check, None, &r.conn)
                .await;
            if held.is_err() {
                missing.push((player, r));
            }
        }
        missing
    }

    /// Queues the players `here` of this node again at the current matchmaker,
    /// one at a time, each with its first queue time (`since_ms`, Unix ms) and bot
    /// level. A player no longer remembered here, no longer `Queued` in that
    /// mode, or whose socket closed is forgotten instead. A refused join is only
    /// logged: the next check tries again.
    async fn queue_again(&self, game: &Game, here: Vec<(Uuid, Requeue)>) {
        if !here.is_empty() {
            tracing::info!(
                node = self.node_id(),
                players = here.len(),
                "queueing this node's players at the (new) matchmaker again"
            );
        }
        for (player, r) in here {
            let still = self.queued_here.contains_key(&player);
            if !still
                || game.presence().get(player) != Some(Busy::Queued(r.mode))
                || r.conn.is_closed()
            {
                self.queued_here.remove(&player);
                continue;
            }
            let cmd = QueueCmd::Join {
                name: r.name.clone(),
                mode: r.mode,
                since_ms: Some(r.since_ms),
                bot_level: r.bot_level,
            };
            // Refused (no matchmaker yet, or the player was seated meanwhile):
            // the next check tries again (a seated player's notice ends it).
            if let Err(refused) = self.queue_remote(player, cmd, None, &r.conn).await {
                tracing::debug!(player = %player, error = %refused.message, "not queued again yet");
            }
        }
    }

    /// `player`, queued at the matchmaker from this node, signed in again on
    /// `conn`: a new matchmaker reaches it there.
    pub fn queued_socket(&self, player: Uuid, conn: &ConnHandle) {
        if let Some(mut r) = self.queued_here.get_mut(&player) {
            r.conn = conn.clone();
        }
    }

    /// Forgets that `player` is queued at the matchmaker from this node (it left,
    /// or its socket closed).
    pub fn forget_queued(&self, player: Uuid) {
        self.queued_here.remove(&player);
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
        game: Game,
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
            if super::remote::past(wire.deadline_ms) {
                // Its sender has answered the socket already: not applied.
                tracing::info!(player = %wire.player, "a queue request came too late; not applied");
                continue;
            }
            let (me, st) = (self.clone(), game.clone());
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

    /// Matchmaker node: handles a remote socket's queue request; `join_queue` and
    /// `leave_queue` are answered (`ack`) through the stand-in.
    async fn queue_local(&self, game: &Game, wire: QueueWire) -> Result<(), Refused> {
        let QueueWire {
            origin,
            conn,
            player,
            req,
            cmd,
            ..
        } = wire;
        let sent = match cmd {
            QueueCmd::Join {
                name,
                mode,
                since_ms,
                bot_level,
            } => {
                let join = |rconn| MmCmd::Join {
                    player,
                    name,
                    mode,
                    conn: rconn,
                    req,
                    since_ms,
                    bot_level,
                };
                let answered = self
                    .join_local(game, &origin, conn, player, mode, join)
                    .await?;
                Some(answered)
            }
            QueueCmd::Leave { closed } => {
                self.leave_local(game, &origin, conn, player, req, closed)
                    .await?
            }
            QueueCmd::Check => return self.holds_queued(player),
            QueueCmd::Status => {
                self.status_local(game, &origin, conn, player).await?;
                None
            }
        };
        if let Some(a) = sent {
            let _ = tokio::time::timeout(super::remote::REMOTE_TIMEOUT, a.wait()).await;
        }
        Ok(())
    }

    /// Matchmaker node: a new stand-in connection for the remote socket `conn`
    /// of node `origin` (its frames are relayed to that node until every handle
    /// is dropped or the node shuts down), remembered as standing for that socket
    /// (the socket's close then reaches a seat it takes, [`super::closed`]).
    fn queue_stand_in(&self, game: &Game, origin: &str, conn: u64) -> ConnHandle {
        let p = self.proxy(game, origin, conn, game.shutdown_token().child_token());
        self.remember_stand_in(origin, conn, &p);
        p
    }

    /// Matchmaker node: `join_queue` of `player` in `mode` from the remote socket
    /// `conn` of node `origin`. Claims the player's `Queued` presence, makes a
    /// stand-in for the socket (the player's from now on) and sends the
    /// matchmaker the command `join` builds for the stand-in's request handle.
    /// Returns the signal of that request's answer. Errors: `already_busy` when
    /// the presence is taken; `internal` when the matchmaker has stopped (the
    /// stand-in and presence are then let go).
    async fn join_local(
        &self,
        game: &Game,
        origin: &str,
        conn: u64,
        player: Uuid,
        mode: Mode,
        join: impl FnOnce(ConnHandle) -> MmCmd,
    ) -> Result<Answered, Refused> {
        if let Err(b) = game.presence().claim(player, Busy::Queued(mode)) {
            return Err(Refused {
                code: ErrorCode::AlreadyBusy,
                message: b.text().into(),
            });
        }
        let proxy = self.queue_stand_in(game, origin, conn);
        self.stand_ins
            .insert(player, (origin.to_string(), proxy.clone()));
        let (rconn, answered) = proxy.for_request();
        let cmd = join(rconn);
        if game.matchmaker().send(cmd).await.is_err() {
            self.stand_ins.remove(&player);
            game.presence().release(player, Busy::Queued(mode));
            return Err(unavailable());
        }
        Ok(answered)
    }

    /// Matchmaker node: `leave_queue` of `player` (request `req`) from the remote
    /// socket `conn` of node `origin`, or that socket closed (`closed`: nothing
    /// to answer). Returns the signal of the request's answer (`None` when
    /// closed). Errors: `internal` when the matchmaker has stopped.
    async fn leave_local(
        &self,
        game: &Game,
        origin: &str,
        conn: u64,
        player: Uuid,
        req: Option<String>,
        closed: bool,
    ) -> Result<Option<Answered>, Refused> {
        // Answered through the stand-in of the socket that asked (a newer
        // socket than the one that queued, maybe on another node).
        let (conn, answered) = if closed {
            (None, None)
        } else {
            let (c, a) = self.queue_stand_in(game, origin, conn).for_request();
            (Some(c), Some(a))
        };
        let cmd = MmCmd::Leave { player, conn, req };
        if game.matchmaker().send(cmd).await.is_err() {
            return Err(unavailable());
        }
        Ok(answered)
    }

    /// Matchmaker node: [`QueueCmd::Check`], `Ok` when `player` is queued here
    /// from another node (it has a stand-in). Error: `internal` when not.
    fn holds_queued(&self, player: Uuid) -> Result<(), Refused> {
        if self.stand_ins.contains_key(&player) {
            Ok(())
        } else {
            Err(Refused {
                code: ErrorCode::Internal,
                message: "not queued at this matchmaker".into(),
            })
        }
    }

    /// Matchmaker node: a queued player's new socket `conn` on node `origin`
    /// (`hello`): has the matchmaker send it the player's `queue_status` through
    /// a new stand-in. Errors: `internal` when the matchmaker has stopped.
    async fn status_local(
        &self,
        game: &Game,
        origin: &str,
        conn: u64,
        player: Uuid,
    ) -> Result<(), Refused> {
        let proxy = self.queue_stand_in(game, origin, conn);
        // The player's newest socket gets the queue's updates from now on
        // (also a player who queued on this node and signed in on another).
        if matches!(game.presence().get(player), Some(Busy::Queued(_))) {
            self.stand_ins
                .insert(player, (origin.to_string(), proxy.clone()));
        }
        let cmd = MmCmd::Status {
            player,
            conn: proxy,
        };
        if game.matchmaker().send(cmd).await.is_err() {
            return Err(unavailable());
        }
        Ok(())
    }
}
