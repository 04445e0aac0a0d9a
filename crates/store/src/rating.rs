//! Skill ratings for four-seat free-for-all results: the Weng-Lin Bayesian
//! approximation (OpenSkill's Bradley-Terry full-pairing model) of the
//! [`skillratings`] crate, one rating per player and mode.
//!
//! **Scale.** OpenSkill's: a rating is a normal belief over a player's skill, mean
//! `mu` and standard deviation `sigma`, in skill points. A new player has `mu = 25`
//! and `sigma = 25/3 ≈ 8.333`; the *conservative* rating `mu − 3·sigma` (0 for a new
//! player) is what the leaderboard ranks by, so a player climbs by playing and
//! winning, not by one lucky match. `beta` (the skill difference that gives a ~67 %
//! chance to place above) is the crate's default 25/6.
//!
//! **Who is rated.** Only human seats (a stored player, not a bot). A seat whose
//! player left the match stays a human seat and ranks below every seat that stayed.
//! A match with fewer than two human players rates nothing. Bots take no part: the
//! humans are ranked among themselves by their places; equal places are a tie.

use serde::{Deserialize, Serialize};
use skillratings::weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating};
use skillratings::MultiTeamOutcome;
use uuid::Uuid;

/// A skill rating (see the module documentation for the scale).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// Estimated skill, skill points (a new player: 25).
    pub mu: f64,
    /// Uncertainty of `mu`: its standard deviation, skill points (a new player:
    /// 25/3 ≈ 8.333; it shrinks as the player plays).
    pub sigma: f64,
    /// The conservative rating `mu − 3·sigma`, skill points (a new player: 0); the
    /// leaderboard ranks by it.
    pub conservative: f64,
}

impl Rating {
    /// The rating of a player who has played no rated match of the mode.
    pub fn initial() -> Rating {
        let r = WengLinRating::new();
        Rating::new(r.rating, r.uncertainty)
    }

    /// The rating with mean `mu` and standard deviation `sigma` (skill points).
    pub fn new(mu: f64, sigma: f64) -> Rating {
        Rating {
            mu,
            sigma,
            conservative: mu - 3.0 * sigma,
        }
    }
}

/// How one match changed one player's rating.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatingChange {
    /// The player's rating in the match's mode before the match.
    pub before: Rating,
    /// The rating after the match.
    pub after: Rating,
    /// `after.conservative − before.conservative`, skill points (what the player
    /// gained on the leaderboard; may be negative).
    pub change: f64,
}

impl RatingChange {
    /// The change from `before` to `after`.
    pub fn new(before: Rating, after: Rating) -> RatingChange {
        RatingChange {
            before,
            after,
            change: after.conservative - before.conservative,
        }
    }
}

/// One seat of an ended match as the rating sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RatedSeat {
    /// The human player in the seat; `None` for a bot.
    pub player_id: Option<Uuid>,
    /// True when a bot plays the seat from the start.
    pub is_bot: bool,
    /// Final place (rule 9.2), 1 = best; equal places share it.
    pub place: u8,
    /// The seat's player left the match: it ranks below every seat that stayed.
    pub left: bool,
}

/// The seats of `seats` that are rated, with their rank among the rated seats (1 =
/// best; ties share a rank): human seats ordered by (left, place). Empty when fewer
/// than two distinct human players sat in the match. A player found in two seats is
/// rated once, for its first seat.
pub fn rated_ranks(seats: &[RatedSeat]) -> Vec<(usize, Uuid, u32)> {
    let mut humans: Vec<(usize, Uuid, (bool, u8))> = Vec::new();
    for (i, s) in seats.iter().enumerate() {
        match s.player_id {
            Some(p) if !s.is_bot && !humans.iter().any(|h| h.1 == p) => {
                humans.push((i, p, (s.left, s.place)));
            }
            _ => {}
        }
    }
    if humans.len() < 2 {
        return Vec::new();
    }
    let mut keys: Vec<(bool, u8)> = humans.iter().map(|h| h.2).collect();
    keys.sort_unstable();
    keys.dedup();
    humans
        .into_iter()
        .map(|(i, p, key)| {
            let rank = keys.iter().position(|k| *k == key).unwrap_or(0) as u32 + 1;
            (i, p, rank)
        })
        .collect()
}

