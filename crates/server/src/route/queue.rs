//! [`Queue`]: the quick-play queue, on this node's matchmaker or on the matchmaker
//! node's (`crate::cluster::queue`).

use crate::cluster::queue::QueueCmd;
use crate::cluster::Cluster;
use crate::game::Game;
use crate::matchmaker::MmCmd;
use crate::presence::Busy;
use crate::ws::ConnHandle;
use protocol::ErrorCode;
use std::sync::Arc;
use uuid::Uuid;

/// The quick-play queue as this node reaches it.
#[derive(Clone, Copy)]
pub(crate) struct Queue<'a> {
    game: &'a Game,
    /// Cluster, on a node that is not the matchmaker: the matchmaker node is asked
    /// (its answer reaches the socket through a stand-in). `None`: this node's
    /// matchmaker.
    remote: Option<&'a Arc<Cluster>>,
}

impl<'a> Queue<'a> {
    /// The queue as this node (`game`, in `cluster` if any) reaches it now (the
    /// matchmaker role may move between nodes: make a new one per use).
    pub(crate) fn new(game: &'a Game, cluster: Option<&'a Arc<Cluster>>) -> Queue<'a> {
        Queue {
            game,
            remote: cluster.filter(|c| !c.is_matchmaker()),
        }
    }

    /// `join_queue` of `player` on `conn` (request `req`): claims the player as
    /// queued (`already_busy` when it is busy), then the matchmaker answers the
    /// socket (`ack` and `queue_status`, or its error); `internal` when this node's
    /// matchmaker is gone, or the refusal when the matchmaker node cannot be
    /// reached. The claim is dropped again when the join fails.
    pub(crate) async fn join(
        &self,
        player: &store::Player,
        mode: engine::Mode,
        bot_level: protocol::BotLevel,
        conn: &ConnHandle,
        req: Option<String>,
    ) {
        let presence = self.game.presence();
        if let Err(b) = presence.claim(player.id, Busy::Queued(mode)) {
            conn.send_error(ErrorCode::AlreadyBusy, b.text(), req);
            return;
        }
        if let Some(c) = self.remote {
            let cmd = QueueCmd::Join {
                name: player.name.clone(),
                mode,
                since_ms: None,
                bot_level,
            };
            // On success the matchmaker answered through its stand-in.
            if let Err(r) = c.queue_remote(player.id, cmd, req.clone(), conn).await {
                presence.release(player.id, Busy::Queued(mode));
                conn.send_error(r.code, r.message, req);
            }
            return;
        }
        let (rconn, answered) = conn.for_request();
        let cmd = MmCmd::Join {
            player: player.id,
            name: player.name.clone(),
            mode,
            conn: rconn,
            req: req.clone(),
            since_ms: None,
            bot_level,
        };
        if self.game.matchmaker().send(cmd).await.is_err() {
            presence.release(player.id, Busy::Queued(mode));
            conn.send_error(ErrorCode::Internal, "matchmaking is not available", req);
            return;
        }
        super::answer_of(conn, self.game.shutdown_token(), answered).await;
    }

    /// `leave_queue` of `player` on `conn`: the matchmaker answers `ack` (also when
    /// the player was not queued); `internal` when this node's matchmaker is gone,
    /// or the refusal when the matchmaker node cannot be reached.
    pub(crate) async fn leave(&self, player: Uuid, conn: &ConnHandle, req: Option<String>) {
        if let Some(c) = self.remote {
            let cmd = QueueCmd::Leave { closed: false };
            match c.queue_remote(player, cmd, req.clone(), conn).await {
                Ok(()) => {
                    c.forget_queued(player);
                    let presence = self.game.presence();
                    if let Some(b @ Busy::Queued(_)) = presence.get(player) {
                        presence.release(player, b);
                    }
                }
                Err(r) => conn.send_error(r.code, r.message, req),
            }
            return;
        }
        let (rconn, answered) = conn.for_request();
        let cmd = MmCmd::Leave {
            player,
            conn: Some(rconn),
            req: req.clone(),
        };
        if self.game.matchmaker().send(cmd).await.is_err() {
            conn.send_error(ErrorCode::Internal, "matchmaking is not available", req);
            return;
        }
        super::answer_of(conn, self.game.shutdown_token(), answered).await;
    }

    /// A queued `player`'s new socket `conn` (a `hello`): it gets its
    /// `queue_status`, and the matchmaker's later messages.
    pub(crate) async fn back(&self, player: Uuid, conn: &ConnHandle) {
        if let Some(c) = self.remote {
            c.queued_socket(player, conn);
            if let Err(r) = c.queue_remote(player, QueueCmd::Status, None, conn).await {
                tracing::debug!(error = %r.message, "queue status not asked");
            }
            return;
        }
        let cmd = MmCmd::Status {
            player,
            conn: conn.clone(),
        };
        let _ = self.game.matchmaker().send(cmd).await;
    }

    /// The current socket `conn` of `player`, queued in `mode`, closed. This node's
    /// matchmaker keeps the place for `--queue-grace-seconds` (0: it leaves now);
    /// the matchmaker node is told it left, and the player is free here.
    pub(crate) async fn socket_closed(&self, player: Uuid, mode: engine::Mode, conn: &ConnHandle) {
        if let Some(c) = self.remote {
            c.forget_queued(player);
            let cmd = QueueCmd::Leave { closed: true };
            let _ = c.queue_remote(player, cmd, None, conn).await;
            self.game.presence().release(player, Busy::Queued(mode));
            return;
        }
        // A blip keeps the queue place (`--queue-grace-seconds`).
        let cmd = if self.game.config().queue_grace().is_zero() {
            MmCmd::Leave {
                player,
                conn: None,
                req: None,
            }
        } else {
            MmCmd::Away { player }
        };
        let _ = self.game.matchmaker().send(cmd).await;
    }
}
