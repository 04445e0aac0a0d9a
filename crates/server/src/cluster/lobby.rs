//! Lobbies across the cluster: a join code opened on one node can be joined (left,
//! started) from any node, the public list shows every node's lobbies, and rematch
//! offers reach players on other nodes.
//!
//! * The node where a lobby opens owns it and answers NATS requests on
//!   `<prefix>.lobby.<code>` ([`LobbyWire`], JSON) while the lobby is open
//!   ([`Cluster::serve_lobby`]; subscribed and flushed before anyone is shown the
//!   code). The code → node mapping is thus NATS's subscription table: no
//!   responder means no node has the lobby (`lobby_not_found`).
//! * `join_lobby` with a code this node does not have is sent there. The owner
//!   holds a *stand-in* connection for the joiner's socket (as [`super::remote`]
//!   does for room commands) and answers the request through it: `lobby_state`,
//!   then `ack` (or the error), in the order a local member sees them; the NATS
//!   reply (the refusal, if any) only tells the joiner's node what happened. The
//!   match of a started lobby runs on the owner, which seats the stand-ins.
//! * The joiner's node remembers the lobby's code for the player (its presence is
//!   `Lobby` there too, so "already busy" is still decided on the socket's node)
//!   and sends the member's `leave_lobby`, `start_lobby`, socket close (the grace
//!   period runs on the owner) and `hello` (back in the lobby) there as well.
//! * When a remote member is no longer in the lobby (left, grace over, the lobby
//!   started) the owner tells the member's node on `<prefix>.lobby_left.<node>`,
//!   which frees the player's local `Lobby` presence.
//! * Public list: every node announces its public lobbies with a free seat and
//!   its open rematch lobbies ([`NodeLobbies`]) on `<prefix>.lobbies.list` at
//!   every change and every [`ANNOUNCE`]; each node keeps the others' latest
//!   announcements for [`ANNOUNCED_FOR`] and merges them into `GET /api/v1/lobbies`
//!   and the `subscribe_lobbies` stream. Lobbies live in memory on their node and
//!   end with it, so their list does too: no table to write on every join and to
//!   clean up after a dead node (its entries just stop being renewed). A node
//!   that starts sees the others' lobbies within one [`ANNOUNCE`].
//! * `offer_rematch` opens the rematch lobby on the offering player's node and
//!   sends `rematch_offered` to invited players on other nodes through
//!   `<prefix>.player.frame` (the node holding the player's socket queues it). An
//!   invited player's own `offer_rematch` joins an open rematch lobby another node
//!   announced. Two offers on two nodes within one announcement's travel time
//!   open two rematch lobbies.
//!
//! Codes are unique per node; two nodes opening the same code at the same time (one
//! chance in ~10⁹ per pair) would both answer its requests.

use super::queue::Refused;
use super::Cluster;
use crate::game::Game;
use crate::lobby::{LobbyError, NodeLobbies};
use crate::presence::Busy;
use crate::ws::ConnHandle;
use futures_util::StreamExt;
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::{Duration, Instant};
use uuid::Uuid;

/// How often the owner checks that a served lobby is still open.
const OPEN_CHECK: Duration = Duration::from_secs(1);
/// How often a node announces its public lobbies even when nothing changed.
pub(crate) const ANNOUNCE: Duration = Duration::from_secs(2);
/// How long another node's announcement counts (three announcements).
pub(crate) const ANNOUNCED_FOR: Duration = Duration::from_secs(6);

/// A lobby request from a member's (or joiner's) node to the lobby's owner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct LobbyWire {
    /// The node holding the socket.
    pub origin: String,
    /// The socket's connection id there.
    pub conn: u64,
    /// The signed-in player.
    pub player: Uuid,
    /// The client frame's `id` (the owner answers it through the stand-in).
    #[serde(default)]
    pub req: Option<String>,
    /// What it asks.
    pub cmd: LobbyCmd,
    /// Unix ms after which the owner must not apply it
    /// ([`super::remote::apply_deadline_ms`]).
    #[serde(default)]
    pub deadline_ms: Option<u64>,
}

