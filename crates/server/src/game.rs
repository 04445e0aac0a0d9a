//! [`Game`]: the game side of the server — running rooms, lobbies, the quick-play
//! matchmaker and what each player is busy with — and what it runs on (clock,
//! configuration, store, persistence writer, shutdown token, task tracker). Cheap
//! to clone (one `Arc`).
//!
//! The game side sits below the cluster, the request routing (`crate::route`), the
//! socket tier and REST (issue 33.3): it imports none of them. What it must tell the
//! other nodes of a cluster (a room serving here, a lobby member gone, a player
//! dequeued) goes through [`Elsewhere`], a trait the cluster implements and sets
//! once at start-up ([`Game::set_elsewhere`]); a single node has none.
//!
//! The registries (running rooms, live sessions, presence) are [`Registries`]:
//! `DashMap`s (sharded locks held for a single map operation, never across an
//! `.await`) behind methods named for what their callers do; the actors (rooms,
//! matchmaker) own their state and are reached by channel.

use crate::clock::Clock;
use crate::config::Config;
use crate::lobby::Lobbies;
use crate::matchmaker::{self, MatchmakerHandle};
use crate::presence::Presence;
use crate::room::{BotPool, RoomHandle};
use crate::ws::{CloseReason, ConnHandle, Frame};
use dashmap::DashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use store::{Store, WriterHandle};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

/// The other nodes of a cluster, as the game side needs them: implemented by
/// `crate::cluster::Cluster`, set once when this node joins a cluster
/// ([`Game::set_elsewhere`]). Every method returns at once (no `.await`): what
/// crosses NATS is sent by tasks of the cluster.
pub(crate) trait Elsewhere: Send + Sync {
    /// The room of `match_id`, just registered here, is served to the other nodes:
    /// their players' commands reach it over NATS.
    fn serve_room(&self, game: &Game, match_id: Uuid, room: RoomHandle);
    /// The running match `match_id` (private) is listed by no node's
    /// `GET /api/v1/matches`.
    fn unlist(&self, match_id: Uuid);
    /// Sends `frame` to `player`'s socket on another node (nothing when it has
    /// none).
    fn tell_player(&self, player: Uuid, frame: &Frame);
    /// The stand-in of `player`'s socket on another node that this node holds as
    /// the matchmaker or as the owner of the player's lobby.
    fn stand_in(&self, player: Uuid) -> Option<ConnHandle>;
    /// `player` is no longer a member of this node's lobby it joined from another
    /// node (it left, or the lobby closed or started).
    fn lobby_gone(&self, player: Uuid);
    /// This node, the matchmaker, no longer queues `player` in `mode` (seated,
    /// pruned or left).
    fn dequeued(&self, player: Uuid, mode: engine::Mode);
}

/// The game side's shared parts. See the module docs.
#[derive(Clone)]
pub struct Game(Arc<Inner>);

impl std::fmt::Debug for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Game")
            .field("rooms", &self.0.registries.room_count())
            .field("sessions", &self.0.registries.session_count())
            .field("clustered", &self.clustered())
            .finish_non_exhaustive()
    }
}

struct Inner {
    /// The clock rooms, matches and the quick-play bot fill read (Unix ms).
    clock: Clock,
    config: Config,
    store: Store,
    writer: WriterHandle,
    registries: Arc<Registries>,
    lobbies: Lobbies,
    matchmaker: MatchmakerHandle,
    /// Cancelled once the server begins shutting down; every connection, room and
    /// the matchmaker watch it.
    shutdown: CancellationToken,
    /// Every connection and room task, so shutdown can wait for them.
    tasks: TaskTracker,
    /// True once the schema is migrated and the running matches are resumed.
    store_ready: AtomicBool,
    /// The bound on expert searches running at once (`--bot-searches`).
    bot_pool: BotPool,
    /// The other nodes (cluster mode); unset for one node.
    elsewhere: OnceLock<Arc<dyn Elsewhere>>,
    /// The next connection id ([`Game::next_conn_id`]).
    next_conn_id: AtomicU64,
}

