//! Simulated matches: bots play whole matches through [`engine::Match`], and duels of
//! greedy against random bots in rotating seats report the greedy side's share of
//! first places.

use crate::{new_bot, BotKind, Strategy};
use engine::game::Match;
use engine::rules::InvalidRuleSet;
use engine::{MatchEnd, MatchError, Mode, Position, RuleSet, Seat, Seed};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use std::time::Instant;

/// Turns after which a simulated match is ended by its clock (rule 9.1) if it has not
/// ended: 400 turns, 100 per seat.
///
/// Why 400: the match clock is 1800 s (rule 9.1, `match_seconds`). A human turn —
/// reading three new dice, picking rolls, guardians, direction and a royal move,
/// then watching the moves animate — takes about 4–5 s on average (bots and quick
/// passes take less, the 30 s turn timer, rule 4.6, bounds the slow ones), so
/// 1800 s / 4.5 s ≈ 400 turns in a 30-minute match.
pub const MATCH_TURNS: u32 = 400;

/// Why a simulated match could not be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// The rule set fails [`RuleSet::check`].
    #[error(transparent)]
    InvalidRules(#[from] InvalidRuleSet),
    /// A bot returned a plan the match refused (a bot bug: bots must return legal plans).
    #[error("the {kind} bot at {seat} returned a refused plan on turn {turn}: {error}")]
    IllegalPlan {
        /// The bot's kind.
        kind: BotKind,
        /// Its seat.
        seat: Seat,
        /// The turn number.
        turn: u32,
        /// What the match said.
        error: MatchError,
    },
}

/// One finished simulated match.
#[derive(Debug, Clone)]
pub struct MatchRun {
    /// The bot kind at each seat (green, red, blue, yellow).
    pub kinds: [BotKind; 4],
    /// How the match ended and the final standings (rule 9.2).
    pub end: MatchEnd,
    /// Turns played.
    pub turns: u32,
    /// Wall time of every `choose` call, per seat, in nanoseconds.
    pub choose_ns: [Vec<u64>; 4],
}

/// Plays one match of the bots `kinds` (seeded with `bot_seeds`) with the dice seed
/// `seed`: `Match::new(rules, mode, seed, 0)`, then each turn the seat to move
/// submits its bot's plan at time 0 ms, until the match ends or `max_turns` turns were
/// played, when it is ended by its clock (`Match::end_by_clock`, rule 9.1).
///
/// Errors: [`SimError::InvalidRules`]; [`SimError::IllegalPlan`] when a bot's plan is
/// refused.
pub fn play_match(
    rules: &RuleSet,
    mode: Mode,
    seed: Seed,
    kinds: [BotKind; 4],
    bot_seeds: [u64; 4],
    max_turns: u32,
) -> Result<MatchRun, SimError> {
    let bots = [0, 1, 2, 3].map(|i| new_bot(kinds[i], bot_seeds[i]));
    play_match_with(rules, mode, seed, kinds, bots, max_turns)
}

/// [`play_match`] with the four bots given (green, red, blue, yellow); `kinds` only
/// labels them in the result and in errors. For experiments with bots of other
/// configurations than [`new_bot`]'s.
///
/// Errors: as [`play_match`].
pub fn play_match_with(
    rules: &RuleSet,
    mode: Mode,
    seed: Seed,
    kinds: [BotKind; 4],
    bots: [Box<dyn Strategy + Send>; 4],
    max_turns: u32,
) -> Result<MatchRun, SimError> {
    play_match_observed(rules, mode, seed, kinds, bots, max_turns, |_| {})
}

