//! Bot players: strategies that choose a legal turn plan (RULES.md rule 4.3) for the
//! seat to move, using the rules engine.
//!
//! * [`RandomBot`]: a random legal plan ([`engine::legal::random_plan`]).
//! * [`GreedyBot`]: plays every plan of a de-duplicated candidate set on the position
//!   and keeps the best under a heuristic ([`Weights`]): own total against the
//!   opponents' (captures, midpoint, Home, blockade penalties are all in the totals),
//!   guardians out of the Yard, progress toward the midpoint and Home, and the expected
//!   loss to captures before the next turn (a lone royal or guardian on a ring tile
//!   that an opponent unit of strength ≥ 2 can reach; forts, the own entry and the home
//!   path are safe).
//! * [`MixedBot`]: the greedy plan on some turns, a random legal plan on the others
//!   (the `beginner` and `casual` levels).
//! * [`ExpertBot`]: Monte Carlo search with determinised dice over the greedy bot's
//!   best candidates (the `expert` level), bounded by a node budget and optionally a
//!   wall-clock budget ([`ExpertConfig`]); in clash it values the rollouts' ends by
//!   [`projection`], a table of the points pieces gain until the end of a match,
//!   learned from greedy matches.
//! * [`simulate`]: whole matches of greedy against random bots with [`engine::Match`];
//!   [`duel_levels`]: any lineup of levels, with first-place shares and 95 % intervals.
//! * [`PublishedRatings`]: the levels' Weng-Lin ratings from bot-vs-bot matches, as
//!   `bot-duel --ratings-out` writes them to `crates/bot/ratings.json` ([`RATINGS_JSON`]),
//!   which the server's leaderboard shows.
//!
//! Every strategy is deterministic for its seed, pure (no IO; no clock, except the
//! expert's optional wall-clock budget) and `Send`, so a server can keep a
//! `Box<dyn Strategy + Send>` per bot seat and call it from the room's task (or, for
//! the expert, from a blocking thread pool). Every plan a strategy returns is legal for the position it was given
//! ([`legal_or_pass`] checks it and falls back to the pass, rule 4.4).
//!
//! ```
//! use bot::{new_bot, BotKind};
//! use engine::{Mode, Position, RuleSet};
//! let rules = RuleSet::default();
//! let pos = Position::start(Mode::Clash, rules.start_exit_credits);
//! let mut greedy = new_bot(BotKind::Greedy, 7);
//! let plan = greedy.choose(&pos, &rules);
//! assert!(pos.validate(&rules, &plan).is_ok());
//! ```

mod candidate;
mod eval;
mod expert;
mod greedy;
mod levels;
mod mixed;
pub mod projection;
mod published;
mod random_bot;
mod rolls;
mod sim;
mod threat;

pub use eval::Weights;
pub use expert::{ExpertBot, ExpertConfig, OwnRoll, SearchStats, DEFAULT_TIME_BUDGET};
pub use greedy::{GreedyBot, GreedyConfig};
pub use levels::{
    duel_levels, level_ratings, rotated, wilson_interval, LevelDuel, LevelRating, LevelShare,
};
pub use mixed::MixedBot;
pub use published::{published_lines, PublishedRating, PublishedRatings, RATINGS_JSON};
pub use random_bot::RandomBot;
pub use sim::{
    lineup_seats, match_seeds, play_match, play_match_observed, play_match_with, play_spread,
    simulate, DuelConfig, DuelReport, Lineup, MatchRun, SimError, TimeStats, MATCH_TURNS,
};

use engine::{Plan, Position, RuleSet};
use std::fmt;
use std::str::FromStr;

/// A bot player: chooses the plan for the seat to move in `pos`.
///
/// Contract: the returned plan is legal for `pos` under `rules` (rule 4.5), and is the
/// pass when the match is over (`pos.to_move()` is `None`). Implementations do no IO
/// and read no clock (except [`ExpertBot`] with a wall-clock budget); any randomness
/// comes from the bot's own seeded generator.
pub trait Strategy {
    /// The plan for the seat to move in `pos`.
    fn choose(&mut self, pos: &Position, rules: &RuleSet) -> Plan;
}

/// The kinds of bot the server can seat: the four levels players choose from
/// (`beginner`, `casual`, `greedy`, `expert`, weakest first) and `random`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BotKind {
    /// [`RandomBot`]: a random legal plan every turn.
    Random,
    /// [`MixedBot`] playing greedily on 1 turn in 4.
    Beginner,
    /// [`MixedBot`] playing greedily on 3 turns in 4.
    Casual,
    /// [`GreedyBot`].
    Greedy,
    /// [`ExpertBot`] with its default node budget.
    Expert,
}

impl BotKind {
    /// Every kind.
    pub const ALL: [BotKind; 5] = [
        BotKind::Random,
        BotKind::Beginner,
        BotKind::Casual,
        BotKind::Greedy,
        BotKind::Expert,
    ];

    /// The four levels players choose from, weakest first.
    pub const LEVELS: [BotKind; 4] = [
        BotKind::Beginner,
        BotKind::Casual,
        BotKind::Greedy,
        BotKind::Expert,
    ];

