//! A socket on one node that is seated, through a stand-in, in a match running on
//! another node: its close reaches the match's room, so the seat's abandon
//! countdown starts as it does for a local socket.
//!
//! * The matchmaker node and a lobby's owner remember the stand-ins they make for
//!   each remote socket (origin node, connection id);
//!   a match started from the queue or a lobby seats those stand-ins.
//! * When a socket that used the cluster (queue, lobby or room commands) closes,
//!   its node publishes `<prefix>.conn.gone` ([`Gone`], JSON) after its own
//!   clean-up. Every node forgets that socket's stand-ins and, when the player is
//!   seated in a room it runs, detaches them from it (`RoomCmd::Detach`): the seat
//!   counts as away. A seat already attached to a newer socket is not touched.

use super::Cluster;
use crate::game::Game;
use crate::presence::Busy;
use crate::room::RoomCmd;
use crate::ws::ConnHandle;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use uuid::Uuid;

/// The close of a socket: `<prefix>.conn.gone`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Gone {
    /// The node that held the socket.
    pub origin: String,
    /// Its connection id there.
    pub conn: u64,
    /// The player signed in on it.
    pub player: Uuid,
}

impl Cluster {
    /// Remembers that `stand_in` stands for socket `conn` of node `origin` here.
    pub(super) fn remember_stand_in(&self, origin: &str, conn: u64, stand_in: &ConnHandle) {
        let mut ids = self
            .stand_in_ids
            .entry((origin.to_string(), conn))
            .or_default();
        if !ids.contains(&stand_in.id()) {
            ids.push(stand_in.id());
        }
    }

    /// The local socket `conn_id` of `player` closed (after its clean-up): when it
    /// used the cluster, every node hears of it (`Gone`).
    pub async fn socket_closed(&self, conn_id: u64, player: Uuid) {
        if !self.conns.contains_key(&conn_id) {
            return;
        }
        let gone = Gone {
            origin: self.node_id().to_string(),
            conn: conn_id,
            player,
        };
        let Ok(payload) = serde_json::to_vec(&gone) else {
            return;
        };
        if let Err(e) = self
            .nats
            .publish(self.subject("conn.gone"), payload.into())
            .await
        {
            tracing::warn!(error = %e, "socket close not announced");
        }
    }

    /// Every node: detaches the stand-ins of closed remote sockets from the rooms
    /// that seat them.
    pub(super) async fn gone_loop(self: Arc<Self>, game: Game) {
        let Some(mut inbox) = self
            .listen(
                &game,
                self.subject("conn.gone"),
                "cannot subscribe to socket closes",
            )
            .await
        else {
            return;
        };
        while let Some(msg) = inbox.next().await {
            let Ok(g) = serde_json::from_slice::<Gone>(&msg.payload) else {
                continue;
            };
            let Some((_, ids)) = self.stand_in_ids.remove(&(g.origin, g.conn)) else {
                continue;
            };
            let Some(Busy::Seated(m)) = game.presence().get(g.player) else {
                continue;
            };
            let Some(room) = game.room(m) else {
                continue;
            };
            for conn_id in ids {
                tracing::debug!(match_id = %m, player = %g.player, "remote socket closed: seat away");
                if room.send(RoomCmd::Detach { conn_id }).await.is_err() {
                    break;
                }
            }
        }
    }
}
