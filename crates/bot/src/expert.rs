//! The expert bot: Monte Carlo search with determinised dice over the greedy bot's
//! best candidate plans.
//!
//! Each turn it
//! 1. ranks the legal candidate plans with the greedy search and keeps the best
//!    [`ExpertConfig::candidates`] of them with different guardian moves (the best
//!    royal move of each, [`ExpertConfig::distinct`]);
//! 2. plays each candidate, then rolls out the next [`ExpertConfig::depth`] turns of
//!    the match (the opponents' turns, and its own next one for `depth` ≥ 4): every
//!    turn rolls `dice_per_turn` dice with the engine's exact dice model (each face
//!    1..=6 equally likely, [`engine::Dice`]), applies them to the roll store (rule
//!    4.1) and plays the plan a narrow greedy policy chooses;
//! 3. values the position the rollout reaches: in clash by the expert's share of first
//!    place under a softmax of every seat's **projected final total**
//!    ([`crate::projection`]: the total now plus what pieces in those states gained on
//!    average until the end of greedy matches; [`ExpertConfig::leaf_projection`]), in
//!    journey with the greedy heuristic for its own seat (own total against the
//!    opponents', piece progress, capture threats).
//!
//! Rollout `r` uses the same dice for every candidate (common random numbers), so the
//! candidates are compared on equal luck. Rollouts go round-robin over the candidates
//! while the node budget (plans played, a deterministic bound, checked before each
//! rollout) and the optional wall-clock budget last. The greedy choice is played
//! unless another candidate beats it clearly: its mean paired difference to the
//! greedy choice (rollout by rollout, on the same dice) exceeds
//! [`ExpertConfig::switch_z`] standard errors; among several such, the best mean
//! difference wins (the greedy choice is also played when fewer than two rounds of
//! rollouts fit).

use crate::eval::{evaluate, Weights};
use crate::greedy::{GreedyBot, GreedyConfig};
use crate::threat::{dice_tail, ThreatMap};
use crate::{legal_or_pass, Strategy};
use engine::{Dice, Plan, Position, RuleSet, Seed};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use std::time::{Duration, Instant};