impl Game {
    /// Builds the game side and starts the matchmaker task (call inside a Tokio
    /// runtime).
    pub fn new(config: Config, store: Store, writer: WriterHandle, clock: Clock) -> Game {
        let (matchmaker, mm_rx) = matchmaker::channel();
        let bot_pool = BotPool::new(config.bot_searches);
        let game = Game(Arc::new(Inner {
            clock,
            config,
            store,
            writer,
            registries: Arc::default(),
            lobbies: Lobbies::default(),
            matchmaker,
            shutdown: CancellationToken::new(),
            tasks: TaskTracker::new(),
            store_ready: AtomicBool::new(false),
            bot_pool,
            elsewhere: OnceLock::new(),
            next_conn_id: AtomicU64::new(1),
        }));
        game.tasks().spawn(matchmaker::run(game.clone(), mm_rx));
        game
    }

    /// Sets the other nodes (once, when this node joins a cluster). False when they
    /// were set already.
    pub(crate) fn set_elsewhere(&self, elsewhere: Arc<dyn Elsewhere>) -> bool {
        self.0.elsewhere.set(elsewhere).is_ok()
    }

    /// The other nodes; `None` on a single node.
    pub(crate) fn elsewhere(&self) -> Option<&Arc<dyn Elsewhere>> {
        self.0.elsewhere.get()
    }

    /// True in a cluster: a match may run on another node, and a write of a room
    /// here that fails was fenced.
    pub fn clustered(&self) -> bool {
        self.elsewhere().is_some()
    }

    /// True once the store is migrated and the running matches resumed.
    pub fn store_ready(&self) -> bool {
        self.0.store_ready.load(Ordering::SeqCst)
    }

    /// Marks the store migrated and the running matches resumed.
    pub fn set_store_ready(&self) {
        self.0.store_ready.store(true, Ordering::SeqCst);
    }

    /// True when a new match may start: the store is ready and the writer keeps up
    /// ([`store::WriterHandle::accepting_new_matches`]). Queues and lobbies answer
    /// `store_unavailable` otherwise.
    pub fn accepting_new_matches(&self) -> bool {
        self.store_ready() && self.0.writer.accepting_new_matches()
    }

    /// The clock rooms, matches and the matchmaker's bot fill read.
    pub fn clock(&self) -> &Clock {
        &self.0.clock
    }
    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.0.config
    }
    /// The store.
    pub fn store(&self) -> &Store {
        &self.0.store
    }
    /// The write-behind persistence writer (rooms use it; never waits).
    pub fn writer(&self) -> &WriterHandle {
        &self.0.writer
    }
    /// The bound on expert bot searches running at once.
    pub(crate) fn bot_pool(&self) -> &BotPool {
        &self.0.bot_pool
    }
    /// The registries of running rooms, live sessions and presence.
    pub fn registries(&self) -> &Arc<Registries> {
        &self.0.registries
    }
    /// The room of a running match on this node.
    pub fn room(&self, match_id: Uuid) -> Option<RoomHandle> {
        self.0.registries.room(match_id)
    }
    /// The live connection of `player` on this node, if any.
    pub fn session(&self, player: Uuid) -> Option<ConnHandle> {
        self.0.registries.session(player)
    }
    /// Where frames for `player` go: its live connection here, or (cluster) the
    /// stand-in of its socket on another node, held by this node as the matchmaker
    /// or as the owner of the player's lobby.
    pub fn reach(&self, player: Uuid) -> Option<ConnHandle> {
        self.session(player)
            .or_else(|| self.elsewhere()?.stand_in(player))
    }
    /// Sends `frame` to `player`'s socket, here or (cluster) on another node.
    pub fn tell(&self, player: Uuid, frame: &Frame) {
        match (self.session(player), self.elsewhere()) {
            (Some(c), _) => {
                c.send(frame.clone());
            }
            (None, Some(e)) => e.tell_player(player, frame),
            (None, None) => {}
        }
    }
    /// What each player is busy with.
    pub fn presence(&self) -> &Presence {
        &self.0.registries.presence
    }
    /// Lobbies.
    pub fn lobbies(&self) -> &Lobbies {
        &self.0.lobbies
    }
    /// The quick-play matchmaker.
    pub fn matchmaker(&self) -> &MatchmakerHandle {
        &self.0.matchmaker
    }
    /// Cancelled when shutdown begins.
    pub fn shutdown_token(&self) -> &CancellationToken {
        &self.0.shutdown
    }
    /// Tracker of connection and room tasks.
    pub fn tasks(&self) -> &TaskTracker {
        &self.0.tasks
    }
    /// A fresh connection id: sockets here and the stand-ins of sockets on other
    /// nodes.
    pub fn next_conn_id(&self) -> u64 {
        self.0.next_conn_id.fetch_add(1, Ordering::Relaxed)
    }
}

