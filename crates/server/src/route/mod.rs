//! Handles that hide where a room, the quick-play queue or a lobby lives (issue 33):
//! on this node, or — in a cluster — on another node reached over NATS. The socket
//! tier (`ws/`) asks these handles and never a topology question; the
//! local-or-remote decision for each kind of thing is made once, here.
//!
//! * [`Rooms`]: a match's room (`RoomRef::Local` or `RoomRef::Remote`) and the
//!   matches a player is seated in.
//! * [`Queue`]: the quick-play queue, this node's matchmaker or the matchmaker
//!   node's.
//! * [`LobbyDir`]: lobbies by code and by member, here or on the node that opened
//!   them.
//! * [`Sessions`]: a socket's sign-in and close, told to the other nodes.
//!
//! Each is a borrow of the game side ([`crate::game::Game`]) and of the cluster
//! membership, made on demand by [`crate::services::Services`] (`services.rooms()`,
//! `services.queue()`, `services.lobby_dir()`, `services.sessions()`): making one
//! costs nothing. The remote arms are [`crate::cluster::Cluster`]'s, set once at
//! start-up ([`crate::services::Services::set_cluster`]); a single node has none.
//! The game side itself never asks these handles: what it tells the other nodes
//! goes through `crate::game::Elsewhere`.

mod lobbies;
mod queue;
mod rooms;
mod sessions;

pub(crate) use lobbies::LobbyDir;
pub(crate) use queue::Queue;
pub(crate) use rooms::{Absent, Rooms, Unrouted};
pub(crate) use sessions::Sessions;

use crate::ws::outbound::Answered;
use crate::ws::ConnHandle;
use tokio_util::sync::CancellationToken;

/// Waits until the request of `answered` (a request handle of `conn`,
/// [`ConnHandle::for_request`]) was answered, or `conn` or the server is closing.
/// True when the answer was a plain `ack` (the request took effect). While it
/// waits, `conn` reads no further request.
pub(crate) async fn answer_of(
    conn: &ConnHandle,
    shutdown: &CancellationToken,
    answered: Answered,
) -> bool {
    conn.set_awaiting(true);
    let took_effect = tokio::select! {
        biased;
        _ = conn.closing() => false,
        _ = shutdown.cancelled() => false,
        took_effect = answered.wait() => took_effect,
    };
    conn.set_awaiting(false);
    took_effect
}
