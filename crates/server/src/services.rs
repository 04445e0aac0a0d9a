//! [`Services`]: the handles the socket tier (`crate::ws`), REST (`crate::api`) and
//! sign-in (`crate::auth`) work with, built once at start (issue 33.2). Cheap to
//! clone (one `Arc`).
//!
//! It holds the game side ([`Game`]: rooms, lobbies, the matchmaker, presence, the
//! store; its registries stay behind it and the route handles), the cluster membership (set once before serving), password hashing and
//! the passkey ceremonies. Where a room, the queue or a lobby lives is asked of the
//! route handles it makes ([`Services::rooms`], [`Services::queue`],
//! [`Services::lobby_dir`], [`Services::sessions`]). The edge's budgets are not
//! here: the edge keeps them (`crate::edge::EdgeState`).

use crate::clock::Clock;
use crate::cluster::Cluster;
use crate::config::Config;
use crate::game::Game;
use crate::lobby::Lobbies;
use crate::matchmaker::MatchmakerHandle;
use crate::presence::Presence;
use crate::room::RoomHandle;
use crate::ws::ConnHandle;
use std::net::IpAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use store::{Store, WriterHandle};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

/// The edge's admission budgets, as the socket tier and REST ask them: the edge
/// (`crate::edge::EdgeState`) keeps its counters private and implements this; the
/// composition hands it to [`Services::new`].
pub(crate) trait Budgets: Send + Sync {
    /// Takes one guest or account creation from client address `ip`'s budget
    /// (`--guests-per-minute`, `--guest-burst`). `Err(wait)`: over budget, try again
    /// after `wait`; always `Ok` with `--guests-per-minute 0`.
    fn take_guest(&self, ip: IpAddr) -> Result<(), Duration>;
    /// Counts one more WebSocket of a client behind a trusted proxy against its
    /// forwarded address `ip` (`--max-connections-per-ip`): the hold, given back when
    /// dropped; `None` when the address is at the cap.
    fn hold_forwarded_socket(&self, ip: IpAddr) -> Option<Box<dyn Send + Sync>>;
}

/// The server's handles. See the module docs.
#[derive(Clone)]
pub struct Services(Arc<Inner>);

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Services")
            .field("rooms", &self.room_count())
            .field("sessions", &self.session_count())
            .field("store_ready", &self.store_ready())
            .finish_non_exhaustive()
    }
}

struct Inner {
    /// Rooms, lobbies, the matchmaker, presence and what they run on.
    game: Game,
    /// Cluster mode: this node's membership (leases, NATS); unset for one node.
    cluster: OnceLock<Arc<Cluster>>,
    /// Password hashing slots and sign-in budgets (`crate::accounts`).
    accounts: crate::accounts::Accounts,
    /// The WebAuthn relying party and passkey ceremonies (`crate::passkeys`).
    passkeys: crate::passkeys::Passkeys,
    /// The edge's admission budgets.
    budgets: Arc<dyn Budgets>,
}

impl Services {
    /// Builds the handles and starts the matchmaker task (call inside a Tokio
    /// runtime); `clock` is what the rooms and the matchmaker read (a test's
    /// [`Clock::manual`]); `budgets`, the edge's.
    pub(crate) fn new(
        config: Config,
        store: Store,
        writer: WriterHandle,
        clock: Clock,
        budgets: Arc<dyn Budgets>,
    ) -> Services {
        let accounts = crate::accounts::Accounts::new(&config);
        let passkeys = crate::passkeys::Passkeys::new(&config)
            .expect("the WebAuthn settings are valid (checked by Config::check)");
        Services(Arc::new(Inner {
            game: Game::new(config, store, writer, clock),
            cluster: OnceLock::new(),
            accounts,
            passkeys,
            budgets,
        }))
    }

    /// Joins the cluster (before serving): `cluster`'s leases must be those of this
    /// server's fenced writer. The game side tells the other nodes through it from
    /// now on; its renew, takeover and notice tasks start. False (and nothing
    /// started) when a cluster was set already.
    pub(crate) fn set_cluster(&self, cluster: Arc<Cluster>) -> bool {
        if self.0.cluster.set(cluster.clone()).is_err() {
            return false;
        }
        self.0.game.set_elsewhere(Arc::new(cluster.clone()));
        cluster.spawn_tasks(&self.0.game);
        true
    }

    /// The game side: rooms, lobbies, the matchmaker, presence.
    pub fn game(&self) -> &Game {
        &self.0.game
    }

    /// This node's cluster membership; `None` for a single node.
    pub fn cluster(&self) -> Option<&Arc<Cluster>> {
        self.0.cluster.get()
    }

    /// True once the store is migrated and the running matches resumed.
    pub fn store_ready(&self) -> bool {
        self.0.game.store_ready()
    }

    /// Marks the store migrated and the running matches resumed.
    pub fn set_store_ready(&self) {
        self.0.game.set_store_ready();
    }

