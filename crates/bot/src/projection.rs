//! A learned valuation: a seat's **projected final total**, its total now (rule 8.1)
//! plus what its pieces and its seat gain on average until the match ends, as measured
//! in greedy-bot matches (`examples/fit_projection.rs` writes the table,
//! `crates/bot/projection.json`, compiled in as [`PROJECTION_JSON`]).
//!
//! * Each piece adds the mean change of its progress points (rule 8.5) from its state
//!   now to the end of the match: a piece near its midpoint has its midpoint, the
//!   checkpoints after it and Home to come; a piece at Home adds nothing (rule 8.9); a
//!   piece on an exposed tile has some chance of losing its points (rule 7.7). The
//!   state is where the piece is, counted from its seat's entry tile, whether it
//!   glows, and whether it is the royal.
//! * Each seat adds the mean change of its combat points (rule 8.6) by how many of its
//!   pieces are not yet Home (a finished seat adds 0).
//! * In journey, each seat that has not finished adds the completion bonus (rule 8.8)
//!   of its expected finishing place, from a race model: the turns each seat still
//!   needs (its guardians' steps to Home at 10.5 steps a turn plus 2.4 turns for each
//!   guardian in the Yard without an exit credit, its royal's steps at 8 a turn, the
//!   slower of the two) and, for each pair of seats, a logistic chance of the one
//!   finishing before the other in their difference ([`RACE_SPREAD`] turns).
//!
//! The expert uses the projection in clash only (`ExpertConfig::leaf_projection`); in
//! journey it measured weaker than the greedy heuristic, and is used there only with
//! `ExpertConfig::projection_in_journey` (off by default; `BENCHMARKS.md`, *Expert,
//! fifth pass*).
//!
//! Seats are then compared on equal terms, a finished seat included (its projection is
//! its total), which the greedy heuristic cannot do: its piece values are not points.

use crate::eval::{ring_dist, steps_home};
use engine::board::{HOME_PATH_LEN, RING_LEN};
use engine::{Location, Mode, PieceId, Position, RuleSet, Seat, SeatState};
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// `crates/bot/projection.json`, as compiled into this crate.
pub const PROJECTION_JSON: &str = include_str!("../projection.json");

/// Piece states: the Yard, each ring tile counted from the seat's entry (not glowing,
/// then glowing), each home-path tile, Home.
pub const STATES: usize = 1 + 2 * RING_LEN as usize + HOME_PATH_LEN as usize + 1;

/// The index of a piece's state (see [`STATES`]).
pub fn state_index(seat: Seat, loc: Location, glowing: bool) -> usize {
    let ring = RING_LEN as usize;
    match loc {
        Location::Yard => 0,
        Location::Ring(r) => {
            let rel = (r as usize + ring - seat.entry() as usize) % ring;
            1 + rel + if glowing { ring } else { 0 }
        }
        Location::HomePath(k) => 1 + 2 * ring + (k as usize).clamp(1, HOME_PATH_LEN as usize) - 1,
        Location::Home => STATES - 1,
    }
}

/// One mode's table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModeTable {
    /// Mean change of a guardian's progress points until the end, by state (points).
    pub guardian: Vec<f32>,
    /// The same for the royal (points).
    pub royal: Vec<f32>,
    /// Mean change of the seat's combat points until the end, by the number of its
    /// pieces not Home, 0..=5 (points).
    pub seat: Vec<f32>,
    /// Matches the table was measured over.
    pub matches: u32,
    /// Samples (piece states observed) behind each guardian entry, for the record.
    pub guardian_samples: Vec<u32>,
}

/// The table for both modes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Projection {
    /// Journey (rule 1.4).
    pub journey: ModeTable,
    /// Clash.
    pub clash: ModeTable,
}

impl Projection {
    /// The compiled-in table ([`PROJECTION_JSON`]).
    ///
    /// Panics if the file does not parse (a test checks it does).
    pub fn builtin() -> &'static Projection {
        static P: OnceLock<Projection> = OnceLock::new();
        P.get_or_init(|| serde_json::from_str(PROJECTION_JSON).expect("projection.json parses"))
    }

    fn table(&self, mode: Mode) -> &ModeTable {
        match mode {
            Mode::Journey => &self.journey,
            Mode::Clash => &self.clash,
        }
    }

    /// `seat`'s projected final total in `pos` (points): its total, and for a seat
    /// that has not finished, the mean gains of its pieces and its seat and (journey)
    /// the completion bonus of its expected place.
    pub fn projected(&self, pos: &Position, seat: Seat, rules: &RuleSet) -> f32 {
        let st = pos.seat(seat);
        let total = st.total() as f32;
        if st.finished.is_some() {
            return total;
        }
        let t = self.table(pos.mode());
        let bonus = match pos.mode() {
            Mode::Journey => expected_bonus(pos, seat, rules),
            Mode::Clash => 0.0,
        };
        total + gains(t, seat, st) + bonus
    }

    /// [`Projection::projected`] for the four seats (green, red, blue, yellow).
    pub fn projected_all(&self, pos: &Position, rules: &RuleSet) -> [f32; 4] {
        Seat::ALL.map(|s| self.projected(pos, s, rules))
    }
}

