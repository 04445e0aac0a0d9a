//! The greedy bot's heuristic: the value of a position for one seat, in points-like
//! units (1.0 ≈ one point of rule 8.1's total).

use crate::threat::ThreatMap;
use engine::board::RING_LEN;
use engine::{Location, PieceId, Position, RuleSet, Seat, SeatState};

/// Weights of the heuristic. Every field is in points (rule 8.1 total points) unless
/// it says otherwise. `Weights::default()` is what the bot plays with.
#[derive(Debug, Clone, PartialEq)]
pub struct Weights {
    /// Each opponent's total counts against the seat by this factor (0.35).
    pub opponent: f32,
    /// The best opponent's total counts against the seat by this extra factor (0.3):
    /// only first place wins (rule 9.2).
    pub leader: f32,
    /// Extra value per opponent piece captured this turn (rules 7.x), on top of the
    /// combat points and the victim's lost progress already in the totals (25).
    pub capture: f32,
    /// Value of each guardian or royal out of the Yard (10).
    pub out: f32,
    /// Value per step closer to the midpoint (not glowing) or to Home (glowing) (1.0).
    pub step: f32,
    /// Value of a glowing piece (rule 8.4: it may enter its home path) (30).
    pub glow: f32,
    /// Extra value of a piece in its home path or Home, where it is safe (rule 3.4) (15).
    pub home_path: f32,
    /// The royal's piece values (out, steps, glow, home path) are multiplied by this,
    /// like its progress points (rule 8.5) (2.0).
    pub royal_factor: f32,
    /// Extra value of a royal on a tile where it cannot be captured: fort, own entry,
    /// home path (rule 7.6) (5).
    pub royal_shelter: f32,
    /// Value of each stored roll (rule 4.1) (2).
    pub roll: f32,
    /// Penalty per roll that the next turn's dice would push out of a full store (6).
    pub overflow: f32,
    /// Value of each exit credit up to `exit_credit_cap` (5).
    pub credit: f32,
    /// Multiplier of the expected loss from captures before the next turn (1.0).
    pub threat: f32,
    /// Threat model: chance that an opponent who can reach a tile does capture there
    /// (0.6; measured capture rates in bot matches are lower than mere reachability).
    pub threat_have: f32,
    /// Threat model: chance that an opponent with a guardian in its Yard and an exit
    /// credit captures on its own entry tile (rule 7.5) (0.9).
    pub threat_exit: f32,
    /// Threat model: factor for two single opponent guardians that can both reach a
    /// tile (the first stops there, the second arrives with strength 2) (0.25).
    pub threat_two_singles: f32,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            opponent: 0.35,
            leader: 0.3,
            capture: 25.0,
            out: 10.0,
            step: 1.0,
            glow: 30.0,
            home_path: 15.0,
            royal_factor: 2.0,
            royal_shelter: 5.0,
            roll: 2.0,
            overflow: 6.0,
            credit: 5.0,
            threat: 1.0,
            threat_have: 0.6,
            threat_exit: 0.9,
            threat_two_singles: 0.25,
        }
    }
}

/// Steps between two ring tiles the short way round.
pub(crate) fn ring_dist(a: u8, b: u8) -> u8 {
    let d = (a + RING_LEN - b) % RING_LEN;
    d.min(RING_LEN - d)
}

/// Steps from ring tile `r` to Home for a glowing piece of `seat`, the shorter of:
/// forward to ring `E+63`, `HP1..HP7`, Home; backward to ring `E`, `HP4..HP7`, Home
/// (rule 3.1).
pub(crate) fn steps_home(seat: Seat, r: u8) -> u8 {
    let e = seat.entry();
    let fwd = (e + 63 + RING_LEN - r) % RING_LEN + 8;
    let back = (r + RING_LEN - e) % RING_LEN + 5;
    fwd.min(back)
}

/// Largest [`steps_home`] of a piece that has just started glowing, plus slack.
const HOME_SCALE: f32 = 40.0;
/// Largest distance to the midpoint (rule 2.3: it is 34 steps away both ways).
const MID_SCALE: f32 = 34.0;

/// Positional value of one piece, without its points (those are in the total).
fn piece_value(seat: Seat, loc: Location, glowing: bool, w: &Weights) -> f32 {
    match loc {
        Location::Yard => 0.0,
        Location::Ring(r) if !glowing => {
            w.out + (MID_SCALE - ring_dist(r, seat.midpoint()) as f32) * w.step
        }
        Location::Ring(r) => w.out + w.glow + (HOME_SCALE - steps_home(seat, r) as f32) * w.step,
        Location::HomePath(k) => {
            w.out + w.glow + w.home_path + (HOME_SCALE - (8 - k) as f32) * w.step
        }
        Location::Home => w.out + w.glow + w.home_path + HOME_SCALE * w.step,
    }
}

