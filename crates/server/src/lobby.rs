//! Lobbies: a host creates one and gets a short join code; others join by code; the
//! host starts the match. Public lobbies (`private: false`) are listed
//! ([`Lobbies::public_list`], `GET /api/v1/lobbies`) and pushed to subscribed
//! connections (`subscribe_lobbies`) on every change; private ones never are. After a
//! match, [`Lobbies::rematch`] opens a private rematch lobby and invites the match's
//! other humans. Empty seats get bots when the lobby was created
//! with `fill_with_bots`; otherwise at least two players are needed and empty seats
//! stay empty (their turns are passed). A `private` lobby's match is not listed for
//! spectators. A member whose connection drops keeps its seat for a grace period
//! (`--lobby-grace-seconds`) and gets the lobby's state again when it signs in.
//!
//! All lobbies live in one `std::sync::Mutex`: every operation is a few map updates
//! with no `.await` inside, and messages are queued (never awaited) after the lock
//! is released.
//!
//! Cluster mode ([`crate::cluster::lobby`]): a lobby lives on the node that opened
//! it; members on other nodes reach it through stand-in connections. The public
//! list merges this node's lobbies with the lists the other nodes announce
//! ([`Lobbies::set_remote`]), and so does the rematch look-up
//! ([`Lobbies::remote_rematch`]).

use crate::game::Game;
use crate::presence::Busy;
use crate::room::{self, Occupant};
use crate::ws::ConnHandle;
use engine::Mode;
use protocol::{CreateLobby, ErrorCode, LobbyMember, LobbyState, ServerMsg};
use rand::Rng;
use std::collections::HashMap;
use std::sync::Mutex;
use uuid::Uuid;

/// Letters and digits of join codes: no `I`, `L`, `O`, `0`, `1` (easily confused).
pub const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
/// Characters in a join code.
pub(crate) const CODE_LEN: usize = 6;

/// Why a lobby request failed; nothing changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LobbyError {
    /// `already_busy`: the player is queued, in a lobby or seated.
    #[error("you are already queued, in a lobby or in a match")]
    Busy,
    /// `lobby_not_found`: no lobby has this code.
    #[error("no lobby has the code {0:?}")]
    NotFound(String),
    /// `lobby_not_found`: the player is in no lobby.
    #[error("you are not in a lobby")]
    NotInLobby,
    /// `lobby_full`: four members already.
    #[error("the lobby is full")]
    Full,
    /// `not_host`: only the host may start.
    #[error("only the host may start the lobby")]
    NotHost,
    /// `bad_json`: a lobby without bots needs two players (the protocol's closed
    /// list has no more specific code).
    #[error("a lobby without fill_with_bots needs at least two players to start")]
    TooFew,
    /// `internal`: the room could not start.
    #[error("the match could not be started")]
    Start,
    /// `store_unavailable`: the store is unavailable or behind, so no match can
    /// start now; the lobby is kept as it is.
    #[error("the store is unavailable or behind; try again shortly")]
    StoreUnavailable,
}

impl LobbyError {
    /// The protocol error code.
    pub fn code(&self) -> ErrorCode {
        match self {
            LobbyError::Busy => ErrorCode::AlreadyBusy,
            LobbyError::NotFound(_) | LobbyError::NotInLobby => ErrorCode::LobbyNotFound,
            LobbyError::Full => ErrorCode::LobbyFull,
            LobbyError::NotHost => ErrorCode::NotHost,
            LobbyError::TooFew => ErrorCode::LobbyTooSmall,
            LobbyError::Start => ErrorCode::Internal,
            LobbyError::StoreUnavailable => ErrorCode::StoreUnavailable,
        }
    }
}

#[derive(Debug, Clone)]
struct Lobby {
    mode: Mode,
    private: bool,
    fill_with_bots: bool,
    /// Level of the bots that fill empty seats.
    bot_level: protocol::BotLevel,
    host: Uuid,
    members: Vec<LobbyMember>,
    /// When it opened (a counter), for the public list's order among lobbies of
    /// the same millisecond.
    opened: u64,
    /// When it opened, Unix ms on the server clock: the public list's order across
    /// nodes.
    opened_ms: u64,
    /// The ended match this lobby is the rematch of.
    rematch_of: Option<Uuid>,
}

