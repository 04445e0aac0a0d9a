//! [`LobbyDir`]: lobbies by code and by member, on this node or on the node that
//! opened them (`crate::cluster::lobby`).

use crate::cluster::lobby::LobbyCmd;
use crate::cluster::Cluster;
use crate::game::Game;
use crate::lobby::{LobbyError, Rematch};
use crate::presence::Busy;
use crate::ws::ConnHandle;
use protocol::{CreateLobby, ErrorCode};
use std::sync::Arc;
use uuid::Uuid;

/// Every lobby as this node reaches it: its own ([`crate::lobby::Lobbies`]) and, in
/// a cluster, those of the other nodes, which a member signed in here reaches
/// through the lobby's owner (its answers come back through a stand-in).
///
/// Each operation answers the socket itself: `ack`, or the lobby's error (its
/// code and text, `LobbyError`).
#[derive(Clone, Copy)]
pub(crate) struct LobbyDir<'a> {
    game: &'a Game,
    cluster: Option<&'a Arc<Cluster>>,
}

impl<'a> LobbyDir<'a> {
    /// The lobbies as this node (`game`, in `cluster` if any) reaches them.
    pub(crate) fn new(game: &'a Game, cluster: Option<&'a Arc<Cluster>>) -> LobbyDir<'a> {
        LobbyDir { game, cluster }
    }

    /// A member of a lobby on a node that died is in no lobby any more: its
    /// presence here is freed (issue 34.3: it was `already_busy` until that node
    /// came back). Nothing on a single node.
    pub(crate) async fn leave_if_gone(&self, player: Uuid) {
        let Some(c) = self.cluster else {
            return;
        };
        if self.game.presence().get(player) == Some(Busy::Lobby)
            && c.remote_lobby_gone(player).await
        {
            tracing::info!(player = %player, "the node of the player's lobby is gone: lobby left");
            self.vanished(player);
        }
    }

    /// `create_lobby`: `ack` (and `lobby_state`), or the lobby's error. In a
    /// cluster the code is served to the other nodes before anyone is shown it.
    pub(crate) async fn create(
        &self,
        player: &store::Player,
        c: &CreateLobby,
        conn: &ConnHandle,
        req: Option<String>,
    ) {
        let code = self.served_code().await;
        let made = self.game.lobbies().create_with_code(
            self.game,
            player.id,
            &player.name,
            c,
            code.clone(),
        );
        if let (Ok(used), Some(cl)) = (&made, self.cluster) {
            if Some(used) != code.as_ref() {
                cl.serve_lobby(self.game, used.clone()).await;
            }
        }
        answer(conn, made.map(drop), req);
    }

    /// `join_lobby` by its `code`: `ack`, or the lobby's error. In a cluster a code
    /// no lobby here has is asked of the node that has it (`lobby_not_found` when
    /// none has).
    pub(crate) async fn join(
        &self,
        player: &store::Player,
        code: &str,
        conn: &ConnHandle,
        req: Option<String>,
    ) {
        let joined = self
            .game
            .lobbies()
            .join(self.game, player.id, &player.name, code);
        match joined {
            Err(LobbyError::NotFound(code)) if self.cluster.is_some() => {
                self.join_remote(player, code, conn, req).await
            }
            joined => answer(conn, joined, req),
        }
    }

    /// `leave_lobby`: `ack`, or the lobby's error (a lobby on another node answers
    /// through its owner).
    pub(crate) async fn leave(&self, player: Uuid, conn: &ConnHandle, req: Option<String>) {
        match self.game.lobbies().leave(self.game, player) {
            Err(LobbyError::NotInLobby) if self.remote_code(player).is_some() => {
                if self.ask_owner(player, LobbyCmd::Leave, conn, req).await {
                    if let Some(c) = self.cluster {
                        c.forget_remote_lobby(player);
                    }
                    self.game.presence().release(player, Busy::Lobby);
                }
            }
            left => answer(conn, left, req),
        }
    }

    /// `start_lobby` (host only): `ack`, or the lobby's error (a lobby on another
    /// node answers through its owner).
    pub(crate) async fn start(&self, player: Uuid, conn: &ConnHandle, req: Option<String>) {
        match self.game.lobbies().start(self.game, player) {
            Err(LobbyError::NotInLobby) if self.remote_code(player).is_some() => {
                self.ask_owner(player, LobbyCmd::Start, conn, req).await;
            }
            started => answer(conn, started.map(drop), req),
        }
    }

    /// `offer_rematch` of the ended match `match_id` (`mode`) by `player`, whose
    /// other seated players were `invited`: opens the rematch lobby (and invites
    /// them), or joins the one open already (in a cluster, possibly on the node that
    /// opened it): `ack`, or the lobby's error (`already_busy`, `lobby_full`).
    pub(crate) async fn rematch(
        &self,
        player: &store::Player,
        match_id: Uuid,
        mode: engine::Mode,
        invited: &[Uuid],
        conn: &ConnHandle,
        req: Option<String>,
    ) {
        if let Some(code) = self
            .cluster
            .and_then(|_| self.game.lobbies().remote_rematch(match_id))
        {
            return self.join_remote(player, code, conn, req).await;
        }
        let code = self.served_code().await;
        match self.game.lobbies().rematch(
            self.game,
            player.id,
            &player.name,
            match_id,
            mode,
            invited,
            code.clone(),
        ) {
            Ok(Rematch::Opened(used)) => {
                if let (Some(cl), false) = (self.cluster, Some(&used) == code.as_ref()) {
                    cl.serve_lobby(self.game, used).await;
                }
                conn.ack(req)
            }
            Ok(Rematch::Joined(_)) => conn.ack(req),
            Err(e) => conn.send_error(e.code(), e.to_string(), req),
        }
    }

    /// A lobby member's new socket `conn` (a `hello`): it gets its `lobby_state`
    /// (from the lobby's owner when that is another node), and its seat is no
    /// longer away.
    pub(crate) async fn back(&self, player: Uuid, conn: &ConnHandle) {
        if self.game.lobbies().back(player, conn) {
            return;
        }
        if let (Some(c), Some(code)) = (self.cluster, self.remote_code(player)) {
            if let Err(r) = c
                .lobby_remote(&code, player, LobbyCmd::Back, None, conn)
                .await
            {
                tracing::debug!(error = %r.message, "lobby state not asked");
                if r.code == ErrorCode::LobbyNotFound {
                    self.vanished(player);
                }
            }
        }
    }

    /// The current socket `conn` of lobby member `player` closed: its seat is away
    /// for the lobby's grace period (told to the lobby's owner on another node).
    pub(crate) async fn away(&self, player: Uuid, conn: &ConnHandle) {
        self.game.lobbies().away(self.game, player);
        if let (Some(c), Some(code)) = (self.cluster, self.remote_code(player)) {
            let asked = c
                .lobby_remote(&code, player, LobbyCmd::Away, None, conn)
                .await;
            if asked.is_err_and(|r| r.code == ErrorCode::LobbyNotFound) {
                self.vanished(player);
            }
        }
    }

    /// Cluster: the code of the lobby on another node `player` is a member of.
    fn remote_code(&self, player: Uuid) -> Option<String> {
        self.cluster?.remote_lobby(player)
    }

    /// Cluster: a fresh lobby code that other nodes already reach
    /// ([`Cluster::serve_lobby`]); `None` on a single node.
    async fn served_code(&self) -> Option<String> {
        let c = self.cluster?;
        let code = self.game.lobbies().fresh_code();
        c.serve_lobby(self.game, code.clone()).await;
        Some(code)
    }

    /// Cluster: sends `cmd` (request `req`) to the owner of `player`'s lobby on
    /// another node, which answers the socket through its stand-in; when nobody
    /// answers, the error is sent from here. True when it succeeded.
    async fn ask_owner(
        &self,
        player: Uuid,
        cmd: LobbyCmd,
        conn: &ConnHandle,
        req: Option<String>,
    ) -> bool {
        let (Some(c), Some(code)) = (self.cluster, self.remote_code(player)) else {
            return false;
        };
        match c.lobby_remote(&code, player, cmd, req.clone(), conn).await {
            Ok(answer) => answer.is_ok(),
            Err(r) => {
                if r.code == ErrorCode::LobbyNotFound {
                    self.vanished(player);
                }
                conn.send_error(r.code, r.message, req);
                false
            }
        }
    }

    /// Cluster: no node has `player`'s remote lobby any more (its node died): the
    /// player is in no lobby.
    fn vanished(&self, player: Uuid) {
        if let Some(c) = self.cluster {
            if c.remote_lobby(player).is_some() {
                c.forget_remote_lobby(player);
                self.game.presence().release(player, Busy::Lobby);
            }
        }
    }

    /// Cluster: `join_lobby` with a `code` no lobby here has: asks the node that
    /// has it (none: `lobby_not_found`), which answers the socket. The player's
    /// presence here is `Lobby` while it is a member there.
    async fn join_remote(
        &self,
        player: &store::Player,
        code: String,
        conn: &ConnHandle,
        req: Option<String>,
    ) {
        let Some(c) = self.cluster else {
            return;
        };
        let presence = self.game.presence();
        if let Err(b) = presence.claim(player.id, Busy::Lobby) {
            conn.send_error(ErrorCode::AlreadyBusy, b.text(), req);
            return;
        }
        let cmd = LobbyCmd::Join {
            name: player.name.clone(),
        };
        match c
            .lobby_remote(&code, player.id, cmd, req.clone(), conn)
            .await
        {
            Ok(Ok(())) => {}
            Ok(Err(_)) => {
                presence.release(player.id, Busy::Lobby);
            }
            Err(r) => {
                presence.release(player.id, Busy::Lobby);
                conn.send_error(r.code, r.message, req);
            }
        }
    }
}

/// Answers a lobby operation on `conn`: `ack`, or its error's code and text.
fn answer(conn: &ConnHandle, result: Result<(), LobbyError>, req: Option<String>) {
    match result {
        Ok(()) => conn.ack(req),
        Err(e) => conn.send_error(e.code(), e.to_string(), req),
    }
}
