//! [`Sessions`]: a socket's sign-in and close, here and (in a cluster) told to the
//! other nodes.

use crate::cluster::Cluster;
use crate::game::Game;
use crate::ws::ConnHandle;
use std::sync::Arc;
use uuid::Uuid;

/// The signed-in sockets of players, as this node tells them to the others.
#[derive(Clone, Copy)]
pub(crate) struct Sessions<'a> {
    game: &'a Game,
    cluster: Option<&'a Arc<Cluster>>,
}

impl<'a> Sessions<'a> {
    /// The sessions as `state` reaches them.
    pub(crate) fn new(game: &'a Game, cluster: Option<&'a Arc<Cluster>>) -> Sessions<'a> {
        Sessions { game, cluster }
    }

    /// `conn` signed in as `player` with the session `session`: it becomes the
    /// player's socket here (an older one is closed with 4000), and in a cluster a
    /// socket of the same player on another node that signed in before is replaced
    /// too.
    pub(crate) fn signed_in(&self, player: Uuid, conn: &ConnHandle, session: Uuid) {
        let signed_in_ms = self.game.clock().now_ms();
        self.game
            .registries()
            .attach_session(player, conn, signed_in_ms, session);
        if let Some(c) = self.cluster {
            c.arrived(player);
            c.announce_hello(player, signed_in_ms);
        }
    }

    /// Cluster: waits (briefly) until what `player` waits in on the node of an
    /// older socket was handed over here (`Cluster::settled`), so that the
    /// `already_busy` checks of its new socket see it. At once on a single node.
    pub(crate) async fn settled(&self, player: Uuid) {
        if let Some(c) = self.cluster {
            c.settled(player).await;
        }
    }

    /// After `sessions` of `player` were deleted from the store (signed out, a
    /// password change, a deleted account): closes the player's socket that signed
    /// in with one of them (4002) here, and in a cluster tells the other nodes to do
    /// the same.
    pub(crate) fn signed_out(&self, player: Uuid, sessions: &[Uuid]) {
        self.game.registries().close_signed_out(player, sessions);
        if let Some(c) = self.cluster {
            c.announce_signed_out(player, sessions);
        }
    }

    /// Forgets connection `conn_id` as `player`'s live one here when it still is.
    /// True when it was (no newer connection of the player took over).
    pub(crate) fn detach(&self, player: Uuid, conn_id: u64) -> bool {
        self.game.registries().detach_session(player, conn_id)
    }

    /// The socket `conn` (signed in as `player`, if it was) closed: in a cluster,
    /// the nodes that served it (rooms, lobbies, the matchmaker) are told, and what
    /// this node kept for it is dropped.
    pub(crate) async fn closed(&self, conn: &ConnHandle, player: Option<Uuid>) {
        if let Some(c) = self.cluster {
            if let Some(p) = player {
                c.departed(p);
                c.socket_closed(conn.id(), p).await;
            }
            c.forget_conn(conn.id());
        }
    }
}