/// [`play_match_with`] that also shows `observe` the position at the start of every
/// turn played and, last, the position the match ended in (or stood in when
/// `max_turns` ran out). For fitting valuations from played matches
/// (`examples/fit_projection.rs`).
///
/// Errors: as [`play_match`].
pub fn play_match_observed(
    rules: &RuleSet,
    mode: Mode,
    seed: Seed,
    kinds: [BotKind; 4],
    mut bots: [Box<dyn Strategy + Send>; 4],
    max_turns: u32,
    mut observe: impl FnMut(&Position),
) -> Result<MatchRun, SimError> {
    let mut m = Match::new(rules.clone(), mode, seed, 0)?;
    let mut turns = 0;
    let mut choose_ns: [Vec<u64>; 4] = Default::default();
    while turns < max_turns {
        let Some(cur) = m.current_turn() else { break };
        let (seat, turn) = (cur.seat, cur.turn_number);
        observe(m.position());
        let started = Instant::now();
        let plan = bots[seat.index()].choose(m.position(), m.rules());
        choose_ns[seat.index()].push(started.elapsed().as_nanos() as u64);
        m.submit(seat, turn, &plan, 0)
            .map_err(|error| SimError::IllegalPlan {
                kind: kinds[seat.index()],
                seat,
                turn,
                error,
            })?;
        turns += 1;
    }
    observe(m.position());
    let end = match m.end() {
        Some(end) => end.clone(),
        None => m.end_by_clock(),
    };
    Ok(MatchRun {
        kinds,
        end,
        turns,
        choose_ns,
    })
}

/// Where the greedy bots sit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lineup {
    /// Two greedy bots on opposite seats (green+blue, then red+yellow, alternating).
    Opposite,
    /// Two greedy bots on neighbouring seats (green+red, red+blue, blue+yellow,
    /// yellow+green in turn).
    Adjacent,
    /// One greedy bot against three random bots, its seat rotating green, red, blue, yellow.
    OneVsThree,
}

impl Lineup {
    /// Every lineup.
    pub const ALL: [Lineup; 3] = [Lineup::Opposite, Lineup::Adjacent, Lineup::OneVsThree];

    /// A short name for reports.
    pub const fn name(self) -> &'static str {
        match self {
            Lineup::Opposite => "2v2-opposite",
            Lineup::Adjacent => "2v2-adjacent",
            Lineup::OneVsThree => "1v3",
        }
    }
}

/// The bot kind of each seat in match number `index` (0-based) of a `lineup`.
pub fn lineup_seats(lineup: Lineup, index: u32) -> [BotKind; 4] {
    let mut kinds = [BotKind::Random; 4];
    let i = index as usize;
    let greedy: &[usize] = match lineup {
        Lineup::Opposite => &[i % 2, i % 2 + 2],
        Lineup::Adjacent => &[i % 4, (i + 1) % 4],
        Lineup::OneVsThree => &[i % 4],
    };
    for &s in greedy {
        kinds[s] = BotKind::Greedy;
    }
    kinds
}

/// A duel: `matches` matches of one lineup in one mode.
#[derive(Debug, Clone, PartialEq)]
pub struct DuelConfig {
    /// The rule set (normally the default).
    pub rules: RuleSet,
    /// Journey or clash (rule 1.4).
    pub mode: Mode,
    /// Where the greedy bots sit.
    pub lineup: Lineup,
    /// Number of matches.
    pub matches: u32,
    /// Turns before a match is ended by its clock (normally [`MATCH_TURNS`]).
    pub max_turns: u32,
    /// Seeds every match's dice and bots: match `i` uses ChaCha20 seeded with `seed`,
    /// stream `i`, for its 32-byte dice seed and then the four bots' seeds.
    pub seed: u64,
    /// Worker threads (at least 1). Results do not depend on it.
    pub threads: usize,
}

/// Summary of wall times of `choose` calls, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TimeStats {
    /// Number of calls.
    pub calls: usize,
    /// Mean, µs.
    pub mean_us: f64,
    /// Median, µs.
    pub p50_us: f64,
    /// 99th percentile, µs.
    pub p99_us: f64,
    /// Slowest call, µs.
    pub max_us: f64,
}

