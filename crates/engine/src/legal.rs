//! Legal plans (rule 4.5): every distinct legal plan of a position
//! ([`legal_plans`], counted by [`count_legal_plans`]), and random legal plans
//! ([`random_plan`], used by bots, property tests and the load generator). Every plan
//! returned passes [`Position::validate`] by construction. [`legal_moves`]: the
//! single-piece moves a plan may still add (what a client highlights).

use crate::board::{Direction, Location, PieceId};
use crate::plan::Plan;
use crate::position::Position;
use crate::rules::RuleSet;
use rand_core::RngCore;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Every distinct legal plan for the seat to move of `pos` under `rules` (rule 4.5),
/// each exactly once, in its [`Plan::canonical`] form: two plans are the same plan
/// when their canonical forms are equal (move lists are multisets, exit order and
/// `royal_first` without a royal move do not matter, and direction does not matter
/// for a plan that moves nothing on its own, rule 4.3).
///
/// The plans are every combination of
/// * `exits`: a set of the seat's guardians in the Yard, at most `exit_credits` of them;
/// * `moves`: each roll of the store either unused or given to one guardian on the
///   ring or in its home path or exited by this plan (counted as multisets: equal
///   roll values are interchangeable);
/// * `royal`: none, or 1..=`royal_max_steps` steps first or last (none when the royal
///   is Home);
/// * `direction`: forward or backward when the plan has a move list or a royal move,
///   forward otherwise.
///
/// The pass comes first; after it the order is fixed but otherwise unspecified. No
/// plan when no seat is to move (every plan is then `match_over`).
///
/// Bounds: the iterator is lazy and uses constant memory, but the number of plans
/// grows fast with the store: [`count_legal_plans`] gives it without enumerating
/// (for example 14 343 749 plans for four guardians on the ring, the royal on the
/// ring and the store `[1,2,3,4,5,6,1,2,3]` under the default rules). Check the count
/// before collecting.
pub fn legal_plans(pos: &Position, rules: &RuleSet) -> LegalPlans {
    let Some(seat) = pos.to_move() else {
        return LegalPlans {
            done: true,
            ..LegalPlans::default()
        };
    };
    let st = pos.seat(seat);
    let mut it = LegalPlans {
        yard: guardian_mask(pos, |l| l == Location::Yard),
        board: guardian_mask(pos, Location::on_board),
        credits: st.exit_credits,
        royal_options: royal_options(pos, rules),
        ..LegalPlans::default()
    };
    for &v in st.rolls.as_slice() {
        it.counts[v as usize - 1] += 1;
    }
    it.set_exits(0);
    it
}

/// The number of plans [`legal_plans`] yields, computed without enumerating them
/// (saturating at `u64::MAX`). For each allowed set of exits with `k` guardians that
/// may move: `D = Π over die values v of C(m_v + k, k)` ways to hand out the `m_v`
/// stored rolls of value `v`, times `R = 1 + 2 × royal_max_steps` royal choices (1
/// when the royal is Home), doubled for the two directions except for the one plan
/// that moves nothing: `2·D·R − 1`.
pub fn count_legal_plans(pos: &Position, rules: &RuleSet) -> u64 {
    let Some(seat) = pos.to_move() else {
        return 0;
    };
    let st = pos.seat(seat);
    let yard = guardian_mask(pos, |l| l == Location::Yard);
    let board = guardian_mask(pos, Location::on_board);
    let mut counts = [0u64; 6];
    for &v in st.rolls.as_slice() {
        counts[v as usize - 1] += 1;
    }
    let r = 1 + 2 * royal_options(pos, rules) as u64;
    let mut total = 0u64;
    for exits in 0..16u8 {
        if exits & !yard != 0 || exits.count_ones() > st.exit_credits {
            continue;
        }
        let k = (board | exits).count_ones() as u64;
        let d = counts
            .iter()
            .fold(1u64, |acc, &m| acc.saturating_mul(binomial(m + k, k)));
        let plans = d.saturating_mul(r).saturating_mul(2).saturating_sub(1);
        total = total.saturating_add(plans);
    }
    total
}

