//! Random positions for the bot tests' property checks (shared by tests/legality.rs
//! and tests/expert.rs).

use engine::{Location, Mode, PieceId, Position, Seat, SeatSetup, Setup};
use proptest::prelude::*;
use std::collections::BTreeMap;

fn location() -> impl Strategy<Value = Location> {
    prop_oneof![
        3 => Just(Location::Yard),
        6 => (0u8..68).prop_map(Location::Ring),
        1 => (1u8..=7).prop_map(Location::HomePath),
        1 => Just(Location::Home),
    ]
}

/// One seat with random locations, glow (never in the Yard), rolls, credits, points.
fn seat_setup() -> impl Strategy<Value = SeatSetup> {
    (
        proptest::collection::vec(location(), 5),
        proptest::collection::vec(any::<bool>(), 5),
        proptest::collection::vec(1i64..=6, 0..=9),
        0i64..=4,
        -200i64..=800,
        proptest::collection::vec(0i64..=400, 5),
    )
        .prop_map(|(locs, glow, rolls, credits, combat, progress)| {
            let mut s = SeatSetup::default();
            for (i, p) in PieceId::ALL.into_iter().enumerate() {
                s.pieces.insert(p, locs[i]);
                if glow[i] && locs[i] != Location::Yard {
                    s.glowing.push(p);
                }
                s.progress.insert(p, progress[i]);
            }
            s.rolls = rolls;
            s.exit_credits = credits;
            s.combat = combat;
            s
        })
}

/// A valid position of either mode, any seat to move, four random seats.
pub(crate) fn position() -> impl Strategy<Value = Position> {
    (
        prop_oneof![Just(Mode::Journey), Just(Mode::Clash)],
        0usize..4,
        proptest::collection::vec(seat_setup(), 4),
    )
        .prop_map(|(mode, to_move, seats)| {
            let seats: BTreeMap<Seat, SeatSetup> = Seat::ALL.into_iter().zip(seats).collect();
            let setup = Setup {
                mode,
                to_move: Some(Seat::from_index(to_move)),
                seats,
            };
            Position::from_setup(&setup).expect("generated setups are valid positions")
        })
}