/// Spread of the race model (turns): a seat needing this many turns fewer than another
/// finishes first with a chance of 73 % (the logistic of 1).
pub const RACE_SPREAD: f32 = 3.0;

/// Steps piece at `loc` still has to go to Home (rule 3.1): to the midpoint and from
/// there Home when not glowing, Home when glowing; from the Yard, as from the entry.
fn steps_left(seat: Seat, loc: Location, glowing: bool) -> f32 {
    let mid = seat.midpoint();
    let via_mid = |r: u8| (ring_dist(r, mid) + steps_home(seat, mid)) as f32;
    match loc {
        Location::Yard => 1.0 + via_mid(seat.entry()),
        Location::Ring(r) if glowing => steps_home(seat, r) as f32,
        Location::Ring(r) => via_mid(r),
        Location::HomePath(k) => (HOME_PATH_LEN + 1).saturating_sub(k) as f32,
        Location::Home => 0.0,
    }
}

/// Turns `st` still needs to bring every piece Home: the guardians' steps at 10.5 a
/// turn (three dice), plus 2.4 turns (the wait for a 6 among three dice, rule 4.1)
/// for each guardian in the Yard without an exit credit; the royal's steps at 8
/// (rule 4.3); the slower of the two.
fn turns_left(seat: Seat, st: &SeatState) -> f32 {
    let mut guardians = 0.0;
    let mut in_yard = 0u32;
    for g in PieceId::GUARDIANS {
        let loc = st.location(g);
        in_yard += u32::from(loc == Location::Yard);
        guardians += steps_left(seat, loc, st.glows(g));
    }
    let waits = in_yard.saturating_sub(st.exit_credits) as f32 * 2.4;
    let royal = steps_left(seat, st.location(PieceId::R), st.glows(PieceId::R));
    (guardians / 10.5 + waits).max(royal / 8.0)
}

/// The completion bonus of `seat`'s expected finishing place (rule 8.8): after the
/// seats that have finished, one place per other seat, weighed by the chance that it
/// finishes first; linear between places.
fn expected_bonus(pos: &Position, seat: Seat, rules: &RuleSet) -> f32 {
    let mine = turns_left(seat, pos.seat(seat));
    let mut place = 0.0f32; // 0-based
    for o in Seat::ALL {
        if o == seat {
            continue;
        }
        let st = pos.seat(o);
        if st.finished.is_some() {
            place += 1.0;
        } else {
            let d = (mine - turns_left(o, st)) / RACE_SPREAD;
            place += 1.0 / (1.0 + (-d).exp());
        }
    }
    let b = rules.completion_bonus;
    let lo = (place.floor() as usize).min(3);
    let hi = (lo + 1).min(3);
    let f = place - lo as f32;
    b[lo] as f32 * (1.0 - f) + b[hi] as f32 * f
}

fn gains(t: &ModeTable, seat: Seat, st: &SeatState) -> f32 {
    let mut g = 0.0;
    let mut not_home = 0;
    for p in PieceId::ALL {
        let loc = st.location(p);
        not_home += usize::from(loc != Location::Home);
        let i = state_index(seat, loc, st.glows(p));
        g += if p.is_royal() {
            t.royal[i]
        } else {
            t.guardian[i]
        };
    }
    g + t.seat[not_home]
}

/// Sums for fitting a [`ModeTable`] from played matches.
#[derive(Debug, Clone)]
pub struct Fit {
    guardian: Vec<(f64, u32)>,
    royal: Vec<(f64, u32)>,
    seat: Vec<(f64, u32)>,
    matches: u32,
}

impl Default for Fit {
    fn default() -> Self {
        Fit {
            guardian: vec![(0.0, 0); STATES],
            royal: vec![(0.0, 0); STATES],
            seat: vec![(0.0, 0); 6],
            matches: 0,
        }
    }
}

impl Fit {
    /// Adds one match: `positions` are the positions it went through (each turn's
    /// start), `last` the position it ended in.
    pub fn add_match(&mut self, positions: &[Position], last: &Position) {
        self.matches += 1;
        for pos in positions {
            for seat in Seat::ALL {
                let (st, end) = (pos.seat(seat), last.seat(seat));
                if st.finished.is_some() {
                    continue;
                }
                let mut not_home = 0;
                for p in PieceId::ALL {
                    let loc = st.location(p);
                    not_home += usize::from(loc != Location::Home);
                    let i = state_index(seat, loc, st.glows(p));
                    let gain = (end.progress[p.index()] - st.progress[p.index()]) as f64;
                    let cell = if p.is_royal() {
                        &mut self.royal[i]
                    } else {
                        &mut self.guardian[i]
                    };
                    cell.0 += gain;
                    cell.1 += 1;
                }
                let other = (end.combat - st.combat) as f64;
                self.seat[not_home].0 += other;
                self.seat[not_home].1 += 1;
            }
        }
    }

