//! Turn plans (rule 4.3, §11 notation), their validation (rule 4.5) and the stable
//! error codes.

use crate::board::{Direction, Location, PieceId, Seat};
use crate::position::{Position, RollStore};
use crate::rules::{RuleSet, MAX_ROLL_STORE};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A turn plan in the §11 notation, as a client submits it (not yet validated).
/// Piece names and numbers are kept as given so that a bad one is reported with its
/// own error code (`unknown_piece`, `roll_not_in_store`, `royal_steps_out_of_range`)
/// rather than as a parse error.
///
/// `{"direction": "backward", "exits": ["G3"], "moves": {"G1": [3, 3, 5]}, "royal": 4, "royal_first": false}`
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// Rule 4.3: direction of every ring move this turn (default forward).
    #[serde(default)]
    pub direction: Direction,
    /// Rule 4.3: guardians (`"G1"`..`"G4"`) to bring out of the Yard, one exit credit each.
    #[serde(default)]
    pub exits: Vec<String>,
    /// Rule 4.3: roll values from the store per guardian; the guardian moves by their sum (steps).
    #[serde(default)]
    pub moves: BTreeMap<String, Vec<i64>>,
    /// Rule 4.3: royal steps, 1..=`royal_max_steps` (default 8); absent = the royal stays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub royal: Option<i64>,
    /// Rule 5.1: the royal moves before the guardians when true (default false).
    #[serde(default)]
    pub royal_first: bool,
}

impl Plan {
    /// Rule 4.4: the pass (no exits, no moves, no royal).
    pub fn pass() -> Plan {
        Plan::default()
    }

    /// True when this plan is a pass (rule 4.4).
    pub fn is_pass(&self) -> bool {
        self.exits.is_empty() && self.moves.is_empty() && self.royal.is_none()
    }

    /// A plan in `direction` with nothing in it yet.
    pub fn new(direction: Direction) -> Plan {
        Plan {
            direction,
            ..Plan::default()
        }
    }

    /// Adds guardian `g` to the exits.
    pub fn exit(mut self, g: PieceId) -> Plan {
        self.exits.push(g.name().to_string());
        self
    }

    /// Gives guardian `g` the roll values `rolls`.
    pub fn mv(mut self, g: PieceId, rolls: &[u8]) -> Plan {
        self.moves.insert(
            g.name().to_string(),
            rolls.iter().map(|&r| r as i64).collect(),
        );
        self
    }

    /// Moves the royal `steps` steps, first or last.
    pub fn royal(mut self, steps: u8, first: bool) -> Plan {
        self.royal = Some(steps as i64);
        self.royal_first = first;
        self
    }

    /// Parses a plan from JSON; anything malformed is `invalid_plan`.
    pub fn from_json(json: &str) -> Result<Plan, PlanError> {
        serde_json::from_str(json).map_err(|e| PlanError::InvalidPlan(e.to_string()))
    }

    /// Parses a plan from a JSON value; anything malformed is `invalid_plan`.
    pub fn from_value(v: serde_json::Value) -> Result<Plan, PlanError> {
        serde_json::from_value(v).map_err(|e| PlanError::InvalidPlan(e.to_string()))
    }
}

impl Plan {
    /// The canonical form of this plan, which decides when two plans are the same
    /// plan (as [`crate::legal::legal_plans`] counts them): exits sorted (`G1` before
    /// `G2` …), each move list sorted ascending, `royal_first` false when the royal
    /// does not move, and `direction` forward when the plan has no move list and no
    /// royal move (a pass or exits only: rule 4.3's direction applies to ring moves,
    /// and exits are resolved in guardian order whatever the plan lists, rule 5.2.1).
    ///
    /// A plan and its canonical form are either both rejected with the same
    /// [`ErrorCode`], or both accepted and resolved to the same position and events
    /// (a guardian moves by the sum of its rolls, rule 4.3).
    pub fn canonical(&self) -> Plan {
        let mut c = self.clone();
        c.exits.sort();
        for rolls in c.moves.values_mut() {
            rolls.sort_unstable();
        }
        if c.royal.is_none() {
            c.royal_first = false;
            if c.moves.is_empty() {
                c.direction = Direction::Forward;
            }
        }
        c
    }
}

