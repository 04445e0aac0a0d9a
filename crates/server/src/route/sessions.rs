//! [`Sessions`]: a socket's sign-in and close, here and (in a cluster) told to the
//! other nodes.

use crate::state::AppState;
use crate::ws::{ConnHandle, Frame};
use uuid::Uuid;

/// The signed-in sockets of players, as this node tells them to the others.
#[derive(Clone, Copy)]
pub(crate) struct Sessions<'a> {
    state: &'a AppState,
}

impl<'a> Sessions<'a> {
    /// The sessions as `state` reaches them.
    pub(crate) fn new(state: &'a AppState) -> Sessions<'a> {
        Sessions { state }
    }

    /// `conn` signed in as `player` with the session `session`: it becomes the
    /// player's socket here (an older one is closed with 4000), and in a cluster a
    /// socket of the same player on another node that signed in before is replaced
    /// too.
    pub(crate) fn signed_in(&self, player: Uuid, conn: &ConnHandle, session: Uuid) {
        let signed_in_ms = self.state.clock().now_ms();
        self.state
            .registries()
            .attach_session(player, conn, signed_in_ms, session);
        if let Some(c) = self.state.cluster() {
            c.arrived(player);
            c.announce_hello(player, signed_in_ms);
        }
    }

    /// Cluster: waits (briefly) until what `player` waits in on the node of an
    /// older socket was handed over here (`Cluster::settled`), so that the
    /// `already_busy` checks of its new socket see it. At once on a single node.
    pub(crate) async fn settled(&self, player: Uuid) {
        if let Some(c) = self.state.cluster() {
            c.settled(player).await;
        }
    }

    /// After `sessions` of `player` were deleted from the store (signed out, a
    /// password change, a deleted account): closes the player's socket that signed
    /// in with one of them (4002) here, and in a cluster tells the other nodes to do
    /// the same.
    pub(crate) fn signed_out(&self, player: Uuid, sessions: &[Uuid]) {
        self.state.registries().close_signed_out(player, sessions);
        if let Some(c) = self.state.cluster() {
            c.announce_signed_out(player, sessions);
        }
    }

    /// Sends `frame` to `player`'s socket: here, or in a cluster on the node that
    /// holds it (nothing when the player has no socket).
    pub(crate) fn tell(&self, player: Uuid, frame: &Frame) {
        match (self.state.session(player), self.state.cluster()) {
            (Some(c), _) => {
                c.send(frame.clone());
            }
            (None, Some(c)) => c.tell_player(player, frame),
            (None, None) => {}
        }
    }

    /// Where frames for `player` go: its socket here, or in a cluster the stand-in
    /// of its socket on another node, held by this node as the matchmaker or as the
    /// owner of the player's lobby.
    pub(crate) fn reach(&self, player: Uuid) -> Option<ConnHandle> {
        self.state.session(player).or_else(|| {
            self.state
                .cluster()
                .and_then(|c| c.stand_in(player).or_else(|| c.lobby_stand_in(player)))
        })
    }

    /// The socket `conn` (signed in as `player`, if it was) closed: in a cluster,
    /// the nodes that served it (rooms, lobbies, the matchmaker) are told, and what
    /// this node kept for it is dropped.
    pub(crate) async fn closed(&self, conn: &ConnHandle, player: Option<Uuid>) {
        if let Some(c) = self.state.cluster() {
            if let Some(p) = player {
                c.departed(p);
                c.socket_closed(conn.id(), p).await;
            }
            c.forget_conn(conn.id());
        }
    }
}
