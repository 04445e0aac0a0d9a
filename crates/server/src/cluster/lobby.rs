//! Lobbies across the cluster: a join code created on one node can be joined from
//! any node.
//!
//! * The node where a lobby is created owns it and answers NATS requests on
//!   `<prefix>.lobby.<code>` ([`LobbyWire`], JSON) while the lobby is open
//!   ([`Cluster::serve_lobby`]; subscribed before the creator gets the code).
//! * `join_lobby` with a code this node does not have is sent there; no responder
//!   means no node has the lobby (`lobby_not_found`). The owner holds a *stand-in*
//!   connection for the joiner's socket (as [`super::remote`] does for room
//!   commands), so `lobby_state` and the match's frames reach it; the match of a
//!   started lobby runs on the owner.
//! * The joiner's node remembers the lobby's code for the player, and sends the
//!   member's `leave_lobby`, `start_lobby`, socket close (the grace period runs on
//!   the owner) and `hello` (back in the lobby) there as well.
//! * When a remote member is no longer in the lobby (left, grace over, the lobby
//!   started) the owner tells the member's node on `<prefix>.lobby_left.<node>`,
//!   which frees the player's local `Lobby` presence.
//!
//! Codes are unique per node; two nodes opening the same code at the same time (one
//! chance in ~10⁹ per pair) would both answer its requests.

use super::queue::Refused;
use super::Cluster;
use crate::lobby::LobbyError;
use crate::presence::Busy;
use crate::state::AppState;
use crate::ws::ConnHandle;
use futures_util::StreamExt;
use protocol::ErrorCode;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

/// How often the owner checks that a served lobby is still open.
const OPEN_CHECK: Duration = Duration::from_secs(1);

/// A lobby request from a member's (or joiner's) node to the lobby's owner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LobbyWire {
    /// The node holding the socket.
    pub origin: String,
    /// The socket's connection id there.
    pub conn: u64,
    /// The signed-in player.
    pub player: Uuid,
    /// What it asks.
    pub cmd: LobbyCmd,
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

fn refused(e: &LobbyError) -> Refused {
    Refused {
        code: e.code(),
        message: e.to_string(),
    }
}

impl Cluster {
    fn lobby_subject(&self, code: &str) -> String {
        self.subject(&format!("lobby.{code}"))
    }

    /// The code of the lobby on another node that `player` (signed in here) joined.
    pub fn remote_lobby(&self, player: Uuid) -> Option<String> {
        self.lobby_of.get(&player).map(|c| c.clone())
    }

    /// Forgets that `player` is in a lobby on another node (it left).
    pub fn forget_remote_lobby(&self, player: Uuid) {
        self.lobby_of.remove(&player);
    }

    /// The stand-in connection of a remote member of a lobby owned here.
    pub fn lobby_stand_in(&self, player: Uuid) -> Option<ConnHandle> {
        self.lobby_stand_ins.get(&player).map(|s| s.1.clone())
    }

    /// Sends `cmd` of the local socket `conn` (signed in as `player`) to the owner
    /// of lobby `code` and waits for its answer; a successful join is remembered.
    ///
    /// Errors: the owner's refusal; `lobby_not_found` when no node has the lobby;
    /// `internal` when the owner did not answer in time.
    pub async fn lobby_remote(
        &self,
        code: &str,
        player: Uuid,
        cmd: LobbyCmd,
        conn: &ConnHandle,
    ) -> Result<(), Refused> {
        let join = matches!(cmd, LobbyCmd::Join { .. });
        let wire = LobbyWire {
            origin: self.node_id().to_string(),
            conn: conn.id(),
            player,
            cmd,
        };
        let not_found = || refused(&LobbyError::NotFound(code.to_string()));
        let payload = serde_json::to_vec(&wire).map_err(|_| not_found())?;
        self.conns.insert(conn.id(), conn.clone());
        let asked = self.nats.request(self.lobby_subject(code), payload.into());
        let answer = match tokio::time::timeout(super::remote::REMOTE_TIMEOUT, asked).await {
            Ok(Ok(reply)) => match serde_json::from_slice::<Option<Refused>>(&reply.payload) {
                Ok(None) => Ok(()),
                Ok(Some(r)) => Err(r),
                Err(_) => Err(not_found()),
            },
            Ok(Err(e)) => {
                tracing::debug!(code, error = %e, "no node has the lobby");
                Err(not_found())
            }
            Err(_) => Err(Refused {
                code: ErrorCode::Internal,
                message: "the lobby's node did not answer in time".into(),
            }),
        };
        if join && answer.is_ok() {
            self.lobby_of.insert(player, code.to_string());
        }
        answer
    }