/// Every stable error code of the engine, as `snake_case` strings: the plan errors of
/// rule 4.5 ([`PlanError::code`]), `invalid_position` ([`PositionError::code`]), and
/// the submission errors of a [`Match`](crate::Match) (`not_your_turn`, `stale_turn`,
/// `match_over`; [`MatchError::code`](crate::MatchError::code)).
///
/// [`PositionError::code`]: crate::PositionError::code
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The plan is not from the seat to move (rule 4.5).
    NotYourTurn,
    /// The plan names a turn number other than the current turn's: it arrived late,
    /// was sent twice, or names a turn that has not started. Checked before the seat,
    /// so a late plan of the previous seat is `stale_turn`, not `not_your_turn`.
    StaleTurn,
    /// The match is over (every seat finished, or the match clock ran out).
    MatchOver,
    /// A piece name is not `G1`..`G4` (the royal never takes rolls or exits).
    UnknownPiece,
    /// A moved guardian is in the Yard and not exited in the same plan.
    PieceInYard,
    /// A moved guardian is at Home.
    PieceAtHome,
    /// An exited guardian is not in the Yard.
    NotInYard,
    /// More exits than exit credits.
    NotEnoughExitCredits,
    /// A roll value is not in the store (counting repeats).
    RollNotInStore,
    /// A guardian's move list is empty.
    EmptyMove,
    /// Royal steps outside 1..=`royal_max_steps`.
    RoyalStepsOutOfRange,
    /// The royal is at Home and cannot move.
    RoyalAtHome,
    /// A malformed position.
    InvalidPosition,
    /// A malformed plan (bad JSON shape, unknown field, a guardian named twice in `exits`, …).
    InvalidPlan,
}

impl ErrorCode {
    /// The code as its stable string.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NotYourTurn => "not_your_turn",
            ErrorCode::StaleTurn => "stale_turn",
            ErrorCode::MatchOver => "match_over",
            ErrorCode::UnknownPiece => "unknown_piece",
            ErrorCode::PieceInYard => "piece_in_yard",
            ErrorCode::PieceAtHome => "piece_at_home",
            ErrorCode::NotInYard => "not_in_yard",
            ErrorCode::NotEnoughExitCredits => "not_enough_exit_credits",
            ErrorCode::RollNotInStore => "roll_not_in_store",
            ErrorCode::EmptyMove => "empty_move",
            ErrorCode::RoyalStepsOutOfRange => "royal_steps_out_of_range",
            ErrorCode::RoyalAtHome => "royal_at_home",
            ErrorCode::InvalidPosition => "invalid_position",
            ErrorCode::InvalidPlan => "invalid_plan",
        }
    }
}

/// Rule 4.5: why a plan was rejected for the seat to move of a [`Position`]. A
/// rejected plan changes nothing. (Whose turn it is and which turn number is current
/// are checked by [`Match::submit`](crate::Match::submit), which answers
/// [`MatchError`](crate::MatchError)s; a position has no notion of the submitter.)
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// `match_over`: the position has no seat to move (rule 4.7).
    #[error("match_over: the match is over")]
    MatchOver,
    /// `unknown_piece`.
    #[error("unknown_piece: {0:?} is not a guardian G1..G4 (the royal takes no rolls and needs no exit)")]
    UnknownPiece(String),
    /// `not_in_yard`.
    #[error("not_in_yard: {0} is not in the yard and cannot exit")]
    NotInYard(PieceId),
    /// `not_enough_exit_credits`.
    #[error("not_enough_exit_credits: {needed} exits need {needed} exit credits, {held} held")]
    NotEnoughExitCredits {
        /// Exits asked for.
        needed: usize,
        /// Exit credits held.
        held: u32,
    },
    /// `piece_in_yard`.
    #[error("piece_in_yard: {0} is in the yard; exit it in the same plan to move it")]
    PieceInYard(PieceId),
    /// `piece_at_home`.
    #[error("piece_at_home: {0} is at home and never moves again")]
    PieceAtHome(PieceId),
    /// `empty_move`.
    #[error("empty_move: the move list of {0} is empty")]
    EmptyMove(PieceId),
    /// `roll_not_in_store`.
    #[error("roll_not_in_store: the plan uses {value} {used} time(s) but the store holds it {held} time(s)")]
    RollNotInStore {
        /// The roll value.
        value: i64,
        /// How often the plan uses it.
        used: usize,
        /// How often the store holds it.
        held: usize,
    },
    /// `royal_steps_out_of_range`.
    #[error("royal_steps_out_of_range: royal steps must be 1..={max}, got {got}")]
    RoyalStepsOutOfRange {
        /// Steps asked for.
        got: i64,
        /// `royal_max_steps`.
        max: u8,
    },
    /// `royal_at_home`.
    #[error("royal_at_home: the royal is at home and never moves again")]
    RoyalAtHome,
    /// `invalid_plan`.
    #[error("invalid_plan: {0}")]
    InvalidPlan(String),
}

