//! A player's waiting state follows its socket to another node (breaker findings
//! F1, F2 of 2026-12-06).
//!
//! Presence is node-local: the node a player's socket is signed in on knows that
//! the player is queued (at the matchmaker node) or a member of a lobby (maybe on a
//! third node). When the player signs in on another node, the old node closes its
//! socket (4000, [`Cluster::announce_hello`]) and hands what the player waits in
//! over to the new node (`<prefix>.player.handover.<node>`): the new node claims
//! it (its `already_busy` checks see it), becomes the one that re-queues the player
//! if the matchmaker changes, and asks the matchmaker or the lobby's node to send
//! their updates to the new socket (`queue_status` or `lobby_state` at once, then
//! `match_started`).
//!
//! Until the hand-over arrives, a new socket's requests that depend on what the
//! player is busy with (`join_queue`, `create_lobby`, `join_lobby`,
//! `offer_rematch`) wait for it, at most `SETTLE` (200 ms) after its sign-in
//! ([`Cluster::settled`]).

use super::lobby::LobbyCmd;
use super::queue::{QueueCmd, Requeue};
use super::Cluster;
use crate::game::Game;
use crate::matchmaker::MmCmd;
use crate::presence::Busy;
use engine::Mode;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;
use tokio::time::Instant;
use uuid::Uuid;

/// How long a new socket's busy-dependent requests wait for a hand-over after its
/// sign-in (a node that replaced an older socket of the player sends one within
/// milliseconds; a first sign-in gets none).
pub(crate) const SETTLE: Duration = Duration::from_millis(200);

/// What a player waits in, handed over with its socket.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Waiting {
    /// Queued for quick play in `mode` (since `since_ms`, Unix ms, when the old
    /// node knew it; with the bot level it asked for).
    Queued {
        mode: Mode,
        since_ms: Option<u64>,
        #[serde(default)]
        bot_level: protocol::BotLevel,
    },
    /// A member of the lobby `code`.
    Lobby { code: String },
    /// Nothing: the new socket need not wait.
    Nothing,
}

/// The hand-over notice.
#[derive(Debug, Serialize, Deserialize)]
struct Handover {
    player: Uuid,
    waiting: Waiting,
}

impl Cluster {
    fn handover_subject(&self, node: &str) -> String {
        self.subject(&format!("player.handover.{node}"))
    }

    /// A socket of `player` signed in here: until a hand-over for it arrives (or
    /// `SETTLE` (200 ms) passes), [`Cluster::settled`] waits.
    pub fn arrived(&self, player: Uuid) {
        self.arrivals
            .insert(player, (Instant::now(), Arc::new(Notify::new())));
    }

    /// `player`'s socket here closed: nothing to wait for any more.
    pub fn departed(&self, player: Uuid) {
        if let Some((_, (_, n))) = self.arrivals.remove(&player) {
            n.notify_waiters();
        }
    }

    /// Waits until `player`'s hand-over from the node of its older socket arrived,
    /// at most `SETTLE` (200 ms) after its sign-in here (at once when it arrived, or the
    /// time passed).
    pub async fn settled(&self, player: Uuid) {
        let Some((at, notify)) = self.arrivals.get(&player).map(|e| e.clone()) else {
            return;
        };
        let Some(left) = SETTLE.checked_sub(at.elapsed()) else {
            self.arrivals.remove_if(&player, |_, (t, _)| *t == at);
            return;
        };
        let notified = notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if !self.arrivals.contains_key(&player) {
            return;
        }
        let _ = tokio::time::timeout(left, notified).await;
    }

    /// This node closed `player`'s socket for a newer one on `node`: what the
    /// player waits in goes to `node`, and this node forgets its own part of it
    /// (a queue place it would re-queue, a lobby on a third node). What this node
    /// holds for others stays: its own lobby's member, its own queue (as the
    /// matchmaker).
    pub(super) fn hand_over(&self, game: &Game, player: Uuid, node: &str) {
        let waiting = match game.presence().get(player) {
            Some(Busy::Queued(mode)) => {
                let mine = self.queued_here.remove(&player).map(|(_, r)| r);
                if !self.is_matchmaker() {
                    game.presence().release(player, Busy::Queued(mode));
                }
                Waiting::Queued {
                    mode,
                    since_ms: mine.as_ref().map(Requeue::since_ms),
                    bot_level: mine.map(|r| r.bot_level()).unwrap_or_default(),
                }
            }
            Some(Busy::Lobby) => match self.remote_lobby(player) {
                Some(code) => {
                    self.forget_remote_lobby(player);
                    game.presence().release(player, Busy::Lobby);
                    Waiting::Lobby { code }
                }
                None => game
                    .lobbies()
                    .code_of(player)
                    .map_or(Waiting::Nothing, |code| Waiting::Lobby { code }),
            },
            _ => Waiting::Nothing,
        };
        let Ok(payload) = serde_json::to_vec(&Handover { player, waiting }) else {
            return;
        };
        self.notify(
            self.handover_subject(node),
            payload,
            "player hand-over not sent",
        );
    }

    /// Receives the hand-overs of this node's new sockets.
    pub(super) async fn handover_loop(self: Arc<Self>, game: Game) {
        let subject = self.handover_subject(self.node_id());
        let Some(mut inbox) = self
            .listen(&game, subject, "cannot subscribe to player hand-overs")
            .await
        else {
            return;
        };
        while let Some(msg) = inbox.next().await {
            let Ok(h) = serde_json::from_slice::<Handover>(&msg.payload) else {
                continue;
            };
            let player = h.player;
            self.take_over(&game, h).await;
            self.departed(player);
        }
    }

    /// Claims what `h.player` waits in for its socket here, and has the matchmaker
    /// or the lobby's node send their updates to it.
    async fn take_over(&self, game: &Game, h: Handover) {
        let player = h.player;
        let Some(conn) = game.session(player) else {
            return;
        };
        match h.waiting {
            Waiting::Queued {
                mode,
                since_ms,
                bot_level,
            } => {
                if !self.is_matchmaker() {
                    if game.presence().claim(player, Busy::Queued(mode)).is_err() {
                        return;
                    }
                    let name = match game.store().player(player).await {
                        Ok(Some(p)) => p.name,
                        _ => String::new(),
                    };
                    let since_ms = since_ms.unwrap_or_else(|| game.clock().now_ms());
                    let r = Requeue::new(name, mode, since_ms, bot_level, conn.clone());
                    self.queued_here.insert(player, r);
                    if let Err(r) = self
                        .queue_remote(player, QueueCmd::Status, None, &conn)
                        .await
                    {
                        tracing::debug!(error = %r.message, "queue status not asked");
                    }
                } else {
                    let cmd = MmCmd::Status { player, conn };
                    let _ = game.matchmaker().send(cmd).await;
                }
            }
            Waiting::Lobby { code } => {
                if game.lobbies().is_open(&code) {
                    game.lobbies().back(player, &conn);
                    return;
                }
                if game.presence().claim(player, Busy::Lobby).is_err() {
                    return;
                }
                self.lobby_of.insert(player, code.clone());
                let asked = self
                    .lobby_remote(&code, player, LobbyCmd::Back, None, &conn)
                    .await;
                if asked.is_err_and(|r| r.code == protocol::ErrorCode::LobbyNotFound) {
                    self.forget_remote_lobby(player);
                    game.presence().release(player, Busy::Lobby);
                }
            }
            Waiting::Nothing => {}
        }
    }
}
