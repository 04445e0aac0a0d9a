//! Following one match from the messages a client receives.
//!
//! The tracker re-plays every resolved plan with the engine ([`Position::play`]) on
//! its own position, after applying the dice of each `turn_started` with
//! [`Position::apply_roll`] (RULES.md rule 4.1; the resulting roll store, exit credits
//! and dropped dice must equal the message's). The engine is deterministic, so the
//! re-played plan's events must equal the `events` the server sends in
//! `turn_resolved`, and its standings the server's; any difference is a
//! [`ClientError::Desync`], and the caller recovers with a `resync` from `last_seq`
//! 0, which rebuilds the tracker from the snapshot's position.

use crate::error::{ClientError, Result};
use engine::{standings, Mode, Plan, Position, RuleSet, Seat, TurnKind};
use protocol::{MatchEnded, MatchStarted, SeatInfo, ServerMsg, Snapshot, TurnStarted};
use tokio::time::Instant;
use uuid::Uuid;

/// What applying one message changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applied {
    /// A turn started (for this client's seat when `mine`).
    TurnStarted {
        /// The turn's number.
        turn_number: u32,
        /// True when the tracked player is to move.
        mine: bool,
    },
    /// A turn was resolved.
    TurnResolved {
        /// The turn's number.
        turn_number: u32,
        /// The seat that moved.
        seat: Seat,
    },
    /// The state was replaced by a snapshot.
    Snapshot,
    /// The match ended.
    Ended,
    /// Nothing the tracker follows (chat, or a message about another match).
    Ignored,
}

/// The state of one match as a seated player (or spectator) sees it.
#[derive(Debug, Clone)]
pub struct MatchTracker {
    match_id: Uuid,
    mode: Mode,
    rules: RuleSet,
    seats: Vec<SeatInfo>,
    your_seat: Option<Seat>,
    position: Position,
    turn: Option<TurnStarted>,
    /// When `turn` arrived (was applied), on this machine's monotonic clock.
    turn_at: Option<Instant>,
    turns_resolved: u32,
    ended: Option<MatchEnded>,
    verify_events: bool,
}

/// Rule 4.1: `pos` after the roll of `t` — its dice applied with the engine's
/// [`Position::apply_roll`] — checked against what the server says the roll left:
/// the roll store, the exit credits and the dropped dice.
fn with_roll(pos: &Position, rules: &RuleSet, t: &TurnStarted) -> Result<Position> {
    let mut next = *pos;
    let roll = next.apply_roll(rules, &t.dice).map_err(|e| {
        ClientError::Desync(format!("turn {}: impossible dice: {e}", t.turn_number))
    })?;
    let st = next.seat(t.seat);
    if st.rolls.as_slice() != t.roll_store.as_slice()
        || st.exit_credits != t.exit_credits
        || roll.dropped != t.dropped
    {
        return Err(ClientError::Desync(format!(
            "turn {}: the dice {:?} give roll store {:?}, {} exit credits and dropped {:?}; \
             the server says {:?}, {} and {:?}",
            t.turn_number,
            t.dice,
            st.rolls.as_slice(),
            st.exit_credits,
            roll.dropped,
            t.roll_store,
            t.exit_credits,
            t.dropped
        )));
    }
    Ok(next)
}

impl MatchTracker {
    /// A tracker at the start of a match (rule 4.2: every piece in the Yard,
    /// `start_exit_credits` each, green to move).
    pub fn from_started(m: &MatchStarted) -> MatchTracker {
        MatchTracker {
            match_id: m.match_id,
            mode: m.mode,
            rules: m.rules.clone(),
            seats: m.seats.clone(),
            your_seat: m.your_seat,
            position: Position::start(m.mode, m.rules.start_exit_credits),
            turn: None,
            turn_at: None,
            turns_resolved: 0,
            ended: None,
            verify_events: true,
        }
    }

    /// A tracker from a `snapshot` (reconnect, resync or spectating).
    pub fn from_snapshot(s: &Snapshot) -> MatchTracker {
        MatchTracker {
            match_id: s.match_id,
            mode: s.mode,
            rules: s.rules.clone(),
            seats: s.seats.clone(),
            your_seat: s.your_seat,
            position: s.position,
            turn: s.turn.clone(),
            turn_at: s.turn.as_ref().map(|_| Instant::now()),
            turns_resolved: s.turns_played,
            ended: s.ended.clone(),
            verify_events: true,
        }
    }