impl PlanError {
    /// The stable error code.
    pub fn code(&self) -> ErrorCode {
        match self {
            PlanError::MatchOver => ErrorCode::MatchOver,
            PlanError::UnknownPiece(_) => ErrorCode::UnknownPiece,
            PlanError::NotInYard(_) => ErrorCode::NotInYard,
            PlanError::NotEnoughExitCredits { .. } => ErrorCode::NotEnoughExitCredits,
            PlanError::PieceInYard(_) => ErrorCode::PieceInYard,
            PlanError::PieceAtHome(_) => ErrorCode::PieceAtHome,
            PlanError::EmptyMove(_) => ErrorCode::EmptyMove,
            PlanError::RollNotInStore { .. } => ErrorCode::RollNotInStore,
            PlanError::RoyalStepsOutOfRange { .. } => ErrorCode::RoyalStepsOutOfRange,
            PlanError::RoyalAtHome => ErrorCode::RoyalAtHome,
            PlanError::InvalidPlan(_) => ErrorCode::InvalidPlan,
        }
    }
}

/// A plan that [`Position::validate`] accepted for one position (rule 4.5), in compact
/// form. Its fields are private: the only way to get one is to validate a [`Plan`],
/// so holding a `ValidPlan` means "this plan passed every check of rule 4.5 on the
/// position it was validated on". Resolve it with [`Position::play_unchecked`] on that
/// same position (the "unchecked" names the one thing the type cannot carry: which
/// position it belongs to).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValidPlan {
    seat: Seat,
    direction: Direction,
    exits: u8,
    steps: [u16; 4],
    used: RollStore,
    royal: Option<u8>,
    royal_first: bool,
}

impl ValidPlan {
    /// The seat the plan was validated for (the position's seat to move).
    pub fn seat(&self) -> Seat {
        self.seat
    }
    /// Rule 4.3: the direction of every ring move.
    pub fn direction(&self) -> Direction {
        self.direction
    }
    /// Rule 4.3: whether guardian `g` exits the Yard (always false for the royal).
    pub fn exits(&self, g: PieceId) -> bool {
        !g.is_royal() && self.exits & (1 << g.index()) != 0
    }
    /// Number of exits, one exit credit each (rule 4.3).
    pub fn exit_count(&self) -> u32 {
        self.exits.count_ones()
    }
    /// Rule 4.3: the steps guardian `g` moves (the sum of its rolls), 0 for no move
    /// (and always 0 for the royal, which takes no rolls).
    pub fn steps(&self, g: PieceId) -> u16 {
        if g.is_royal() {
            0
        } else {
            self.steps[g.index()]
        }
    }
    /// The rolls the plan uses, which leave the store (rule 4.3).
    pub fn used(&self) -> &RollStore {
        &self.used
    }
    /// Rule 4.3: the royal's steps (1..=`royal_max_steps`), if it moves.
    pub fn royal(&self) -> Option<u8> {
        self.royal
    }
    /// Rule 5.1: whether the royal moves before the guardians.
    pub fn royal_first(&self) -> bool {
        self.royal_first
    }
    pub(crate) fn all_steps(&self) -> [u16; 4] {
        self.steps
    }
}

fn guardian(name: &str) -> Result<PieceId, PlanError> {
    match name.parse::<PieceId>() {
        Ok(p) if !p.is_royal() => Ok(p),
        _ => Err(PlanError::UnknownPiece(name.to_string())),
    }
}

impl Position {
    /// Rule 4.5: checks `plan` for the seat to move, in the documented order
    /// (`match_over`, `unknown_piece`, `not_in_yard`, `not_enough_exit_credits`,
    /// `piece_in_yard`, `piece_at_home`, `empty_move`, `roll_not_in_store`,
    /// `royal_steps_out_of_range`, `royal_at_home`; each over G1..G4 before the next).
    /// A guardian named twice in `exits` is `invalid_plan`.
    ///
    /// This is the checked half of [`Position::play`]: play the returned [`ValidPlan`]
    /// with [`Position::play_unchecked`] on this same position. Nothing changes here.
    pub fn validate(&self, rules: &RuleSet, plan: &Plan) -> Result<ValidPlan, PlanError> {
        self.to_move.ok_or(PlanError::MatchOver)?;
        // unknown_piece, exits first, then moves
        let mut exits = 0u8;
        for name in &plan.exits {
            let g = guardian(name)?;
            if exits & (1 << g.index()) != 0 {
                return Err(PlanError::InvalidPlan(format!(
                    "{g} is named twice in exits"
                )));
            }
            exits |= 1 << g.index();
        }
        let mut moves: [Option<&[i64]>; 4] = [None; 4];
        for (name, rolls) in &plan.moves {
            moves[guardian(name)?.index()] = Some(rolls);
        }
        self.validate_parts(
            rules,
            plan.direction,
            exits,
            moves,
            plan.royal,
            plan.royal_first,
        )
    }