/// Most lobbies one `lobby_list` names.
pub(crate) const LIST_MAX: usize = 100;

#[derive(Debug, Default)]
struct Inner {
    by_code: HashMap<String, Lobby>,
    by_player: HashMap<Uuid, String>,
    /// Members whose connection dropped, with the mark of that drop: the member's
    /// seat is kept for the grace period (`--lobby-grace-seconds`) and dropped when
    /// it ends with this very mark still set (a later drop sets a new mark).
    away: HashMap<Uuid, u64>,
    /// The last away mark handed out.
    away_marks: u64,
    /// The last `Lobby::opened` handed out.
    opened: u64,
    /// Connections subscribed to the public list (`subscribe_lobbies`), by id.
    watchers: HashMap<u64, ConnHandle>,
    /// Open rematch lobbies: ended match → code.
    rematches: Rematches,
    /// Cluster: the public lobbies and rematch lobbies other nodes announced, by node.
    remote: HashMap<String, NodeLobbies>,
    /// Notified on every change of this node's public list or rematch lobbies (the
    /// cluster announces them to the other nodes).
    changed: std::sync::Arc<tokio::sync::Notify>,
}

/// One public lobby as a node announces it to the others: when it opened (Unix ms)
/// and its list entry.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ListedLobby {
    /// When it opened, Unix ms on that node's clock.
    pub opened_ms: u64,
    /// The entry of `lobby_list`.
    pub info: protocol::LobbyInfo,
}

/// A node's announcement of its open lobbies (cluster): its public lobbies with a
/// free seat and its open rematch lobbies.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NodeLobbies {
    /// The public lobbies with a free seat (at most [`LIST_MAX`]).
    pub lobbies: Vec<ListedLobby>,
    /// Open rematch lobbies: (ended match, code).
    pub rematches: Vec<(Uuid, String)>,
}

/// Open rematch lobbies: ended match → the code of its rematch lobby.
#[derive(Debug, Default)]
struct Rematches(HashMap<Uuid, String>);

impl Rematches {
    fn get(&self, m: &Uuid) -> Option<&String> {
        self.0.get(m)
    }

    fn all(&self) -> Vec<(Uuid, String)> {
        self.0.iter().map(|(m, c)| (*m, c.clone())).collect()
    }

    fn insert(&mut self, m: Uuid, code: String) {
        self.0.insert(m, code);
    }

    /// Forgets the rematch of `m` if it is the lobby `code` (a closed lobby never
    /// removes another one's entry).
    fn remove_if_code(&mut self, m: Uuid, code: &str) {
        if self.0.get(&m).is_some_and(|c| c == code) {
            self.0.remove(&m);
        }
    }
}

impl Inner {
    /// Takes `player` out of its lobby (the next member becomes host; an empty lobby
    /// is closed). Returns the lobby's new state when members are left.
    /// Errors: [`LobbyError::NotInLobby`].
    fn remove_member(&mut self, player: Uuid) -> Result<Option<LobbyState>, LobbyError> {
        self.away.remove(&player);
        let code = self
            .by_player
            .remove(&player)
            .ok_or(LobbyError::NotInLobby)?;
        let lobby = self.by_code.get_mut(&code).ok_or(LobbyError::NotInLobby)?;
        lobby.members.retain(|m| m.player_id != player);
        let public = !lobby.private;
        let res = if lobby.members.is_empty() {
            if let Some(l) = self.by_code.remove(&code) {
                if let Some(m) = l.rematch_of {
                    self.rematches.remove_if_code(m, &code);
                    self.changed.notify_one();
                }
            }
            None
        } else {
            if lobby.host == player {
                lobby.host = lobby.members[0].player_id;
            }
            Some(state_of(&code, lobby))
        };
        if public {
            self.publish();
        }
        Ok(res)
    }