impl TimeStats {
    /// Statistics of `ns` (nanoseconds per call).
    pub fn of(mut ns: Vec<u64>) -> TimeStats {
        if ns.is_empty() {
            return TimeStats::default();
        }
        ns.sort_unstable();
        let pick = |q: f64| ns[((ns.len() - 1) as f64 * q).round() as usize] as f64 / 1000.0;
        TimeStats {
            calls: ns.len(),
            mean_us: ns.iter().sum::<u64>() as f64 / ns.len() as f64 / 1000.0,
            p50_us: pick(0.5),
            p99_us: pick(0.99),
            max_us: pick(1.0),
        }
    }
}

/// The result of a duel. A first place shared by `k` seats (equal totals, rule 9.2)
/// gives each of them `1/k` of a win.
#[derive(Debug, Clone, PartialEq)]
pub struct DuelReport {
    /// Matches played.
    pub matches: u32,
    /// First places won by greedy seats (shared places counted fractionally).
    pub greedy_firsts: f64,
    /// First places won by random seats (shared places counted fractionally).
    pub random_firsts: f64,
    /// The greedy side's share of first places if all bots were equally strong:
    /// greedy seats / 4 (0.5 for 2v2, 0.25 for 1v3).
    pub fair_share: f64,
    /// Mean final total (rule 8.1) of a greedy seat, points.
    pub greedy_mean_total: f64,
    /// Mean final total of a random seat, points.
    pub random_mean_total: f64,
    /// Matches ended by the turn limit ([`DuelConfig::max_turns`]) rather than by
    /// every seat finishing.
    pub ended_by_clock: u32,
    /// Turns played in all matches.
    pub turns: u64,
    /// Wall times of the greedy bots' `choose` calls.
    pub greedy_choose: TimeStats,
}

impl DuelReport {
    /// The greedy side's share of first places, 0.0..=1.0.
    pub fn greedy_win_rate(&self) -> f64 {
        if self.matches == 0 {
            0.0
        } else {
            self.greedy_firsts / self.matches as f64
        }
    }
}

/// The dice seed and the four bot seeds of match `index` of a duel seeded with `seed`
/// (what [`simulate`] and [`crate::duel_levels`] play match `index` with).
pub fn match_seeds(seed: u64, index: u32) -> (Seed, [u64; 4]) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    rng.set_stream(index as u64);
    let mut bytes = [0u8; 32];
    rng.fill_bytes(&mut bytes);
    let bots = [0; 4].map(|_| rng.next_u64());
    (Seed(bytes), bots)
}

/// Plays match number `index` of the duel `cfg`.
fn duel_match(cfg: &DuelConfig, index: u32) -> Result<MatchRun, SimError> {
    let (seed, bots) = match_seeds(cfg.seed, index);
    play_match(
        &cfg.rules,
        cfg.mode,
        seed,
        lineup_seats(cfg.lineup, index),
        bots,
        cfg.max_turns,
    )
}

/// Plays matches `0..matches` with `play` on `threads` scoped threads (at least one;
/// match `i` on thread `i % threads`) and returns them in index order, so the result
/// does not depend on `threads`.
///
/// Errors: the first [`SimError`] of the first thread that has one.
pub fn play_spread<F>(matches: u32, threads: usize, play: F) -> Result<Vec<MatchRun>, SimError>
where
    F: Fn(u32) -> Result<MatchRun, SimError> + Sync,
{
    let threads = threads.max(1);
    let play = &play;
    let results: Vec<Result<Vec<(u32, MatchRun)>, SimError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    (0..matches)
                        .filter(|i| *i as usize % threads == t)
                        .map(|i| play(i).map(|r| (i, r)))
                        .collect::<Result<Vec<_>, _>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a duel worker panicked"))
            .collect()
    });
    let mut runs = Vec::with_capacity(matches as usize);
    for r in results {
        runs.extend(r?);
    }
    runs.sort_by_key(|(i, _)| *i);
    Ok(runs.into_iter().map(|(_, r)| r).collect())
}

