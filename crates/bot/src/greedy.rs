//! The greedy bot: builds a de-duplicated set of legal candidate plans, plays each on
//! the position ([`Position::validate`] + [`Position::apply`], i.e. what
//! [`Position::play`] does) and keeps the one whose result the heuristic of
//! [`crate::eval`] values most.

use crate::candidate::{Cand, CandKey};
use crate::eval::{evaluate, Weights};
use crate::rolls::Rolls;
use crate::threat::{dice_tail, ThreatMap};
use crate::{legal_or_pass, Strategy};
use engine::legal::random_plan;
use engine::{Direction, Event, Location, PieceId, Plan, Position, RuleSet, Seat};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use rustc_hash::FxHashSet;

/// How wide the greedy search is. The defaults keep [`GreedyBot`]'s `choose` around a
/// millisecond on a mid-game position in a release build (see the crate docs).
#[derive(Debug, Clone, PartialEq)]
pub struct GreedyConfig {
    /// Heuristic weights.
    pub weights: Weights,
    /// Plans kept at each level of the guardian search to be extended with a move of
    /// one more guardian (4).
    pub beam: usize,
    /// Best guardian plans per direction that are combined with every royal move (3).
    pub royal_beam: usize,
    /// Random legal plans from [`engine::legal::random_plan`] added to the candidates (24).
    pub random_plans: usize,
    /// Most candidate plans played per turn, a hard bound on the work (2000).
    pub max_evals: usize,
    /// Royal moves are tried both before and after the guardians (rule 4.3,
    /// `royal_first`) when true (the default); only after them when false, which
    /// halves the royal part of the search (about half of a beam-1 search's plans).
    /// As the expert's rollout policy, false measured weaker (32.7 % against 38.4 %,
    /// `BENCHMARKS.md`): the opponents it imagines play less like the real ones.
    pub royal_both_orders: bool,
}

impl Default for GreedyConfig {
    fn default() -> Self {
        GreedyConfig {
            weights: Weights::default(),
            beam: 4,
            royal_beam: 3,
            random_plans: 24,
            max_evals: 2000,
            royal_both_orders: true,
        }
    }
}

/// A bot that plays, each turn, the candidate plan whose result scores best under the
/// heuristic. Deterministic for a given seed (its only randomness is the handful of
/// random candidates, drawn from its own ChaCha20 generator).
#[derive(Debug, Clone)]
pub struct GreedyBot {
    pub(crate) rng: ChaCha20Rng,
    config: GreedyConfig,
    /// `dice_per_turn` and its [`dice_tail`] table, cached between turns.
    tail: (u8, Vec<f32>),
    /// The search's buffers, kept between turns so a search allocates nothing for them.
    scratch: Scratch,
}

/// Buffers one search fills and the next one clears: the de-duplication set, the
/// scored candidates and the events of the plan being played.
#[derive(Debug, Clone, Default)]
struct Scratch {
    seen: FxHashSet<CandKey>,
    scored: Vec<Scored>,
    events: Vec<Event>,
}

impl GreedyBot {
    /// A greedy bot with the default configuration and its own generator seeded with `seed`.
    pub fn new(seed: u64) -> GreedyBot {
        GreedyBot::with_config(seed, GreedyConfig::default())
    }

    /// A greedy bot with `config`.
    pub fn with_config(seed: u64, config: GreedyConfig) -> GreedyBot {
        GreedyBot {
            rng: ChaCha20Rng::seed_from_u64(seed),
            config,
            tail: (0, Vec::new()),
            scratch: Scratch::default(),
        }
    }

    /// Runs the search and also reports how many candidate plans were played.
    pub fn choose_counted(&mut self, pos: &Position, rules: &RuleSet) -> (Plan, usize) {
        let Some(s) = self.search(pos, rules) else {
            return (Plan::pass(), 0);
        };
        let evals = s.evals;
        let plan = s.best().map(|c| c.to_plan()).unwrap_or_default();
        (legal_or_pass(pos, rules, plan), evals)
    }
}

