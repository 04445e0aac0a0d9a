//! The rules engine of a four-seat race-and-capture game of the Ludo / Parchís family
//! (guardians, a royal, forts, a midpoint, two directions, journey and clash modes),
//! exactly as specified in `RULES.md`. Pure and deterministic: no IO, no async, no
//! clock, no global state. Same seed + same plans ⇒ same match on any machine.
//!
//! # Layout
//! * [`board`]: seats, pieces, locations, ring geometry, rule 2.6 numbering, one step (rule 3.1).
//! * [`rules`]: the [`RuleSet`] with every number of §10 and the §8 tables.
//! * [`position`]: the unvalidated [`Setup`] of the §11 notation, the validated [`Position`],
//!   its typed [`PositionError`]s, and [`Position::apply_roll`] (rule 4.1).
//! * [`plan`]: turn [`Plan`]s, their validation (rule 4.5) and the stable [`ErrorCode`]s.
//! * [`resolve`]: [`Position::play`] (checked) and [`Position::play_unchecked`] (a
//!   [`ValidPlan`] from [`Position::validate`]), the resolution of §3, §5–§8.
//! * [`event`]: the ordered [`Event`]s a resolution reports.
//! * [`checkpoint`]: checkpoints and the per-cycle record (rules 8.2–8.4).
//! * [`dice`]: the [`Seed`], its SHA-256 commitment and the ChaCha20 [`Dice`].
//! * [`game`]: a whole [`Match`] over time: turns, passes, timeouts, the match clock, standings.
//! * [`replay`]: [`Replay`] and its verification.
//! * [`scenario`]: the §11 scenario files and their partial comparison.
//! * [`legal`]: every distinct legal plan of a position ([`legal::legal_plans`]) and random
//!   legal plans (for bots and tests).
//!
//! ```
//! use engine::{Position, Plan, RuleSet, PieceId, Direction};
//! let pos = Position::from_json(r#"{"mode":"journey","to_move":"green",
//!     "seats":{"green":{"pieces":{"G1":"ring:2"},"rolls":[3,3,5,2]}}}"#).unwrap();
//! let plan = Plan::new(Direction::Forward).mv(PieceId::G1, &[3, 3, 5]);
//! let (next, events) = pos.play(&RuleSet::default(), &plan).unwrap();
//! assert_eq!(next.seat(engine::Seat::Green).location(PieceId::G1).to_string(), "ring:13");
//! assert!(!events.is_empty());
//! ```

pub mod board;
pub mod checkpoint;
pub mod dice;
pub mod event;
pub mod game;
pub mod legal;
pub mod plan;
pub mod position;
pub mod replay;
pub mod resolve;
pub mod rules;
pub mod scenario;

pub use board::{Direction, Location, PieceId, Seat};
pub use checkpoint::Checkpoint;
pub use dice::{Contribution, Dice, DiceScheme, Entropy, Seed};
pub use event::Event;
pub use game::{
    standings, EndReason, Expiry, Match, MatchEnd, MatchError, PlanPreview, SealError, Standing,
    TurnKind, TurnOutcome, TurnRecord, TurnStart,
};
pub use legal::LegalMove;
pub use plan::{ErrorCode, Plan, PlanError, ValidPlan};
pub use position::{Position, PositionError, Roll, RollError, SeatSetup, SeatState, Setup};
pub use replay::{Replay, ReplayMismatch};
pub use rules::{Mode, RuleSet};
