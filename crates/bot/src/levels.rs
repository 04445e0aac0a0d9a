//! Duels of any lineup of bot kinds: first-place shares with 95 % confidence
//! intervals, and decision times per kind.

use crate::sim::{match_seeds, play_match, MatchRun, SimError, TimeStats};
use crate::BotKind;
use engine::{Mode, RuleSet, Seat};

/// A duel of a lineup: `matches` matches in which the four kinds of `lineup` sit at
/// green, red, blue, yellow in match 0 and rotate one seat each match (match `i` puts
/// `lineup[k]` at seat `(k + i) % 4`), so every kind plays every seat equally often.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelDuel {
    /// The rule set.
    pub rules: RuleSet,
    /// Journey or clash (rule 1.4).
    pub mode: Mode,
    /// The kinds at the four seats of match 0.
    pub lineup: [BotKind; 4],
    /// Number of matches.
    pub matches: u32,
    /// Turns before a match is ended by its clock.
    pub max_turns: u32,
    /// Seeds the dice and the bots (as in [`crate::DuelConfig::seed`]).
    pub seed: u64,
    /// Worker threads (at least 1). Results do not depend on it (except the times).
    pub threads: usize,
}

/// One kind's result in a [`LevelDuel`].
#[derive(Debug, Clone, PartialEq)]
pub struct LevelShare {
    /// The kind.
    pub kind: BotKind,
    /// Seats it holds in each match.
    pub seats: usize,
    /// First places it took (a first place shared by `k` seats counts `1/k`).
    pub firsts: f64,
    /// `firsts / matches`, 0.0..=1.0.
    pub share: f64,
    /// 95 % Wilson score interval of `share` (binomial over the matches).
    pub ci95: (f64, f64),
    /// The share equally strong bots would get: `seats / 4`.
    pub fair_share: f64,
    /// Mean final total of one of its seats, points (rule 8.1).
    pub mean_total: f64,
    /// Wall times of its `choose` calls.
    pub choose: TimeStats,
}

/// The 95 % Wilson score interval (z = 1.96) of a proportion of `successes` in `n`
/// trials; `(0, 1)` when `n` is 0. `successes` may be fractional (shared first places).
pub fn wilson_interval(successes: f64, n: u32) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.96f64;
    let n = n as f64;
    let p = (successes / n).clamp(0.0, 1.0);
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * ((p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt()) / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The kinds of match `index` of a duel of `lineup`.
pub(crate) fn rotated(lineup: [BotKind; 4], index: u32) -> [BotKind; 4] {
    let r = (index % 4) as usize;
    let mut kinds = lineup;
    for (k, kind) in lineup.into_iter().enumerate() {
        kinds[(k + r) % 4] = kind;
    }
    kinds
}

/// Plays `d` and returns every match (in index order) and each distinct kind's
/// share of first places, in the order the kinds first appear in the lineup.
///
/// Errors: the first [`SimError`] of any match.
pub fn duel_levels(d: &LevelDuel) -> Result<(Vec<MatchRun>, Vec<LevelShare>), SimError> {
    let threads = d.threads.max(1);
    let results: Vec<Result<Vec<(u32, MatchRun)>, SimError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    (0..d.matches)
                        .filter(|i| *i as usize % threads == t)
                        .map(|i| {
                            let (seed, bots) = match_seeds(d.seed, i);
                            play_match(
                                &d.rules,
                                d.mode,
                                seed,
                                rotated(d.lineup, i),
                                bots,
                                d.max_turns,
                            )
                            .map(|r| (i, r))
                        })
                        .collect::<Result<Vec<_>, _>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a duel worker panicked"))
            .collect()
    });
    let mut runs = Vec::with_capacity(d.matches as usize);
    for r in results {
        runs.extend(r?);
    }
    runs.sort_by_key(|(i, _)| *i);
    let runs: Vec<MatchRun> = runs.into_iter().map(|(_, r)| r).collect();

    let mut kinds: Vec<BotKind> = Vec::new();
    for k in d.lineup {
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    let shares = kinds
        .into_iter()
        .map(|kind| {
            let seats = d.lineup.iter().filter(|&&k| k == kind).count();
            let (mut firsts, mut total, mut n) = (0.0f64, 0i64, 0u64);
            let mut times = Vec::new();
            for run in &runs {
                let winners = run.end.standings.iter().filter(|s| s.place == 1).count();
                for st in &run.end.standings {
                    if run.kinds[st.seat.index()] != kind {
                        continue;
                    }
                    if st.place == 1 {
                        firsts += 1.0 / winners as f64;
                    }
                    total += st.total;
                    n += 1;
                }
                for s in Seat::ALL {
                    if run.kinds[s.index()] == kind {
                        times.extend_from_slice(&run.choose_ns[s.index()]);
                    }
                }
            }
            LevelShare {
                kind,
                seats,
                firsts,
                share: if d.matches == 0 {
                    0.0
                } else {
                    firsts / d.matches as f64
                },
                ci95: wilson_interval(firsts, d.matches),
                fair_share: seats as f64 / 4.0,
                mean_total: total as f64 / n.max(1) as f64,
                choose: TimeStats::of(times),
            }
        })
        .collect();
    Ok((runs, shares))
}

#[cfg(test)]
mod tests {
    use super::*;
    use BotKind::{Expert as E, Greedy as G, Random as R};

    #[test]
    fn lineups_rotate_one_seat_per_match() {
        assert_eq!(rotated([E, G, G, G], 0), [E, G, G, G]);
        assert_eq!(rotated([E, G, G, G], 1), [G, E, G, G]);
        assert_eq!(rotated([E, G, R, G], 2), [R, G, E, G]);
        assert_eq!(rotated([E, G, G, G], 7), [G, G, G, E]);
    }

    #[test]
    fn wilson_interval_known_values() {
        // 45 of 100: Wilson 95 % interval 0.3560..0.5475.
        let (lo, hi) = wilson_interval(45.0, 100);
        assert!((lo - 0.3560).abs() < 1e-3, "{lo}");
        assert!((hi - 0.5475).abs() < 1e-3, "{hi}");
        // 0 of 20: lower bound 0, upper 0.1611.
        let (lo, hi) = wilson_interval(0.0, 20);
        assert!(lo < 1e-12, "{lo}");
        assert!((hi - 0.1611).abs() < 1e-3, "{hi}");
        assert_eq!(wilson_interval(3.0, 0), (0.0, 1.0));
    }
}