impl GreedyBot {
    /// Runs the search for the seat to move (`None` when no seat is to move), with
    /// the dice tail table cached for `rules` and the buffers of the last search.
    fn search<'a>(&'a mut self, pos: &'a Position, rules: &'a RuleSet) -> Option<Search<'a>> {
        let me = pos.to_move()?;
        if self.tail.0 != rules.dice_per_turn || self.tail.1.is_empty() {
            self.tail = (rules.dice_per_turn, dice_tail(rules.dice_per_turn));
        }
        let mut s = Search::new(
            pos,
            rules,
            me,
            &self.config,
            &self.tail.1,
            &mut self.scratch,
        );
        s.run(&mut self.rng);
        Some(s)
    }

    /// The `k` best distinct legal plans of the greedy search for the seat to move,
    /// best first, with their heuristic scores (points-like units, see [`Weights`]),
    /// and how many candidate plans were played. Empty when no seat is to move.
    pub fn ranked(
        &mut self,
        pos: &Position,
        rules: &RuleSet,
        k: usize,
    ) -> (Vec<(Plan, f32)>, usize) {
        let Some(s) = self.search(pos, rules) else {
            return (Vec::new(), 0);
        };
        // Stable sort: among equal scores the earliest candidate stays first, as in `best`.
        let mut v: Vec<&Scored> = s.scored.iter().collect();
        v.sort_by(|a, b| b.score.total_cmp(&a.score));
        let out = v
            .into_iter()
            .take(k)
            .map(|sc| (sc.cand.to_plan(), sc.score))
            .collect();
        (out, s.evals)
    }
}

impl Strategy for GreedyBot {
    fn choose(&mut self, pos: &Position, rules: &RuleSet) -> Plan {
        self.choose_counted(pos, rules).0
    }
}

/// One scored candidate.
#[derive(Debug, Clone, Copy)]
struct Scored {
    score: f32,
    cand: Cand,
    /// How many guardians it moves (0 for exits only; `u8::MAX` for royal or random
    /// plans, which are never extended).
    level: u8,
}

/// Marks candidates that the guardian search must not extend.
const FINAL: u8 = u8::MAX;

/// The state of one turn's search.
struct Search<'a> {
    pos: &'a Position,
    rules: &'a RuleSet,
    me: Seat,
    cfg: &'a GreedyConfig,
    tail: &'a [f32],
    base_threat: ThreatMap,
    store: Rolls,
    seen: &'a mut FxHashSet<CandKey>,
    scored: &'a mut Vec<Scored>,
    evals: usize,
    events: &'a mut Vec<Event>,
}