/// `n` choose `k` for small `k`, saturating.
fn binomial(n: u64, k: u64) -> u64 {
    let mut c = 1u64;
    for i in 0..k {
        // Exact at every step: c is C(n, i), and C(n, i) * (n - i) / (i + 1) = C(n, i+1).
        c = c.saturating_mul(n - i) / (i + 1);
    }
    c
}

/// Bit `i` set for each guardian `i` of the seat to move whose location passes `f`.
fn guardian_mask(pos: &Position, f: impl Fn(Location) -> bool) -> u8 {
    let Some(seat) = pos.to_move() else { return 0 };
    let st = pos.seat(seat);
    PieceId::GUARDIANS
        .into_iter()
        .filter(|g| f(st.location(*g)))
        .fold(0, |m, g| m | 1 << g.index())
}

/// `royal_max_steps`, or 0 when the royal of the seat to move is Home (rule 3.5).
fn royal_options(pos: &Position, rules: &RuleSet) -> u8 {
    match pos.to_move() {
        Some(seat) if pos.seat(seat).location(PieceId::R) != Location::Home => {
            rules.royal_max_steps
        }
        _ => 0,
    }
}

/// The iterator of [`legal_plans`]: an odometer over exits, the share of each die
/// value's rolls per movable guardian, the royal choice and the direction.
#[derive(Debug, Clone, Default)]
pub struct LegalPlans {
    /// Guardians in the Yard (bit per guardian).
    yard: u8,
    /// Guardians on the ring or in the home path.
    board: u8,
    /// Exit credits held.
    credits: u32,
    /// Stored rolls per die value 1..=6.
    counts: [u8; 6],
    /// `royal_max_steps`, or 0 when the royal cannot move.
    royal_options: u8,
    /// The current set of exits.
    exits: u8,
    /// Indices of the guardians that may move with the current exits, lowest first.
    movable: [u8; 4],
    /// How many of `movable` are used.
    k: usize,
    /// `share[v][i]`: rolls of value `v + 1` given to `movable[i]`.
    share: [[u8; 4]; 6],
    /// 0: the royal stays; `2s − 1`: `s` steps last; `2s`: `s` steps first.
    royal: u16,
    /// Whether the current plan is being yielded a second time, backward.
    backward: bool,
    done: bool,
}

impl LegalPlans {
    fn set_exits(&mut self, exits: u8) {
        self.exits = exits;
        self.k = 0;
        for g in PieceId::GUARDIANS {
            if (self.board | exits) & (1 << g.index()) != 0 {
                self.movable[self.k] = g.index() as u8;
                self.k += 1;
            }
        }
        self.share = [[0; 4]; 6];
        self.royal = 0;
        self.backward = false;
    }

    fn plan(&self) -> Plan {
        let mut plan = Plan::new(if self.backward {
            Direction::Backward
        } else {
            Direction::Forward
        });
        for g in PieceId::GUARDIANS {
            if self.exits & (1 << g.index()) != 0 {
                plan = plan.exit(g);
            }
        }
        for (i, &g) in self.movable[..self.k].iter().enumerate() {
            let g = PieceId::from_index(g as usize);
            let rolls: Vec<u8> = (0..6u8)
                .flat_map(|v| std::iter::repeat_n(v + 1, self.share[v as usize][i] as usize))
                .collect();
            if !rolls.is_empty() {
                plan = plan.mv(g, &rolls);
            }
        }
        if self.royal > 0 {
            plan = plan.royal(self.royal.div_ceil(2) as u8, self.royal.is_multiple_of(2));
        }
        plan
    }

    /// Next share of one die value's `m` rolls over `k` guardians (at most `m` in
    /// all); false, with the share back at zero, after the last one.
    fn next_share(share: &mut [u8; 4], k: usize, m: u8) -> bool {
        for i in 0..k {
            share[i] += 1;
            if share[..k].iter().sum::<u8>() <= m {
                return true;
            }
            share[i] = 0;
        }
        false
    }