/// Value of piece `p` of `st` (the royal's scaled by `royal_factor`).
fn value_of(seat: Seat, st: &SeatState, p: PieceId, w: &Weights) -> f32 {
    let v = piece_value(seat, st.location(p), st.glows(p), w);
    if p.is_royal() {
        v * w.royal_factor
    } else {
        v
    }
}

/// The value of `pos` for seat `me` after `me` has played a plan that captured
/// `captures` opponent pieces: own total, minus opponents' totals, plus piece values,
/// stored rolls and credits, minus the expected loss to captures (`threat`, built for
/// `me`'s pieces).
pub(crate) fn evaluate(
    pos: &Position,
    me: Seat,
    captures: usize,
    threat: &ThreatMap,
    rules: &RuleSet,
    w: &Weights,
) -> f32 {
    let st = pos.seat(me);
    let mut v = st.total() as f32 + w.capture * captures as f32;
    let mut best_opp = i64::MIN;
    for o in Seat::ALL {
        if o != me {
            let t = pos.seat(o).total();
            v -= w.opponent * t as f32;
            best_opp = best_opp.max(t);
        }
    }
    v -= w.leader * best_opp as f32;

    let combat = rules.combat.get(pos.mode()).other;
    let guardian_gain = w.opponent * combat.guardian as f32;
    let royal_loc = st.location(PieceId::R);
    // What a royal capture costs (rule 7.8): the royal, every guardian on the ring,
    // the stored rolls and credits, and the capturer's combat points.
    let mut royal_stake = st.progress[PieceId::R.index()] as f32
        + value_of(me, st, PieceId::R, w)
        + w.opponent * combat.royal as f32
        + w.roll * st.rolls.len() as f32
        + w.credit
            * st.exit_credits
                .saturating_sub(rules.royal_capture_exit_credits as u32) as f32;
    for g in PieceId::GUARDIANS {
        let loc = st.location(g);
        let own = st.progress[g.index()] as f32 + value_of(me, st, g, w);
        v += value_of(me, st, g, w);
        if let Location::Ring(_) = loc {
            royal_stake += own + guardian_gain;
            let p = if st.guardians_on(loc) >= 2 {
                threat.pair(me, loc)
            } else {
                threat.single(me, loc)
            };
            v -= w.threat * p * (own + guardian_gain);
        }
    }
    v += value_of(me, st, PieceId::R, w);
    if let Location::Ring(_) = royal_loc {
        let p = if st.guardians_on(royal_loc) >= 2 {
            threat.pair(me, royal_loc)
        } else {
            threat.single(me, royal_loc)
        };
        if threat.single(me, royal_loc) == 0.0 {
            v += w.royal_shelter;
        }
        v -= w.threat * p * royal_stake;
    } else if let Location::HomePath(_) = royal_loc {
        v += w.royal_shelter;
    }

    let n = st.rolls.len();
    v += w.roll * n as f32;
    let overflow = (n + rules.dice_per_turn as usize).saturating_sub(rules.roll_store_cap as usize);
    v -= w.overflow * overflow as f32;
    v += w.credit * st.exit_credits.min(rules.exit_credit_cap as u32) as f32;
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(ring_dist(0, 34), 34);
        assert_eq!(ring_dist(60, 2), 10);
        // Green (entry 0): ring 63 is forward tile 64, 8 steps from Home (HP1..7, Home).
        assert_eq!(steps_home(Seat::Green, 63), 8);
        // Green on ring 2: backward 2 steps to ring 0, then HP4..HP7 and Home = 7.
        assert_eq!(steps_home(Seat::Green, 2), 7);
        // Red (entry 17) at its midpoint 51: forward 29 + 8 = 37, backward 34 + 5 = 39.
        assert_eq!(steps_home(Seat::Red, 51), 37);
    }

    #[test]
    fn pieces_value_progress() {
        let w = Weights::default();
        let g = Seat::Green;
        let yard = piece_value(g, Location::Yard, false, &w);
        let entry = piece_value(g, Location::Ring(0), false, &w);
        let near_mid = piece_value(g, Location::Ring(30), false, &w);
        let glowing = piece_value(g, Location::Ring(34), true, &w);
        let hp = piece_value(g, Location::HomePath(3), true, &w);
        let home = piece_value(g, Location::Home, true, &w);
        assert_eq!(yard, 0.0);
        assert_eq!(entry, 10.0, "out of the Yard, 34 steps from the midpoint");
        assert_eq!(near_mid, 40.0, "4 steps from the midpoint: 10 + 30");
        assert!(yard < entry && entry < near_mid && near_mid < glowing);
        assert!(glowing < hp && hp < home);
    }
}
