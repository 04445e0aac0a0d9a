//! [`Presence`]: what each player is busy with — queued, in a lobby, or seated in a
//! running match — so that one player is in at most one of these at a time
//! (`already_busy`) and a reconnecting player finds its match again.
//!
//! A `DashMap` (sharded locks, each held only for one map operation, never across an
//! `.await`) because every connection, the matchmaker, lobbies and rooms touch it.

use dashmap::mapref::entry::Entry;
use dashmap::DashMap;
use engine::Mode;
use uuid::Uuid;

/// What a player is busy with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Busy {
    /// Waiting in the quick-play queue of a mode.
    Queued(Mode),
    /// A member of a lobby.
    Lobby,
    /// Seated in this running match.
    Seated(Uuid),
}

impl Busy {
    /// The `already_busy` error's text for a player busy with this.
    pub fn text(self) -> &'static str {
        match self {
            Busy::Queued(_) => "you are already in a queue",
            Busy::Lobby => "you are in a lobby",
            Busy::Seated(_) => "you are seated in a running match",
        }
    }
}

/// Player id → what the player is busy with.
#[derive(Debug, Default)]
pub struct Presence {
    map: DashMap<Uuid, Busy>,
}

impl Presence {
    /// Marks `player` as `busy` if it is free. Errors with what it is busy with.
    pub fn claim(&self, player: Uuid, busy: Busy) -> Result<(), Busy> {
        match self.map.entry(player) {
            Entry::Occupied(e) => Err(*e.get()),
            Entry::Vacant(e) => {
                e.insert(busy);
                Ok(())
            }
        }
    }

    /// Frees `player` if it is busy with exactly `busy`; returns whether it was.
    pub fn release(&self, player: Uuid, busy: Busy) -> bool {
        self.map.remove_if(&player, |_, b| *b == busy).is_some()
    }

    /// Marks `player` as seated in `match_id` (whatever it was busy with before: a
    /// queue or lobby turns into the match).
    pub fn seat(&self, player: Uuid, match_id: Uuid) {
        self.map.insert(player, Busy::Seated(match_id));
    }

    /// What `player` is busy with.
    pub fn get(&self, player: Uuid) -> Option<Busy> {
        self.map.get(&player).map(|b| *b)
    }

    /// The running match `player` is seated in.
    pub fn active_match(&self, player: Uuid) -> Option<Uuid> {
        match self.get(player) {
            Some(Busy::Seated(m)) => Some(m),
            _ => None,
        }
    }

    /// Players busy with anything.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when nobody is busy.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_activity_at_a_time() {
        let p = Presence::default();
        let id = Uuid::new_v4();
        assert_eq!(p.claim(id, Busy::Queued(Mode::Clash)), Ok(()));
        assert_eq!(p.claim(id, Busy::Lobby), Err(Busy::Queued(Mode::Clash)));
        assert!(
            !p.release(id, Busy::Lobby),
            "releasing another activity frees nothing"
        );
        let m = Uuid::new_v4();
        p.seat(id, m);
        assert_eq!(p.active_match(id), Some(m));
        assert!(
            !p.release(id, Busy::Queued(Mode::Clash)),
            "a late queue leave keeps the seat"
        );
        assert!(p.release(id, Busy::Seated(m)));
        assert!(p.is_empty());
    }
}
