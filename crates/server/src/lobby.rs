//! Private lobbies: a host creates one and gets a short join code; others join by
//! code; the host starts the match. Empty seats get bots when the lobby was created
//! with `fill_with_bots`; otherwise at least two players are needed and empty seats
//! stay empty (their turns are passed).
//!
//! All lobbies live in one `std::sync::Mutex`: every operation is a few map updates
//! with no `.await` inside, and messages are queued (never awaited) after the lock
//! is released.

use crate::presence::Busy;
use crate::room::{self, Occupant};
use crate::state::AppState;
use engine::Mode;
use protocol::{CreateLobby, ErrorCode, LobbyMember, LobbyState, ServerMsg};
use rand::Rng;
use std::collections::HashMap;
use std::sync::Mutex;
use uuid::Uuid;

/// Letters and digits of join codes: no `I`, `L`, `O`, `0`, `1` (easily confused).
pub const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
/// Characters in a join code.
pub const CODE_LEN: usize = 6;

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
    host: Uuid,
    members: Vec<LobbyMember>,
}

#[derive(Debug, Default)]
struct Inner {
    by_code: HashMap<String, Lobby>,
    by_player: HashMap<Uuid, String>,
}

/// Every open lobby, by code and by member.
#[derive(Debug, Default)]
pub struct Lobbies {
    inner: Mutex<Inner>,
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
        host: l.host,
        members: l.members.clone(),
    }
}

/// Queues `lobby_state` (encoded once) to each member's live connection.
fn tell(state: &AppState, ls: &LobbyState) {
    let frame = crate::ws::encode(None, &ServerMsg::LobbyState(ls.clone()));
    for m in &ls.members {
        if let Some(c) = state.session(m.player_id) {
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
        state: &AppState,
        player: Uuid,
        name: &str,
        req: &CreateLobby,
    ) -> Result<String, LobbyError> {
        state
            .presence()
            .claim(player, Busy::Lobby)
            .map_err(|_| LobbyError::Busy)?;
        let ls = {
            let mut g = self.lock();
            let code = loop {
                let c = new_code();
                if !g.by_code.contains_key(&c) {
                    break c;
                }
            };
            let lobby = Lobby {
                mode: req.mode,
                private: req.private,
                fill_with_bots: req.fill_with_bots,
                host: player,
                members: vec![LobbyMember {
                    player_id: player,
                    name: name.to_string(),
                }],
            };
            let ls = state_of(&code, &lobby);
            g.by_code.insert(code.clone(), lobby);
            g.by_player.insert(player, code);
            ls
        };
        tell(state, &ls);
        Ok(ls.code)
    }

    /// Adds `player` to the lobby with `code` (case-insensitive) and sends the new
    /// `lobby_state` to every member. Errors: `Busy`, `NotFound`, `Full`.
    pub fn join(
        &self,
        state: &AppState,
        player: Uuid,
        name: &str,
        code: &str,
    ) -> Result<(), LobbyError> {
        state
            .presence()
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
                    g.by_player.insert(player, code.clone());
                    Ok(ls)
                }
            }
        };
        match res {
            Ok(ls) => {
                tell(state, &ls);
                Ok(())
            }
            Err(e) => {
                state.presence().release(player, Busy::Lobby);
                Err(e)
            }
        }
    }

    /// Removes `player` from its lobby (the next member becomes host; an empty
    /// lobby is closed) and sends the new `lobby_state` to the others.
    /// Errors: [`LobbyError::NotInLobby`].
    pub fn leave(&self, state: &AppState, player: Uuid) -> Result<(), LobbyError> {
        let left = {
            let mut g = self.lock();
            let code = g.by_player.remove(&player).ok_or(LobbyError::NotInLobby)?;
            let lobby = g.by_code.get_mut(&code).ok_or(LobbyError::NotInLobby)?;
            lobby.members.retain(|m| m.player_id != player);
            if lobby.members.is_empty() {
                g.by_code.remove(&code);
                None
            } else {
                if lobby.host == player {
                    lobby.host = lobby.members[0].player_id;
                }
                Some(state_of(&code, lobby))
            }
        };
        state.presence().release(player, Busy::Lobby);
        if let Some(ls) = left {
            tell(state, &ls);
        }
        Ok(())
    }

    /// The host starts its lobby's match: members take seats (at random), empty seats
    /// get bots if the lobby asked for them. The lobby closes; every member receives
    /// `match_started`. Errors: `NotInLobby`, `NotHost`, `TooFew`, `Start`.
    pub fn start(&self, state: &AppState, player: Uuid) -> Result<Uuid, LobbyError> {
        let lobby = {
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
            if !state.accepting_new_matches() {
                return Err(LobbyError::StoreUnavailable);
            }
            let l = g.by_code.remove(&code).expect("present above");
            for m in &l.members {
                g.by_player.remove(&m.player_id);
            }
            l
        };
        let filler = if lobby.fill_with_bots {
            Occupant::Bot
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
        room::start(state, lobby.mode, occupants).map_err(|e| {
            tracing::error!(error = %e, "could not start a lobby match");
            for m in &lobby.members {
                state.presence().release(m.player_id, Busy::Lobby);
            }
            LobbyError::Start
        })
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
