//! Any node serves any socket: a connection whose match runs on another node sends
//! its room commands to the owner over NATS, and the owner sends that connection's
//! frames back.
//!
//! * The owner of a running room subscribes to `<prefix>.room.<match_id>` while the
//!   room runs ([`Cluster::serve_room`]). A remote command is a NATS request
//!   ([`Wire`], JSON); the owner hands it to the room with a *proxy* connection for
//!   the remote socket and replies once the room has answered it (`ok`), or `gone`
//!   when the room has stopped; no responder means no node runs the match. Either
//!   way, while the match is still running in the store it is moving between nodes:
//!   the origin closes the socket as moved (1012) rather than answer `match_over`
//!   or `match_not_found`, and the client rejoins where the match runs next.
//! * The owner keeps one [`Relay`] per (room, origin node): every proxy of that
//!   node's sockets queues its frames there, in order, and the relay publishes them
//!   on `<prefix>.node.<origin>.match.<match_id>`. A broadcast (`turn_started`,
//!   `turn_resolved`, `chat`, …) is queued once per relay naming every socket of the
//!   match on that node ([`crate::ws::outbound::Fanout`]), so it crosses NATS once
//!   per interested node, not once per socket; a reply (`ack`, `error`, snapshot)
//!   names its one socket, and it keeps its place among the broadcasts that socket
//!   sees. A message's payload is the frame as encoded once by the room; header
//!   [`TO_HEADER`] lists the connection ids, and a close (a match moved, a newer
//!   socket) is a message with [`CLOSE_HEADER`] (the close code) and no payload.
//!   The origin node (`Cluster::forward_loop`) queues the same bytes to each named
//!   socket. [`RELAYED_COUNTER`] counts the frame messages a node publishes,
//!   [`RELAYED_SOCKETS_COUNTER`] the socket deliveries they carry.
//! * A node that resumes a match it claimed publishes `<prefix>.cluster.moved` with
//!   the match id: every node closes (1012) the sockets it routed to that match, so
//!   their clients reconnect and attach to the new owner.

use super::{Cluster, MOVED};
use crate::game::Game;
use crate::room::{RoomCmd, RoomHandle};
use crate::ws::outbound::{Relay, Relayed};
use crate::ws::{CloseReason, ConnHandle};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

/// How long a remote command waits for the owner's answer.
pub(crate) const REMOTE_TIMEOUT: Duration = Duration::from_secs(10);

/// The deadline of a lobby or queue request sent now (Unix ms): its owner applies
/// it only before then. [`REMOTE_TIMEOUT`] less a second, so that an answer applied
/// in time reaches the sender before it gives up and answers the socket itself
/// (breaker F4: a request refused while its owner was stalled was applied, and
/// answered a second time, once the owner resumed). The wall clock, since the
/// deadline crosses nodes.
pub(crate) fn apply_deadline_ms() -> u64 {
    wall_ms() + (REMOTE_TIMEOUT - Duration::from_secs(1)).as_millis() as u64
}

/// True when a request with `deadline_ms` ([`apply_deadline_ms`]) came too late to
/// be applied (its sender has answered the socket already). A request of a node
/// that sets none is always applied.
pub(crate) fn past(deadline_ms: Option<u64>) -> bool {
    deadline_ms.is_some_and(|d| wall_ms() > d)
}

/// Unix ms by this machine's wall clock.
fn wall_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
/// Header of a relayed frame: the connection ids (on the receiving node) it is
/// for, comma-separated decimal.
pub(crate) const TO_HEADER: &str = "Ludo-To";
/// Header of a relayed close: the WebSocket close code (4000 replaced, otherwise
/// 1012 moved).
pub(crate) const CLOSE_HEADER: &str = "Ludo-Close";
/// Counter: NATS messages carrying a frame that this node published to other
/// nodes' sockets (one per frame per node, whatever the number of sockets there).
pub(crate) const RELAYED_COUNTER: &str = "ludo_cluster_relayed_frames_total";
/// Counter: socket deliveries those messages carried (the sum of their
/// [`TO_HEADER`] lengths).
pub(crate) const RELAYED_SOCKETS_COUNTER: &str = "ludo_cluster_relayed_socket_frames_total";