/// The new ratings of free-for-all players, given each one's rating before the
/// match and rank (1 = best, equal ranks tie), in the same order. Each player is a
/// one-player team of the crate's multi-team Weng-Lin update.
pub fn rate(players: &[(Rating, u32)]) -> Vec<Rating> {
    let teams: Vec<[WengLinRating; 1]> = players
        .iter()
        .map(|(r, _)| {
            [WengLinRating {
                rating: r.mu,
                uncertainty: r.sigma,
            }]
        })
        .collect();
    let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(players)
        .map(|(t, (_, rank))| (&t[..], MultiTeamOutcome::new(*rank as usize)))
        .collect();
    weng_lin_multi_team(&input, &WengLinConfig::new())
        .into_iter()
        .map(|team| {
            let r = team[0];
            Rating::new(r.rating, r.uncertainty)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// Three new players placed 2nd, 1st, 3rd: the middle keeps its mean, the winner
    /// gains what the last loses, and everyone's uncertainty shrinks.
    #[test]
    fn a_free_for_all_of_equals_is_symmetric() {
        let r = rate(&[
            (Rating::initial(), 2),
            (Rating::initial(), 1),
            (Rating::initial(), 3),
        ]);
        assert!(close(r[0].mu, 25.0), "{r:?}");
        assert!(r[1].mu > 25.0 && r[2].mu < 25.0);
        assert!(close(r[1].mu - 25.0, 25.0 - r[2].mu));
        assert!(r.iter().all(|x| x.sigma < 25.0 / 3.0));
        assert!(r
            .iter()
            .all(|x| close(x.conservative, x.mu - 3.0 * x.sigma)));
    }

    /// The crate's published two-player example (`weng_lin` docs, skillratings
    /// 0.28): 42 ± 1.3 beats 25 ± 8.333, giving 42.03 ± 1.30 and 23.91 ± 8.03
    /// (rounded to 0.01, as published). Two rated seats are that game.
    #[test]
    fn matches_the_crates_published_two_player_example() {
        let r = rate(&[(Rating::new(42.0, 1.3), 1), (Rating::initial(), 2)]);
        let round = |x: f64| (x * 100.0).round() / 100.0;
        assert_eq!(round(r[0].mu), 42.03);
        assert_eq!(round(r[0].sigma), 1.30);
        assert_eq!(round(r[1].mu), 23.91);
        assert_eq!(round(r[1].sigma), 8.03);
    }

    #[test]
    fn a_tie_between_equals_changes_no_mean() {
        let r = rate(&[(Rating::initial(), 1), (Rating::initial(), 1)]);
        assert!(close(r[0].mu, 25.0) && close(r[1].mu, 25.0), "{r:?}");
        assert!(close(r[0].sigma, r[1].sigma));
    }

    fn seat(player: Option<u128>, is_bot: bool, place: u8, left: bool) -> RatedSeat {
        RatedSeat {
            player_id: player.map(Uuid::from_u128),
            is_bot,
            place,
            left,
        }
    }

    #[test]
    fn humans_are_ranked_among_themselves_and_leavers_last() {
        // A bot wins; humans 1 and 2 tie; human 3 left (place 4 after the stayers).
        let seats = [
            seat(None, true, 1, false),
            seat(Some(1), false, 2, false),
            seat(Some(2), false, 2, false),
            seat(Some(3), false, 4, true),
        ];
        let r = rated_ranks(&seats);
        let ranks: Vec<(usize, u32)> = r.iter().map(|(i, _, k)| (*i, *k)).collect();
        assert_eq!(ranks, vec![(1, 1), (2, 1), (3, 2)]);
        // A leaver ranks last even when its stored place were better.
        let seats = [
            seat(Some(1), false, 1, true),
            seat(Some(2), false, 2, false),
            seat(None, true, 3, false),
            seat(None, true, 4, false),
        ];
        let ranks: Vec<u32> = rated_ranks(&seats).iter().map(|x| x.2).collect();
        assert_eq!(ranks, vec![2, 1]);
    }

    #[test]
    fn fewer_than_two_humans_rate_nothing() {
        let one = [
            seat(Some(1), false, 1, false),
            seat(None, true, 2, false),
            seat(None, true, 3, false),
            seat(None, true, 4, false),
        ];
        assert!(rated_ranks(&one).is_empty());
        // The same player twice is one human.
        let twice = [
            seat(Some(1), false, 1, false),
            seat(Some(1), false, 2, false),
            seat(None, true, 3, false),
            seat(None, true, 4, false),
        ];
        assert!(rated_ranks(&twice).is_empty());
    }
}