    /// Opens a lobby hosted by `player` (presence claimed) with `code` when it is
    /// free (a fresh code otherwise); returns its game.
    #[allow(clippy::too_many_arguments)]
    fn open(
        &mut self,
        game: &Game,
        code: Option<String>,
        mode: Mode,
        private: bool,
        fill_with_bots: bool,
        bot_level: protocol::BotLevel,
        player: Uuid,
        name: &str,
        rematch_of: Option<Uuid>,
    ) -> LobbyState {
        let code = match code {
            Some(c) if !self.by_code.contains_key(&c) => c,
            _ => fresh_code(self),
        };
        self.opened += 1;
        let lobby = Lobby {
            mode,
            private,
            fill_with_bots,
            bot_level,
            host: player,
            members: vec![LobbyMember {
                player_id: player,
                name: name.to_string(),
            }],
            opened: self.opened,
            opened_ms: game.clock().now_ms(),
            rematch_of,
        };
        let ls = state_of(&code, &lobby);
        self.by_code.insert(code.clone(), lobby);
        self.by_player.insert(player, code.clone());
        if let Some(m) = rematch_of {
            self.rematches.insert(m, code);
            self.changed.notify_one();
        }
        ls
    }

    /// This node's public lobbies with a free seat, oldest first (at most
    /// [`LIST_MAX`]), with their opening counter.
    fn local(&self) -> Vec<(u64, ListedLobby)> {
        let mut open: Vec<(&String, &Lobby)> = self
            .by_code
            .iter()
            .filter(|(_, l)| !l.private && l.members.len() < 4)
            .collect();
        open.sort_by_key(|(_, l)| l.opened);
        open.into_iter()
            .take(LIST_MAX)
            .map(|(code, l)| {
                let info = protocol::LobbyInfo {
                    code: code.clone(),
                    mode: l.mode,
                    fill_with_bots: l.fill_with_bots,
                    bot_level: l.bot_level,
                    host_name: l
                        .members
                        .iter()
                        .find(|m| m.player_id == l.host)
                        .map(|m| m.name.clone())
                        .unwrap_or_default(),
                    members: l.members.len() as u32,
                };
                let listed = ListedLobby {
                    opened_ms: l.opened_ms,
                    info,
                };
                (l.opened, listed)
            })
            .collect()
    }

    /// The open public lobbies with a free seat, oldest first (at most
    /// [`LIST_MAX`]): this node's and (cluster) the ones the other nodes announced.
    /// Order: opening time (ms), then this node's before others', then this node's
    /// opening counter, then the code.
    fn list(&self) -> protocol::LobbyList {
        let mut all: Vec<(u64, bool, u64, ListedLobby)> = self
            .local()
            .into_iter()
            .map(|(n, l)| (l.opened_ms, false, n, l))
            .collect();
        for node in self.remote.values() {
            all.extend(
                node.lobbies
                    .iter()
                    .map(|l| (l.opened_ms, true, 0, l.clone())),
            );
        }
        all.sort_by(|a, b| (a.0, a.1, a.2, &a.3.info.code).cmp(&(b.0, b.1, b.2, &b.3.info.code)));
        protocol::LobbyList {
            lobbies: all
                .into_iter()
                .take(LIST_MAX)
                .map(|(_, _, _, l)| l.info)
                .collect(),
        }
    }

    /// Queues the public list (encoded once) to every subscribed connection, under
    /// the lock, so a subscriber sees the lists in the order of the changes. Closed
    /// connections are dropped from the subscribers.
    fn publish(&mut self) {
        self.changed.notify_one();
        self.publish_watchers();
    }

    /// Queues the (merged) public list to every subscribed connection.
    fn publish_watchers(&mut self) {
        if self.watchers.is_empty() {
            return;
        }
        let frame = crate::ws::encode(None, &ServerMsg::LobbyList(self.list()));
        self.watchers.retain(|_, c| c.send(frame.clone()));
    }
}