/// How much the expert searches.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpertConfig {
    /// Best greedy candidates compared by rollouts (6; 4 and 8 measured lower, see
    /// `BENCHMARKS.md`); with [`ExpertConfig::distinct`], the best of different
    /// guardian parts.
    pub candidates: usize,
    /// Turns played in each rollout after the candidate (4: one round of the
    /// opponents' turns and the bot's own next turn, so the rolls it keeps are
    /// valued by how it uses them).
    pub depth: u32,
    /// Deterministic budget of a clash decision: plans played (rollout policy
    /// searches and leaf evaluations) per decision, after the candidate ranking
    /// (16 000; about 10 ms in a release build on the benchmark machine, see
    /// `BENCHMARKS.md`).
    pub node_budget: usize,
    /// The same for a journey decision (32 000; about 17 ms). Journey needs the
    /// larger search: 1 expert against 3 greedy bots (2,000 matches, seed 32) took
    /// 43.3 % of first places with 16 000 plans a decision, 45.1 % with 32 000
    /// (`BENCHMARKS.md`). See [`ExpertConfig::nodes_for`].
    pub journey_node_budget: usize,
    /// Wall-clock budget per decision (`None`: only the node budget bounds the
    /// search, and the bot is deterministic for its seed). The search stops at
    /// whichever budget runs out first; a rollout in progress is finished (one
    /// rollout is well under a millisecond in a release build).
    pub time_budget: Option<Duration>,
    /// How sure the rollouts must be before the expert plays another candidate than
    /// the greedy choice (0.0): a candidate replaces it only when the mean of its
    /// paired differences (same dice, rollout by rollout) exceeds `switch_z` standard
    /// errors. 0.0 plays the best mean, however noisy, which measured best: 1 expert
    /// against 3 greedy bots in clash (300 matches, seed 7) took 34.5 % of first
    /// places with 0.0, 33.6 % with 1.0, 29.1 % with 2.0 (`BENCHMARKS.md`).
    pub switch_z: f64,
    /// The greedy search that ranks the candidates; its weights also value the
    /// positions the rollouts reach (the expert's own judgement, while the rollouts
    /// play every seat with [`ExpertConfig::policy`]).
    pub ranking: GreedyConfig,
    /// The greedy search the rollouts play every turn with: the greedy bot's
    /// heuristic with a narrower search (beam 1, no random candidates). A weaker
    /// rollout policy (at most 40 plans a turn) measured no better than the greedy
    /// bot itself: the opponents the rollouts imagine must play like real ones.
    pub policy: GreedyConfig,
    /// The weights that value the position a rollout reaches for the expert's own
    /// seat (points-like units, see [`Weights`]); `None` uses `ranking.weights`.
    /// Apart from [`ExpertConfig::policy`]'s weights, which model the opponents.
    pub leaf: Option<Weights>,
    /// Spend the node budget by successive halving instead of round-robin over all
    /// candidates: the budget is split into equal phases, and after each phase but
    /// the last the worse half of the remaining candidates (by mean rollout value
    /// over the rounds they all completed) is dropped. The last candidates standing
    /// are compared by their mean value (`switch_z` does not apply). Off: it measured
    /// the same as round-robin (38.3 % against 38.4 % of first places, clash, 300
    /// matches, seed 7; `BENCHMARKS.md`).
    pub halving: bool,
    /// Compare only candidates whose guardian parts (direction, exits, moves) differ
    /// (true): the best-ranked plan of each guardian part, in greedy order, instead
    /// of the best plans outright, which are often one guardian plan with other
    /// royal moves. Measured 40.2 % of first places against 38.4 % without (1 expert
    /// against 3 greedy bots, clash, 300 matches, seed 7; `BENCHMARKS.md`).
    pub distinct: bool,
    /// With `distinct`, fill up to `candidates` with the best remaining plans (other
    /// royal moves of the same guardian parts) when there are fewer distinct guardian
    /// parts (false: compare only the distinct ones; a single one is played unsearched).
    pub distinct_fill: bool,
    /// How a rollout's last turn is played when it is the expert's own (depth 4):
    /// one sampled roll ([`OwnRoll::One`], the default), the mean over several
    /// sampled rolls, or the exact expectation over every roll. Each extra roll costs
    /// a policy search, so fewer rollouts fit the node budget: 3 sampled rolls
    /// measured 33.9 % against 38.4 % (`BENCHMARKS.md`), and the exact expectation
    /// (about 8 600 plans a rollout) leaves about two rollouts in the default budget.
    pub own_roll: OwnRoll,
    /// Value the opponents at a rollout's leaf by their standing instead of their
    /// totals alone: each opponent's total plus its piece values, stored rolls and
    /// credits, minus its expected loss to captures before its next turn (the same
    /// heuristic the expert values itself with, with no opponent terms), weighed with
    /// the leaf weights' `opponent` and `leader` factors.
    pub leaf_standing: bool,
    /// Value a clash rollout's leaf by the seats' projected final totals
    /// ([`crate::projection`], learned from greedy matches) instead of the greedy
    /// heuristic: with a temperature `t` > 0 (points), the expert's softmax share of
    /// first place (rule 9.2) ×1000; with 0, its projection minus the leaf weights'
    /// `opponent` share of each opponent's and `leader` share of the best opponent's.
    /// `None`: the greedy heuristic in both modes. Default `Some(150.0)`: 1 expert
    /// against 3 greedy bots in clash took 54.9 % of first places over 2,000 matches
    /// (seed 32), against 37.4 % with the heuristic; 300 matches, seed 7: 54.2 % with
    /// 150, 52.5 % with 0, 40.2 % with the heuristic (`BENCHMARKS.md`).
    pub leaf_projection: Option<f32>,
    /// Use `leaf_projection` in journey too (false: journey leaves get the greedy
    /// heuristic). Measured weaker there: 17.5–21.7 % of first places against 38.0 %
    /// with the heuristic (1 expert against 3 greedy bots, journey, 300 matches, seed 7;
    /// `BENCHMARKS.md`): the expert finished later, losing completion bonus (rule 8.8).
    pub projection_in_journey: bool,
}

