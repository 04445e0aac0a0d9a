//! Positions: the unvalidated [`Setup`] of the §11 JSON notation and the validated
//! [`Position`] the engine plays on.

use crate::board::{Location, PieceId, Seat};
use crate::checkpoint::{Checkpoint, Record};
use crate::plan::ErrorCode;
use crate::rules::RuleSet;
use crate::rules::{Mode, MAX_ROLL_STORE};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One seat in the §11 notation. On input every field may be left out (a missing
/// piece is in the Yard, lists are empty, numbers are 0, `finished` is null); on
/// output every field is present, all five pieces are named and `total` is given.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatSetup {
    /// Where each piece is (rule 1.3: missing pieces are in the Yard).
    #[serde(default)]
    pub pieces: BTreeMap<PieceId, Location>,
    /// Pieces whose midpoint progress is active (rule 8.4), in the order G1..G4, R.
    #[serde(default)]
    pub glowing: Vec<PieceId>,
    /// The roll store (rule 4.1), oldest first; values 1..=6.
    #[serde(default)]
    pub rolls: Vec<i64>,
    /// Exit credits held (rule 4.1), ≥ 0.
    #[serde(default)]
    pub exit_credits: i64,
    /// Combat points (rule 8.6); may be negative (rule 8.7).
    #[serde(default)]
    pub combat: i64,
    /// Completion bonus (rule 8.8), ≥ 0.
    #[serde(default)]
    pub bonus: i64,
    /// Progress points per piece (rule 8.5), each ≥ 0.
    #[serde(default)]
    pub progress: BTreeMap<PieceId, i64>,
    /// Checkpoints recorded in each piece's current cycle (rule 8.3), sorted as strings.
    #[serde(default)]
    pub scored: BTreeMap<PieceId, Vec<Checkpoint>>,
    /// Finishing place 1..=4 once the seat has finished (rule 8.8), else null.
    #[serde(default)]
    pub finished: Option<u8>,
    /// Output only: progress + combat + bonus (rule 8.1). Ignored on input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<i64>,
}

/// A position in the §11 notation, not yet validated. Parse with serde, then turn it
/// into a [`Position`] with [`Position::from_setup`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// Rule 1.4: journey or clash.
    pub mode: Mode,
    /// The seat whose turn it is; null once every seat has finished (rule 4.7) or the
    /// match is over.
    #[serde(default)]
    pub to_move: Option<Seat>,
    /// Seats by name; a missing seat has all its pieces in the Yard.
    #[serde(default)]
    pub seats: BTreeMap<Seat, SeatSetup>,
}

/// Rule 4.1: a seat's roll store, kept inline (no heap), oldest roll first.
/// Slots past `len` are always 0, so the derived equality and hash compare only the
/// rolls held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RollStore {
    vals: [u8; MAX_ROLL_STORE],
    len: u8,
}

impl Default for RollStore {
    fn default() -> Self {
        RollStore {
            vals: [0; MAX_ROLL_STORE],
            len: 0,
        }
    }
}

impl RollStore {
    /// The rolls, oldest first.
    pub fn as_slice(&self) -> &[u8] {
        &self.vals[..self.len as usize]
    }
    /// Number of rolls held.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// True when no roll is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Appends `v` unless `cap` rolls are already held; returns whether it was kept.
    pub fn push(&mut self, v: u8, cap: usize) -> bool {
        let cap = cap.min(MAX_ROLL_STORE);
        if (self.len as usize) < cap {
            self.vals[self.len as usize] = v;
            self.len += 1;
            true
        } else {
            false
        }
    }
    /// Removes the oldest roll of value `v`; false when there is none.
    pub fn remove(&mut self, v: u8) -> bool {
        let n = self.len as usize;
        match self.vals[..n].iter().position(|&x| x == v) {
            Some(i) => {
                self.vals.copy_within(i + 1..n, i);
                self.vals[n - 1] = 0;
                self.len -= 1;
                true
            }
            None => false,
        }
    }
    /// How many rolls of value `v` are held.
    pub fn count(&self, v: u8) -> usize {
        self.as_slice().iter().filter(|&&x| x == v).count()
    }
    /// Empties the store.
    pub fn clear(&mut self) {
        self.vals = [0; MAX_ROLL_STORE];
        self.len = 0;
    }
}