    /// `"random"`, `"beginner"`, `"casual"`, `"greedy"` or `"expert"`.
    pub const fn name(self) -> &'static str {
        match self {
            BotKind::Random => "random",
            BotKind::Beginner => "beginner",
            BotKind::Casual => "casual",
            BotKind::Greedy => "greedy",
            BotKind::Expert => "expert",
        }
    }

    /// True for the kinds whose decision takes long enough (milliseconds) that a
    /// server should run it off its event loop: [`BotKind::Expert`].
    pub const fn searches(self) -> bool {
        matches!(self, BotKind::Expert)
    }
}

impl fmt::Display for BotKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A bot kind name that is none of [`BotKind::name`]'s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown bot kind {0:?}: expected random, beginner, casual, greedy or expert")]
pub struct UnknownBotKind(pub String);

impl FromStr for BotKind {
    type Err = UnknownBotKind;
    fn from_str(s: &str) -> Result<Self, UnknownBotKind> {
        BotKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| UnknownBotKind(s.to_string()))
    }
}

/// A new bot of `kind` whose generator is seeded with `seed`, ready to be kept per seat.
/// An expert gets the default node budget and no wall-clock budget (deterministic);
/// see [`new_bot_with_budget`].
pub fn new_bot(kind: BotKind, seed: u64) -> Box<dyn Strategy + Send> {
    new_bot_with_budget(kind, seed, None)
}

/// [`new_bot`], with the expert's search also bounded by `time_budget` (wall clock
/// per decision; the server passes its configured budget, 20 ms by default). The
/// other kinds ignore it.
pub fn new_bot_with_budget(
    kind: BotKind,
    seed: u64,
    time_budget: Option<std::time::Duration>,
) -> Box<dyn Strategy + Send> {
    match kind {
        BotKind::Random => Box::new(RandomBot::new(seed)),
        BotKind::Beginner => Box::new(MixedBot::new(seed, 250)),
        BotKind::Casual => Box::new(MixedBot::new(seed, 750)),
        BotKind::Greedy => Box::new(GreedyBot::new(seed)),
        BotKind::Expert => Box::new(ExpertBot::with_config(
            seed,
            ExpertConfig {
                time_budget,
                ..ExpertConfig::default()
            },
        )),
    }
}

/// One-shot choice: a fresh bot of `kind` seeded with `seed` chooses the plan for `pos`.
/// Prefer [`new_bot`] for a seat that plays many turns.
pub fn choose_plan(kind: BotKind, pos: &Position, rules: &RuleSet, seed: u64) -> Plan {
    new_bot(kind, seed).choose(pos, rules)
}

/// `plan` when it is legal for `pos` (rule 4.5), otherwise the pass (always legal,
/// rule 4.4).
pub fn legal_or_pass(pos: &Position, rules: &RuleSet, plan: Plan) -> Plan {
    match pos.validate(rules, &plan) {
        Ok(_) => plan,
        Err(_) => Plan::pass(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Direction, Mode, PieceId};

    #[test]
    fn kinds_parse_and_print() {
        for k in BotKind::ALL {
            assert_eq!(k.name().parse::<BotKind>().unwrap(), k);
            assert_eq!(k.to_string(), k.name());
        }
        assert_eq!(
            "smart".parse::<BotKind>(),
            Err(UnknownBotKind("smart".into()))
        );
    }

    #[test]
    fn illegal_plans_become_the_pass() {
        let rules = RuleSet::default();
        let pos = Position::start(Mode::Journey, 2);
        // G1 is in the Yard and not exited: piece_in_yard (rule 4.5).
        let bad = Plan::new(Direction::Forward).mv(PieceId::G1, &[3]);
        assert_eq!(legal_or_pass(&pos, &rules, bad), Plan::pass());
        let good = Plan::new(Direction::Forward).exit(PieceId::G1);
        assert_eq!(legal_or_pass(&pos, &rules, good.clone()), good);
    }

    #[test]
    fn bots_are_send() {
        fn send<T: Send>(_: &T) {}
        send(&new_bot(BotKind::Greedy, 1));
        send(&new_bot(BotKind::Random, 1));
    }

    #[test]
    fn same_seed_same_plan() {
        let rules = RuleSet::default();
        let pos = Position::from_json(
            r#"{"mode":"clash","to_move":"red","seats":{"red":{
            "pieces":{"G1":"ring:20","G2":"ring:30","R":"ring:17"},"rolls":[1,4,6,2],"exit_credits":1}}}"#,
        )
        .unwrap();
        for k in BotKind::ALL {
            assert_eq!(
                choose_plan(k, &pos, &rules, 42),
                choose_plan(k, &pos, &rules, 42),
                "{k}"
            );
        }
    }

    #[test]
    fn over_match_gives_the_pass() {
        let rules = RuleSet::default();
        let pos = Position::from_json(r#"{"mode":"clash","to_move":null}"#).unwrap();
        for k in BotKind::ALL {
            assert_eq!(choose_plan(k, &pos, &rules, 3), Plan::pass(), "{k}");
        }
    }
}