/// What [`Lobbies::rematch`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rematch {
    /// Opened the rematch lobby with this code; the invitations were sent.
    Opened(String),
    /// A rematch of the match was open already: the player joined it.
    Joined(String),
}

/// Every open lobby, by code and by member.
#[derive(Debug, Default)]
pub struct Lobbies {
    inner: Mutex<Inner>,
}

/// A join code of [`CODE_LEN`] characters of [`CODE_ALPHABET`] not open in `g`.
fn fresh_code(g: &Inner) -> String {
    loop {
        let c = new_code();
        if !g.by_code.contains_key(&c) {
            return c;
        }
    }
}

fn new_code() -> String {
    let mut rng = rand::rng();
    (0..CODE_LEN)
        .map(|_| CODE_ALPHABET[rng.random_range(0..CODE_ALPHABET.len())] as char)
        .collect()
}

fn state_of(code: &str, l: &Lobby) -> LobbyState {
    LobbyState {
        code: code.to_string(),
        mode: l.mode,
        private: l.private,
        fill_with_bots: l.fill_with_bots,
        bot_level: l.bot_level,
        host: l.host,
        members: l.members.clone(),
    }
}

/// Cluster: `player`, maybe a member on another node, is no longer in its lobby here.
fn gone(game: &Game, player: Uuid) {
    if let Some(e) = game.elsewhere() {
        e.lobby_gone(player);
    }
}

/// Queues `lobby_state` (encoded once) to each member's live connection (here, or
/// the stand-in of its socket on another node).
fn tell(game: &Game, ls: &LobbyState) {
    let frame = crate::ws::encode(None, &ServerMsg::LobbyState(ls.clone()));
    for m in &ls.members {
        if let Some(c) = game.reach(m.player_id) {
            c.send(frame.clone());
        }
    }
}

impl Lobbies {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the maps half-updated in a
        // way later calls cannot handle, so a poisoned lock is still used.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Open lobbies.
    pub fn len(&self) -> usize {
        self.lock().by_code.len()
    }

    /// True when no lobby is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Creates a lobby hosted by `player` and sends it its `lobby_state`. Returns the
    /// join code. Errors: [`LobbyError::Busy`].
    pub fn create(
        &self,
        game: &Game,
        player: Uuid,
        name: &str,
        req: &CreateLobby,
    ) -> Result<String, LobbyError> {
        self.create_with_code(game, player, name, req, None)
    }

    /// A join code not open here now, for [`Lobbies::create_with_code`] and
    /// [`Lobbies::rematch`] (cluster: the node serves the code to the other nodes
    /// before anyone is shown it).
    pub fn fresh_code(&self) -> String {
        fresh_code(&self.lock())
    }

    /// True while the lobby with `code` is open here.
    pub fn is_open(&self, code: &str) -> bool {
        self.lock().by_code.contains_key(code)
    }

    /// The code of the lobby here that `player` is a member of.
    pub fn code_of(&self, player: Uuid) -> Option<String> {
        self.lock().by_player.get(&player).cloned()
    }

    /// [`Lobbies::create`] with the join code `code` when it is still free here (a
    /// fresh one otherwise, or for `None`). Returns the code used.
    /// Errors: [`LobbyError::Busy`].
    pub fn create_with_code(
        &self,
        game: &Game,
        player: Uuid,
        name: &str,
        req: &CreateLobby,
        code: Option<String>,
    ) -> Result<String, LobbyError> {
        game.presence()
            .claim(player, Busy::Lobby)
            .map_err(|_| LobbyError::Busy)?;
        let ls = {
            let mut g = self.lock();
            let ls = g.open(
                game,
                code,
                req.mode,
                req.private,
                req.fill_with_bots,
                req.bot_level,
                player,
                name,
                None,
            );
            if !req.private {
                g.publish();
            }
            ls
        };
        tell(game, &ls);
        Ok(ls.code)
    }

