//! [`Rooms`]: a match's room, on this node or on the node that runs it.

use crate::cluster::queue::Refused;
use crate::cluster::Cluster;
use crate::game::Game;
use crate::room::{RoomCmd, RoomHandle};
use crate::ws::ConnHandle;
use std::sync::Arc;
use uuid::Uuid;

/// The rooms of every match: this node's, and in a cluster those of the other
/// nodes (through [`Cluster::route`]).
#[derive(Clone, Copy)]
pub(crate) struct Rooms<'a> {
    game: &'a Game,
    cluster: Option<&'a Arc<Cluster>>,
}

/// One match's room.
pub(crate) enum RoomRef<'a> {
    /// It runs on this node.
    Local(RoomHandle),
    /// Not on this node: in a cluster, the node running `match_id` (if any) is
    /// found when a command is sent.
    Remote {
        cluster: &'a Arc<Cluster>,
        match_id: Uuid,
    },
}

/// Why a command reached no room.
#[derive(Debug)]
pub(crate) enum Unrouted {
    /// No room runs the match (here or, in a cluster, on any node that answered).
    NoRoom,
    /// Cluster: the other nodes cannot be reached (NATS is down); nothing was
    /// sent. The socket gets this refusal (`cluster_unavailable`) at once.
    Unreachable(Refused),
}

/// What the store says of a match no room answered for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Absent {
    /// Cluster: stored as running, yet no node serves it right now: it is moving
    /// (its owner stopped; another resumes it). Not over, not unknown.
    Moving,
    /// Cluster: stored as running and its owner still holds the lease, but it is
    /// not back on NATS yet after an outage ([`Cluster::owner_not_back`]): the
    /// socket gets this refusal (`cluster_unavailable`) and stays.
    NotBack(Refused),
    /// The store has it (it ended, or — on a single node — its room is gone).
    Stored,
    /// The store has no such match (or could not be read).
    Unknown,
}

impl<'a> Rooms<'a> {
    /// The rooms as `state` reaches them.
    pub(crate) fn new(game: &'a Game, cluster: Option<&'a Arc<Cluster>>) -> Rooms<'a> {
        Rooms { game, cluster }
    }

    /// The room of `match_id`: this node's; otherwise, in a cluster, the node that
    /// runs it ([`RoomRef::Remote`]: asked when a command is sent, and there may be
    /// none); `None` on a single node that does not run it.
    pub(crate) fn find(&self, match_id: Uuid) -> Option<RoomRef<'a>> {
        if let Some(room) = self.game.room(match_id) {
            return Some(RoomRef::Local(room));
        }
        self.cluster
            .map(|cluster| RoomRef::Remote { cluster, match_id })
    }

    /// Where `match_id` is when no room answered for it ([`Absent`]); a store that
    /// cannot be read counts as not having it (logged).
    pub(crate) async fn absent(&self, match_id: Uuid) -> Absent {
        let status = match self.game.store().match_summary(match_id).await {
            Ok(m) => m.map(|m| m.status),
            Err(e) => {
                tracing::warn!(error = %e, match_id = %match_id, "match look-up failed");
                None
            }
        };
        match (status, self.cluster) {
            (Some(store::MatchStatus::Running), Some(cluster)) => {
                if cluster.owner_not_back(self.game.store(), match_id).await {
                    Absent::NotBack(Cluster::owner_unreachable())
                } else {
                    Absent::Moving
                }
            }
            (Some(_), _) => Absent::Stored,
            (None, _) => Absent::Unknown,
        }
    }

    /// The ids of the running public matches `GET /api/v1/matches` lists: this
    /// node's rooms, or in a cluster every node's (from the store, at most `limit`).
    pub(crate) async fn listed(&self, limit: u32) -> Result<Vec<Uuid>, store::StoreError> {
        match self.cluster {
            Some(_) => self.game.store().listed_matches(limit).await,
            None => Ok(self.game.registries().listed_rooms()),
        }
    }

    /// The running matches `player` is seated in (`welcome.active_matches`): the one
    /// presence knows here, or, in a cluster, the one the store has on another node.
    pub(crate) async fn seated(&self, player: Uuid) -> Vec<Uuid> {
        let mut active: Vec<Uuid> = self
            .game
            .presence()
            .active_match(player)
            .into_iter()
            .collect();
        if active.is_empty() && self.cluster.is_some() {
            match self.game.store().running_match_of(player).await {
                Ok(Some(m)) => active.push(m),
                Ok(None) => {}
                Err(e) => tracing::warn!(error = %e, "running match of the player not read"),
            }
        }
        active
    }

    /// Cluster: the running match of another node `player` holds a seat in. This
    /// node's presence only knows the matches it runs; the store knows every
    /// node's (`Store::running_match_of`). `None` on a single node, and when the
    /// store does not answer (logged: a new match cannot start then anyway).
    pub(crate) async fn seated_elsewhere(&self, player: Uuid) -> Option<Uuid> {
        self.cluster?;
        match self.game.store().running_match_of(player).await {
            Ok(Some(m)) if self.game.room(m).is_none() => Some(m),
            Ok(_) => None,
            Err(e) => {
                tracing::debug!(error = %e, "seat look-up failed; local presence decides");
                None
            }
        }
    }
}

impl RoomRef<'_> {
    /// True for a room on another node.
    pub(crate) fn is_remote(&self) -> bool {
        matches!(self, RoomRef::Remote { .. })
    }

    /// Sends the command `make` builds around a request handle of `conn` and waits
    /// for the room's answer (`conn` reads no further request meanwhile). `Ok`: the
    /// room answered the socket; true when that answer was a plain `ack`.
    pub(crate) async fn ask(
        self,
        conn: &ConnHandle,
        shutdown: &tokio_util::sync::CancellationToken,
        make: impl FnOnce(ConnHandle) -> RoomCmd,
    ) -> Result<bool, Unrouted> {
        let (rconn, answered) = conn.for_request();
        match self {
            RoomRef::Local(room) => match room.send(make(rconn)).await {
                Ok(()) => Ok(super::answer_of(conn, shutdown, answered).await),
                Err(_) => Err(Unrouted::NoRoom),
            },
            RoomRef::Remote { cluster, .. } if !cluster.messaging_up() => {
                Err(Unrouted::Unreachable(Cluster::unreachable()))
            }
            RoomRef::Remote { cluster, match_id } => cluster
                .route(match_id, make(rconn), conn)
                .await
                .ok_or(Unrouted::NoRoom),
        }
    }

    /// Sends `cmd` (an attach or detach of `conn`), not waiting for an answer. True
    /// when a room took it.
    pub(crate) async fn tell(self, cmd: RoomCmd, conn: &ConnHandle) -> bool {
        match self {
            RoomRef::Local(room) => room.send(cmd).await.is_ok(),
            RoomRef::Remote { cluster, match_id } => {
                cluster.route(match_id, cmd, conn).await.is_some()
            }
        }
    }
}