impl ExpertConfig {
    /// The node budget of a decision in `mode`: [`ExpertConfig::journey_node_budget`]
    /// in journey, [`ExpertConfig::node_budget`] in clash (plans played).
    pub fn nodes_for(&self, mode: engine::Mode) -> usize {
        match mode {
            engine::Mode::Journey => self.journey_node_budget,
            engine::Mode::Clash => self.node_budget,
        }
    }
}

/// The rolls a rollout's final own turn is valued over ([`ExpertConfig::own_roll`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnRoll {
    /// One roll from the rollout's dice, like every other turn.
    One,
    /// The mean over this many rolls from the rollout's dice (each costs a policy
    /// search: about 175 plans on a mid-game position).
    Sampled(usize),
    /// The exact expectation over the `6^dice_per_turn` equally likely ordered rolls
    /// (56 distinct positions for 3 dice unless the store overflows), one policy
    /// search per distinct position; more than 4 dice per turn falls back to one roll.
    Exact,
}

/// The default wall-clock budget of a decision on the server: 20 ms.
pub const DEFAULT_TIME_BUDGET: Duration = Duration::from_millis(20);

impl Default for ExpertConfig {
    fn default() -> Self {
        ExpertConfig {
            candidates: 6,
            depth: 4,
            node_budget: 16_000,
            journey_node_budget: 32_000,
            time_budget: None,
            switch_z: 0.0,
            ranking: GreedyConfig::default(),
            policy: GreedyConfig {
                beam: 1,
                royal_beam: 1,
                random_plans: 0,
                ..GreedyConfig::default()
            },
            leaf: None,
            halving: false,
            distinct: true,
            distinct_fill: false,
            own_roll: OwnRoll::One,
            leaf_standing: false,
            leaf_projection: Some(150.0),
            projection_in_journey: false,
        }
    }
}

/// A bot that searches: greedy candidates compared by Monte Carlo rollouts over
/// determinised dice (see the module docs). Deterministic for its seed when it has no
/// time budget.
#[derive(Debug, Clone)]
pub struct ExpertBot {
    config: ExpertConfig,
    ranker: GreedyBot,
    policy: GreedyBot,
    rng: ChaCha20Rng,
    /// `dice_per_turn` and its tail table, cached between turns.
    tail: (u8, Vec<f32>),
}

/// What one decision did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SearchStats {
    /// Plans played during the rollouts (what [`ExpertConfig::nodes_for`] bounds).
    pub nodes: usize,
    /// Complete rollouts (over all candidates).
    pub rollouts: usize,
    /// Candidates compared.
    pub candidates: usize,
}

impl ExpertBot {
    /// An expert with the default configuration (node budget only) seeded with `seed`.
    pub fn new(seed: u64) -> ExpertBot {
        ExpertBot::with_config(seed, ExpertConfig::default())
    }

    /// An expert with `config`.
    pub fn with_config(seed: u64, config: ExpertConfig) -> ExpertBot {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let ranker = GreedyBot::with_config(rng.next_u64(), config.ranking.clone());
        let policy = GreedyBot::with_config(rng.next_u64(), config.policy.clone());
        ExpertBot {
            config,
            ranker,
            policy,
            rng,
            tail: (0, Vec::new()),
        }
    }

