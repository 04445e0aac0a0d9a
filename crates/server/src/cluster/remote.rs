//! Any node serves any socket: a connection whose match runs on another node sends
//! its room commands to the owner over NATS, and the owner sends that connection's
//! frames back.
//!
//! * The owner of a running room subscribes to `<prefix>.room.<match_id>` while the
//!   room runs ([`Cluster::serve_room`]). A remote command is a NATS request
//!   ([`Wire`], JSON); the owner hands it to the room with a *proxy* connection for
//!   the remote socket and replies once the room has answered it (`ok`), or `gone`
//!   when the room has stopped; no responder means no node runs the match.
//! * A proxy publishes every frame the room queues for it, in order, on
//!   `<prefix>.conn.<origin node>.<conn id>`, and a close (a match moved, a newer
//!   socket) on `….<conn id>.close`; the origin node (`Cluster::forward_loop`)
//!   queues them to the real socket.
//! * A node that resumes a match it claimed publishes `<prefix>.cluster.moved` with
//!   the match id: every node closes (1012) the sockets it routed to that match, so
//!   their clients reconnect and attach to the new owner.

use super::{Cluster, MOVED};
use crate::room::{RoomCmd, RoomHandle};
use crate::state::AppState;
use crate::ws::{CloseReason, ConnHandle};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

/// How long a remote command waits for the owner's answer.
pub const REMOTE_TIMEOUT: Duration = Duration::from_secs(10);

