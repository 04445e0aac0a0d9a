//! The rule set (RULES.md §10): every number the seeds do not fix, in one value.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Rule 1.4: the two modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Progress is rewarded more; completion bonus (rule 8.8).
    Journey,
    /// Combat is rewarded more; no completion bonus.
    Clash,
}

impl Mode {
    /// `"journey"` or `"clash"`.
    pub const fn name(self) -> &'static str {
        match self {
            Mode::Journey => "journey",
            Mode::Clash => "clash",
        }
    }
}

/// A value that differs by mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PerMode<T> {
    /// Value in journey mode.
    pub journey: T,
    /// Value in clash mode.
    pub clash: T,
}

impl<T: Copy> PerMode<T> {
    /// The value for `mode`.
    pub const fn get(&self, mode: Mode) -> T {
        match mode {
            Mode::Journey => self.journey,
            Mode::Clash => self.clash,
        }
    }
}

/// A value that differs between a guardian and the royal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PerPiece {
    /// Points for (or against) a guardian.
    pub guardian: i64,
    /// Points for (or against) the royal.
    pub royal: i64,
}

impl PerPiece {
    /// The value for a royal (`true`) or a guardian.
    pub const fn get(&self, royal: bool) -> i64 {
        if royal {
            self.royal
        } else {
            self.guardian
        }
    }
}

/// Rule 8.5: progress points per checkpoint, for one mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ProgressTable {
    /// The piece's own entry tile (`entry`).
    pub own_entry: PerPiece,
    /// Any fort (`fort:<ring index>`).
    pub fort: PerPiece,
    /// The two other seats' entry tiles that are not the midpoint (`entry:<seat>`).
    pub other_entry: PerPiece,
    /// The midpoint (rule 8.4).
    pub midpoint: PerPiece,
    /// Home (`home`).
    pub home: PerPiece,
}

/// Rule 8.6: combat points for each captured opponent piece (a [`PerPiece`] of the
/// *captured* piece), by where the capturer's royal stands and whether it glows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CombatTable {
    /// Capturer's royal in the Yard, on its own entry, in its home path or Home.
    pub safe: PerPiece,
    /// Capturer's royal on a fort, not glowing.
    pub fort: PerPiece,
    /// Capturer's royal on a fort, glowing.
    pub fort_glowing: PerPiece,
    /// Capturer's royal on any other ring tile, not glowing.
    pub other: PerPiece,
    /// Capturer's royal on any other ring tile, glowing.
    pub other_glowing: PerPiece,
}

/// Rule 10: the whole rule set. `RuleSet::default()` gives the documented defaults.
/// Times are in seconds, steps in tiles, points in points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RuleSet {
    /// Rule 9.1: the match clock, seconds (default 1800).
    pub match_seconds: u32,
    /// Rule 4.6: time for one turn, seconds (default 30).
    pub turn_seconds: u32,
    /// Rule 4.1: dice rolled at each turn start (default 3).
    pub dice_per_turn: u8,
    /// Rule 4.1: most rolls a store holds (default 9; at most [`MAX_ROLL_STORE`]).
    pub roll_store_cap: u8,
    /// Rule 4.2: exit credits each seat starts with (default 2).
    pub start_exit_credits: u8,
    /// Rule 4.1: most exit credits a seat holds (default 4).
    pub exit_credit_cap: u8,
    /// Rule 7.8: exit credits a seat receives after its royal is captured (default 2).
    pub royal_capture_exit_credits: u8,
    /// Rule 4.3: most steps of a royal move (default 8).
    pub royal_max_steps: u8,
    /// Rule 6.5: combat points lost per lost step per blocked piece (journey 5, clash 10).
    pub blockade_penalty_per_step: PerMode<i64>,
    /// Rule 8.8: journey completion bonus by finishing place 1..=4 (400, 300, 200, 100).
    pub completion_bonus: [i64; 4],
    /// Rule 8.5: progress points per checkpoint.
    pub progress: PerMode<ProgressTable>,
    /// Rule 8.6: combat points per captured piece.
    pub combat: PerMode<CombatTable>,
}

/// Largest roll store any rule set may ask for (positions store rolls inline).
pub const MAX_ROLL_STORE: usize = 32;

const fn pp(guardian: i64, royal: i64) -> PerPiece {
    PerPiece { guardian, royal }
}

impl Default for RuleSet {
    fn default() -> Self {
        RuleSet {
            match_seconds: 1800,
            turn_seconds: 30,
            dice_per_turn: 3,
            roll_store_cap: 9,
            start_exit_credits: 2,
            exit_credit_cap: 4,
            royal_capture_exit_credits: 2,
            royal_max_steps: 8,
            blockade_penalty_per_step: PerMode {
                journey: 5,
                clash: 10,
            },
            completion_bonus: [400, 300, 200, 100],
            progress: PerMode {
                journey: ProgressTable {
                    own_entry: pp(10, 20),
                    fort: pp(20, 40),
                    other_entry: pp(20, 40),
                    midpoint: pp(50, 100),
                    home: pp(100, 200),
                },
                clash: ProgressTable {
                    own_entry: pp(10, 20),
                    fort: pp(20, 40),
                    other_entry: pp(20, 40),
                    midpoint: pp(30, 60),
                    home: pp(50, 100),
                },
            },
            combat: PerMode {
                journey: CombatTable {
                    safe: pp(25, 40),
                    fort: pp(35, 55),
                    fort_glowing: pp(55, 80),
                    other: pp(50, 75),
                    other_glowing: pp(75, 110),
                },
                clash: CombatTable {
                    safe: pp(50, 75),
                    fort: pp(75, 110),
                    fort_glowing: pp(110, 165),
                    other: pp(100, 150),
                    other_glowing: pp(150, 225),
                },
            },
        }
    }
}

/// A rule set that cannot be used (see [`RuleSet::check`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid rule set: {0}")]
pub struct InvalidRuleSet(pub String);

impl RuleSet {
    /// Checks the limits the engine relies on: `dice_per_turn` 1..=roll_store_cap,
    /// `roll_store_cap` 1..=[`MAX_ROLL_STORE`], `royal_max_steps` ≥ 1, positive clocks.
    pub fn check(&self) -> Result<(), InvalidRuleSet> {
        let bad = |m: &str| Err(InvalidRuleSet(m.to_string()));
        if self.roll_store_cap == 0 || self.roll_store_cap as usize > MAX_ROLL_STORE {
            return bad("roll_store_cap must be 1..=32");
        }
        if self.dice_per_turn == 0 || self.dice_per_turn > self.roll_store_cap {
            return bad("dice_per_turn must be 1..=roll_store_cap");
        }
        if self.royal_max_steps == 0 {
            return bad("royal_max_steps must be at least 1");
        }
        if self.match_seconds == 0 || self.turn_seconds == 0 {
            return bad("match_seconds and turn_seconds must be positive");
        }
        Ok(())
    }
}