/// Plays the duel `cfg` (greedy against random bots, seats rotating by match number,
/// see [`Lineup`]) and sums up the results. Deterministic for `cfg` whatever
/// `cfg.threads` is, except for the measured times.
///
/// Errors: the first [`SimError`] of any match.
pub fn simulate(cfg: &DuelConfig) -> Result<DuelReport, SimError> {
    let runs = play_spread(cfg.matches, cfg.threads, |i| duel_match(cfg, i))?;

    let mut report = DuelReport {
        matches: cfg.matches,
        greedy_firsts: 0.0,
        random_firsts: 0.0,
        fair_share: 0.0,
        greedy_mean_total: 0.0,
        random_mean_total: 0.0,
        ended_by_clock: 0,
        turns: 0,
        greedy_choose: TimeStats::default(),
    };
    let (mut greedy_sum, mut greedy_n, mut random_sum, mut random_n) = (0i64, 0u32, 0i64, 0u32);
    let mut times = Vec::new();
    for run in &runs {
        let firsts: Vec<Seat> = run
            .end
            .standings
            .iter()
            .filter(|s| s.place == 1)
            .map(|s| s.seat)
            .collect();
        let share = 1.0 / firsts.len() as f64;
        for s in &firsts {
            if run.kinds[s.index()] == BotKind::Greedy {
                report.greedy_firsts += share;
            } else {
                report.random_firsts += share;
            }
        }
        for st in &run.end.standings {
            if run.kinds[st.seat.index()] == BotKind::Greedy {
                greedy_sum += st.total;
                greedy_n += 1;
            } else {
                random_sum += st.total;
                random_n += 1;
            }
        }
        if run.end.reason == engine::EndReason::Clock {
            report.ended_by_clock += 1;
        }
        report.turns += run.turns as u64;
        for s in Seat::ALL {
            if run.kinds[s.index()] == BotKind::Greedy {
                times.extend_from_slice(&run.choose_ns[s.index()]);
            }
        }
    }
    if let Some(run) = runs.first() {
        let greedy_seats = run.kinds.iter().filter(|&&k| k == BotKind::Greedy).count();
        report.fair_share = greedy_seats as f64 / 4.0;
    }
    report.greedy_mean_total = greedy_sum as f64 / greedy_n.max(1) as f64;
    report.random_mean_total = random_sum as f64 / random_n.max(1) as f64;
    report.greedy_choose = TimeStats::of(times);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lineups_rotate_seats() {
        use BotKind::{Greedy as G, Random as R};
        assert_eq!(lineup_seats(Lineup::Opposite, 0), [G, R, G, R]);
        assert_eq!(lineup_seats(Lineup::Opposite, 1), [R, G, R, G]);
        assert_eq!(lineup_seats(Lineup::Adjacent, 3), [G, R, R, G]);
        assert_eq!(lineup_seats(Lineup::OneVsThree, 2), [R, R, G, R]);
    }

    #[test]
    fn time_stats_percentiles() {
        let t = TimeStats::of((1..=100).map(|x| x * 1000).collect());
        assert_eq!(t.calls, 100);
        assert_eq!(t.p50_us, 51.0);
        assert_eq!(t.p99_us, 99.0);
        assert_eq!(t.max_us, 100.0);
        assert_eq!(t.mean_us, 50.5);
    }

    #[test]
    fn match_seeds_differ_by_index_and_repeat() {
        assert_eq!(match_seeds(9, 3), match_seeds(9, 3));
        assert_ne!(match_seeds(9, 3).0, match_seeds(9, 4).0);
        assert_ne!(match_seeds(9, 3).0, match_seeds(10, 3).0);
    }

    #[test]
    fn turn_limit_ends_by_clock() {
        // 8 turns cannot finish a match: it must end by the clock with 8 turns logged.
        let (seed, bots) = match_seeds(1, 0);
        let run = play_match(
            &RuleSet::default(),
            Mode::Journey,
            seed,
            [BotKind::Random; 4],
            bots,
            8,
        )
        .unwrap();
        assert_eq!(run.turns, 8);
        assert_eq!(run.end.reason, engine::EndReason::Clock);
        assert_eq!(run.choose_ns.iter().map(Vec::len).sum::<usize>(), 8);
    }
}