    /// Whether `turn_resolved.events` are compared with the events of the re-played
    /// plan (default true). Turn it off when frames are decoded with
    /// [`crate::codec::Decode::Lite`], which leaves the events out; the standings
    /// are still compared.
    pub fn set_verify_events(&mut self, on: bool) {
        self.verify_events = on;
    }

    /// The match.
    pub fn match_id(&self) -> Uuid {
        self.match_id
    }
    /// journey or clash.
    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// The match's rule set.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }
    /// The four seats.
    pub fn seats(&self) -> &[SeatInfo] {
        &self.seats
    }
    /// The tracked player's seat (None for a spectator).
    pub fn your_seat(&self) -> Option<Seat> {
        self.your_seat
    }
    /// The current position, including the current turn's rolls.
    pub fn position(&self) -> &Position {
        &self.position
    }
    /// The turn in progress.
    pub fn turn(&self) -> Option<&TurnStarted> {
        self.turn.as_ref()
    }
    /// Turns resolved so far.
    pub fn turns_resolved(&self) -> u32 {
        self.turns_resolved
    }
    /// The end, once the match has ended.
    pub fn ended(&self) -> Option<&MatchEnded> {
        self.ended.as_ref()
    }

    /// When the turn in progress times out or the match clock runs out, whichever
    /// comes first, on this machine's monotonic clock: the moment its `turn_started`
    /// (or snapshot) was applied plus `turn_remaining_ms` (resp.
    /// `match_remaining_ms`). That is the one countdown method of `proto/README.md`
    /// §7: the server stamps those times as of sending, also in a gap replay, so
    /// neither this device's clock nor how long it was away matters. Apply frames
    /// as they arrive for it to hold. `None` when no turn runs.
    pub fn turn_deadline(&self) -> Option<Instant> {
        let (t, at) = (self.turn.as_ref()?, self.turn_at?);
        let left = t.turn_remaining_ms.min(t.match_remaining_ms);
        Some(at + std::time::Duration::from_millis(left))
    }

    /// The turn in progress when it is the tracked player's.
    pub fn my_turn(&self) -> Option<&TurnStarted> {
        match (&self.turn, self.your_seat, &self.ended) {
            (Some(t), Some(me), None) if t.seat == me => Some(t),
            _ => None,
        }
    }

    /// Applies one server message about this match.
    ///
    /// Errors: [`ClientError::Desync`] when the message does not fit the tracked state
    /// (a turn for a seat that is not to move, a turn number out of order, dice that do
    /// not give the roll store, exit credits or dropped dice stated, a plan the
    /// engine rejects, a re-played position or standings that differ from the
    /// server's). The tracker
    /// is unchanged after an error.
    pub fn apply(&mut self, msg: &ServerMsg) -> Result<Applied> {
        match msg {
            ServerMsg::TurnStarted(t) if t.match_id == self.match_id => self.turn_started(t),
            ServerMsg::TurnResolved(r) if r.match_id == self.match_id => {
                let cur = self.turn.as_ref().map(|t| t.turn_number);
                if cur != Some(r.turn_number) {
                    return Err(ClientError::Desync(format!(
                        "turn_resolved for turn {} while turn {cur:?} runs",
                        r.turn_number
                    )));
                }
                let plan = match r.kind {
                    TurnKind::Plan => r.plan.clone(),
                    TurnKind::Pass | TurnKind::Timeout => Plan::pass(),
                };
                let (next, events) = self.position.play(&self.rules, &plan).map_err(|e| {
                    ClientError::Desync(format!(
                        "turn {}: the engine rejects the resolved plan: {e}",
                        r.turn_number
                    ))
                })?;
                if self.verify_events && events != r.events {
                    return Err(ClientError::Desync(format!(
                        "turn {}: the re-played plan's events differ from the server's",
                        r.turn_number
                    )));
                }
                let mine = standings(&next);
                let totals = |v: &[engine::Standing]| {
                    let mut t: Vec<(Seat, i64)> = v.iter().map(|s| (s.seat, s.total)).collect();
                    t.sort_by_key(|(s, _)| s.index());
                    t
                };
                if totals(&mine) != totals(&r.standings) {
                    return Err(ClientError::Desync(format!(
                        "turn {}: tracked totals {:?} differ from the server's {:?}",
                        r.turn_number,
                        totals(&mine),
                        totals(&r.standings)
                    )));
                }
                self.position = next;
                self.turn = None;
                self.turn_at = None;
                self.turns_resolved += 1;
                Ok(Applied::TurnResolved {
                    turn_number: r.turn_number,
                    seat: r.seat,
                })
            }
            ServerMsg::Snapshot(s) if s.match_id == self.match_id => {
                let verify = self.verify_events;
                *self = MatchTracker::from_snapshot(s);
                self.verify_events = verify;
                Ok(Applied::Snapshot)
            }
            ServerMsg::MatchEnded(e) if e.match_id == self.match_id => {
                self.ended = Some(e.clone());
                self.turn = None;
                self.turn_at = None;
                Ok(Applied::Ended)
            }
            _ => Ok(Applied::Ignored),
        }
    }