    /// Adds `player` to the lobby with `code` (case-insensitive) and sends the new
    /// `lobby_state` to every member. Errors: `Busy`, `NotFound`, `Full`.
    pub fn join(
        &self,
        game: &Game,
        player: Uuid,
        name: &str,
        code: &str,
    ) -> Result<(), LobbyError> {
        game.presence()
            .claim(player, Busy::Lobby)
            .map_err(|_| LobbyError::Busy)?;
        let code = code.trim().to_ascii_uppercase();
        let res = {
            let mut g = self.lock();
            match g.by_code.get_mut(&code) {
                None => Err(LobbyError::NotFound(code.clone())),
                Some(l) if l.members.len() >= 4 => Err(LobbyError::Full),
                Some(l) => {
                    l.members.push(LobbyMember {
                        player_id: player,
                        name: name.to_string(),
                    });
                    let ls = state_of(&code, l);
                    let public = !l.private;
                    g.by_player.insert(player, code.clone());
                    if public {
                        g.publish();
                    }
                    Ok(ls)
                }
            }
        };
        match res {
            Ok(ls) => {
                tell(game, &ls);
                Ok(())
            }
            Err(e) => {
                game.presence().release(player, Busy::Lobby);
                Err(e)
            }
        }
    }

    /// Removes `player` from its lobby (the next member becomes host; an empty
    /// lobby is closed) and sends the new `lobby_state` to the others.
    /// Errors: [`LobbyError::NotInLobby`].
    pub fn leave(&self, game: &Game, player: Uuid) -> Result<(), LobbyError> {
        let left = self.lock().remove_member(player)?;
        game.presence().release(player, Busy::Lobby);
        gone(game, player);
        if let Some(ls) = left {
            tell(game, &ls);
        }
        Ok(())
    }

    /// The connection of member `player` dropped: its seat is kept for the grace
    /// period (`--lobby-grace-seconds`, default 15 s), as a match keeps a seat. If
    /// the player has not signed in again by then ([`Lobbies::back`]), it leaves the
    /// lobby as with [`Lobbies::leave`]. A grace of 0 leaves at once. No-op for a
    /// player in no lobby.
    pub fn away(&self, game: &Game, player: Uuid) {
        let grace = game.config().lobby_grace();
        if grace.is_zero() {
            let _ = self.leave(game, player);
            return;
        }
        let mark = {
            let mut g = self.lock();
            if !g.by_player.contains_key(&player) {
                return;
            }
            g.away_marks += 1;
            let mark = g.away_marks;
            g.away.insert(player, mark);
            mark
        };
        let game2 = game.clone();
        game.tasks().spawn(async move {
            tokio::select! {
                _ = tokio::time::sleep(grace) => game2.lobbies().grace_over(&game2, player, mark),
                // A stopping server keeps nothing anyway.
                _ = game2.shutdown_token().cancelled() => {}
            }
        });
    }

    /// The grace period of the drop marked `mark` ran out: `player` leaves unless it
    /// came back (or dropped again, which set a newer mark) in the meantime.
    fn grace_over(&self, game: &Game, player: Uuid, mark: u64) {
        let left = {
            let mut g = self.lock();
            if g.away.get(&player) != Some(&mark) {
                return;
            }
            match g.remove_member(player) {
                Ok(left) => left,
                Err(_) => return,
            }
        };
        tracing::debug!(player = %player, "lobby grace period over: member removed");
        game.presence().release(player, Busy::Lobby);
        gone(game, player);
        if let Some(ls) = left {
            tell(game, &ls);
        }
    }

    /// `player` signed in again on `conn` (`hello`): its lobby seat is no longer
    /// away, and `conn` gets the lobby's `lobby_state`. Returns false (and sends
    /// nothing) when the player is in no lobby. The state is queued under the lock,
    /// so it is never older than an update another change sends to `conn`.
    pub fn back(&self, player: Uuid, conn: &ConnHandle) -> bool {
        let mut g = self.lock();
        g.away.remove(&player);
        let Some(code) = g.by_player.get(&player) else {
            return false;
        };
        match g.by_code.get(code) {
            Some(l) => conn.send_msg(None, &ServerMsg::LobbyState(state_of(code, l))),
            None => false,
        }
    }