    fn advance(&mut self, moves_something: bool) {
        if !self.backward && moves_something {
            self.backward = true;
            return;
        }
        self.backward = false;
        if self.royal < 2 * self.royal_options as u16 {
            self.royal += 1;
            return;
        }
        self.royal = 0;
        for v in 0..6 {
            if Self::next_share(&mut self.share[v], self.k, self.counts[v]) {
                return;
            }
        }
        let next =
            (self.exits + 1..16).find(|&e| e & !self.yard == 0 && e.count_ones() <= self.credits);
        match next {
            Some(e) => self.set_exits(e),
            None => self.done = true,
        }
    }
}

impl Iterator for LegalPlans {
    type Item = Plan;

    fn next(&mut self) -> Option<Plan> {
        if self.done {
            return None;
        }
        let plan = self.plan();
        self.advance(!plan.moves.is_empty() || plan.royal.is_some());
        Some(plan)
    }
}

impl std::iter::FusedIterator for LegalPlans {}

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

/// One legal single-piece addition to a plan (what a client highlights when the
/// player picks a piece): moving `piece` by `steps` in `direction`, using `rolls`
/// from the store (a guardian) or `steps` royal steps (the royal, rule 4.3), after
/// exiting it first when `exit` is set (one exit credit). `to` and `points` are what
/// the engine resolves for the plan with this move added (rules §5–§8, so captures,
/// blockades and the midpoint are counted): where the piece ends, and the change of
/// the seat's total (points) against the plan without it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LegalMove {
    /// The piece (`G1`..`G4`, `R`).
    pub piece: PieceId,
    /// True when the move exits the guardian from the Yard first (rule 4.3).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exit: bool,
    /// Roll values used, ascending (empty for an exit alone and for the royal).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rolls: Vec<u8>,
    /// Steps: the sum of `rolls`, or the royal's steps (0 for an exit alone).
    pub steps: u8,
    /// Where the piece ends.
    pub to: Location,
    /// Change of the seat's total (progress + combat + bonus, rule 8.1) that adding
    /// this move makes, in points (negative for a blockade penalty, rule 6).
    pub points: i64,
}

/// The legal single-piece moves that can be added to `plan` (already legal for the
/// seat to move of `pos`) in `plan.direction`: for each piece `plan` does not move
/// yet, every distinct step count the remaining resources allow — for a guardian
/// every non-empty sub-multiset of the rolls `plan` leaves in the store (the one with
/// the fewest rolls stands for all with the same sum: a guardian moves by the sum,
/// rule 4.3), with an exit first for a guardian in the Yard (an exit alone too) while
/// exit credits remain; for the royal (not Home, not moved by `plan`)
/// 1..=`royal_max_steps` steps, first or last as `plan.royal_first` says. Each one is
/// resolved by the engine on a copy of `pos`; only moves whose combined plan is
/// legal are listed, in piece order (G1..G4, R), then by exit, then by steps.
///
/// Errors: `plan`'s own [`PlanError`](crate::plan::PlanError) (rule 4.5 order). Empty when no seat is to move.
pub fn legal_moves(
    pos: &Position,
    rules: &RuleSet,
    plan: &Plan,
) -> Result<Vec<LegalMove>, crate::plan::PlanError> {
    let Some(seat) = pos.to_move() else {
        return Ok(Vec::new());
    };
    let (base, _) = pos.play(rules, plan)?;
    let base_total = base.seat(seat).total();
    let st = pos.seat(seat);
    let mut left = [0u8; 6];
    for &v in st.rolls.as_slice() {
        left[v as usize - 1] += 1;
    }
    for rolls in plan.moves.values() {
        for &v in rolls {
            // The plan is valid: its rolls are in the store.
            left[v as usize - 1] -= 1;
        }
    }
    let credits = (st.exit_credits as usize).saturating_sub(plan.exits.len());
    let subsets = sub_multisets(&left);
    let mut out = Vec::new();
    let mut push = |combined: &Plan, piece: PieceId, exit: bool, rolls: &[u8], steps: u8| {
        if let Ok((after, _)) = pos.play(rules, combined) {
            out.push(LegalMove {
                piece,
                exit,
                rolls: rolls.to_vec(),
                steps,
                to: after.seat(seat).location(piece),
                points: after.seat(seat).total() - base_total,
            });
        }
    };
    for g in PieceId::GUARDIANS {
        if plan.moves.contains_key(g.name()) {
            continue;
        }
        let loc = st.location(g);
        let exited = plan.exits.iter().any(|e| e == g.name());
        let needs_exit = loc == Location::Yard && !exited;
        if loc == Location::Home || (needs_exit && credits == 0) {
            continue;
        }
        let mut with = plan.clone();
        if needs_exit {
            with.exits.push(g.name().to_string());
            push(&with, g, true, &[], 0);
        }
        let mut seen = std::collections::BTreeSet::new();
        for rolls in &subsets {
            let steps: u8 = rolls.iter().sum();
            if !seen.insert(steps) {
                continue;
            }
            let mut combined = with.clone();
            combined.moves.insert(
                g.name().to_string(),
                rolls.iter().map(|&r| r as i64).collect(),
            );
            push(&combined, g, needs_exit, rolls, steps);
        }
    }
    if plan.royal.is_none() && st.location(PieceId::R) != Location::Home {
        for steps in 1..=rules.royal_max_steps {
            let mut combined = plan.clone();
            combined.royal = Some(steps as i64);
            push(&combined, PieceId::R, false, &[], steps);
        }
    }
    Ok(out)
}