/// The validated state of one seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SeatState {
    /// Location of each piece, indexed by [`PieceId::index`].
    pub pieces: [Location; 5],
    /// Bit `i` set when piece `i` glows (rule 8.4).
    pub glowing: u8,
    /// The roll store (rule 4.1).
    pub rolls: RollStore,
    /// Exit credits held (rule 4.1).
    pub exit_credits: u32,
    /// Combat points (rule 8.6), may be negative.
    pub combat: i64,
    /// Completion bonus (rule 8.8).
    pub bonus: i64,
    /// Progress points per piece (rule 8.5).
    pub progress: [i64; 5],
    /// Checkpoint records per piece (rule 8.3).
    pub scored: [Record; 5],
    /// Finishing place 1..=4, once finished (rule 8.8).
    pub finished: Option<u8>,
}

impl Default for SeatState {
    fn default() -> Self {
        SeatState {
            pieces: [Location::Yard; 5],
            glowing: 0,
            rolls: RollStore::default(),
            exit_credits: 0,
            combat: 0,
            bonus: 0,
            progress: [0; 5],
            scored: [Record::default(); 5],
            finished: None,
        }
    }
}

impl SeatState {
    /// Whether piece `p` glows.
    pub fn glows(&self, p: PieceId) -> bool {
        self.glowing & (1 << p.index()) != 0
    }
    /// Where piece `p` is.
    pub fn location(&self, p: PieceId) -> Location {
        self.pieces[p.index()]
    }
    /// Sum of the pieces' progress points.
    pub fn progress_sum(&self) -> i64 {
        self.progress.iter().sum()
    }
    /// Rule 8.1: total = progress + combat + bonus.
    pub fn total(&self) -> i64 {
        self.progress_sum() + self.combat + self.bonus
    }
    /// Number of this seat's guardians on `loc`.
    pub fn guardians_on(&self, loc: Location) -> usize {
        self.pieces[..4].iter().filter(|&&l| l == loc).count()
    }
    /// True when all five pieces are Home (rule 8.8).
    pub fn all_home(&self) -> bool {
        self.pieces.iter().all(|&l| l == Location::Home)
    }
}

/// A validated position (rules §1–§8 state): mode, seat to move, and the four seats.
/// Build one with [`Position::from_setup`] or [`Position::start`]; play plans on it
/// with [`Position::play`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) mode: Mode,
    pub(crate) to_move: Option<Seat>,
    pub(crate) seats: [SeatState; 4],
}

/// `invalid_position`: why a [`Setup`] (or its JSON) is not a valid position. Every
/// variant names the seat and field at fault; the message (`Display`) starts with
/// `invalid_position:`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The JSON does not have the §11 shape (malformed JSON, a missing `mode`, an
    /// unknown field, seat, piece, location or checkpoint); the parser's message.
    #[error("invalid_position: {0}")]
    Json(String),
    /// A piece is named twice in `glowing`.
    #[error("invalid_position: seats.{seat}.glowing names {piece} twice")]
    GlowingTwice {
        /// The seat.
        seat: Seat,
        /// The piece named twice.
        piece: PieceId,
    },
    /// A piece in the Yard is listed as glowing (rule 7.7: captured pieces stop
    /// glowing; pieces start in the Yard unlit).
    #[error(
        "invalid_position: seats.{seat}.glowing: {piece} is in the yard and cannot glow (rule 7.7)"
    )]
    GlowingInYard {
        /// The seat.
        seat: Seat,
        /// The piece in the Yard.
        piece: PieceId,
    },
    /// The roll store holds more than [`MAX_ROLL_STORE`] rolls.
    #[error("invalid_position: seats.{seat}.rolls holds {count} rolls, at most {max}", max = MAX_ROLL_STORE)]
    TooManyRolls {
        /// The seat.
        seat: Seat,
        /// Rolls given.
        count: usize,
    },
    /// A roll is not a die value 1..=6 (rule 4.1).
    #[error("invalid_position: seats.{seat}.rolls: {value} is not a die value 1..=6")]
    NotADieValue {
        /// The seat.
        seat: Seat,
        /// The value given.
        value: i64,
    },
    /// `exit_credits` is outside 0..=255.
    #[error("invalid_position: seats.{seat}.exit_credits must be 0..=255, got {value}")]
    ExitCreditsOutOfRange {
        /// The seat.
        seat: Seat,
        /// The value given.
        value: i64,
    },
    /// `bonus` is negative (rule 8.7).
    #[error("invalid_position: seats.{seat}.bonus must not be negative (rule 8.7), got {value}")]
    NegativeBonus {
        /// The seat.
        seat: Seat,
        /// The value given.
        value: i64,
    },
    /// A piece's `progress` is negative (rule 8.7).
    #[error("invalid_position: seats.{seat}.progress.{piece} must not be negative (rule 8.7), got {value}")]
    NegativeProgress {
        /// The seat.
        seat: Seat,
        /// The piece.
        piece: PieceId,
        /// The value given.
        value: i64,
    },
    /// A `scored` list names a checkpoint this seat's pieces never record (another
    /// seat's own entry as `entry:<seat>`, or `midpoint`; rules 8.2, 8.4).
    #[error("invalid_position: seats.{seat}.scored.{piece}: {checkpoint} is not a checkpoint a {seat} piece records (rules 8.2, 8.4)")]
    CheckpointNotForSeat {
        /// The seat.
        seat: Seat,
        /// The piece.
        piece: PieceId,
        /// The checkpoint.
        checkpoint: Checkpoint,
    },
    /// A `scored` list names a checkpoint twice.
    #[error("invalid_position: seats.{seat}.scored.{piece} names {checkpoint} twice")]
    CheckpointTwice {
        /// The seat.
        seat: Seat,
        /// The piece.
        piece: PieceId,
        /// The checkpoint named twice.
        checkpoint: Checkpoint,
    },
    /// `finished` is not a place 1..=4 (rule 8.8).
    #[error("invalid_position: seats.{seat}.finished must be a place 1..=4, got {place}")]
    PlaceOutOfRange {
        /// The seat.
        seat: Seat,
        /// The place given.
        place: u8,
    },
    /// Two seats hold the same finishing place (rule 8.8).
    #[error("invalid_position: seats.{seat}.finished: place {place} is held by another seat")]
    PlaceTaken {
        /// The second seat naming the place.
        seat: Seat,
        /// The place.
        place: u8,
    },
    /// `to_move` names a finished seat, which takes no more turns (rules 4.7, 8.8).
    #[error("invalid_position: to_move: {seat} has finished and takes no more turns (rule 8.8)")]
    ToMoveFinished {
        /// The seat named by `to_move`.
        seat: Seat,
    },
}