    /// Closes the lobby `player` hosts so its match can start: it leaves the code and
    /// member indexes (and the public list, and the rematch offers it answered).
    ///
    /// Errors: `NotInLobby`, `NotHost`, `TooFew` (fewer than two members in a lobby
    /// that does not fill with bots), `StoreUnavailable`; the lobby stays open then.
    fn close_to_start(&self, game: &Game, player: Uuid) -> Result<Lobby, LobbyError> {
        let mut g = self.lock();
        let code = g
            .by_player
            .get(&player)
            .cloned()
            .ok_or(LobbyError::NotInLobby)?;
        let l = g.by_code.get(&code).ok_or(LobbyError::NotInLobby)?;
        if l.host != player {
            return Err(LobbyError::NotHost);
        }
        if l.members.len() < 2 && !l.fill_with_bots {
            return Err(LobbyError::TooFew);
        }
        if !game.accepting_new_matches() {
            return Err(LobbyError::StoreUnavailable);
        }
        let l = g.by_code.remove(&code).expect("present above");
        for m in &l.members {
            g.by_player.remove(&m.player_id);
            g.away.remove(&m.player_id);
        }
        if let Some(m) = l.rematch_of {
            g.rematches.remove_if_code(m, &code);
            g.changed.notify_one();
        }
        if !l.private {
            g.publish();
        }
        Ok(l)
    }

    /// The host starts its lobby's match: members take seats (at random), empty seats
    /// get bots if the lobby asked for them. The lobby closes; every member receives
    /// `match_started`. Errors: `NotInLobby`, `NotHost`, `TooFew`, `Start`.
    pub fn start(&self, game: &Game, player: Uuid) -> Result<Uuid, LobbyError> {
        let lobby = self.close_to_start(game, player)?;
        let filler = if lobby.fill_with_bots {
            Occupant::Bot(crate::room::kind_of(lobby.bot_level))
        } else {
            Occupant::Empty
        };
        let mut occupants: Vec<Occupant> = lobby
            .members
            .iter()
            .map(|m| Occupant::Human {
                player_id: m.player_id,
                name: m.name.clone(),
            })
            .collect();
        occupants.resize(4, filler);
        // A private lobby's match is not listed for spectators (they need its id).
        let started =
            room::start_listed(game, lobby.mode, occupants, !lobby.private).map_err(|e| {
                tracing::error!(error = %e, "could not start a lobby match");
                for m in &lobby.members {
                    game.presence().release(m.player_id, Busy::Lobby);
                }
                LobbyError::Start
            });
        // The room holds the stand-ins of members on other nodes already.
        for m in &lobby.members {
            gone(game, m.player_id);
        }
        started
    }
}

impl Lobbies {
    /// The open public lobbies with a free seat, oldest first (at most
    /// [`LIST_MAX`]); private lobbies are never listed.
    pub fn public_list(&self) -> protocol::LobbyList {
        self.lock().list()
    }

    /// What this node announces to the others (cluster): its public lobbies with a
    /// free seat and its open rematch lobbies.
    pub fn announcement(&self) -> NodeLobbies {
        let g = self.lock();
        NodeLobbies {
            lobbies: g.local().into_iter().map(|(_, l)| l).collect(),
            rematches: g.rematches.all(),
        }
    }

    /// Notified on every change of this node's public list or rematch lobbies.
    pub fn changed(&self) -> std::sync::Arc<tokio::sync::Notify> {
        self.lock().changed.clone()
    }

    /// Cluster: node `node` announced `lobbies` (replacing its previous
    /// announcement); subscribers get the merged list when it changed.
    pub fn set_remote(&self, node: &str, lobbies: NodeLobbies) {
        let mut g = self.lock();
        if g.remote.get(node) == Some(&lobbies) {
            return;
        }
        let listed_before = g.remote.get(node).map(|l| l.lobbies.clone());
        let listed_now = lobbies.lobbies.clone();
        g.remote.insert(node.to_string(), lobbies);
        if listed_before.as_ref() != Some(&listed_now) {
            g.publish_watchers();
        }
    }