/// A room command sent to the match's owner: the socket it comes from (origin node,
/// connection id there) and the command without its connection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Wire {
    /// The node holding the socket.
    pub origin: String,
    /// The socket's connection id on that node.
    pub conn: u64,
    /// The command.
    pub cmd: WireCmd,
}

/// [`RoomCmd`] without its connection handle (see [`RoomCmd`] for each field).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum WireCmd {
    Submit {
        player: Uuid,
        req: Option<String>,
        turn_number: u32,
        plan: engine::Plan,
        at_ms: u64,
    },
    Preview {
        player: Uuid,
        req: Option<String>,
        turn_number: u32,
        plan: engine::Plan,
        at_ms: u64,
    },
    Resync {
        player: Uuid,
        req: Option<String>,
        last_seq: u64,
    },
    Spectate {
        player: Uuid,
        req: Option<String>,
    },
    Attach {
        player: Uuid,
        /// The connection's last seen `seq` of the match (`hello.last_seq`; 0: none).
        #[serde(default)]
        last_seq: u64,
    },
    Detach,
    Leave {
        player: Uuid,
        req: Option<String>,
    },
    Chat {
        player: Uuid,
        name: String,
        req: Option<String>,
        text: String,
    },
    Contribute {
        player: Uuid,
        req: Option<String>,
        entropy: engine::Entropy,
    },
}

impl WireCmd {
    /// The command of `cmd`, without its connection.
    pub(crate) fn of(cmd: RoomCmd) -> WireCmd {
        match cmd {
            RoomCmd::Submit { .. } | RoomCmd::Preview { .. } | RoomCmd::Contribute { .. } => {
                WireCmd::of_play(cmd)
            }
            RoomCmd::Resync {
                player,
                req,
                last_seq,
                ..
            } => WireCmd::Resync {
                player,
                req,
                last_seq,
            },
            RoomCmd::Spectate { player, req, .. } => WireCmd::Spectate { player, req },
            RoomCmd::Attach {
                player, last_seq, ..
            } => WireCmd::Attach { player, last_seq },
            RoomCmd::Detach { .. } => WireCmd::Detach,
            RoomCmd::Leave { player, req, .. } => WireCmd::Leave { player, req },
            RoomCmd::Chat {
                player,
                name,
                req,
                text,
                ..
            } => WireCmd::Chat {
                player,
                name,
                req,
                text,
            },
        }
    }

    /// [`WireCmd::of`] for the play commands (`Submit`, `Preview`, `Contribute`),
    /// the only ones it passes here.
    fn of_play(cmd: RoomCmd) -> WireCmd {
        match cmd {
            RoomCmd::Submit {
                player,
                req,
                turn_number,
                plan,
                at_ms,
                ..
            } => WireCmd::Submit {
                player,
                req,
                turn_number,
                plan,
                at_ms,
            },
            RoomCmd::Preview {
                player,
                req,
                turn_number,
                plan,
                at_ms,
                ..
            } => WireCmd::Preview {
                player,
                req,
                turn_number,
                plan,
                at_ms,
            },
            RoomCmd::Contribute {
                player,
                req,
                entropy,
                ..
            } => WireCmd::Contribute {
                player,
                req,
                entropy,
            },
            _ => unreachable!("WireCmd::of passes only the play commands"),
        }
    }

    /// The room command for the proxy `conn` (a request handle for requests).
    fn into_cmd(self, conn: ConnHandle) -> RoomCmd {
        let received = std::time::Instant::now();
        match self {
            WireCmd::Submit { .. } | WireCmd::Preview { .. } | WireCmd::Contribute { .. } => {
                self.into_play_cmd(conn, received)
            }
            WireCmd::Resync {
                player,
                req,
                last_seq,
            } => RoomCmd::Resync {
                player,
                conn,
                req,
                last_seq,
            },
            WireCmd::Spectate { player, req } => RoomCmd::Spectate { player, conn, req },
            WireCmd::Attach { player, last_seq } => RoomCmd::Attach {
                player,
                conn,
                last_seq,
            },
            WireCmd::Detach => RoomCmd::Detach { conn_id: conn.id() },
            WireCmd::Leave { player, req } => RoomCmd::Leave { player, conn, req },
            WireCmd::Chat {
                player,
                name,
                req,
                text,
            } => RoomCmd::Chat {
                player,
                name,
                conn,
                req,
                text,
            },
        }
    }