/// What a [`LobbyWire`] asks (as the client messages of the same names).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum LobbyCmd {
    /// `join_lobby` by the player named `name`.
    Join {
        /// The player's display name.
        name: String,
    },
    /// `leave_lobby`.
    Leave,
    /// `start_lobby`.
    Start,
    /// The member's socket closed: its seat is kept for the grace period.
    Away,
    /// The member signed in again (`hello`): this socket gets the `lobby_state`.
    Back,
}

/// A node's announcement on `<prefix>.lobbies.list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Announcement {
    node: String,
    lobbies: NodeLobbies,
}

/// A frame for a player's socket on whichever node holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct PlayerFrame {
    player: Uuid,
    frame: String,
}

fn refused(e: &LobbyError) -> Refused {
    Refused {
        code: e.code(),
        message: e.to_string(),
    }
}

/// How many times [`Cluster::remote_lobby_gone`] probes a lobby (unanswered
/// probes only; any answer ends it).
const GONE_PROBES: usize = 8;

/// How long [`Cluster::remote_lobby_gone`] waits for one probe's answer, ms.
const GONE_PROBE_MS: u64 = 250;

/// A probe of [`Cluster::remote_lobby_gone`] that nobody answered in time.
#[derive(Debug)]
struct Unanswered;

impl Cluster {
    fn lobby_subject(&self, code: &str) -> String {
        self.subject(&format!("lobby.{code}"))
    }

    /// The code of the lobby on another node that `player` (signed in here) joined.
    pub fn remote_lobby(&self, player: Uuid) -> Option<String> {
        self.lobby_of.get(&player).map(|c| c.clone())
    }

    /// True when `player` (signed in here) is a member of a lobby on another node
    /// and no node serves that lobby any more (its node died: NATS answers "no
    /// responders"). A lobby node that answers, even with an error, still has it
    /// (false).
    ///
    /// The lobby is probed up to `GONE_PROBES` (8) times, `GONE_PROBE_MS` (250) ms each:
    /// right after a `kill -9` the NATS server may still route a probe to the dead
    /// node's subscription, and that probe is simply never answered; the next one,
    /// after the NATS server has seen the connection close, gets "no responders".
    /// A node that stays silent through every probe (≈ 2 s) still has it (false).
    pub async fn remote_lobby_gone(&self, player: Uuid) -> bool {
        use backon::{ConstantBuilder, Retryable};
        let Some(code) = self.remote_lobby(player) else {
            return false;
        };
        let subject = self.lobby_subject(&code);
        let probe = || async {
            let asked = self.nats.request(subject.clone(), Default::default());
            match tokio::time::timeout(Duration::from_millis(GONE_PROBE_MS), asked).await {
                Ok(Ok(_)) => Ok(false),
                Ok(Err(e)) if e.kind() == async_nats::RequestErrorKind::NoResponders => Ok(true),
                Ok(Err(e)) if e.kind() != async_nats::RequestErrorKind::TimedOut => Ok(false),
                _ => Err(Unanswered),
            }
        };
        probe
            .retry(
                ConstantBuilder::default()
                    .with_delay(Duration::ZERO)
                    .with_max_times(GONE_PROBES - 1),
            )
            .sleep(tokio::time::sleep)
            .await
            .unwrap_or(false)
    }

    /// Forgets that `player` is in a lobby on another node (it left).
    pub fn forget_remote_lobby(&self, player: Uuid) {
        self.lobby_of.remove(&player);
    }

    /// The stand-in connection of a remote member of a lobby owned here.
    pub fn lobby_stand_in(&self, player: Uuid) -> Option<ConnHandle> {
        self.lobby_stand_ins.get(&player).map(|s| s.2.clone())
    }

