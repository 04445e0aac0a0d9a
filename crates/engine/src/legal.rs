//! Legal plans: drawing random legal plans for a position (used by bots, property
//! tests and the load generator). Every plan returned passes rule 4.5 by construction.

use crate::board::{Direction, Location, PieceId};
use crate::plan::Plan;
use crate::position::Position;
use crate::rules::RuleSet;
use rand_core::RngCore;

fn coin(rng: &mut impl RngCore) -> bool {
    rng.next_u32() & 1 == 1
}

fn below(rng: &mut impl RngCore, n: u32) -> u32 {
    // Rejection sampling so small ranges stay uniform.
    let zone = u32::MAX - (u32::MAX % n);
    loop {
        let x = rng.next_u32();
        if x < zone {
            return x % n;
        }
    }
}

/// The guardians of the seat to move that a plan may move: on the ring or in the
/// home path, plus those in the Yard when `with_exits` marks them as exited.
pub fn movable_guardians(pos: &Position, exited: u8) -> Vec<PieceId> {
    let Some(seat) = pos.to_move() else {
        return Vec::new();
    };
    let st = pos.seat(seat);
    PieceId::GUARDIANS
        .into_iter()
        .filter(|g| st.location(*g).on_board() || exited & (1 << g.index()) != 0)
        .collect()
}

/// A uniformly drawn legal plan for the seat to move (rule 4.5): a random direction,
/// random exits within the exit credits, each stored roll either unused or given to a
/// random movable guardian, and sometimes a royal move of 1..=`royal_max_steps`.
/// Returns the pass when the match is over.
pub fn random_plan(pos: &Position, rules: &RuleSet, rng: &mut impl RngCore) -> Plan {
    let Some(seat) = pos.to_move() else {
        return Plan::pass();
    };
    let st = pos.seat(seat);
    let mut plan = Plan::new(if coin(rng) {
        Direction::Forward
    } else {
        Direction::Backward
    });
    let mut credits = st.exit_credits;
    let mut exited = 0u8;
    for g in PieceId::GUARDIANS {
        if credits > 0 && st.location(g) == Location::Yard && coin(rng) {
            plan = plan.exit(g);
            exited |= 1 << g.index();
            credits -= 1;
        }
    }
    let movable = movable_guardians(pos, exited);
    let mut rolls: [Vec<u8>; 4] = Default::default();
    if !movable.is_empty() {
        for &v in st.rolls.as_slice() {
            if coin(rng) {
                let g = movable[below(rng, movable.len() as u32) as usize];
                rolls[g.index()].push(v);
            }
        }
    }
    for g in PieceId::GUARDIANS {
        if !rolls[g.index()].is_empty() {
            plan = plan.mv(g, &rolls[g.index()]);
        }
    }
    if st.location(PieceId::R) != Location::Home && coin(rng) {
        let steps = 1 + below(rng, rules.royal_max_steps as u32) as u8;
        plan = plan.royal(steps, coin(rng));
    }
    plan
}