    /// [`WireCmd::into_cmd`] for the play commands (`Submit`, `Preview`,
    /// `Contribute`), the only ones it passes here: the room command for `conn`,
    /// a submitted plan stamped `received` (when this node read the command).
    fn into_play_cmd(self, conn: ConnHandle, received: std::time::Instant) -> RoomCmd {
        match self {
            WireCmd::Submit {
                player,
                req,
                turn_number,
                plan,
                at_ms,
            } => RoomCmd::Submit {
                player,
                conn,
                req,
                turn_number,
                plan,
                received,
                at_ms,
            },
            WireCmd::Preview {
                player,
                req,
                turn_number,
                plan,
                at_ms,
            } => RoomCmd::Preview {
                player,
                conn,
                req,
                turn_number,
                plan,
                at_ms,
            },
            WireCmd::Contribute {
                player,
                req,
                entropy,
            } => RoomCmd::Contribute {
                player,
                conn,
                req,
                entropy,
            },
            _ => unreachable!("WireCmd::into_cmd passes only the play commands"),
        }
    }

    /// When the origin node read this plan (`submit_turn`, `preview_plan`), Unix
    /// ms; `None` for other commands.
    fn read_at_ms(&self) -> Option<u64> {
        match self {
            WireCmd::Submit { at_ms, .. } | WireCmd::Preview { at_ms, .. } => Some(*at_ms),
            _ => None,
        }
    }

    fn is_request(&self) -> bool {
        !matches!(self, WireCmd::Attach { .. } | WireCmd::Detach)
    }
}

const OK: &[u8] = b"ok";
const GONE: &[u8] = b"gone";
/// The reply for a request the room answered with a plain `ack` (it took effect:
/// an applied plan), which the sender's message budget does not count.
const APPLIED: &[u8] = b"applied";

impl Cluster {
    fn room_subject(&self, match_id: Uuid) -> String {
        self.subject(&format!("room.{match_id}"))
    }

    fn relay_subject(&self, origin: &str, tail: &str) -> String {
        self.subject(&format!("node.{origin}.{tail}"))
    }

    /// Sends `cmd` (from the local socket `conn`) to the node that runs `match_id`
    /// and waits until that room has answered it: `Some(true)` when the answer was a
    /// plain `ack` (the request took effect), `Some(false)` for any other answer.
    /// `None` when no node runs the match (or it stopped, or did not answer in
    /// `REMOTE_TIMEOUT`).
    pub async fn route(&self, match_id: Uuid, cmd: RoomCmd, conn: &ConnHandle) -> Option<bool> {
        let wire = Wire {
            origin: self.node_id().to_string(),
            conn: conn.id(),
            cmd: WireCmd::of(cmd),
        };
        let Ok(payload) = serde_json::to_vec(&wire) else {
            return None;
        };
        if matches!(wire.cmd, WireCmd::Detach) {
            // Nothing to wait for (and a room that just stopped may never answer).
            if let Err(e) = self
                .nats
                .publish(self.room_subject(match_id), payload.into())
                .await
            {
                tracing::debug!(error = %e, "detach not sent");
            }
            return Some(false);
        }
        // Frames (a snapshot) may arrive before the reply: forward from now on.
        self.conns.insert(conn.id(), conn.clone());
        let attach = matches!(wire.cmd, WireCmd::Attach { .. });
        if attach {
            // A socket re-attaching follows the match from now on: a takeover
            // announced while the request is out, or after it failed (no node runs
            // the match while a dead owner's lease lasts), closes it as moved (1012)
            // instead of leaving it silent (issue 34.1).
            self.follow_match(match_id, conn);
        }
        // NATS down: nothing is sent (a request queued in the client would reach
        // the room after the outage, against a newer turn).
        if !self.messaging_up() {
            if attach {
                self.close_if_unserved(match_id, conn, "NATS unreachable");
            }
            return None;
        }
        match self.ask_room(match_id, payload).await {
            Ok(applied) => {
                self.follow_match(match_id, conn);
                self.unserved.remove_if(&conn.id(), |_, m| *m == match_id);
                Some(applied)
            }
            Err(answered) => {
                if attach {
                    self.close_if_unserved(match_id, conn, answered);
                }
                None
            }
        }
    }