/// The registries every part of the server reads: running rooms, live sessions and
/// what each player is busy with. Shared (one `Arc`) by [`Game`] and the rooms,
/// which reach it only through their `RoomDeps` (`crate::room`).
#[derive(Debug, Default)]
pub struct Registries {
    /// Match id → the room's command queue. Written by rooms when they start and
    /// stop; read by connections routing a request to its match.
    rooms: DashMap<Uuid, RoomHandle>,
    /// Player id → its live connection (the newest; an older one is closed), when
    /// it signed in (Unix ms) and with which session (the sign-in whose token its
    /// `hello` gave), so a room starting can reach a player who reconnected while
    /// queued or in a lobby, and a signed-out session's socket can be closed.
    sessions: DashMap<Uuid, (ConnHandle, u64, Uuid)>,
    /// What each player is busy with.
    presence: Presence,
}

impl Registries {
    /// Registers the room of running match `match_id`, so requests naming the match
    /// reach it (a room of the same match still registered is replaced).
    pub fn register_room(&self, match_id: Uuid, room: RoomHandle) {
        self.rooms.insert(match_id, room);
    }
    /// Removes the room of `match_id` (it stopped): requests naming the match no
    /// longer reach a room here.
    pub fn unregister_room(&self, match_id: Uuid) {
        self.rooms.remove(&match_id);
    }
    /// The room of a running match.
    pub fn room(&self, match_id: Uuid) -> Option<RoomHandle> {
        self.rooms.get(&match_id).map(|r| r.clone())
    }
    /// True when a room of match `match_id` is registered.
    pub fn runs_room(&self, match_id: Uuid) -> bool {
        self.rooms.contains_key(&match_id)
    }
    /// The ids of the registered rooms that may be listed for spectators
    /// ([`RoomHandle::is_listed`]), in no particular order.
    pub fn listed_rooms(&self) -> Vec<Uuid> {
        self.rooms
            .iter()
            .filter(|r| r.value().is_listed())
            .map(|r| *r.key())
            .collect()
    }
    /// How many rooms are registered.
    pub fn room_count(&self) -> usize {
        self.rooms.len()
    }
    /// Makes `conn`, signed in at `now_ms` (Unix ms) with session `session`, the
    /// live connection of `player`; an older connection of the player is closed
    /// (4000, replaced).
    pub fn attach_session(&self, player: Uuid, conn: &ConnHandle, now_ms: u64, session: Uuid) {
        if let Some((old, _, _)) = self
            .sessions
            .insert(player, (conn.clone(), now_ms, session))
        {
            if old.id() != conn.id() {
                old.close(CloseReason::REPLACED);
            }
        }
    }
    /// Forgets connection `conn_id` as `player`'s live one when it still is. True
    /// when it was (no newer connection of the player took over).
    pub fn detach_session(&self, player: Uuid, conn_id: u64) -> bool {
        self.sessions
            .remove_if(&player, |_, (c, _, _)| c.id() == conn_id)
            .is_some()
    }
    /// Forgets `player`'s live connection, if any, and closes it with `reason`.
    pub fn close_session(&self, player: Uuid, reason: CloseReason) {
        if let Some((_, (old, _, _))) = self.sessions.remove(&player) {
            old.close(reason);
        }
    }
    /// Closes `player`'s live connection with 4002 (signed out) when it signed in
    /// with one of `sessions` (signed out, expired or deleted). True when one was
    /// closed.
    pub fn close_signed_out(&self, player: Uuid, sessions: &[Uuid]) -> bool {
        match self
            .sessions
            .remove_if(&player, |_, (_, _, s)| sessions.contains(s))
        {
            Some((_, (old, _, _))) => {
                old.close(CloseReason::SIGNED_OUT);
                true
            }
            None => false,
        }
    }
    /// Closes `player`'s live connection with `reason` when it signed in at or
    /// before `signed_in_ms` (Unix ms): another node's sign-in of the player at
    /// that time replaces it. A connection that signed in later is the newer one
    /// and stays (a sign-in notice held up by a NATS outage replaces nothing).
    /// True when one was closed.
    pub fn close_session_before(
        &self,
        player: Uuid,
        signed_in_ms: u64,
        reason: CloseReason,
    ) -> bool {
        match self
            .sessions
            .remove_if(&player, |_, (_, at, _)| *at <= signed_in_ms)
        {
            Some((_, (old, _, _))) => {
                old.close(reason);
                true
            }
            None => false,
        }
    }
    /// The ids of the live connections of the players seated in `match_id` (by
    /// presence): the sockets a room of the match takes when it resumes here.
    pub fn seated_sessions(&self, match_id: Uuid) -> std::collections::HashSet<u64> {
        self.sessions
            .iter()
            .filter(|e| self.presence.active_match(*e.key()) == Some(match_id))
            .map(|e| e.value().0.id())
            .collect()
    }
    /// The live connection of `player`, if any.
    pub fn session(&self, player: Uuid) -> Option<ConnHandle> {
        self.sessions.get(&player).map(|c| c.0.clone())
    }
    /// How many players have a live connection.
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }
    /// What each player is busy with.
    pub fn presence(&self) -> &Presence {
        &self.presence
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 34.2: a sign-in notice from another node replaces the player's socket
    /// here only when that sign-in was at or after this one's; a notice NATS held
    /// up (it names an earlier time than this socket's sign-in) closes nothing,
    /// and never with 4000.
    #[test]
    fn a_late_sign_in_notice_does_not_replace_a_newer_socket() {
        let r = Registries::default();
        let p = Uuid::new_v4();
        let (tx, _rx) = tokio::sync::mpsc::channel(4);
        let conn = ConnHandle::new(1, tx);
        r.attach_session(p, &conn, 10_000, Uuid::nil());
        assert!(!r.close_session_before(p, 9_999, CloseReason::REPLACED));
        assert_eq!(conn.close_reason(), None);
        assert_eq!(r.session(p).map(|c| c.id()), Some(1));
        assert!(r.close_session_before(p, 10_000, CloseReason::REPLACED));
        assert_eq!(conn.close_reason(), Some(CloseReason::REPLACED));
        assert!(r.session(p).is_none());
        assert!(!r.close_session_before(p, 20_000, CloseReason::REPLACED));
    }

    /// Issue 29: signing out session B closes the player's socket only when that
    /// socket signed in with B, and with 4002.
    #[test]
    fn a_sign_out_closes_only_the_socket_of_that_session() {
        let r = Registries::default();
        let p = Uuid::new_v4();
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let (tx, _rx) = tokio::sync::mpsc::channel(4);
        let conn = ConnHandle::new(1, tx);
        r.attach_session(p, &conn, 10_000, a);
        assert!(!r.close_signed_out(p, &[b]));
        assert_eq!(conn.close_reason(), None);
        assert!(r.close_signed_out(p, &[b, a]));
        assert_eq!(conn.close_reason(), Some(CloseReason::SIGNED_OUT));
        assert_eq!(CloseReason::SIGNED_OUT.code, 4002);
        assert!(r.session(p).is_none());
    }
}