    /// True when a new match may start: the store is ready and the writer keeps up
    /// ([`store::WriterHandle::accepting_new_matches`]). Queues and lobbies answer
    /// `store_unavailable` otherwise.
    pub fn accepting_new_matches(&self) -> bool {
        self.0.game.accepting_new_matches()
    }

    /// The clock rooms, matches and the matchmaker's bot fill read.
    pub fn clock(&self) -> &Clock {
        self.0.game.clock()
    }
    /// The configuration.
    pub fn config(&self) -> &Config {
        self.0.game.config()
    }
    /// The store (guests; reads for REST).
    pub fn store(&self) -> &Store {
        self.0.game.store()
    }
    /// The write-behind persistence writer (rooms use it; never waits).
    pub fn writer(&self) -> &WriterHandle {
        self.0.game.writer()
    }
    /// Password hashing and sign-in budgets.
    pub(crate) fn accounts(&self) -> &crate::accounts::Accounts {
        &self.0.accounts
    }
    /// The WebAuthn relying party and the passkey ceremonies in progress.
    pub(crate) fn passkeys(&self) -> &crate::passkeys::Passkeys {
        &self.0.passkeys
    }
    /// The edge's admission budgets (guest creation, forwarded sockets).
    pub(crate) fn budgets(&self) -> &dyn Budgets {
        &*self.0.budgets
    }
    /// How many rooms run on this node.
    pub fn room_count(&self) -> usize {
        self.0.game.registries().room_count()
    }
    /// How many players have a live connection to this node.
    pub fn session_count(&self) -> usize {
        self.0.game.registries().session_count()
    }
    /// The room of a running match on this node.
    pub fn room(&self, match_id: Uuid) -> Option<RoomHandle> {
        self.0.game.room(match_id)
    }
    /// The live connection of `player` on this node, if any.
    pub fn session(&self, player: Uuid) -> Option<ConnHandle> {
        self.0.game.session(player)
    }
    /// Where frames for `player` go: its live connection here, or (cluster) the
    /// stand-in of its socket on another node, held by this node as the matchmaker
    /// or as the owner of the player's lobby.
    pub fn reach(&self, player: Uuid) -> Option<ConnHandle> {
        self.0.game.reach(player)
    }

    /// Every match's room, here or on the node that runs it ([`crate::route`]).
    pub(crate) fn rooms(&self) -> crate::route::Rooms<'_> {
        crate::route::Rooms::new(&self.0.game, self.cluster())
    }

    /// The quick-play queue, this node's matchmaker or the matchmaker node's
    /// ([`crate::route`]).
    pub(crate) fn queue(&self) -> crate::route::Queue<'_> {
        crate::route::Queue::new(&self.0.game, self.cluster())
    }

    /// Every lobby, here or on the node that opened it ([`crate::route`]).
    pub(crate) fn lobby_dir(&self) -> crate::route::LobbyDir<'_> {
        crate::route::LobbyDir::new(&self.0.game, self.cluster())
    }

    /// Signed-in sockets, as told to the other nodes ([`crate::route`]).
    pub(crate) fn sessions(&self) -> crate::route::Sessions<'_> {
        crate::route::Sessions::new(&self.0.game, self.cluster())
    }

    /// What each player is busy with.
    pub fn presence(&self) -> &Presence {
        self.0.game.presence()
    }
    /// Lobbies.
    pub fn lobbies(&self) -> &Lobbies {
        self.0.game.lobbies()
    }
    /// The quick-play matchmaker.
    pub fn matchmaker(&self) -> &MatchmakerHandle {
        self.0.game.matchmaker()
    }
    /// Cancelled when shutdown begins.
    pub fn shutdown_token(&self) -> &CancellationToken {
        self.0.game.shutdown_token()
    }
    /// Tracker of connection and room tasks.
    pub fn tasks(&self) -> &TaskTracker {
        self.0.game.tasks()
    }
    /// A fresh connection id.
    pub fn next_conn_id(&self) -> u64 {
        self.0.game.next_conn_id()
    }

    /// Graceful shutdown, after the listener has stopped accepting: tells every
    /// connection, room and the matchmaker to stop, waits up to the grace period for
    /// their tasks, then waits (up to the grace period again) for the persistence
    /// writer to write everything handed to it. A running match stays `running` in
    /// the store with every turn played so far; the next start (or, in a cluster,
    /// another node) resumes it.
    pub async fn shutdown(&self) {
        let grace = Duration::from_secs(self.config().shutdown_grace_seconds.into());
        let tasks = self.tasks();
        self.shutdown_token().cancel();
        tasks.close();
        if tokio::time::timeout(grace, tasks.wait()).await.is_err() {
            tracing::warn!(
                left = tasks.len(),
                "shutdown: tasks still running after the grace period"
            );
        }
        if tokio::time::timeout(grace, self.writer().flush())
            .await
            .is_err()
        {
            tracing::warn!(
                backlog = self.writer().backlog(),
                "shutdown: persistence backlog not written"
            );
        }
        // Cluster: hand the matches to the other nodes now, not at lease expiry.
        if let Some(c) = self.cluster() {
            c.leave(self.store()).await;
        }
    }
}