    /// Whether `match_id` (stored as running), for which no node answered, is only
    /// waiting for its owner to come back on NATS rather than moving: this node's
    /// NATS connection came back after a loss less than [`super::RELINK_SETTLE`]
    /// (at least a lease) ago — a NATS restart drops every node, and each
    /// reconnects after its own back-off — and another node still holds the
    /// match's lease unexpired (it renews it through the database, which it still
    /// reaches). False otherwise, and when the store cannot say: then the match is
    /// moving (its owner stopped or lost the lease; another node resumes it).
    pub(crate) async fn owner_not_back(&self, store: &store::Store, match_id: Uuid) -> bool {
        let window = self.settings.lease.max(super::RELINK_SETTLE);
        if !self.link.relinked_within(window) {
            return false;
        }
        match store.live_owner(match_id).await {
            Ok(Some(owner)) => owner != self.node_id(),
            Ok(None) => false,
            Err(e) => {
                tracing::warn!(error = %e, match_id = %match_id, "lease of the match not read");
                false
            }
        }
    }

    /// The `cluster_unavailable` refusal of a request whose match's owner is not
    /// back on NATS yet ([`Cluster::owner_not_back`]).
    pub(crate) fn owner_unreachable() -> super::queue::Refused {
        super::queue::Refused {
            code: protocol::ErrorCode::ClusterUnavailable,
            message: "the node running this match is not reachable yet (NATS is reconnecting); nothing was changed, try again in a few seconds".into(),
        }
    }

    /// Remembers that the local socket `conn` follows `match_id`: it is closed as
    /// moved (1012) when another node announces that it resumed the match
    /// (`Cluster::moved_loop`).
    fn follow_match(&self, match_id: Uuid, conn: &ConnHandle) {
        self.routed
            .entry(match_id)
            .or_default()
            .insert(conn.id(), conn.clone());
    }