    fn turn_started(&mut self, t: &TurnStarted) -> Result<Applied> {
        if self.position.to_move() != Some(t.seat) {
            return Err(ClientError::Desync(format!(
                "turn {} started for {} but {:?} is to move",
                t.turn_number,
                t.seat.name(),
                self.position.to_move().map(|s| s.name())
            )));
        }
        let expected = self.turns_resolved + 1;
        if t.turn_number != expected {
            return Err(ClientError::Desync(format!(
                "turn {} started, expected turn {expected}",
                t.turn_number
            )));
        }
        self.position = with_roll(&self.position, &self.rules, t)?;
        self.turn = Some(t.clone());
        self.turn_at = Some(Instant::now());
        Ok(Applied::TurnStarted {
            turn_number: t.turn_number,
            mine: Some(t.seat) == self.your_seat,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{legal::random_plan, Match, Seed, TurnOutcome, TurnStart};
    use protocol::TurnResolved;
    use rand_chacha::rand_core::SeedableRng;

    const ID: Uuid = Uuid::from_u128(7);

    fn started(m: &Match, mode: Mode) -> MatchStarted {
        MatchStarted {
            match_id: ID,
            mode,
            rules: m.rules().clone(),
            seats: Seat::ALL
                .iter()
                .map(|&seat| SeatInfo {
                    seat,
                    player_id: None,
                    name: seat.name().into(),
                    bot: true,
                    left: false,
                    bot_level: None,
                })
                .collect(),
            your_seat: Some(Seat::Red),
            dice_commitment: m.commitment(),
            match_deadline_ms: m.deadline_ms(),
            dice_scheme: m.dice_scheme(),
            contribution_deadline_ms: None,
        }
    }

    fn turn_started(t: &TurnStart) -> ServerMsg {
        ServerMsg::TurnStarted(TurnStarted {
            match_id: ID,
            seat: t.seat,
            turn_number: t.turn_number,
            dice: t.dice.clone(),
            dropped: t.dropped.clone(),
            roll_store: t.roll_store.clone(),
            exit_credits: t.exit_credits,
            turn_deadline_ms: t.deadline_ms,
            turn_remaining_ms: 0,
            match_remaining_ms: 0,
            now_ms: t.deadline_ms,
        })
    }

    fn resolved(o: &TurnOutcome, m: &Match) -> ServerMsg {
        ServerMsg::TurnResolved(TurnResolved {
            match_id: ID,
            turn_number: o.record.turn_number,
            seat: o.record.seat,
            kind: o.record.kind,
            plan: o.record.plan.clone(),
            events: o.record.events.clone(),
            standings: m.standings(),
        })
    }

    /// The engine is deterministic: re-playing the server's plans on the tracked
    /// position (with the dice of `turn_started`) gives the server's events and its
    /// position after every turn, including timeouts (rule 4.6) and passes (rule 4.4).
    #[test]
    fn tracked_position_equals_the_servers_for_a_whole_match() {
        for mode in [Mode::Clash, Mode::Journey] {
            let mut m = Match::new(RuleSet::default(), mode, Seed([9; 32]), 0).unwrap();
            let mut t = MatchTracker::from_started(&started(&m, mode));
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
            for n in 1..=600u32 {
                let Some(cur) = m.current_turn().cloned() else {
                    break;
                };
                let applied = t.apply(&turn_started(&cur)).unwrap();
                assert_eq!(
                    applied,
                    Applied::TurnStarted {
                        turn_number: n,
                        mine: cur.seat == Seat::Red
                    }
                );
                assert_eq!(
                    t.position(),
                    m.position(),
                    "{mode:?} turn {n}: rolls set from turn_started"
                );
                assert_eq!(t.my_turn().is_some(), cur.seat == Seat::Red);
                let outcome = if n % 7 == 0 {
                    m.force_timeout().unwrap()
                } else {
                    let plan = random_plan(t.position(), t.rules(), &mut rng);
                    m.submit(cur.seat, n, &plan, 0).unwrap()
                };
                let applied = t.apply(&resolved(&outcome, &m)).unwrap();
                assert_eq!(
                    applied,
                    Applied::TurnResolved {
                        turn_number: n,
                        seat: cur.seat
                    }
                );
                assert_eq!(*t.position(), outcome.position, "{mode:?} turn {n}");
                // The server has already rolled the next turn; the tracker sees those
                // dice with the next turn_started (checked at the top of the loop).
                assert_eq!(standings(t.position()), m.standings(), "{mode:?} turn {n}");
                assert_eq!(t.turns_resolved(), n);
            }
            assert_eq!(t.turns_resolved(), 600, "{mode:?}: 600 turns tracked");
        }
    }

    /// `proto/README.md` §7: the turn's deadline is its arrival plus
    /// `turn_remaining_ms` (or `match_remaining_ms` when the match clock runs out
    /// first) on the monotonic clock, whatever `turn_deadline_ms` and `now_ms` say
    /// (a device clock 5 min off changes nothing); no turn, no deadline.
    #[tokio::test(start_paused = true)]
    async fn the_turn_deadline_counts_down_from_arrival() {
        let m = Match::new(RuleSet::default(), Mode::Journey, Seed([2; 32]), 0).unwrap();
        let cur = m.current_turn().cloned().unwrap();
        let ServerMsg::TurnStarted(mut ts) = turn_started(&cur) else {
            unreachable!()
        };
        (ts.turn_remaining_ms, ts.match_remaining_ms) = (18_000, 1_000_000);
        ts.now_ms = ts.turn_deadline_ms + 300_000;
        let mut t = MatchTracker::from_started(&started(&m, Mode::Journey));
        assert_eq!(t.turn_deadline(), None);
        tokio::time::advance(std::time::Duration::from_secs(3)).await;
        let arrived = Instant::now();
        t.apply(&ServerMsg::TurnStarted(ts.clone())).unwrap();
        tokio::time::advance(std::time::Duration::from_secs(2)).await;
        assert_eq!(
            t.turn_deadline(),
            Some(arrived + std::time::Duration::from_millis(18_000))
        );
        ts.match_remaining_ms = 5_000;
        let mut t = MatchTracker::from_started(&started(&m, Mode::Journey));
        t.apply(&ServerMsg::TurnStarted(ts)).unwrap();
        assert_eq!(
            t.turn_deadline(),
            Some(Instant::now() + std::time::Duration::from_millis(5_000))
        );
    }

    /// Rule 4.1: a `turn_started` whose roll store, exit credits or dropped dice do
    /// not follow from its dice and the tracked position is a desync, and the tracker
    /// keeps its state.
    #[test]
    fn turn_started_that_does_not_follow_from_its_dice_is_a_desync() {
        let m = Match::new(RuleSet::default(), Mode::Journey, Seed([2; 32]), 0).unwrap();
        let cur = m.current_turn().cloned().unwrap();
        let ServerMsg::TurnStarted(good) = turn_started(&cur) else {
            unreachable!()
        };
        let mut wrong_store = good.clone();
        wrong_store.roll_store[0] = wrong_store.roll_store[0] % 6 + 1;
        let mut wrong_credits = good.clone();
        wrong_credits.exit_credits += 1;
        let mut wrong_dropped = good.clone();
        wrong_dropped.dropped.push(1);
        let mut too_few_dice = good.clone();
        too_few_dice.dice.pop();
        for bad in [wrong_store, wrong_credits, wrong_dropped, too_few_dice] {
            let mut t = MatchTracker::from_started(&started(&m, Mode::Journey));
            let before = *t.position();
            let err = t.apply(&ServerMsg::TurnStarted(bad.clone())).unwrap_err();
            assert!(matches!(err, ClientError::Desync(_)), "{bad:?}: {err}");
            assert_eq!(*t.position(), before);
            assert!(t.turn().is_none());
        }
        let mut t = MatchTracker::from_started(&started(&m, Mode::Journey));
        t.apply(&ServerMsg::TurnStarted(good)).unwrap();
        assert_eq!(t.position(), m.position());
    }

    /// Scores that differ from the re-played standings are a desync, and the tracker
    /// keeps its state.
    #[test]
    fn differing_scores_are_a_desync_and_change_nothing() {
        let mut m = Match::new(RuleSet::default(), Mode::Clash, Seed([3; 32]), 0).unwrap();
        let mut t = MatchTracker::from_started(&started(&m, Mode::Clash));
        let cur = m.current_turn().cloned().unwrap();
        t.apply(&turn_started(&cur)).unwrap();
        let before = *t.position();
        let o = m.pass(cur.seat, 1, 0).unwrap();
        let ServerMsg::TurnResolved(mut r) = resolved(&o, &m) else {
            unreachable!()
        };
        r.standings[0].total += 10;
        let err = t.apply(&ServerMsg::TurnResolved(r)).unwrap_err();
        assert!(matches!(err, ClientError::Desync(_)), "{err}");
        assert_eq!(*t.position(), before);
        assert_eq!(t.turns_resolved(), 0);
    }

    /// A `turn_resolved` whose events differ from the re-played plan's is a desync
    /// (and, with event checks off, the same frame is accepted).
    #[test]
    fn differing_events_are_a_desync() {
        let mut m = Match::new(RuleSet::default(), Mode::Clash, Seed([6; 32]), 0).unwrap();
        let mut t = MatchTracker::from_started(&started(&m, Mode::Clash));
        let cur = m.current_turn().cloned().unwrap();
        t.apply(&turn_started(&cur)).unwrap();
        let o = m.pass(cur.seat, 1, 0).unwrap();
        let ServerMsg::TurnResolved(mut r) = resolved(&o, &m) else {
            unreachable!()
        };
        assert!(r.events.is_empty(), "rule 4.4: a pass moves nothing");
        r.events.push(engine::Event::Finished {
            seat: cur.seat,
            place: 1,
            bonus: 0,
        });
        assert!(matches!(
            t.apply(&ServerMsg::TurnResolved(r.clone())),
            Err(ClientError::Desync(_))
        ));
        assert_eq!(t.turns_resolved(), 0);
        t.set_verify_events(false);
        assert!(t.apply(&ServerMsg::TurnResolved(r)).is_ok());
        assert_eq!(t.turns_resolved(), 1);
    }

    /// A turn for a seat that is not to move (rule 4.7 order) is a desync.
    #[test]
    fn turn_for_the_wrong_seat_is_a_desync() {
        let m = Match::new(RuleSet::default(), Mode::Clash, Seed([4; 32]), 0).unwrap();
        let mut t = MatchTracker::from_started(&started(&m, Mode::Clash));
        let mut cur = m.current_turn().cloned().unwrap();
        assert_eq!(cur.seat, Seat::Green, "rule 1.1: green moves first");
        cur.seat = Seat::Blue;
        assert!(matches!(
            t.apply(&turn_started(&cur)),
            Err(ClientError::Desync(_))
        ));
        assert!(t.turn().is_none());
    }

    /// A snapshot replaces the tracked state; messages about other matches are ignored.
    #[test]
    fn snapshot_replaces_and_other_matches_are_ignored() {
        let mut m = Match::new(RuleSet::default(), Mode::Journey, Seed([5; 32]), 0).unwrap();
        let s = started(&m, Mode::Journey);
        let mut t = MatchTracker::from_started(&s);
        let cur = m.current_turn().cloned().unwrap();
        m.pass(cur.seat, 1, 0).unwrap();
        let snap = Snapshot {
            match_id: ID,
            mode: Mode::Journey,
            rules: m.rules().clone(),
            seats: s.seats.clone(),
            your_seat: Some(Seat::Red),
            position: *m.position(),
            turn: m.current_turn().map(|c| match turn_started(c) {
                ServerMsg::TurnStarted(x) => x,
                _ => unreachable!(),
            }),
            clocks: protocol::Clocks {
                now_ms: 0,
                turn_deadline_ms: None,
                match_deadline_ms: 0,
            },
            dice_commitment: m.commitment(),
            turns_played: 1,
            dice_scheme: m.dice_scheme(),
            contributions: None,
            contribution_deadline_ms: None,
            seq: 4,
            ended: None,
        };
        assert_eq!(
            t.apply(&ServerMsg::Snapshot(Box::new(snap))).unwrap(),
            Applied::Snapshot
        );
        assert_eq!(t.position(), m.position());
        assert_eq!(t.turns_resolved(), 1);
        assert_eq!(
            t.my_turn().map(|x| x.turn_number),
            Some(2),
            "red moves second (rule 1.1)"
        );
        let mut other = m.current_turn().cloned().unwrap();
        other.turn_number = 99;
        let ServerMsg::TurnStarted(mut ts) = turn_started(&other) else {
            unreachable!()
        };
        ts.match_id = Uuid::from_u128(8);
        assert_eq!(
            t.apply(&ServerMsg::TurnStarted(ts)).unwrap(),
            Applied::Ignored
        );
    }
}