    /// Chooses the plan and reports the search's work.
    pub fn choose_stats(&mut self, pos: &Position, rules: &RuleSet) -> (Plan, SearchStats) {
        let started = Instant::now();
        let mut stats = SearchStats::default();
        let Some(me) = pos.to_move() else {
            return (Plan::pass(), stats);
        };
        if self.tail.0 != rules.dice_per_turn || self.tail.1.is_empty() {
            self.tail = (rules.dice_per_turn, dice_tail(rules.dice_per_turn));
        }
        let k = self.config.candidates.max(1);
        let ranked = if self.config.distinct {
            let all = self.ranker.ranked(pos, rules, usize::MAX).0;
            distinct_guardian_parts(all, k, self.config.distinct_fill)
        } else {
            self.ranker.ranked(pos, rules, k).0
        };
        let Some(greedy_best) = ranked.first().map(|(p, _)| p.clone()) else {
            return (Plan::pass(), stats);
        };
        stats.candidates = ranked.len();
        if ranked.len() == 1 {
            return (legal_or_pass(pos, rules, greedy_best), stats);
        }
        // The position after each candidate (all are legal: the ranking validated them).
        let after: Vec<Position> = ranked
            .iter()
            .map(|(p, _)| match pos.play(rules, p) {
                Ok((next, _)) => next,
                Err(_) => *pos,
            })
            .collect();
        // values[i][r]: candidate i's value in rollout round r (the same dice for all).
        let mut values: Vec<Vec<f64>> = vec![Vec::new(); ranked.len()];
        let node_budget = self.config.nodes_for(pos.mode());
        let time_budget = self.config.time_budget;
        let time_left = || time_budget.is_none_or(|t| started.elapsed() < t);
        let best = if self.config.halving {
            // Rounds' dice seeds, shared by every candidate (common random numbers).
            let mut seeds: Vec<[u8; 32]> = Vec::new();
            let mut alive: Vec<usize> = (0..ranked.len()).collect();
            let phases = halving_phases(ranked.len());
            for phase in 1..=phases {
                let phase_end = node_budget * phase / phases;
                while stats.nodes < phase_end && time_left() {
                    // The candidate with the fewest rounds plays its next round.
                    let Some(&i) = alive.iter().min_by_key(|&&i| values[i].len()) else {
                        break;
                    };
                    let r = values[i].len();
                    while seeds.len() <= r {
                        let mut seed = [0u8; 32];
                        self.rng.fill_bytes(&mut seed);
                        seeds.push(seed);
                    }
                    let (value, nodes) = self.rollout(after[i], me, rules, Seed(seeds[r]));
                    values[i].push(value as f64);
                    stats.nodes += nodes;
                    stats.rollouts += 1;
                }
                if phase < phases {
                    alive = survivors(&values, &alive);
                }
            }
            survivors(&values, &alive).first().copied().unwrap_or(0)
        } else {
            let budget_left = |nodes: usize| nodes < node_budget && time_left();
            'search: while budget_left(stats.nodes) {
                // One round: the same dice for every candidate.
                let mut seed = [0u8; 32];
                self.rng.fill_bytes(&mut seed);
                let before = stats.nodes;
                for (i, start) in after.iter().enumerate() {
                    if !budget_left(stats.nodes) {
                        break 'search;
                    }
                    let (value, nodes) = self.rollout(*start, me, rules, Seed(seed));
                    values[i].push(value as f64);
                    stats.nodes += nodes;
                    stats.rollouts += 1;
                }
                if stats.nodes == before {
                    break; // unreachable: every rollout counts at least its leaf
                }
            }
            choose_candidate(&values, self.config.switch_z)
        };
        let plan = ranked[best].0.clone();
        (legal_or_pass(pos, rules, plan), stats)
    }

    /// Plays `depth` turns from `pos` (each: roll, fast greedy plan) with dice from
    /// `seed`, then values the result for `me`. Returns the value and the plans played.
    fn rollout(
        &mut self,
        mut pos: Position,
        me: engine::Seat,
        rules: &RuleSet,
        seed: Seed,
    ) -> (f32, usize) {
        let mut dice = Dice::new(seed);
        let mut nodes = 0usize;
        let mut roll = [0u8; 32];
        let n = (rules.dice_per_turn as usize).min(roll.len());
        let depth = self.config.depth;
        for t in 0..depth {
            if pos.to_move().is_none() {
                break;
            }
            if t + 1 == depth && pos.to_move() == Some(me) && self.config.own_roll != OwnRoll::One {
                let (value, own_nodes) = self.own_turn(pos, me, rules, &mut dice);
                return (value, nodes + own_nodes);
            }
            for d in roll.iter_mut().take(n) {
                *d = dice.roll();
            }
            if pos.apply_roll(rules, &roll[..n]).is_err() {
                break;
            }
            let (plan, evals) = self.policy.choose_counted(&pos, rules);
            nodes += evals.max(1);
            match pos.play(rules, &plan) {
                Ok((next, _)) => pos = next,
                Err(_) => break, // unreachable: the policy returns legal plans
            }
        }
        (self.leaf(&pos, me, rules), nodes + 1)
    }

    /// The expert's own last turn of a rollout from `pos` (`me` to move, not yet
    /// rolled), valued as the mean over the rolls [`ExpertConfig::own_roll`] names of
    /// the leaf after the policy's plan. Returns the value and the plans played.
    fn own_turn(
        &mut self,
        pos: Position,
        me: engine::Seat,
        rules: &RuleSet,
        dice: &mut Dice,
    ) -> (f32, usize) {
        let n = rules.dice_per_turn as usize;
        // The positions after the roll, with their probabilities.
        let mut outcomes: Vec<(Position, f64)> = Vec::new();
        match self.config.own_roll {
            OwnRoll::Exact if n <= 4 => {
                // Every ordered roll (6^n, equally likely: engine::Dice), grouped by what
                // it leaves: the store as a multiset (rule 4.3: plans take rolls as a
                // multiset, so the order in the store does not matter) and the credits.
                let total = 6usize.pow(n as u32);
                let mut index: std::collections::HashMap<(Vec<u8>, u32), usize> =
                    std::collections::HashMap::new();
                let mut roll = vec![0u8; n];
                for code in 0..total {
                    let mut c = code;
                    for d in roll.iter_mut() {
                        *d = (c % 6) as u8 + 1;
                        c /= 6;
                    }
                    let mut p = pos;
                    if p.apply_roll(rules, &roll).is_err() {
                        continue;
                    }
                    let st = p.seat(me);
                    let mut store = st.rolls.as_slice().to_vec();
                    store.sort_unstable();
                    let slot = *index.entry((store, st.exit_credits)).or_insert_with(|| {
                        outcomes.push((p, 0.0));
                        outcomes.len() - 1
                    });
                    outcomes[slot].1 += 1.0 / total as f64;
                }
            }
            OwnRoll::Exact | OwnRoll::One => outcomes.push((pos, 1.0)),
            OwnRoll::Sampled(m) => {
                let m = m.max(1);
                for _ in 0..m {
                    outcomes.push((pos, 1.0 / m as f64));
                }
            }
        }
        let sample = !matches!(self.config.own_roll, OwnRoll::Exact) || n > 4;
        let mut roll = vec![0u8; n];
        let (mut value, mut nodes) = (0.0f64, 0usize);
        for (mut p, weight) in outcomes {
            if sample {
                for d in roll.iter_mut() {
                    *d = dice.roll();
                }
                if p.apply_roll(rules, &roll).is_err() {
                    continue;
                }
            }
            let (plan, evals) = self.policy.choose_counted(&p, rules);
            nodes += evals.max(1) + 1;
            if let Ok((next, _)) = p.play(rules, &plan) {
                p = next;
            }
            value += weight * self.leaf(&p, me, rules) as f64;
        }
        (value as f32, nodes.max(1))
    }

    /// The leaf value of `pos` for `me`: the projection's share of first place
    /// ([`ExpertConfig::leaf_projection`]) or the greedy heuristic with the leaf weights.
    fn leaf(&self, pos: &Position, me: engine::Seat, rules: &RuleSet) -> f32 {
        let w: &Weights = self
            .config
            .leaf
            .as_ref()
            .unwrap_or(&self.config.ranking.weights);
        if let Some(t) = self.config.leaf_projection {
            if pos.mode() == engine::Mode::Clash || self.config.projection_in_journey {
                return projected_leaf(pos, me, rules, w, t);
            }
        }
        let threat = ThreatMap::build(pos, me, &self.tail.1, w);
        let own = evaluate(pos, me, 0, &threat, rules, w);
        if !self.config.leaf_standing {
            return own;
        }
        // Replace each opponent's total by its standing (module docs of `eval`).
        let alone = Weights {
            opponent: 0.0,
            leader: 0.0,
            ..w.clone()
        };
        let (mut sum_gap, mut best_total, mut best_standing) = (0.0f32, f32::MIN, f32::MIN);
        for o in engine::Seat::ALL {
            if o == me {
                continue;
            }
            let total = pos.seat(o).total() as f32;
            let standing = if pos.seat(o).finished.is_some() {
                total
            } else {
                let t = ThreatMap::build(pos, o, &self.tail.1, &alone);
                evaluate(pos, o, 0, &t, rules, &alone)
            };
            sum_gap += standing - total;
            best_total = best_total.max(total);
            best_standing = best_standing.max(standing);
        }
        own - w.opponent * sum_gap - w.leader * (best_standing - best_total)
    }
}