impl PositionError {
    /// The stable error code, always [`ErrorCode::InvalidPosition`].
    pub fn code(&self) -> ErrorCode {
        ErrorCode::InvalidPosition
    }
}

/// What [`Position::apply_roll`] did (rule 4.1).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Roll {
    /// Rolled values that did not fit in the store (`roll_store_cap`) and were
    /// dropped, in rolling order.
    pub dropped: Vec<u8>,
    /// Exit credits gained from 6s, after `exit_credit_cap`.
    pub credits_gained: u32,
}

/// Why [`Position::apply_roll`] refused a roll. Nothing changes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RollError {
    /// No seat is to move (rule 4.7: every seat finished, or the match is over).
    #[error("no seat is to move, so nobody rolls")]
    NoSeatToMove,
    /// Rule 4.1: a turn rolls exactly `dice_per_turn` dice.
    #[error("a turn rolls {expected} dice (dice_per_turn), got {got}")]
    WrongDiceCount {
        /// `dice_per_turn`.
        expected: u8,
        /// Dice given.
        got: usize,
    },
    /// A die is not 1..=6.
    #[error("{0} is not a die value 1..=6")]
    NotADieValue(u8),
}

impl Position {
    /// Rule 4.2: the start of a match: every piece in the Yard, `start_exit_credits`
    /// each, empty roll stores, green to move (rule 1.1).
    pub fn start(mode: Mode, start_exit_credits: u8) -> Position {
        let seat = SeatState {
            exit_credits: start_exit_credits as u32,
            ..SeatState::default()
        };
        Position {
            mode,
            to_move: Some(Seat::Green),
            seats: [seat; 4],
        }
    }

    /// The mode (rule 1.4).
    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// The seat to move, or `None` when every seat has finished (rule 4.7).
    pub fn to_move(&self) -> Option<Seat> {
        self.to_move
    }
    /// The state of `seat`.
    pub fn seat(&self, seat: Seat) -> &SeatState {
        &self.seats[seat.index()]
    }
    pub(crate) fn seat_mut(&mut self, seat: Seat) -> &mut SeatState {
        &mut self.seats[seat.index()]
    }
    /// Sets the seat to move (used by the match when its clock ends the game).
    pub(crate) fn set_to_move(&mut self, s: Option<Seat>) {
        self.to_move = s;
    }

    /// Parses the §11 JSON notation and validates it.
    ///
    /// Errors: [`PositionError`] (`invalid_position`) for malformed JSON, unknown
    /// fields, seats or pieces, and every check of [`Position::from_setup`].
    pub fn from_json(json: &str) -> Result<Position, PositionError> {
        let setup: Setup =
            serde_json::from_str(json).map_err(|e| PositionError::Json(e.to_string()))?;
        Position::from_setup(&setup)
    }