    /// Sends `cmd` of the local socket `conn` (signed in as `player`; request `req`)
    /// to the owner of lobby `code` and waits for its answer. A successful join is
    /// remembered ([`Cluster::remote_lobby`]).
    ///
    /// `Ok(answer)`: the owner answered — and already sent the socket its `ack` or
    /// error through the stand-in. `Err(refusal)`: nobody answered; the caller
    /// sends it (`lobby_not_found` when no node has the lobby, `internal` when the
    /// owner did not answer in time).
    pub async fn lobby_remote(
        &self,
        code: &str,
        player: Uuid,
        cmd: LobbyCmd,
        req: Option<String>,
        conn: &ConnHandle,
    ) -> Result<Result<(), Refused>, Refused> {
        let join = matches!(cmd, LobbyCmd::Join { .. });
        let wire = LobbyWire {
            origin: self.node_id().to_string(),
            conn: conn.id(),
            player,
            req,
            cmd,
            deadline_ms: Some(super::remote::apply_deadline_ms()),
        };
        let not_found = || refused(&LobbyError::NotFound(code.to_string()));
        let payload = serde_json::to_vec(&wire).map_err(|_| not_found())?;
        if !self.messaging_up() {
            return Err(Cluster::unreachable());
        }
        // Frames (lobby_state, ack) may arrive before the reply.
        self.conns.insert(conn.id(), conn.clone());
        let asked = self.nats.request(self.lobby_subject(code), payload.into());
        let answer = match tokio::time::timeout(super::remote::REMOTE_TIMEOUT, asked).await {
            Ok(Ok(reply)) => match serde_json::from_slice::<Option<Refused>>(&reply.payload) {
                Ok(None) => Ok(Ok(())),
                Ok(Some(r)) => Ok(Err(r)),
                Err(_) => Err(Refused {
                    code: ErrorCode::Internal,
                    message: "unreadable answer of the lobby's node".into(),
                }),
            },
            // Only "no responders" means that no node has the lobby; a NATS
            // timeout is an owner that did not answer.
            Ok(Err(e)) if e.kind() == async_nats::RequestErrorKind::NoResponders => {
                tracing::debug!(code, error = %e, "no node has the lobby");
                Err(not_found())
            }
            Ok(Err(_)) => Err(Refused {
                code: ErrorCode::Internal,
                message: "the lobby's node did not answer in time".into(),
            }),
            Err(_) => Err(Refused {
                code: ErrorCode::Internal,
                message: "the lobby's node did not answer in time".into(),
            }),
        };
        if join && matches!(answer, Ok(Ok(()))) {
            self.lobby_of.insert(player, code.to_string());
        }
        answer
    }

    /// Owner: a member is no longer in the lobby (left, grace over, or the lobby
    /// started). When it is on another node, its stand-in is dropped (a room holds
    /// its own handle) and its node frees the player's `Lobby` presence.
    pub fn lobby_gone(&self, player: Uuid) {
        let Some((_, (origin, _, _))) = self.lobby_stand_ins.remove(&player) else {
            return;
        };
        self.notify(
            self.subject(&format!("lobby_left.{origin}")),
            player.to_string().into(),
            "lobby-left notice not sent",
        );
    }

    /// Every node: frees the local `Lobby` presence of players whose lobby on
    /// another node they are no longer in.
    pub(super) async fn lobby_left_loop(self: Arc<Self>, game: Game) {
        let subject = self.subject(&format!("lobby_left.{}", self.node_id()));
        let Some(mut inbox) = self
            .listen(&game, subject, "cannot subscribe to lobby-left notices")
            .await
        else {
            return;
        };
        while let Some(msg) = inbox.next().await {
            let Some(player) = std::str::from_utf8(&msg.payload)
                .ok()
                .and_then(|s| s.parse::<Uuid>().ok())
            else {
                continue;
            };
            if self.lobby_of.remove(&player).is_some() {
                game.presence().release(player, Busy::Lobby);
            }
        }
    }