    /// Sends the encoded [`Wire`] `payload` as a request to the node that runs
    /// `match_id` and waits up to [`REMOTE_TIMEOUT`] for its reply: `Ok(true)`
    /// when the room answered with a plain `ack` ([`APPLIED`]), `Ok(false)` for
    /// any other answer ([`OK`]). Errors, as the reason logged when a
    /// re-attached socket is closed later: "refused" (`gone`: the room stopped,
    /// or the plan came too late), "no node runs it" (no responder), "no answer"
    /// (timed out).
    async fn ask_room(&self, match_id: Uuid, payload: Vec<u8>) -> Result<bool, &'static str> {
        let asked = self
            .nats
            .request(self.room_subject(match_id), payload.into());
        match tokio::time::timeout(REMOTE_TIMEOUT, asked).await {
            Ok(Ok(reply)) if [OK, APPLIED].contains(&reply.payload.as_ref()) => {
                Ok(reply.payload.as_ref() == APPLIED)
            }
            Ok(Ok(_)) => Err("refused"),
            Ok(Err(e)) => {
                tracing::debug!(match_id = %match_id, error = %e, "no node runs the match");
                Err("no node runs it")
            }
            Err(_) => {
                tracing::warn!(match_id = %match_id, "the match's owner did not answer in time");
                Err("no answer")
            }
        }
    }

    /// A socket whose re-attach to `match_id` found no node serving it waits for
    /// the takeover's moved notice (which closes it with 1012); if neither that
    /// nor a later successful request came within the lease and 2 s (a notice
    /// lost, an owner that is alive but did not answer), it is closed as moved
    /// then: the client reconnects where the match runs (issue 34.1).
    fn close_if_unserved(&self, match_id: Uuid, conn: &ConnHandle, why: &'static str) {
        self.unserved.insert(conn.id(), match_id);
        let unserved = self.unserved.clone();
        let conn = conn.clone();
        let wait = self.settings.lease + Duration::from_secs(2);
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            if unserved
                .remove_if(&conn.id(), |_, m| *m == match_id)
                .is_some()
                && !conn.is_closed()
            {
                tracing::info!(match_id = %match_id, conn = conn.id(), why,
                    "no node served the re-attached socket: closed as moved");
                conn.close(MOVED);
            }
        });
    }

    /// The local socket `conn_id` closed: stop forwarding to it.
    pub fn forget_conn(&self, conn_id: u64) {
        self.conns.remove(&conn_id);
        self.unserved.remove(&conn_id);
        for mut e in self.routed.iter_mut() {
            e.value_mut().remove(&conn_id);
        }
        self.routed.retain(|_, v| !v.is_empty());
    }

    /// Origin side: queues the frames owners relay to this node's sockets (the same
    /// bytes to every socket named), and closes a socket when its proxy closed.
    pub(super) async fn forward_loop(self: Arc<Self>, game: Game) {
        let subject = self.relay_subject(self.node_id(), ">");
        let Some(mut inbox) = self
            .listen(&game, subject, "cannot subscribe to remote frames")
            .await
        else {
            return;
        };
        while let Some(msg) = inbox.next().await {
            let Some(headers) = msg.headers.as_ref() else {
                continue;
            };
            let Some(to) = headers.get(TO_HEADER) else {
                continue;
            };
            let ids = to
                .as_str()
                .split(',')
                .filter_map(|id| id.parse::<u64>().ok());
            if let Some(code) = headers.get(CLOSE_HEADER) {
                let reason = match code.as_str() {
                    "4000" => CloseReason::REPLACED,
                    _ => MOVED,
                };
                for id in ids {
                    if let Some(conn) = self.conns.get(&id).map(|c| c.clone()) {
                        conn.close(reason);
                    }
                }
                continue;
            }
            let Ok(frame) = crate::ws::Frame::try_from(msg.payload) else {
                tracing::warn!("relayed frame is not UTF-8");
                continue;
            };
            for id in ids {
                if let Some(conn) = self.conns.get(&id).map(|c| c.clone()) {
                    conn.send(frame.clone());
                }
            }
        }
    }

    /// Every node: a match was resumed by another node; close the sockets this node
    /// routed to it (1012) so their clients reconnect and attach to the new owner.
    pub(super) async fn moved_loop(self: Arc<Self>, game: Game) {
        let Some(mut inbox) = self
            .listen(
                &game,
                self.subject("cluster.moved"),
                "cannot subscribe to moved notices",
            )
            .await
        else {
            return;
        };
        while let Some(msg) = inbox.next().await {
            let Some(id) = std::str::from_utf8(&msg.payload)
                .ok()
                .and_then(|s| s.parse::<Uuid>().ok())
            else {
                continue;
            };
            // The takeover's notice came: the sockets waiting for it are served
            // (here) or closed below.
            self.unserved.retain(|_, m| *m != id);
            if let Some((_, conns)) = self.routed.remove(&id) {
                // When this node took the match over, the sockets of its seated
                // players are the resumed room's already (each got a snapshot):
                // only the others reconnect.
                let kept = if game.registries().runs_room(id) {
                    game.registries().seated_sessions(id)
                } else {
                    Default::default()
                };
                for c in conns.into_values() {
                    if !kept.contains(&c.id()) {
                        c.close(MOVED);
                    }
                }
            }
        }
    }

    /// Tells every node that this node now runs `match_id`.
    pub(super) async fn announce_moved(&self, match_id: Uuid) {
        if let Err(e) = self
            .nats
            .publish(self.subject("cluster.moved"), match_id.to_string().into())
            .await
        {
            tracing::warn!(error = %e, "moved notice not sent");
        }
    }

    /// Owner side: serves remote commands for the room of `match_id` while it runs.
    pub fn serve_room(self: &Arc<Self>, game: &Game, match_id: Uuid, room: RoomHandle) {
        let me = self.clone();
        let st = game.clone();
        game.tasks().spawn(async move {
            let subject = me.room_subject(match_id);
            let mut sub = match me.nats.subscribe(subject).await {
                Ok(s) => s,
                Err(e) => {
                    tracing::error!(match_id = %match_id, error = %e, "cannot serve remote sockets");
                    return;
                }
            };
            let mut proxies: HashMap<(String, u64), ConnHandle> = HashMap::new();
            // One relay per origin node, shared by its sockets' proxies.
            let mut relays: HashMap<String, Arc<Relay>> = HashMap::new();
            // Cancelled when the room stops: each relay publishes what it still has
            // queued, then ends.
            let done = tokio_util::sync::CancellationToken::new();
            loop {
                let msg = tokio::select! {
                    _ = room.closed() => break,
                    _ = st.shutdown_token().cancelled() => break,
                    m = sub.next() => match m { Some(m) => m, None => break },
                };
                let Ok(wire) = serde_json::from_slice::<Wire>(&msg.payload) else {
                    tracing::warn!(match_id = %match_id, "unreadable remote command");
                    continue;
                };
                let key = (wire.origin.clone(), wire.conn);
                if matches!(wire.cmd, WireCmd::Detach) {
                    // Sent without a reply subject: detach the proxy, if any.
                    if let Some(p) = proxies.remove(&key) {
                        if room.send(RoomCmd::Detach { conn_id: p.id() }).await.is_err() {
                            break;
                        }
                    }
                    continue;
                }
                let Some(reply) = msg.reply.clone() else {
                    continue;
                };
                let proxy =
                    me.room_proxy(&st, match_id, &key, &mut proxies, &mut relays, &done);
                let served = me
                    .hand_to_room(&st, match_id, &room, &proxy, wire.cmd, reply)
                    .await;
                if served.is_break() {
                    break;
                }
            }
            done.cancel();
            drop(proxies);
            drop(relays);
            me.answer_gone(sub).await;
        });
    }

    /// Owner side ([`Cluster::serve_room`] of `match_id`): the proxy of the remote
    /// socket `key` (origin node, connection id there), made on its first command
    /// and kept in `proxies`. A new proxy queues its frames on the relay of its
    /// origin node in `relays`, made for the first of that node's sockets and
    /// publishing on `<prefix>.node.<origin>.match.<match_id>` until `done`.
    fn room_proxy(
        &self,
        game: &Game,
        match_id: Uuid,
        key: &(String, u64),
        proxies: &mut HashMap<(String, u64), ConnHandle>,
        relays: &mut HashMap<String, Arc<Relay>>,
        done: &tokio_util::sync::CancellationToken,
    ) -> ConnHandle {
        let (origin, conn) = key;
        match proxies.get(key) {
            Some(p) => p.clone(),
            None => {
                let relay = relays.entry(origin.clone()).or_insert_with(|| {
                    let tail = format!("match.{match_id}");
                    self.relay(game, origin, &tail, done.clone())
                });
                let p = relay.conn(game.next_conn_id(), *conn);
                proxies.insert(key.clone(), p.clone());
                p
            }
        }
    }

    /// Owner side: hands the remote command `cmd` to `room` (of `match_id`) with
    /// the socket's `proxy` (a request handle of it for requests), and replies
    /// on `reply` once the room has answered: [`APPLIED`] for a request answered
    /// with a plain `ack`, otherwise [`OK`]. A plan read by its node more than
    /// [`REMOTE_TIMEOUT`] ago is dropped and answered [`GONE`]. Breaks (after
    /// replying [`GONE`]) when the room has stopped.
    async fn hand_to_room(
        &self,
        game: &Game,
        match_id: Uuid,
        room: &RoomHandle,
        proxy: &ConnHandle,
        cmd: WireCmd,
        reply: async_nats::Subject,
    ) -> ControlFlow<()> {
        // A plan its node read longer ago than that node waits for an
        // answer (NATS held it up): that node has answered the client
        // already; applying it now would play it against a newer turn.
        if let Some(at_ms) = cmd.read_at_ms() {
            let late_ms = game.clock().now_ms().saturating_sub(at_ms);
            if late_ms > REMOTE_TIMEOUT.as_millis() as u64 {
                tracing::info!(match_id = %match_id, late_ms, "a remote plan arrived too late: dropped");
                let _ = self.nats.publish(reply, GONE.into()).await;
                return ControlFlow::Continue(());
            }
        }
        let request = cmd.is_request();
        let (conn, answered) = proxy.for_request();
        let cmd = cmd.into_cmd(if request { conn } else { proxy.clone() });
        let nats = self.nats.clone();
        if room.send(cmd).await.is_err() {
            let _ = nats.publish(reply, GONE.into()).await;
            return ControlFlow::Break(());
        }
        tokio::spawn(async move {
            let took_effect = request && answered.wait().await;
            let answer = if took_effect { APPLIED } else { OK };
            let _ = nats.publish(reply, answer.into()).await;
        });
        ControlFlow::Continue(())
    }

    /// Owner side, once a room has stopped: unsubscribes `sub` (its
    /// `<prefix>.room.<match_id>`) and answers [`GONE`] to the requests that still
    /// reach it within a second.
    async fn answer_gone(&self, mut sub: async_nats::Subscriber) {
        // Requests that reached this subscription after the room stopped: `gone`
        // (the sender then answers from the store) rather than no answer.
        let _ = sub.unsubscribe().await;
        let drain = async {
            while let Some(m) = sub.next().await {
                if let Some(reply) = m.reply {
                    let _ = self.nats.publish(reply, GONE.into()).await;
                }
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(1), drain).await;
    }

    /// A connection handle on this node for the remote socket `conn` of node
    /// `origin`, through a relay of its own (the matchmaker's stand-in for a queued
    /// player): frames queued to it are published to that node, in order.
    pub(super) fn proxy(
        &self,
        game: &Game,
        origin: &str,
        conn: u64,
        done: tokio_util::sync::CancellationToken,
    ) -> ConnHandle {
        self.relay(game, origin, "queue", done)
            .conn(game.next_conn_id(), conn)
    }

    /// A relay to node `origin`, publishing on `<prefix>.node.<origin>.<tail>` until
    /// `done` is cancelled or every handle through it is dropped: the frames queued,
    /// in order, then (each after the frames queued before it) the closes.
    pub(super) fn relay(
        &self,
        game: &Game,
        origin: &str,
        tail: &str,
        done: tokio_util::sync::CancellationToken,
    ) -> Arc<Relay> {
        let (relay, mut frames, mut closes) = Relay::new(game.config().outbound_queue);
        let subject = self.relay_subject(origin, tail);
        let nats = self.nats.clone();
        tokio::spawn(async move {
            loop {
                let item = tokio::select! {
                    biased;
                    f = frames.recv() => match f {
                        Some(f) => f,
                        None => break,
                    },
                    c = closes.recv() => match c {
                        Some(c) => c,
                        None => break,
                    },
                    _ = done.cancelled() => break,
                };
                if publish(&nats, &subject, item).await.is_err() {
                    return;
                }
            }
            // Closes asked just before the end (a room that lost its match closes
            // its sockets, then stops).
            while let Ok(c) = closes.try_recv() {
                if publish(&nats, &subject, c).await.is_err() {
                    return;
                }
            }
        });
        relay
    }
}

/// Publishes one relayed item on `subject` (see the module doc for its shape).
async fn publish(
    nats: &async_nats::Client,
    subject: &str,
    item: Relayed,
) -> Result<(), async_nats::PublishError> {
    let mut headers = async_nats::HeaderMap::new();
    match item {
        Relayed::Frame { to, frame } => {
            let ids: Vec<String> = to.iter().map(u64::to_string).collect();
            headers.insert(TO_HEADER, ids.join(","));
            metrics::counter!(RELAYED_COUNTER).increment(1);
            metrics::counter!(RELAYED_SOCKETS_COUNTER).increment(to.len() as u64);
            nats.publish_with_headers(subject.to_string(), headers, frame.into())
                .await
        }
        Relayed::Close { to, code } => {
            headers.insert(TO_HEADER, to.to_string());
            headers.insert(CLOSE_HEADER, code.to_string());
            nats.publish_with_headers(subject.to_string(), headers, Default::default())
                .await
        }
    }
}