    /// Validates a [`Setup`]: rolls 1..=6 and at most 32 of them, exit credits 0..=255,
    /// bonus and progress ≥ 0, no glowing piece in the Yard, no piece named twice in
    /// `glowing` or a `scored` list, checkpoints valid for the seat (never
    /// `midpoint`, rule 8.4), `finished` places 1..=4 and distinct, `to_move` not a
    /// finished seat.
    pub fn from_setup(setup: &Setup) -> Result<Position, PositionError> {
        let mut pos = Position {
            mode: setup.mode,
            to_move: setup.to_move,
            seats: [SeatState::default(); 4],
        };
        let mut places = [false; 5];
        for (&seat, s) in &setup.seats {
            let st = &mut pos.seats[seat.index()];
            for (&p, &loc) in &s.pieces {
                st.pieces[p.index()] = loc;
            }
            for &p in &s.glowing {
                let bit = 1 << p.index();
                if st.glowing & bit != 0 {
                    return Err(PositionError::GlowingTwice { seat, piece: p });
                }
                if st.pieces[p.index()] == Location::Yard {
                    return Err(PositionError::GlowingInYard { seat, piece: p });
                }
                st.glowing |= bit;
            }
            if s.rolls.len() > MAX_ROLL_STORE {
                return Err(PositionError::TooManyRolls {
                    seat,
                    count: s.rolls.len(),
                });
            }
            for &r in &s.rolls {
                if !(1..=6).contains(&r) {
                    return Err(PositionError::NotADieValue { seat, value: r });
                }
                st.rolls.push(r as u8, MAX_ROLL_STORE);
            }
            if !(0..=255).contains(&s.exit_credits) {
                return Err(PositionError::ExitCreditsOutOfRange {
                    seat,
                    value: s.exit_credits,
                });
            }
            st.exit_credits = s.exit_credits as u32;
            st.combat = s.combat;
            if s.bonus < 0 {
                return Err(PositionError::NegativeBonus {
                    seat,
                    value: s.bonus,
                });
            }
            st.bonus = s.bonus;
            for (&p, &v) in &s.progress {
                if v < 0 {
                    return Err(PositionError::NegativeProgress {
                        seat,
                        piece: p,
                        value: v,
                    });
                }
                st.progress[p.index()] = v;
            }
            for (&p, list) in &s.scored {
                for &cp in list {
                    if !cp.valid_for(seat) {
                        return Err(PositionError::CheckpointNotForSeat {
                            seat,
                            piece: p,
                            checkpoint: cp,
                        });
                    }
                    if !st.scored[p.index()].insert(cp) {
                        return Err(PositionError::CheckpointTwice {
                            seat,
                            piece: p,
                            checkpoint: cp,
                        });
                    }
                }
            }
            if let Some(f) = s.finished {
                if !(1..=4).contains(&f) {
                    return Err(PositionError::PlaceOutOfRange { seat, place: f });
                }
                if places[f as usize] {
                    return Err(PositionError::PlaceTaken { seat, place: f });
                }
                places[f as usize] = true;
                st.finished = Some(f);
            }
        }
        if let Some(t) = setup.to_move {
            if pos.seats[t.index()].finished.is_some() {
                return Err(PositionError::ToMoveFinished { seat: t });
            }
        }
        Ok(pos)
    }

    /// The full §11 output form: every seat and field, all five pieces named in
    /// `pieces`, `progress` and `scored`, plus `total` per seat.
    pub fn to_setup(&self) -> Setup {
        let mut seats = BTreeMap::new();
        for seat in Seat::ALL {
            let st = self.seat(seat);
            let s = SeatSetup {
                pieces: PieceId::ALL.iter().map(|&p| (p, st.location(p))).collect(),
                glowing: PieceId::ALL
                    .iter()
                    .copied()
                    .filter(|&p| st.glows(p))
                    .collect(),
                rolls: st.rolls.as_slice().iter().map(|&r| r as i64).collect(),
                exit_credits: st.exit_credits as i64,
                combat: st.combat,
                bonus: st.bonus,
                progress: PieceId::ALL
                    .iter()
                    .map(|&p| (p, st.progress[p.index()]))
                    .collect(),
                scored: PieceId::ALL
                    .iter()
                    .map(|&p| (p, st.scored[p.index()].iter().collect()))
                    .collect(),
                finished: st.finished,
                total: Some(st.total()),
            };
            seats.insert(seat, s);
        }
        Setup {
            mode: self.mode,
            to_move: self.to_move,
            seats,
        }
    }

