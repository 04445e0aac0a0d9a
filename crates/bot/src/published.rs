//! The bot levels' published ratings: the Weng-Lin ratings `bot-duel` computes from
//! bot-vs-bot matches ([`crate::level_ratings`]), written by
//! `bot-duel --levels … --ratings-out crates/bot/ratings.json` and checked in as
//! `crates/bot/ratings.json`, which the server serves on its leaderboard
//! ([`RATINGS_JSON`] is that file, compiled in).
//!
//! The file is `{"ratings": [...]}`, one [`PublishedRating`] per (mode, level): a
//! duel of one mode replaces that mode's lines and keeps the other mode's.

use crate::{BotKind, LevelDuel, LevelRating};
use engine::Mode;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// `crates/bot/ratings.json`, as compiled into this crate.
pub const RATINGS_JSON: &str = include_str!("../ratings.json");

/// One bot level's rating in one mode, from one `bot-duel` run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedRating {
    /// The mode of the duel's matches (rule 1.4).
    pub mode: Mode,
    /// The bot level rated.
    pub level: BotKind,
    /// Estimated skill μ after the duel's matches (skill points; 25 before any).
    pub mu: f64,
    /// Its standard deviation σ (skill points; 25/3 before any match).
    pub sigma: f64,
    /// Matches of the duel (every level of the lineup played in each).
    pub matches: u32,
    /// The duel's four seats in its first match (they rotate one seat per match).
    pub lineup: [BotKind; 4],
    /// Turns after which a match was ended by its clock (rule 9.1).
    pub turns: u32,
    /// `bot-duel --seed`: seeds the dice and the bots, so the run can be repeated.
    pub seed: u64,
    /// UTC date of the run, `YYYY-MM-DD`.
    pub date: String,
}

impl PublishedRating {
    /// `mu − 3·sigma`, what leaderboards rank by.
    pub fn conservative(&self) -> f64 {
        self.mu - 3.0 * self.sigma
    }
}

/// The contents of a ratings file.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedRatings {
    /// Journey lines first, then clash; in each mode the levels weakest first.
    pub ratings: Vec<PublishedRating>,
}

/// Sort key of a mode in the file: journey, then clash.
fn mode_order(m: Mode) -> u8 {
    match m {
        Mode::Journey => 0,
        Mode::Clash => 1,
    }
}

impl PublishedRatings {
    /// Parses a ratings file.
    ///
    /// Errors: the text is not JSON of this shape (unknown fields are refused).
    pub fn parse(json: &str) -> Result<PublishedRatings, serde_json::Error> {
        serde_json::from_str(json)
    }

    /// The ratings compiled into this crate ([`RATINGS_JSON`]).
    ///
    /// Errors: the checked-in file does not parse (a test of this crate parses it).
    pub fn checked_in() -> Result<PublishedRatings, serde_json::Error> {
        PublishedRatings::parse(RATINGS_JSON)
    }

    /// The file's text: pretty-printed JSON ending in a newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("ratings always serialize");
        s.push('\n');
        s
    }

    /// Replaces every line of `mode` with `lines` (which should all be of `mode`),
    /// keeps the other lines, and sorts: journey then clash, levels weakest first.
    pub fn replace_mode(&mut self, mode: Mode, lines: Vec<PublishedRating>) {
        self.ratings.retain(|r| r.mode != mode);
        self.ratings.extend(lines);
        self.ratings
            .sort_by_key(|r| (mode_order(r.mode), r.level, r.date.clone()));
    }

    /// The lines of `mode`, best first by `mu − 3·sigma` (then weakest level first).
    pub fn ranked(&self, mode: Mode) -> Vec<&PublishedRating> {
        let mut v: Vec<&PublishedRating> = self.ratings.iter().filter(|r| r.mode == mode).collect();
        v.sort_by(|a, b| {
            b.conservative()
                .total_cmp(&a.conservative())
                .then(a.level.cmp(&b.level))
        });
        v
    }
}

/// The lines a duel publishes: one per kind of `ratings` (as [`crate::level_ratings`]
/// returns them for the duel `d`), dated `date` (`YYYY-MM-DD`).
pub fn published_lines(d: &LevelDuel, ratings: &[LevelRating], date: &str) -> Vec<PublishedRating> {
    ratings
        .iter()
        .map(|r| PublishedRating {
            mode: d.mode,
            level: r.kind,
            mu: r.mu,
            sigma: r.sigma,
            matches: d.matches,
            lineup: d.lineup,
            turns: d.max_turns,
            seed: d.seed,
            date: date.to_string(),
        })
        .collect()
}