/// [`ExpertConfig::leaf_projection`] with temperature `t` (0: the margin form).
fn projected_leaf(pos: &Position, me: engine::Seat, rules: &RuleSet, w: &Weights, t: f32) -> f32 {
    let proj = crate::projection::Projection::builtin().projected_all(pos, rules);
    let mine = proj[me.index()];
    if t <= 0.0 {
        let (mut sum, mut best) = (0.0f32, f32::MIN);
        for o in engine::Seat::ALL {
            if o != me {
                sum += proj[o.index()];
                best = best.max(proj[o.index()]);
            }
        }
        return mine - w.opponent * sum - w.leader * best;
    }
    let top = proj.iter().copied().fold(f32::MIN, f32::max);
    let z: f32 = proj.iter().map(|p| ((p - top) / t).exp()).sum();
    1000.0 * ((mine - top) / t).exp() / z
}

/// The candidate to play from the rollout values `values[i][r]` (candidate `i`,
/// round `r`; candidate 0 is the greedy choice): among the candidates whose mean
/// paired difference to candidate 0 over the rounds both completed exceeds `z`
/// standard errors, the one with the best mean difference; 0 when none does (or
/// with fewer than 2 rounds). With `z` 0 it is the best mean difference, when positive.
pub(crate) fn choose_candidate(values: &[Vec<f64>], z: f64) -> usize {
    let Some(base) = values.first() else {
        return 0;
    };
    let mut best = (0usize, 0.0f64);
    for (i, v) in values.iter().enumerate().skip(1) {
        let n = v.len().min(base.len());
        if n < 2 {
            continue;
        }
        let d: Vec<f64> = (0..n).map(|r| v[r] - base[r]).collect();
        let mean = d.iter().sum::<f64>() / n as f64;
        let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let se = (var / n as f64).sqrt();
        if mean > z * se && mean > best.1 {
            best = (i, mean);
        }
    }
    best.0
}