    /// The table: each entry the mean of its samples (0 for a state never seen).
    pub fn table(&self) -> ModeTable {
        let mean = |v: &[(f64, u32)]| -> Vec<f32> {
            v.iter()
                .map(|&(s, n)| if n == 0 { 0.0 } else { (s / n as f64) as f32 })
                .collect()
        };
        ModeTable {
            guardian: mean(&self.guardian),
            royal: mean(&self.royal),
            seat: mean(&self.seat),
            matches: self.matches,
            guardian_samples: self.guardian.iter().map(|c| c.1).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Plan;

    /// Green, the seat to move at the start, brings G1 out (rule 4.3): G1 stands on its
    /// entry and has scored its own entry (rule 8.5: 10 points).
    fn green_exits(mode: Mode, rules: &RuleSet) -> Position {
        let start = Position::start(mode, 1);
        let plan = Plan {
            exits: vec!["G1".into()],
            ..Plan::pass()
        };
        let (next, _) = start.play(rules, &plan).expect("one exit credit suffices");
        assert_eq!(next.seat(Seat::Green).progress[0], 10);
        next
    }

    #[test]
    fn states_are_counted_from_the_seat_entry() {
        // Every seat's own entry is state 1; the Yard 0, Home the last (rule 3.1).
        for s in Seat::ALL {
            assert_eq!(state_index(s, Location::Ring(s.entry()), false), 1);
            assert_eq!(state_index(s, Location::Ring(s.entry()), true), 69);
            assert_eq!(state_index(s, Location::Yard, false), 0);
            assert_eq!(state_index(s, Location::HomePath(1), true), 137);
            assert_eq!(state_index(s, Location::Home, true), STATES - 1);
        }
        assert_eq!(STATES, 145);
    }

    #[test]
    fn a_fit_is_the_mean_gain_of_each_state() {
        // Two samples of the start (every piece in the Yard, no record), and a match
        // that ended with green's G1 on its entry (10 points): 32 guardian samples of
        // the Yard with no record, 2 of which gained 10 points.
        let rules = RuleSet::default();
        let start = Position::start(Mode::Journey, 1);
        let last = green_exits(Mode::Journey, &rules);
        let mut fit = Fit::default();
        fit.add_match(&[start, start], &last);
        let t = fit.table();
        assert_eq!(t.matches, 1);
        assert_eq!(t.guardian[0], 20.0 / 32.0);
        assert_eq!(t.guardian_samples[0], 32);
        assert_eq!(t.royal[0], 0.0, "no royal moved");
        assert_eq!(t.seat[5], 0.0, "no combat points");
        // States never seen are 0.
        assert_eq!(t.guardian[1], 0.0);
    }

    #[test]
    fn the_compiled_table_has_its_shape_and_home_gains_nothing() {
        let p = Projection::builtin();
        for t in [&p.journey, &p.clash] {
            assert_eq!(t.guardian.len(), STATES);
            assert_eq!(t.royal.len(), STATES);
            assert_eq!(t.seat.len(), 6);
            assert!(t.matches >= 1000, "{}", t.matches);
            // Rule 8.9: a piece at Home keeps its points and scores no more.
            assert_eq!(t.guardian[STATES - 1], 0.0);
            assert_eq!(t.royal[STATES - 1], 0.0);
            // A finished seat scores no more combat points.
            assert_eq!(t.seat[0], 0.0);
            // A guardian in the Yard has its whole journey ahead: more to gain than
            // one on its home path (rule 8.5).
            assert!(t.guardian[0] > t.guardian[STATES - 2] + 100.0);
        }
    }

    #[test]
    fn projections_add_the_table_and_journey_bonus() {
        let rules = RuleSet::default();
        let p = Projection::builtin();
        // The start of a clash match: no points yet, every seat alike.
        let clash = Position::start(Mode::Clash, 1);
        let t = &p.clash;
        let expected = 4.0 * t.guardian[0] + t.royal[0] + t.seat[5];
        for s in Seat::ALL {
            assert_eq!(p.projected(&clash, s, &rules), expected);
        }
        // Journey: the same plus the completion bonus of place 2.5 (rule 8.8: 400,
        // 300, 200, 100; every seat is as far from finishing as the others).
        let journey = Position::start(Mode::Journey, 1);
        let t = &p.journey;
        let expected = 4.0 * t.guardian[0] + t.royal[0] + t.seat[5] + 250.0;
        for s in Seat::ALL {
            assert_eq!(p.projected(&journey, s, &rules), expected);
        }
        // Green a step ahead in the race: its bonus rises, every other seat's falls.
        let ahead = green_exits(Mode::Journey, &rules);
        assert!(expected_bonus(&ahead, Seat::Green, &rules) > 250.0);
        assert!(expected_bonus(&ahead, Seat::Red, &rules) < 250.0);
    }
}