    /// Rule 4.5 for a plan in compact form, as a search builds it: the same checks,
    /// errors and result as [`Position::validate`] of the [`Plan`] with these parts,
    /// without piece names to parse (so no `unknown_piece`) and without allocating.
    ///
    /// - `exits`: bit `i` set when guardian `G{i+1}` exits (bits 4..=7 must be clear,
    ///   else `invalid_plan`);
    /// - `moves[i]`: the roll values guardian `G{i+1}` moves by (their sum, in steps);
    ///   an empty slice is no move (so never `empty_move`);
    /// - `royal`: the royal's steps, if it moves; `royal_first`: rule 5.1.
    pub fn validate_compact(
        &self,
        rules: &RuleSet,
        direction: Direction,
        exits: u8,
        moves: [&[u8]; 4],
        royal: Option<u8>,
        royal_first: bool,
    ) -> Result<ValidPlan, PlanError> {
        self.to_move.ok_or(PlanError::MatchOver)?;
        if exits & 0xF0 != 0 {
            return Err(PlanError::InvalidPlan(format!(
                "exit bits {exits:#010b} name no guardian"
            )));
        }
        let moves = moves.map(|m| (!m.is_empty()).then_some(m));
        self.validate_parts(
            rules,
            direction,
            exits,
            moves,
            royal.map(i64::from),
            royal_first,
        )
    }

    /// The checks of rule 4.5 after the names are resolved (shared by
    /// [`Position::validate`] and [`Position::validate_compact`]); `moves[i]` is
    /// `None` when guardian `G{i+1}` has no move list.
    fn validate_parts<V: Copy + Into<i64>>(
        &self,
        rules: &RuleSet,
        direction: Direction,
        exits: u8,
        moves: [Option<&[V]>; 4],
        royal: Option<i64>,
        royal_first: bool,
    ) -> Result<ValidPlan, PlanError> {
        let seat = self.to_move.ok_or(PlanError::MatchOver)?;
        let st = self.seat(seat);
        for g in PieceId::GUARDIANS {
            if exits & (1 << g.index()) != 0 && st.location(g) != Location::Yard {
                return Err(PlanError::NotInYard(g));
            }
        }
        let needed = exits.count_ones() as usize;
        if needed as u32 > st.exit_credits {
            return Err(PlanError::NotEnoughExitCredits {
                needed,
                held: st.exit_credits,
            });
        }
        for g in PieceId::GUARDIANS {
            if moves[g.index()].is_some()
                && st.location(g) == Location::Yard
                && exits & (1 << g.index()) == 0
            {
                return Err(PlanError::PieceInYard(g));
            }
        }
        for g in PieceId::GUARDIANS {
            if moves[g.index()].is_some() && st.location(g) == Location::Home {
                return Err(PlanError::PieceAtHome(g));
            }
        }
        for g in PieceId::GUARDIANS {
            if moves[g.index()].is_some_and(|m| m.is_empty()) {
                return Err(PlanError::EmptyMove(g));
            }
        }
        // roll_not_in_store, counting multiplicity
        let mut used = RollStore::default();
        let mut steps = [0u16; 4];
        for g in PieceId::GUARDIANS {
            for v in moves[g.index()].into_iter().flatten() {
                let v: i64 = (*v).into();
                let held = if (1..=6).contains(&v) {
                    st.rolls.count(v as u8)
                } else {
                    0
                };
                let already = if (1..=6).contains(&v) {
                    used.count(v as u8)
                } else {
                    0
                };
                if already + 1 > held {
                    let total = moves
                        .iter()
                        .flatten()
                        .flat_map(|m| m.iter())
                        .filter(|&&x| x.into() == v)
                        .count();
                    return Err(PlanError::RollNotInStore {
                        value: v,
                        used: total,
                        held,
                    });
                }
                used.push(v as u8, MAX_ROLL_STORE);
                steps[g.index()] += v as u16;
            }
        }
        let royal = match royal {
            None => None,
            Some(r) if r < 1 || r > rules.royal_max_steps as i64 => {
                return Err(PlanError::RoyalStepsOutOfRange {
                    got: r,
                    max: rules.royal_max_steps,
                })
            }
            Some(r) => Some(r as u8),
        };
        if royal.is_some() && st.location(PieceId::R) == Location::Home {
            return Err(PlanError::RoyalAtHome);
        }
        Ok(ValidPlan {
            seat,
            direction,
            exits,
            steps,
            used,
            royal,
            royal_first,
        })
    }
}