    /// The full §11 output form as a JSON value.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self.to_setup()).expect("a setup always serializes")
    }

    /// Seats that have finished (rule 8.8).
    pub fn finished_count(&self) -> usize {
        self.seats.iter().filter(|s| s.finished.is_some()).count()
    }

    /// Rule 4.1: gives the seat to move the dice rolled at the start of its turn.
    /// Each die is appended to its roll store while the store holds fewer than
    /// `roll_store_cap` rolls (the rest are dropped), and each 6 grants one exit
    /// credit while the seat holds fewer than `exit_credit_cap`. This is how a
    /// [`Match`](crate::Match) starts every turn, and how a client that follows a match
    /// from its messages applies a `turn_started`'s dice to its own position.
    ///
    /// Errors (nothing changes): [`RollError::NoSeatToMove`] when no seat is to move,
    /// [`RollError::WrongDiceCount`] unless exactly `dice_per_turn` dice are given,
    /// [`RollError::NotADieValue`] for a die outside 1..=6.
    pub fn apply_roll(&mut self, rules: &RuleSet, dice: &[u8]) -> Result<Roll, RollError> {
        let seat = self.to_move.ok_or(RollError::NoSeatToMove)?;
        if dice.len() != rules.dice_per_turn as usize {
            return Err(RollError::WrongDiceCount {
                expected: rules.dice_per_turn,
                got: dice.len(),
            });
        }
        if let Some(&bad) = dice.iter().find(|d| !(1..=6).contains(*d)) {
            return Err(RollError::NotADieValue(bad));
        }
        let cap = rules.roll_store_cap as usize;
        let credit_cap = rules.exit_credit_cap as u32;
        let st = self.seat_mut(seat);
        let mut roll = Roll::default();
        for &v in dice {
            if !st.rolls.push(v, cap) {
                roll.dropped.push(v);
            }
            if v == 6 && st.exit_credits < credit_cap {
                st.exit_credits += 1;
                roll.credits_gained += 1;
            }
        }
        Ok(roll)
    }
}

impl Serialize for Position {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_setup().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Position {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let setup = Setup::deserialize(d)?;
        Position::from_setup(&setup).map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Position {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Position".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        Setup::json_schema(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rule 4.1: a roll store is empty exactly when it holds no roll: a fresh store
    /// and a store whose one roll was removed are empty, a store holding a roll is not.
    #[test]
    fn roll_store_is_empty_only_without_rolls() {
        let mut s = RollStore::default();
        assert!(s.is_empty());
        assert!(s.push(4, MAX_ROLL_STORE));
        assert!(!s.is_empty());
        assert_eq!(s.len(), 1);
        assert!(s.remove(4));
        assert!(s.is_empty());
    }

    /// §11 notation: a roll store holds at most `MAX_ROLL_STORE` (32) rolls, so 32
    /// rolls validate and 33 are `TooManyRolls { count: 33 }`.
    #[test]
    fn setup_takes_32_rolls_and_refuses_33() {
        let setup = |n: usize| Setup {
            mode: Mode::Clash,
            to_move: Some(Seat::Green),
            seats: [(
                Seat::Green,
                SeatSetup {
                    rolls: vec![3; n],
                    ..SeatSetup::default()
                },
            )]
            .into_iter()
            .collect(),
        };
        let pos = Position::from_setup(&setup(32)).unwrap();
        assert_eq!(pos.seat(Seat::Green).rolls.len(), 32);
        assert_eq!(
            Position::from_setup(&setup(33)),
            Err(PositionError::TooManyRolls {
                seat: Seat::Green,
                count: 33
            })
        );
    }

    /// §11: a `Position`'s JSON schema is the `Setup` notation's: an object with
    /// `mode` (required), `to_move` and `seats`, and no other field.
    #[test]
    fn position_schema_is_the_setup_notation() {
        let schema = schemars::schema_for!(Position);
        let props: Vec<&str> = schema
            .get("properties")
            .and_then(|p| p.as_object())
            .expect("properties")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(props, ["mode", "seats", "to_move"]);
        assert_eq!(schema.get("required"), Some(&serde_json::json!(["mode"])));
        assert_eq!(
            schema.get("additionalProperties"),
            Some(&serde_json::json!(false))
        );
        assert_eq!(Position::schema_name(), "Position");
    }
}