impl<'a> Search<'a> {
    fn new(
        pos: &'a Position,
        rules: &'a RuleSet,
        me: Seat,
        cfg: &'a GreedyConfig,
        tail: &'a [f32],
        scratch: &'a mut Scratch,
    ) -> Search<'a> {
        scratch.seen.clear();
        scratch.scored.clear();
        Search {
            pos,
            rules,
            me,
            cfg,
            tail,
            base_threat: ThreatMap::build(pos, me, tail, &cfg.weights),
            store: Rolls::from_slice(pos.seat(me).rolls.as_slice()),
            seen: &mut scratch.seen,
            scored: &mut scratch.scored,
            evals: 0,
            events: &mut scratch.events,
        }
    }

    /// Plays candidate `c` once (if new and legal) and records its score.
    fn eval(&mut self, c: Cand, level: u8) {
        if self.evals >= self.cfg.max_evals || !self.seen.insert(c.key()) {
            return;
        }
        let Ok(vp) = c.validate(self.pos, self.rules) else {
            return;
        };
        self.evals += 1;
        let mut next = *self.pos;
        self.events.clear();
        next.play_unchecked(self.rules, &vp, self.events);
        let me = self.me;
        let captures = self
            .events
            .iter()
            .filter(|e| matches!(e, Event::Capture { seat, .. } if *seat == me))
            .count();
        let score = if captures == 0 {
            evaluate(
                &next,
                me,
                0,
                &self.base_threat,
                self.rules,
                &self.cfg.weights,
            )
        } else {
            // Opponent pieces changed: their threats must be recomputed.
            let threat = ThreatMap::build(&next, me, self.tail, &self.cfg.weights);
            evaluate(&next, me, captures, &threat, self.rules, &self.cfg.weights)
        };
        self.scored.push(Scored {
            score,
            cand: c,
            level,
        });
    }

    /// The seat's guardians that a plan with `exits` can move, grouped by tile (a
    /// group's guardians are interchangeable except for their numbers), lowest first.
    fn mover_groups(&self, exits: u8) -> Vec<Vec<usize>> {
        let st = self.pos.seat(self.me);
        let mut groups: Vec<(Location, Vec<usize>)> = Vec::new();
        for g in 0..4 {
            let loc = if exits & (1 << g) != 0 {
                Location::Ring(self.me.entry())
            } else {
                st.pieces[g]
            };
            if !loc.on_board() {
                continue;
            }
            match groups.iter_mut().find(|(l, _)| *l == loc) {
                Some((_, v)) => v.push(g),
                None => groups.push((loc, vec![g])),
            }
        }
        groups.into_iter().map(|(_, v)| v).collect()
    }

    /// Exit choices: none, all that the credits allow, and one (rule 4.3). Exiting the
    /// lowest-numbered Yard guardians first; the others would land on the same tile.
    fn exit_options(&self) -> Vec<u8> {
        let st = self.pos.seat(self.me);
        let yard: Vec<usize> = (0..4).filter(|&g| st.pieces[g] == Location::Yard).collect();
        let kmax = yard.len().min(st.exit_credits as usize);
        let bits = |k: usize| yard[..k].iter().fold(0u8, |b, &g| b | (1 << g));
        let mut opts = vec![0u8];
        for k in [kmax, 1] {
            if k > 0 && k <= kmax && !opts.contains(&bits(k)) {
                opts.push(bits(k));
            }
        }
        opts
    }

    fn run(&mut self, rng: &mut ChaCha20Rng) {
        let exit_opts = self.exit_options();
        let sums = self.store.subset_sums();
        // Level 1: exits only; one guardian (or one tile's group moving together)
        // with every distinct sum of stored rolls, in both directions.
        for dir in [Direction::Forward, Direction::Backward] {
            for &exits in &exit_opts {
                let base = Cand::new(dir, exits);
                self.eval(base, 0);
                for grp in self.mover_groups(exits) {
                    for &(_, sub) in &sums {
                        self.eval(base.with_move(grp[0], sub), 1);
                    }
                    for m in 2..=grp.len() {
                        self.group_moves(base, &grp[..m], &sums);
                    }
                }
            }
        }
        // Levels 2..=4: extend the best plans with a move of one more guardian.
        for level in 2..=4u8 {
            let parents = self.top(self.cfg.beam, |s| s.level == level - 1);
            if parents.is_empty() {
                break;
            }
            for p in parents {
                let Some(rest) = self.store.minus(&p.used()) else {
                    continue;
                };
                if rest.is_empty() {
                    continue;
                }
                let rest_sums = rest.subset_sums();
                for grp in self.mover_groups(p.exits) {
                    let Some(&g) = grp.iter().find(|&&g| p.moves[g].is_empty()) else {
                        continue;
                    };
                    for &(_, sub) in &rest_sums {
                        self.eval(p.with_move(g, sub), level);
                    }
                }
            }
        }
        // Royal moves of every length, first or last, on the best guardian plans of
        // each direction and on the plain exit options.
        let st = self.pos.seat(self.me);
        if st.location(PieceId::R) != Location::Home {
            for dir in [Direction::Forward, Direction::Backward] {
                let mut parents = self.top(self.cfg.royal_beam, |s| {
                    s.level != FINAL && s.cand.dir == dir && s.cand.moves_any()
                });
                parents.extend(exit_opts.iter().map(|&e| Cand::new(dir, e)));
                for p in parents {
                    for steps in 1..=self.rules.royal_max_steps {
                        self.eval(p.with_royal(steps, false), FINAL);
                        if self.cfg.royal_both_orders {
                            self.eval(p.with_royal(steps, true), FINAL);
                        }
                    }
                }
            }
        }
        // A few random legal plans, for variety.
        for _ in 0..self.cfg.random_plans {
            let plan = random_plan(self.pos, self.rules, rng);
            if let Some(c) = Cand::from_plan(&plan) {
                self.eval(c, FINAL);
            }
        }
    }

    /// Moves the guardians of `grp` (all on one tile) together: each gets its own
    /// disjoint rolls of the same sum, so they step as one unit of strength
    /// `grp.len()` (rules 5.2, 5.4).
    fn group_moves(&mut self, base: Cand, grp: &[usize], sums: &[(u16, Rolls)]) {
        let total = self.store.sum();
        for &(s, _) in sums {
            if s as usize * grp.len() > total as usize {
                break;
            }
            let mut rest = self.store;
            let mut c = base;
            let mut ok = true;
            for &g in grp {
                match rest.subset_with_sum(s) {
                    Some(sub) => {
                        rest = rest.minus(&sub).unwrap_or_default();
                        c = c.with_move(g, sub);
                    }
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                self.eval(c, grp.len() as u8);
            }
        }
    }

    /// The `n` best candidates that pass `keep`, best first.
    fn top(&self, n: usize, keep: impl Fn(&Scored) -> bool) -> Vec<Cand> {
        let mut v: Vec<&Scored> = self.scored.iter().filter(|s| keep(s)).collect();
        v.sort_by(|a, b| b.score.total_cmp(&a.score));
        v.into_iter().take(n).map(|s| s.cand).collect()
    }

    /// The best candidate (the earliest among equals), if any was legal.
    fn best(&self) -> Option<Cand> {
        let mut best: Option<&Scored> = None;
        for s in self.scored.iter() {
            if best.is_none_or(|b| s.score > b.score) {
                best = Some(s);
            }
        }
        best.map(|s| s.cand)
    }
}
