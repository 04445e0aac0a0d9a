//! [`AppState`]: the composition root — the [`Services`] the socket tier and REST
//! use, and the edge's connection caps and per-address budgets, built once at
//! start by [`AppState::new`]. Cheap to clone (one `Arc`). Binaries and tests hold
//! it; inside the crate only the composition (`crate::run`, the router of
//! `crate::app`) and the edge see it: every other module takes the narrower handle
//! it needs ([`Services`], `crate::game::Game`, a room's `RoomDeps`).

use crate::clock::Clock;
use crate::config::Config;
use crate::edge::EdgeState;
use crate::services::Services;
use std::sync::Arc;
use store::{Store, WriterHandle};

/// The server's composition root. See the module docs. Derefs to its
/// `Services`, so a test reads `state.presence()` or `state.store()` directly.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

struct Inner {
    services: Services,
    /// Connection caps and per-address budgets (`crate::edge`).
    edge: Arc<EdgeState>,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("AppState").field(&self.0.services).finish()
    }
}

impl std::ops::Deref for AppState {
    type Target = Services;
    fn deref(&self) -> &Services {
        &self.0.services
    }
}

impl AppState {
    /// Builds the server and starts the matchmaker task (call inside a Tokio
    /// runtime).
    pub fn new(config: Config, store: Store, writer: WriterHandle) -> AppState {
        AppState::with_clock(config, store, writer, Clock::system())
    }

    /// [`AppState::new`] with the clock the rooms and the matchmaker read (a test's
    /// [`Clock::manual`]).
    pub fn with_clock(
        config: Config,
        store: Store,
        writer: WriterHandle,
        clock: Clock,
    ) -> AppState {
        let edge = Arc::new(EdgeState::new(&config));
        AppState(Arc::new(Inner {
            services: Services::new(config, store, writer, clock, edge.clone()),
            edge,
        }))
    }

    /// Joins the cluster (before serving): `cluster`'s leases must be those of this
    /// state's fenced writer. Starts the cluster's renew, takeover and notice tasks.
    /// False (and nothing started) when a cluster was set already.
    pub fn set_cluster(&self, cluster: Arc<crate::cluster::Cluster>) -> bool {
        self.0.services.set_cluster(cluster)
    }

    /// The handles the socket tier and REST use.
    pub fn services(&self) -> &Services {
        &self.0.services
    }

    /// Connection caps and per-address budgets.
    pub fn edge(&self) -> &Arc<EdgeState> {
        &self.0.edge
    }
}