/// The first `k` plans of `ranked` (best first) whose guardian parts (direction,
/// exits, moves) differ from those of every plan kept before them; with `fill`, then
/// the best of the others, up to `k` in all, in `ranked`'s order.
fn distinct_guardian_parts(ranked: Vec<(Plan, f32)>, k: usize, fill: bool) -> Vec<(Plan, f32)> {
    let mut kept: Vec<usize> = Vec::with_capacity(k);
    for (i, (plan, _)) in ranked.iter().enumerate() {
        if kept.len() >= k {
            break;
        }
        let same = |q: &Plan| {
            q.direction == plan.direction && q.exits == plan.exits && q.moves == plan.moves
        };
        if !kept.iter().any(|&j| same(&ranked[j].0)) {
            kept.push(i);
        }
    }
    if fill {
        for i in 0..ranked.len() {
            if kept.len() >= k {
                break;
            }
            if !kept.contains(&i) {
                kept.push(i);
            }
        }
        // Candidate 0 stays the greedy choice; the rest in rank order.
        if let Some(rest) = kept.get_mut(1..) {
            rest.sort_unstable();
        }
    }
    let mut slots: Vec<Option<(Plan, f32)>> = ranked.into_iter().map(Some).collect();
    kept.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// Phases of successive halving over `k` candidates: halvings (rounding up) until one
/// is left, at least 1 (6 candidates: 6, 3, 2 → 3 phases).
fn halving_phases(k: usize) -> usize {
    let (mut n, mut phases) = (k, 0);
    while n > 1 {
        n = n.div_ceil(2);
        phases += 1;
    }
    phases.max(1)
}

/// The better half (rounded up) of the candidates `alive`, best first, by their mean
/// value over the rounds all of them completed (`values[i][r]`, round `r` on the same
/// dice for all); ties and candidates without common rounds keep the greedy order
/// (lower index first).
fn survivors(values: &[Vec<f64>], alive: &[usize]) -> Vec<usize> {
    let n = alive.iter().map(|&i| values[i].len()).min().unwrap_or(0);
    let mean = |i: usize| values[i][..n].iter().sum::<f64>() / n.max(1) as f64;
    let mut v = alive.to_vec();
    v.sort_by(|&a, &b| mean(b).total_cmp(&mean(a)).then(a.cmp(&b)));
    v.truncate(alive.len().div_ceil(2).max(1));
    v
}

impl Strategy for ExpertBot {
    fn choose(&mut self, pos: &Position, rules: &RuleSet) -> Plan {
        self.choose_stats(pos, rules).0
    }
}

#[cfg(test)]
mod tests {
    use super::{
        choose_candidate, distinct_guardian_parts, halving_phases, survivors, ExpertBot,
        ExpertConfig, OwnRoll,
    };
    use engine::{Dice, Direction, PieceId, Plan, Position, RuleSet, Seat, Seed};

    #[test]
    fn distinct_candidates_differ_in_their_guardian_parts() {
        let a = Plan::new(Direction::Forward).mv(PieceId::G1, &[3]);
        let b = Plan::new(Direction::Forward).mv(PieceId::G2, &[3]);
        let ranked = vec![
            (a.clone().royal(8, false), 30.0),
            (a.clone().royal(7, false), 29.0),
            (b.clone().royal(8, false), 28.0),
            (a.clone(), 27.0),
            (b.clone(), 26.0),
        ];
        let plans = |v: Vec<(Plan, f32)>| v.into_iter().map(|(p, _)| p).collect::<Vec<_>>();
        // One plan per guardian part, best first.
        assert_eq!(
            plans(distinct_guardian_parts(ranked.clone(), 6, false)),
            vec![a.clone().royal(8, false), b.clone().royal(8, false)]
        );
        assert_eq!(
            plans(distinct_guardian_parts(ranked.clone(), 1, false)),
            vec![a.clone().royal(8, false)]
        );
        // Filled up to 4 with the best others, in rank order after the greedy choice.
        assert_eq!(
            plans(distinct_guardian_parts(ranked.clone(), 4, true)),
            vec![
                a.clone().royal(8, false),
                a.clone().royal(7, false),
                b.royal(8, false),
                a,
            ]
        );
        assert!(distinct_guardian_parts(Vec::new(), 4, true).is_empty());
    }

    #[test]
    fn successive_halving_keeps_the_better_half() {
        assert_eq!(halving_phases(6), 3);
        assert_eq!(halving_phases(2), 1);
        assert_eq!(halving_phases(1), 1);
        // Means over the 2 rounds all completed (the third of candidate 0 is ignored).
        let values = vec![
            vec![1.0, 1.0, 99.0],
            vec![3.0, 3.0],
            vec![2.0, 2.0],
            vec![0.0, 5.0],
        ];
        assert_eq!(survivors(&values, &[0, 1, 2, 3]), vec![1, 3]);
        assert_eq!(survivors(&values, &[0, 2, 3]), vec![3, 2]);
        // Without common rounds the greedy order decides.
        assert_eq!(survivors(&[vec![], vec![1.0]], &[0, 1]), vec![0]);
    }

    #[test]
    fn the_exact_own_turn_weighs_every_roll_multiset() {
        let rules = RuleSet::default();
        // Green to move with an empty store: 3 dice give 56 multisets.
        let pos = Position::from_json(
            r#"{"mode":"clash","to_move":"green","seats":{
            "green":{"pieces":{"G1":"ring:3","R":"ring:7"},"exit_credits":1},
            "red":{"pieces":{"G1":"ring:10"}},
            "blue":{"pieces":{"G1":"ring:40"}},
            "yellow":{"pieces":{"G1":"ring:55"}}}}"#,
        )
        .unwrap();
        let exact = ExpertConfig {
            own_roll: OwnRoll::Exact,
            ..ExpertConfig::default()
        };
        let mut bot = ExpertBot::with_config(1, exact);
        bot.tail = (
            rules.dice_per_turn,
            crate::threat::dice_tail(rules.dice_per_turn),
        );
        let mut dice = Dice::new(Seed([0; 32]));
        let (value, nodes) = bot.own_turn(pos, Seat::Green, &rules, &mut dice);
        // One policy search and one leaf per multiset, at least one plan each.
        assert!(nodes >= 2 * 56, "{nodes} plans");
        // The expectation lies between the worst and the best single roll's value.
        let mut one = ExpertBot::with_config(1, ExpertConfig::default());
        one.tail = bot.tail.clone();
        let singles: Vec<f32> = (0..216u32)
            .map(|code| {
                let roll = [code % 6, code / 6 % 6, code / 36].map(|d| d as u8 + 1);
                let mut p = pos;
                p.apply_roll(&rules, &roll).unwrap();
                let (plan, _) = one.policy.choose_counted(&p, &rules);
                let (next, _) = p.play(&rules, &plan).unwrap();
                one.leaf(&next, Seat::Green, &rules)
            })
            .collect();
        let mean = singles.iter().map(|&v| v as f64).sum::<f64>() / 216.0;
        assert!((value as f64 - mean).abs() < 1e-3, "{value} against {mean}");
    }

    #[test]
    fn another_candidate_replaces_the_greedy_choice_only_when_clearly_better() {
        let greedy = vec![10.0, 20.0, 30.0, 40.0];
        // Better by exactly 1 in every round: no spread, so significant at any z.
        let steady = vec![11.0, 21.0, 31.0, 41.0];
        // Better by 2 on average but noisy: differences +12, -8, +12, -8 (mean 2,
        // standard error 5.77).
        let noisy = vec![22.0, 12.0, 42.0, 32.0];
        assert_eq!(choose_candidate(&[greedy.clone(), steady.clone()], 1.0), 1);
        assert_eq!(choose_candidate(&[greedy.clone(), noisy.clone()], 1.0), 0);
        assert_eq!(choose_candidate(&[greedy.clone(), noisy.clone()], 0.3), 1);
        assert_eq!(choose_candidate(&[greedy.clone(), noisy.clone()], 0.0), 1);
        // Both significant at z 0.3: the better mean difference wins.
        assert_eq!(
            choose_candidate(&[greedy.clone(), steady.clone(), noisy.clone()], 0.3),
            2
        );
        assert_eq!(
            choose_candidate(&[greedy.clone(), steady, noisy.clone()], 1.0),
            1
        );
        // A worse candidate never replaces it; fewer than 2 paired rounds neither.
        let worse: Vec<f64> = greedy.iter().map(|v| v - 1.0).collect();
        assert_eq!(choose_candidate(&[greedy.clone(), worse], 0.0), 0);
        assert_eq!(choose_candidate(&[greedy, vec![99.0]], 0.0), 0);
        assert_eq!(choose_candidate(&[], 1.0), 0);
    }
}