/// A room command sent to the match's owner: the socket it comes from (origin node,
/// connection id there) and the command without its connection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Wire {
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
pub enum WireCmd {
    Submit {
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
}

impl WireCmd {
    /// The command of `cmd`, without its connection.
    pub fn of(cmd: RoomCmd) -> WireCmd {
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

    /// The room command for the proxy `conn` (a request handle for requests).
    fn into_cmd(self, conn: ConnHandle) -> RoomCmd {
        let received = std::time::Instant::now();
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

    fn is_request(&self) -> bool {
        !matches!(self, WireCmd::Attach { .. } | WireCmd::Detach)
    }
}

const OK: &[u8] = b"ok";
const GONE: &[u8] = b"gone";

impl Cluster {
    fn room_subject(&self, match_id: Uuid) -> String {
        self.subject(&format!("room.{match_id}"))
    }

    fn conn_subject(&self, origin: &str, conn: u64) -> String {
        self.subject(&format!("conn.{origin}.{conn}"))
    }

    /// Sends `cmd` (from the local socket `conn`) to the node that runs `match_id`
    /// and waits until that room has answered it. False when no node runs the match
    /// (or it stopped, or did not answer in [`REMOTE_TIMEOUT`]).
    pub async fn route(&self, match_id: Uuid, cmd: RoomCmd, conn: &ConnHandle) -> bool {
        let wire = Wire {
            origin: self.node_id().to_string(),
            conn: conn.id(),
            cmd: WireCmd::of(cmd),
        };
        let Ok(payload) = serde_json::to_vec(&wire) else {
            return false;
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
            return true;
        }
        // Frames (a snapshot) may arrive before the reply: forward from now on.
        self.conns.insert(conn.id(), conn.clone());
        let asked = self
            .nats
            .request(self.room_subject(match_id), payload.into());
        match tokio::time::timeout(REMOTE_TIMEOUT, asked).await {
            Ok(Ok(reply)) if reply.payload.as_ref() == OK => {
                self.routed
                    .entry(match_id)
                    .or_default()
                    .insert(conn.id(), conn.clone());
                true
            }
            Ok(Ok(_)) => false,
            Ok(Err(e)) => {
                tracing::debug!(match_id = %match_id, error = %e, "no node runs the match");
                false
            }
            Err(_) => {
                tracing::warn!(match_id = %match_id, "the match's owner did not answer in time");
                false
            }
        }
    }

    /// The local socket `conn_id` closed: stop forwarding to it.
    pub fn forget_conn(&self, conn_id: u64) {
        self.conns.remove(&conn_id);
        for mut e in self.routed.iter_mut() {
            e.value_mut().remove(&conn_id);
        }
        self.routed.retain(|_, v| !v.is_empty());
    }

    /// Origin side: queues the frames owners publish for this node's sockets, and
    /// closes a socket when its proxy closed.
    pub(super) async fn forward_loop(self: Arc<Self>, state: AppState) {
        let token = state.shutdown_token().clone();
        let subject = self.subject(&format!("conn.{}.>", self.node_id()));
        let mut sub = match self.nats.subscribe(subject).await {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(error = %e, "cannot subscribe to remote frames");
                return;
            }
        };
        let skip = self.subject(&format!("conn.{}.", self.node_id())).len();
        loop {
            let msg = tokio::select! {
                _ = token.cancelled() => return,
                m = sub.next() => match m { Some(m) => m, None => return },
            };
            let tail = &msg.subject.as_str()[skip..];
            let (id, close) = match tail.split_once('.') {
                Some((id, "close")) => (id, true),
                _ => (tail, false),
            };
            let Ok(id) = id.parse::<u64>() else { continue };
            let Some(conn) = self.conns.get(&id).map(|c| c.clone()) else {
                continue;
            };
            if close {
                let code = std::str::from_utf8(&msg.payload)
                    .ok()
                    .and_then(|s| s.parse::<u16>().ok());
                conn.close(match code {
                    Some(4000) => CloseReason::REPLACED,
                    _ => MOVED,
                });
            } else if let Ok(text) = String::from_utf8(msg.payload.to_vec()) {
                conn.send(text.into());
            }
        }
    }

    /// Every node: a match was resumed by another node; close the sockets this node
    /// routed to it (1012) so their clients reconnect and attach to the new owner.
    pub(super) async fn moved_loop(self: Arc<Self>, state: AppState) {
        let token = state.shutdown_token().clone();
        let mut sub = match self.nats.subscribe(self.subject("cluster.moved")).await {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(error = %e, "cannot subscribe to moved notices");
                return;
            }
        };
        loop {
            let msg = tokio::select! {
                _ = token.cancelled() => return,
                m = sub.next() => match m { Some(m) => m, None => return },
            };
            let Some(id) = std::str::from_utf8(&msg.payload)
                .ok()
                .and_then(|s| s.parse::<Uuid>().ok())
            else {
                continue;
            };
            if let Some((_, conns)) = self.routed.remove(&id) {
                for c in conns.into_values() {
                    c.close(MOVED);
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
    pub fn serve_room(self: &Arc<Self>, state: &AppState, match_id: Uuid, room: RoomHandle) {
        let me = self.clone();
        let st = state.clone();
        state.tasks().spawn(async move {
            let subject = me.room_subject(match_id);
            let mut sub = match me.nats.subscribe(subject).await {
                Ok(s) => s,
                Err(e) => {
                    tracing::error!(match_id = %match_id, error = %e, "cannot serve remote sockets");
                    return;
                }
            };
            let mut proxies: HashMap<(String, u64), ConnHandle> = HashMap::new();
            // Cancelled when the room stops: each proxy publishes what it still has
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
                let proxy = match proxies.get(&key) {
                    Some(p) => p.clone(),
                    None => {
                        let p = me.proxy(&st, &wire.origin, wire.conn, done.clone());
                        proxies.insert(key.clone(), p.clone());
                        p
                    }
                };
                let request = wire.cmd.is_request();
                let (conn, answered) = proxy.for_request();
                let cmd = wire.cmd.into_cmd(if request { conn } else { proxy.clone() });
                let nats = me.nats.clone();
                if room.send(cmd).await.is_err() {
                    let _ = nats.publish(reply, GONE.into()).await;
                    break;
                }
                tokio::spawn(async move {
                    if request {
                        answered.wait().await;
                    }
                    let _ = nats.publish(reply, OK.into()).await;
                });
            }
            done.cancel();
            drop(proxies);
            // Requests that reached this subscription after the room stopped: `gone`
            // (the sender then answers from the store) rather than no answer.
            let _ = sub.unsubscribe().await;
            let drain = async {
                while let Some(m) = sub.next().await {
                    if let Some(reply) = m.reply {
                        let _ = me.nats.publish(reply, GONE.into()).await;
                    }
                }
            };
            let _ = tokio::time::timeout(Duration::from_secs(1), drain).await;
        });
    }

    /// A connection handle on this (owner) node for the remote socket `conn` of
    /// node `origin`: frames queued to it are published to that node, in order.
    pub(super) fn proxy(
        &self,
        state: &AppState,
        origin: &str,
        conn: u64,
        done: tokio_util::sync::CancellationToken,
    ) -> ConnHandle {
        let (tx, mut rx) = tokio::sync::mpsc::channel(state.config().outbound_queue);
        let handle = ConnHandle::new(state.next_conn_id(), tx);
        let subject = self.conn_subject(origin, conn);
        let nats = self.nats.clone();
        let watch = handle.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    biased;
                    f = rx.recv() => match f {
                        Some(frame) => {
                            let bytes = frame.as_str().as_bytes().to_vec();
                            if nats.publish(subject.clone(), bytes.into()).await.is_err() {
                                return;
                            }
                        }
                        None => return,
                    },
                    _ = done.cancelled() => return,
                    _ = watch.closing() => {
                        let code = watch.close_reason().map_or(MOVED.code, |r| r.code);
                        let _ = nats
                            .publish(format!("{subject}.close"), code.to_string().into())
                            .await;
                        return;
                    }
                }
            }
        });
        handle
    }
}