    /// Owner: answers requests for lobby `code` from other nodes while it is open
    /// here. Returns once the subscription is in place at the NATS server (call it
    /// before the code is shown to anyone); false when it could not be made.
    pub async fn serve_lobby(self: &Arc<Self>, game: &Game, code: String) -> bool {
        let mut sub = match self.nats.subscribe(self.lobby_subject(&code)).await {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(code, error = %e, "cannot serve the lobby to other nodes");
                return false;
            }
        };
        if let Err(e) = self.nats.flush().await {
            tracing::warn!(code, error = %e, "lobby subscription not flushed");
        }
        let (me, st) = (self.clone(), game.clone());
        game.tasks().spawn(async move {
            let token = st.shutdown_token().clone();
            let mut check =
                tokio::time::interval_at(tokio::time::Instant::now() + OPEN_CHECK, OPEN_CHECK);
            loop {
                let msg = tokio::select! {
                    _ = token.cancelled() => break,
                    _ = check.tick() => {
                        if st.lobbies().is_open(&code) { continue } else { break }
                    }
                    m = sub.next() => match m { Some(m) => m, None => break },
                };
                let Some(reply) = msg.reply.clone() else {
                    continue;
                };
                let answer = match serde_json::from_slice::<LobbyWire>(&msg.payload) {
                    Ok(wire) if super::remote::past(wire.deadline_ms) => {
                        // Its sender has answered the socket already: not applied.
                        tracing::info!(code, player = %wire.player, "a lobby request came too late; not applied");
                        continue;
                    }
                    Ok(wire) => me.lobby_local(&st, &code, wire),
                    Err(_) => Err(Refused {
                        code: ErrorCode::Internal,
                        message: "unreadable lobby request".into(),
                    }),
                };
                let payload = serde_json::to_vec(&answer.err()).unwrap_or_default();
                let _ = me.nats.publish(reply, payload.into()).await;
            }
            // Requests that still come (the lobby closed) find no responder:
            // `lobby_not_found` on the asking node.
            let _ = sub.unsubscribe().await;
        });
        true
    }

    /// The stand-in of `player`'s socket `conn` on node `origin`: the one the lobby
    /// already uses for it, or a new one.
    fn lobby_proxy(&self, game: &Game, origin: &str, conn: u64, player: Uuid) -> ConnHandle {
        match self.lobby_stand_ins.get(&player) {
            Some(s) if s.0 == origin && s.1 == conn => s.2.clone(),
            _ => self.proxy(game, origin, conn, game.shutdown_token().child_token()),
        }
    }

    /// Owner: handles a remote socket's request for lobby `code`; a request with a
    /// `req` is answered (`ack` or error) through the socket's stand-in.
    fn lobby_local(&self, game: &Game, code: &str, wire: LobbyWire) -> Result<(), Refused> {
        let LobbyWire {
            origin,
            conn,
            player,
            req,
            cmd,
            ..
        } = wire;
        let proxy = self.lobby_proxy(game, &origin, conn, player);
        self.remember_stand_in(&origin, conn, &proxy);
        let lobbies = game.lobbies();
        let done = match cmd {
            LobbyCmd::Join { name } => {
                // The stand-in is in place before the join's `lobby_state` is sent.
                let before = self
                    .lobby_stand_ins
                    .insert(player, (origin.clone(), conn, proxy.clone()));
                let joined = lobbies.join(game, player, &name, code);
                if joined.is_err() {
                    match before {
                        Some(b) => {
                            self.lobby_stand_ins.insert(player, b);
                        }
                        None => {
                            self.lobby_stand_ins.remove(&player);
                        }
                    }
                }
                joined
            }
            LobbyCmd::Leave => lobbies.leave(game, player),
            LobbyCmd::Start => lobbies.start(game, player).map(|_| ()),
            LobbyCmd::Away => {
                lobbies.away(game, player);
                return Ok(());
            }
            LobbyCmd::Back => {
                // The member's newest socket gets the lobby's updates from now on
                // (also a member whose socket was on this node and is on another
                // now).
                return if lobbies.back(player, &proxy) {
                    self.lobby_stand_ins
                        .insert(player, (origin.clone(), conn, proxy.clone()));
                    Ok(())
                } else {
                    Err(refused(&LobbyError::NotInLobby))
                };
            }
        };
        match &done {
            Ok(()) => proxy.ack(req),
            Err(e) => proxy.send_error(e.code(), e.to_string(), req),
        }
        done.map_err(|e| refused(&e))
    }

    /// Every node: announces its public lobbies and rematch lobbies at every change
    /// and every [`ANNOUNCE`], takes in the other nodes' announcements, and forgets
    /// those not renewed for [`ANNOUNCED_FOR`].
    pub(super) async fn lobbies_loop(self: Arc<Self>, game: Game) {
        let token = game.shutdown_token().clone();
        let subject = self.subject("lobbies.list");
        let Some(mut sub) = self
            .subscribe_or_log(subject.clone(), "cannot subscribe to lobby lists")
            .await
        else {
            return;
        };
        let changed = game.lobbies().changed();
        let mut tick = tokio::time::interval(ANNOUNCE);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut heard: std::collections::HashMap<String, Instant> = Default::default();
        loop {
            tokio::select! {
                _ = token.cancelled() => break,
                _ = changed.notified() => self.announce_lobbies(&game, &subject).await,
                _ = tick.tick() => {
                    self.announce_lobbies(&game, &subject).await;
                    heard.retain(|node, at| {
                        let fresh = at.elapsed() < ANNOUNCED_FOR;
                        if !fresh {
                            game.lobbies().forget_remote(node);
                        }
                        fresh
                    });
                }
                m = sub.next() => {
                    let Some(m) = m else { break };
                    let Ok(a) = serde_json::from_slice::<Announcement>(&m.payload) else {
                        continue;
                    };
                    if a.node == self.node_id() {
                        continue;
                    }
                    heard.insert(a.node.clone(), Instant::now());
                    game.lobbies().set_remote(&a.node, a.lobbies);
                }
            }
        }
        // Leaving: the others drop this node's lobbies at once.
        let empty = Announcement {
            node: self.node_id().to_string(),
            lobbies: NodeLobbies {
                lobbies: Vec::new(),
                rematches: Vec::new(),
            },
        };
        if let Ok(payload) = serde_json::to_vec(&empty) {
            let _ = self.nats.publish(subject, payload.into()).await;
        }
    }

    async fn announce_lobbies(&self, game: &Game, subject: &str) {
        let a = Announcement {
            node: self.node_id().to_string(),
            lobbies: game.lobbies().announcement(),
        };
        let Ok(payload) = serde_json::to_vec(&a) else {
            return;
        };
        if let Err(e) = self.nats.publish(subject.to_string(), payload.into()).await {
            tracing::warn!(error = %e, "lobby list not announced");
        }
    }

    /// Queues `frame` to `player`'s socket on whichever node holds it (none: the
    /// frame is dropped, as for a player offline on a single node).
    pub fn tell_player(&self, player: Uuid, frame: &crate::ws::Frame) {
        let msg = PlayerFrame {
            player,
            frame: frame.as_str().to_string(),
        };
        let Ok(payload) = serde_json::to_vec(&msg) else {
            return;
        };
        self.notify(
            self.subject("player.frame"),
            payload,
            "frame for a player on another node not sent",
        );
    }

    /// Every node: queues the frames of [`Cluster::tell_player`] to the local
    /// sockets of their players.
    pub(super) async fn player_frame_loop(self: Arc<Self>, game: Game) {
        let Some(mut inbox) = self
            .listen(
                &game,
                self.subject("player.frame"),
                "cannot subscribe to player frames",
            )
            .await
        else {
            return;
        };
        while let Some(msg) = inbox.next().await {
            let Ok(f) = serde_json::from_slice::<PlayerFrame>(&msg.payload) else {
                continue;
            };
            if let Some(c) = game.session(f.player) {
                c.send(f.frame.into());
            }
        }
    }
}