impl Serialize for BotKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for BotKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<BotKind, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use BotKind::{Beginner, Casual, Expert, Greedy};

    fn line(mode: Mode, level: BotKind, mu: f64, sigma: f64) -> PublishedRating {
        PublishedRating {
            mode,
            level,
            mu,
            sigma,
            matches: 10,
            lineup: [Beginner, Casual, Greedy, Expert],
            turns: 400,
            seed: 1,
            date: "2026-12-06".into(),
        }
    }

    #[test]
    fn the_checked_in_file_parses_and_rates_every_level_in_both_modes() {
        let f = PublishedRatings::checked_in().expect("crates/bot/ratings.json parses");
        for mode in [Mode::Journey, Mode::Clash] {
            let levels: Vec<BotKind> = f
                .ratings
                .iter()
                .filter(|r| r.mode == mode)
                .map(|r| r.level)
                .collect();
            assert_eq!(levels, BotKind::LEVELS.to_vec(), "{mode:?}");
        }
        assert_eq!(f.ratings.len(), 8);
        for r in &f.ratings {
            assert!(
                r.matches > 0 && r.sigma > 0.0 && r.sigma < 25.0 / 3.0,
                "{r:?}"
            );
            assert_eq!(r.date.len(), 10, "{r:?}");
        }
        // The file has the shape `to_json` writes (bot-duel wrote it): the same text
        // but for the last digit of a float (serde_json's float parsing may be 1 ulp
        // off), so the same values once read back.
        let again = f.to_json();
        assert_eq!(again.lines().count(), RATINGS_JSON.lines().count());
        let back = PublishedRatings::parse(&again).unwrap();
        for (a, b) in back.ratings.iter().zip(&f.ratings) {
            assert!((a.mu - b.mu).abs() < 1e-12 && (a.sigma - b.sigma).abs() < 1e-12);
            assert_eq!((a.mode, a.level, a.matches), (b.mode, b.level, b.matches));
        }
    }

    #[test]
    fn a_duel_replaces_only_its_own_mode() {
        let mut f = PublishedRatings::default();
        f.replace_mode(Mode::Clash, vec![line(Mode::Clash, Expert, 30.0, 2.0)]);
        f.replace_mode(
            Mode::Journey,
            vec![
                line(Mode::Journey, Greedy, 28.0, 2.0),
                line(Mode::Journey, Beginner, 5.0, 3.0),
            ],
        );
        f.replace_mode(Mode::Clash, vec![line(Mode::Clash, Casual, 20.0, 2.5)]);
        let got: Vec<(Mode, BotKind)> = f.ratings.iter().map(|r| (r.mode, r.level)).collect();
        assert_eq!(
            got,
            vec![
                (Mode::Journey, Beginner),
                (Mode::Journey, Greedy),
                (Mode::Clash, Casual)
            ]
        );
        let back = PublishedRatings::parse(&f.to_json()).unwrap();
        assert_eq!(back, f, "these floats read back exactly");
    }

    #[test]
    fn ranked_is_best_conservative_first() {
        let f = PublishedRatings {
            ratings: vec![
                line(Mode::Clash, Beginner, 6.0, 3.0),  // -3
                line(Mode::Clash, Greedy, 33.0, 2.0),   // 27
                line(Mode::Clash, Expert, 31.0, 1.0),   // 28
                line(Mode::Journey, Expert, 50.0, 1.0), // other mode
            ],
        };
        let got: Vec<BotKind> = f.ranked(Mode::Clash).iter().map(|r| r.level).collect();
        assert_eq!(got, vec![Expert, Greedy, Beginner]);
    }

    #[test]
    fn unknown_levels_and_fields_are_refused() {
        let ok = line(Mode::Clash, Expert, 30.0, 2.0);
        let mut v = serde_json::to_value(PublishedRatings { ratings: vec![ok] }).unwrap();
        assert_eq!(v["ratings"][0]["level"], "expert");
        assert_eq!(v["ratings"][0]["mode"], "clash");
        v["ratings"][0]["level"] = "grandmaster".into();
        assert!(PublishedRatings::parse(&v.to_string()).is_err());
        v["ratings"][0]["level"] = "expert".into();
        v["ratings"][0]["extra"] = 1.into();
        assert!(PublishedRatings::parse(&v.to_string()).is_err());
    }
}
