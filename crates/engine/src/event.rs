//! Events: what happened while a plan was resolved, in step order, precise enough
//! for a client to animate the turn.

use crate::board::{Location, PieceId, Seat};
use crate::checkpoint::Checkpoint;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One thing that happened during resolution (rules §3–§8), tagged by `"type"`.
/// Events come in the order they happened; a [`Event::Move`] ends at every tile where
/// something else happened, so the next events belong to its last tile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// Rule 5.2.1: a guardian left the Yard onto its entry tile (costing one exit credit).
    Exit {
        /// Moving seat.
        seat: Seat,
        /// The guardian.
        piece: PieceId,
        /// Its entry tile.
        to: Location,
    },
    /// Rules 3.6, 5.3: pieces stepped together from `from` through `path` (every tile
    /// entered, in order; the last is where they are now).
    Move {
        /// Moving seat.
        seat: Seat,
        /// The pieces moving together (one royal, or one or more guardians).
        pieces: Vec<PieceId>,
        /// Where they started this stretch.
        from: Location,
        /// Tiles entered, in step order.
        path: Vec<Location>,
    },
    /// Rule 6.5: a moving unit was stopped before `tile`; its remaining steps are lost.
    Blocked {
        /// Moving seat.
        seat: Seat,
        /// The blocked pieces.
        pieces: Vec<PieceId>,
        /// Where they stopped.
        at: Location,
        /// The blocking tile.
        tile: Location,
        /// The seat whose group blocked (the moving seat itself for rule 6.3).
        by: Seat,
        /// Steps lost, summed over the blocked pieces.
        lost_steps: u32,
        /// Combat points lost (0 when blocked by the own seat).
        penalty: i64,
    },
    /// Rules 7.1–7.8: an opponent piece was sent to its Yard.
    Capture {
        /// Capturing seat.
        seat: Seat,
        /// Where it happened (for a rule 7.8 cascade: where the captured guardian stood).
        tile: Location,
        /// Owner of the captured piece.
        captured_seat: Seat,
        /// The captured piece.
        captured: PieceId,
        /// Combat points the capturing seat earned (rule 8.6).
        points: i64,
        /// True when the piece was captured because its royal was (rule 7.8).
        cascade: bool,
    },
    /// Rule 7.8: a royal was captured; its seat lost the guardians listed (now in the
    /// Yard), its rolls and exit credits, and received `exit_credits`.
    RoyalCaptured {
        /// The seat whose royal was captured.
        seat: Seat,
        /// The capturing seat.
        by: Seat,
        /// Guardians sent to the Yard with it.
        guardians: Vec<PieceId>,
        /// Rolls the seat lost.
        rolls_lost: Vec<u8>,
        /// Exit credits the seat now holds.
        exit_credits: u32,
    },
    /// Rule 8.3: a piece scored a checkpoint (own entry, fort or another seat's entry).
    Checkpoint {
        /// Moving seat.
        seat: Seat,
        /// The piece.
        piece: PieceId,
        /// The checkpoint.
        checkpoint: Checkpoint,
        /// Progress points earned (rule 8.5).
        points: i64,
    },
    /// Rule 8.4: a piece reached its midpoint while not glowing: it scores, glows and
    /// starts a new checkpoint cycle.
    Midpoint {
        /// Moving seat.
        seat: Seat,
        /// The piece.
        piece: PieceId,
        /// Progress points earned (rule 8.5).
        points: i64,
    },
    /// Rules 3.3, 8.5: a piece reached Home.
    Home {
        /// Moving seat.
        seat: Seat,
        /// The piece.
        piece: PieceId,
        /// Progress points earned (0 if `home` was already recorded).
        points: i64,
    },
    /// Rule 8.8: the seat's fifth piece reached Home.
    Finished {
        /// The seat.
        seat: Seat,
        /// Its finishing place 1..=4.
        place: u8,
        /// Completion bonus earned (journey only).
        bonus: i64,
    },
}