/// Every non-empty sub-multiset of the rolls counted in `counts` (`counts[v - 1]`
/// rolls of value `v`), each ascending, fewest rolls first (then ascending order).
fn sub_multisets(counts: &[u8; 6]) -> Vec<Vec<u8>> {
    let mut all: Vec<Vec<u8>> = vec![Vec::new()];
    for (i, &n) in counts.iter().enumerate() {
        let v = i as u8 + 1;
        let mut next = Vec::with_capacity(all.len() * (n as usize + 1));
        for s in &all {
            for k in 0..=n {
                let mut t = s.clone();
                t.extend(std::iter::repeat_n(v, k as usize));
                next.push(t);
            }
        }
        all = next;
    }
    all.retain(|s| !s.is_empty());
    all.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An `RngCore` that returns the given `u32`s in order (then 0s).
    struct Seq(Vec<u32>);

    impl RngCore for Seq {
        fn next_u32(&mut self) -> u32 {
            if self.0.is_empty() {
                0
            } else {
                self.0.remove(0)
            }
        }
        fn next_u64(&mut self) -> u64 {
            self.next_u32() as u64
        }
        fn fill_bytes(&mut self, dst: &mut [u8]) {
            dst.fill(0);
        }
    }

    /// `coin` is the low bit of one `u32`: true exactly when it is 1 (random plans,
    /// rule 4.5, draw each choice with it).
    #[test]
    fn coin_is_the_low_bit() {
        let mut rng = Seq(vec![0, 1, 2, 3, u32::MAX - 1, u32::MAX]);
        let got: Vec<bool> = (0..6).map(|_| coin(&mut rng)).collect();
        assert_eq!(got, [false, true, false, true, false, true]);
    }

    /// `below(n)` rejects the draws at or above the largest multiple of `n` that
    /// fits (`u32::MAX - u32::MAX % n`, here 4 294 967 292 for n = 6) so that every
    /// value 0..n is equally likely, and returns the first accepted draw mod `n`.
    #[test]
    fn below_rejects_the_draws_past_the_last_whole_multiple() {
        let zone = u32::MAX - u32::MAX % 6;
        assert_eq!(zone, 4_294_967_292);
        // The first draw at or above the zone is rejected: 7 % 6 = 1.
        assert_eq!(below(&mut Seq(vec![zone, 7]), 6), 1);
        assert_eq!(below(&mut Seq(vec![u32::MAX, zone, 8]), 6), 2);
        // The last draw below the zone is accepted: 4 294 967 291 % 6 = 5.
        assert_eq!(below(&mut Seq(vec![zone - 1, 7]), 6), 5);
        assert_eq!(below(&mut Seq(vec![13]), 6), 1);
        // u32::MAX % 3 == 0, so the zone is u32::MAX itself: 4 294 967 294 % 3 = 2.
        assert_eq!(below(&mut Seq(vec![u32::MAX - 1]), 3), 2);
    }
}
