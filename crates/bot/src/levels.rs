//! Duels of any lineup of bot kinds: first-place shares with 95 % confidence
//! intervals, and decision times per kind.

use crate::sim::{match_seeds, play_match, play_spread, MatchRun, SimError, TimeStats};
use crate::BotKind;
use engine::{Mode, RuleSet, Seat};
use skillratings::weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating};
use skillratings::MultiTeamOutcome;

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

/// The kinds of match `index` of a duel of `lineup` (seat `(k + index) % 4` gets
/// `lineup[k]`).
pub fn rotated(lineup: [BotKind; 4], index: u32) -> [BotKind; 4] {
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
    let runs = play_spread(d.matches, d.threads, |i| {
        let (seed, bots) = match_seeds(d.seed, i);
        play_match(
            &d.rules,
            d.mode,
            seed,
            rotated(d.lineup, i),
            bots,
            d.max_turns,
        )
    })?;

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

/// A bot kind's skill rating from bot-vs-bot matches: the Weng-Lin system the
/// server rates players with (OpenSkill's Bradley-Terry full-pairing model of the
/// `skillratings` crate, default configuration; a new rating is μ 25, σ 25/3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelRating {
    /// The kind.
    pub kind: BotKind,
    /// Estimated skill μ, skill points.
    pub mu: f64,
    /// Its standard deviation σ, skill points.
    pub sigma: f64,
}

impl LevelRating {
    /// `mu − 3·sigma`, what the leaderboard ranks by.
    pub fn conservative(&self) -> f64 {
        self.mu - 3.0 * self.sigma
    }
}

/// Rates the kinds of `runs` (in order) as the server rates players: every match is
/// a free-for-all of its four seats, ranked by place (equal places tie), each seat a
/// one-player team rated with its kind's current rating. A kind that holds several
/// seats of a match takes the mean of their updated ratings (μ and σ).
pub fn level_ratings(runs: &[MatchRun]) -> Vec<LevelRating> {
    let mut ratings: Vec<LevelRating> = Vec::new();
    for run in runs {
        for k in run.kinds {
            if !ratings.iter().any(|r| r.kind == k) {
                ratings.push(LevelRating {
                    kind: k,
                    mu: WengLinRating::new().rating,
                    sigma: WengLinRating::new().uncertainty,
                });
            }
        }
        let get = |k: BotKind| *ratings.iter().find(|r| r.kind == k).expect("added above");
        let teams: Vec<[WengLinRating; 1]> = Seat::ALL
            .iter()
            .map(|s| {
                let r = get(run.kinds[s.index()]);
                [WengLinRating {
                    rating: r.mu,
                    uncertainty: r.sigma,
                }]
            })
            .collect();
        let place = |s: Seat| {
            run.end
                .standings
                .iter()
                .find(|st| st.seat == s)
                .map_or(4, |st| st.place as usize)
        };
        let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
            .iter()
            .zip(Seat::ALL)
            .map(|(t, s)| (&t[..], MultiTeamOutcome::new(place(s))))
            .collect();
        let after = weng_lin_multi_team(&input, &WengLinConfig::new());
        for r in ratings.iter_mut() {
            let seats: Vec<usize> = (0..4).filter(|&i| run.kinds[i] == r.kind).collect();
            if seats.is_empty() {
                continue;
            }
            let n = seats.len() as f64;
            r.mu = seats.iter().map(|&i| after[i][0].rating).sum::<f64>() / n;
            r.sigma = seats.iter().map(|&i| after[i][0].uncertainty).sum::<f64>() / n;
        }
    }
    ratings
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
    fn the_winning_kind_rates_higher() {
        use engine::{EndReason, MatchEnd, Standing};
        // Expert first, greedy second, random third and fourth, twice.
        let standing = |seat: Seat, place: u8| Standing {
            seat,
            place,
            progress: 0,
            combat: 0,
            bonus: 0,
            total: 0,
            finished: None,
            left: false,
        };
        let run = MatchRun {
            kinds: [E, G, R, R],
            end: MatchEnd {
                reason: EndReason::Clock,
                standings: vec![
                    standing(Seat::Green, 1),
                    standing(Seat::Red, 2),
                    standing(Seat::Blue, 3),
                    standing(Seat::Yellow, 3),
                ],
            },
            turns: 0,
            choose_ns: Default::default(),
        };
        let r = level_ratings(&[run.clone(), run]);
        let get = |k| r.iter().find(|x| x.kind == k).unwrap().mu;
        assert!(get(E) > get(G) && get(G) > get(R), "{r:?}");
        assert!(get(E) > 25.0 && get(R) < 25.0, "{r:?}");
        assert!(r.iter().all(|x| x.sigma < 25.0 / 3.0), "{r:?}");
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