    /// Cluster: forgets what node `node` announced (it left or went silent).
    pub fn forget_remote(&self, node: &str) {
        let mut g = self.lock();
        if g.remote.remove(node).is_some_and(|l| !l.lobbies.is_empty()) {
            g.publish_watchers();
        }
    }

    /// Cluster: the code of the open rematch lobby of `match_id` on another node.
    pub fn remote_rematch(&self, match_id: Uuid) -> Option<String> {
        let g = self.lock();
        g.remote.values().find_map(|n| {
            n.rematches
                .iter()
                .find(|(m, _)| *m == match_id)
                .map(|(_, c)| c.clone())
        })
    }

    /// Subscribes `conn` to the public list: it gets the list now and after every
    /// change to a public lobby until [`Lobbies::unsubscribe`] or it closes.
    pub fn subscribe(&self, conn: &ConnHandle) {
        let mut g = self.lock();
        let frame = crate::ws::encode(None, &ServerMsg::LobbyList(g.list()));
        if conn.send(frame) {
            g.watchers.insert(conn.id(), conn.clone());
        }
    }

    /// Ends the subscription of connection `conn_id` (no-op when it has none).
    pub fn unsubscribe(&self, conn_id: u64) {
        self.lock().watchers.remove(&conn_id);
    }

    /// Connections subscribed to the public list.
    pub fn subscribers(&self) -> usize {
        self.lock().watchers.len()
    }

    /// `player` (named `name`) offers a rematch of the ended match `match_id` (mode
    /// `mode`) to the other humans `invited`: opens a private lobby hosted by the
    /// player that fills empty seats with bots, and sends `rematch_offered` to each
    /// invited player online. If a rematch of `match_id` is open already the player
    /// joins it instead (as [`Lobbies::join`]).
    ///
    /// The lobby gets the join code `code` when it is still free here (a fresh one
    /// otherwise, or for `None`); on other nodes, invited players are reached
    /// through [`crate::cluster::Cluster::tell_player`].
    ///
    /// The caller checked that the match ended and that the player sat in it.
    /// Errors: [`LobbyError::Busy`]; when joining, [`LobbyError::Full`].
    #[allow(clippy::too_many_arguments)]
    pub fn rematch(
        &self,
        game: &Game,
        player: Uuid,
        name: &str,
        match_id: Uuid,
        mode: Mode,
        invited: &[Uuid],
        code: Option<String>,
    ) -> Result<Rematch, LobbyError> {
        game.presence()
            .claim(player, Busy::Lobby)
            .map_err(|_| LobbyError::Busy)?;
        let (ls, offer) = {
            let mut g = self.lock();
            // Checked under the same lock as the insert below: two offers at once
            // open one lobby, and the second joins it.
            if let Some(code) = g.rematches.get(&match_id).cloned() {
                drop(g);
                game.presence().release(player, Busy::Lobby);
                self.join(game, player, name, &code)?;
                return Ok(Rematch::Joined(code));
            }
            let ls = g.open(
                game,
                code,
                mode,
                true,
                true,
                protocol::BotLevel::default(),
                player,
                name,
                Some(match_id),
            );
            let code = ls.code.clone();
            let offer = ServerMsg::RematchOffered(protocol::RematchOffered {
                match_id,
                code,
                mode,
                host: player,
                host_name: name.to_string(),
            });
            (ls, offer)
        };
        tell(game, &ls);
        let frame = crate::ws::encode(None, &offer);
        for p in invited.iter().filter(|p| **p != player) {
            // (In a cluster, the node holding the player's socket delivers it.)
            game.tell(*p, &frame);
        }
        Ok(Rematch::Opened(ls.code))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_six_unambiguous_characters() {
        for _ in 0..200 {
            let c = new_code();
            assert_eq!(c.len(), CODE_LEN);
            assert!(c.bytes().all(|b| CODE_ALPHABET.contains(&b)), "{c}");
            assert!(!c.contains(['I', 'L', 'O', '0', '1']), "{c}");
        }
    }
}
