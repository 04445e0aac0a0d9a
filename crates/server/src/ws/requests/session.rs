//! Signing in: `hello` (then the player's running match, lobby or queue place
//! again).

use crate::auth::session_of_token;
use crate::presence::Busy;
use crate::room::RoomCmd;
use crate::ws::reader::{Session, SERVER_VERSION};
use crate::ws::CloseReason;
use protocol::{ErrorCode, Hello, ServerMsg, Welcome};
use uuid::Uuid;

impl Session {
    /// `hello`: check the version and token, register this connection as the
    /// player's (closing an older one with 4000), answer `welcome`, and re-attach the
    /// player to its running match, which sends the frames missed since `hello.last_seq`
    /// (or a snapshot); a player in a lobby gets
    /// its `lobby_state` (and its seat is no longer away), a queued player its
    /// `queue_status`.
    pub(in crate::ws) async fn hello(&mut self, h: Hello, req: Option<String>) {
        let Some((player, session)) = self.authenticate(&h, req).await else {
            return;
        };
        // Read before the socket is registered: from registration on, a room resuming
        // here may send it a snapshot, and nothing may await between registration
        // and the `welcome`, which comes first.
        let active = self.state.rooms().seated(player.id).await;
        // (In a cluster, a socket of the same player on another node that signed in
        // before this one is replaced too.)
        self.state
            .sessions()
            .signed_in(player.id, &self.conn, session);
        if !active.is_empty() || self.state.presence().get(player.id) == Some(Busy::Lobby) {
            self.share.release();
        }
        tracing::debug!(conn = self.conn.id(), player = %player.id, client = %h.client.chars().take(64).collect::<String>(), "hello");
        self.conn.send_msg(
            None,
            &ServerMsg::Welcome(Welcome {
                player_id: player.id,
                name: player.name.clone(),
                server_version: SERVER_VERSION.to_string(),
                protocol_version: h.protocol_version,
                active_matches: active.clone(),
            }),
        );
        for m in active {
            let last_seq = h.last_seq.get(&m).copied().unwrap_or(0);
            self.reattach(player.id, m, last_seq).await;
        }
        self.back_to_waiting(player.id).await;
        self.player = Some(player);
    }

    /// The player `h` signs in as and the session of its token, or `None` after
    /// answering why not: `unsupported_version` (and the socket closes),
    /// `not_authenticated` (unknown, signed-out or expired token), `store_unavailable`
    /// (the store did not answer; the socket closes with 1013), or `already_busy` (this socket
    /// is signed in as another player).
    async fn authenticate(&self, h: &Hello, req: Option<String>) -> Option<(store::Player, Uuid)> {
        let v = h.protocol_version;
        if !(protocol::MIN_PROTOCOL_VERSION..=protocol::MAX_PROTOCOL_VERSION).contains(&v) {
            let msg = format!(
                "protocol version {v} is not supported (supported: {}..={})",
                protocol::MIN_PROTOCOL_VERSION,
                protocol::MAX_PROTOCOL_VERSION
            );
            self.conn
                .send_error(ErrorCode::UnsupportedVersion, msg, req);
            self.conn.close(CloseReason::UNSUPPORTED_VERSION);
            return None;
        }
        let client: String = h.client.chars().take(64).collect();
        let (session, player) = match session_of_token(&self.state, &h.token, Some(&client)).await {
            Ok(Some(p)) => p,
            Ok(None) => {
                self.conn
                    .send_error(ErrorCode::NotAuthenticated, "unknown token", req);
                return None;
            }
            Err(e) => {
                // A database outage (issue 34.4): a typed, retryable answer and a
                // close the client reconnects on (1013), not a wait for the hello
                // timeout.
                tracing::warn!(error = %e, "token look-up failed");
                self.conn.send_error(
                    ErrorCode::StoreUnavailable,
                    "the store is not reachable; reconnect later",
                    req,
                );
                self.conn.close(CloseReason::STORE_UNAVAILABLE);
                return None;
            }
        };
        if self.player.as_ref().is_some_and(|p| p.id != player.id) {
            self.conn.send_error(
                ErrorCode::AlreadyBusy,
                "this socket is signed in as another player",
                req,
            );
            return None;
        }
        Some((player, session.id))
    }

    /// Re-attaches this connection to `player`'s seat in match `m` (here, or on the
    /// node that runs it), which sends the frames after `last_seq` or a snapshot.
    async fn reattach(&mut self, player: Uuid, m: Uuid, last_seq: u64) {
        let Some(room) = self.state.rooms().find(m) else {
            return;
        };
        let remote = room.is_remote();
        let attach = RoomCmd::Attach {
            player,
            conn: self.conn.clone(),
            last_seq,
        };
        // A seat on another node is detached from when the socket closes.
        if room.tell(attach, &self.conn).await && remote {
            self.watching.insert(m);
        }
    }

    /// A player waiting in a lobby or queue (a second tab, or back within the lobby's
    /// grace period) gets that state at once: `lobby_state` or `queue_status`.
    async fn back_to_waiting(&self, player: Uuid) {
        match self.state.presence().get(player) {
            Some(Busy::Lobby) => self.state.lobby_dir().back(player, &self.conn).await,
            Some(Busy::Queued(_)) => self.state.queue().back(player, &self.conn).await,
            Some(Busy::Seated(_)) | None => {}
        }
    }
}