    /// Owner: a remote member is no longer in the lobby (left, grace over, or the
    /// lobby started): drops its stand-in (a room holds its own handle) and tells
    /// its node to free the player's `Lobby` presence.
    pub fn lobby_gone(&self, player: Uuid) {
        let Some((_, (origin, _))) = self.lobby_stand_ins.remove(&player) else {
            return;
        };
        let nats = self.nats.clone();
        let subject = self.subject(&format!("lobby_left.{origin}"));
        tokio::spawn(async move {
            if let Err(e) = nats.publish(subject, player.to_string().into()).await {
                tracing::warn!(error = %e, "lobby-left notice not sent");
            }
        });
    }

    /// Every node: frees the local `Lobby` presence of players whose lobby on
    /// another node they are no longer in.
    pub(super) async fn lobby_left_loop(self: Arc<Self>, state: AppState) {
        let token = state.shutdown_token().clone();
        let subject = self.subject(&format!("lobby_left.{}", self.node_id()));
        let mut sub = match self.nats.subscribe(subject).await {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(error = %e, "cannot subscribe to lobby-left notices");
                return;
            }
        };
        loop {
            let msg = tokio::select! {
                _ = token.cancelled() => return,
                m = sub.next() => match m { Some(m) => m, None => return },
            };
            let Some(player) = std::str::from_utf8(&msg.payload)
                .ok()
                .and_then(|s| s.parse::<Uuid>().ok())
            else {
                continue;
            };
            if self.lobby_of.remove(&player).is_some() {
                state.presence().release(player, Busy::Lobby);
            }
        }
    }

    /// Owner: answers requests for lobby `code` from other nodes while it is open
    /// here. Returns once the subscription is in place at the NATS server (call it
    /// before the code is shown to anyone), false when it could not be made.
    pub async fn serve_lobby(self: &Arc<Self>, state: &AppState, code: String) -> bool {
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
        let (me, st) = (self.clone(), state.clone());
        state.tasks().spawn(async move {
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
                    Ok(wire) => me.lobby_local(&st, &code, wire),
                    Err(_) => Err(Refused {
                        code: ErrorCode::Internal,
                        message: "unreadable lobby request".into(),
                    }),
                };
                let payload = serde_json::to_vec(&answer.err()).unwrap_or_default();
                let _ = me.nats.publish(reply, payload.into()).await;
            }
            let _ = sub.unsubscribe().await;
        });
        true
    }

    /// Owner: handles a remote socket's request for lobby `code`.
    fn lobby_local(&self, state: &AppState, code: &str, wire: LobbyWire) -> Result<(), Refused> {
        let LobbyWire {
            origin,
            conn,
            player,
            cmd,
        } = wire;
        let standin = || self.proxy(state, &origin, conn, state.shutdown_token().child_token());
        let lobbies = state.lobbies();
        match cmd {
            LobbyCmd::Join { name } => {
                let proxy = standin();
                let before = self.lobby_stand_ins.insert(player, (origin.clone(), proxy));
                lobbies.join(state, player, &name, code).map_err(|e| {
                    match before {
                        Some(b) => {
                            self.lobby_stand_ins.insert(player, b);
                        }
                        None => {
                            self.lobby_stand_ins.remove(&player);
                        }
                    }
                    refused(&e)
                })
            }
            LobbyCmd::Leave => lobbies.leave(state, player).map_err(|e| refused(&e)),
            LobbyCmd::Start => lobbies
                .start(state, player)
                .map(|_| ())
                .map_err(|e| refused(&e)),
            LobbyCmd::Away => {
                lobbies.away(state, player);
                Ok(())
            }
            LobbyCmd::Back => {
                let proxy = standin();
                if self.lobby_stand_ins.contains_key(&player) {
                    self.lobby_stand_ins
                        .insert(player, (origin.clone(), proxy.clone()));
                }
                if lobbies.back(player, &proxy) {
                    Ok(())
                } else {
                    Err(refused(&LobbyError::NotInLobby))
                }
            }
        }
    }
}
