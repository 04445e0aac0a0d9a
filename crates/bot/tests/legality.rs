//! Contract of every strategy: the plan it returns is legal for the position it was
//! given (rule 4.5), checked on random positions and on positions reached in play.

use bot::{new_bot, BotKind};
use engine::game::Match;
use engine::{Location, Mode, PieceId, Position, RuleSet, Seat, SeatSetup, Seed, Setup};
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

fn position() -> impl Strategy<Value = Position> {
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// Rule 4.5: every kind but the expert (tests/expert.rs, with a small node
    /// budget) returns a plan the engine accepts, for any seed.
    #[test]
    fn bots_return_legal_plans_on_random_positions(pos in position(), seed in any::<u64>()) {
        let rules = RuleSet::default();
        for kind in BotKind::ALL.into_iter().filter(|k| !k.searches()) {
            let plan = new_bot(kind, seed).choose(&pos, &rules);
            prop_assert!(
                pos.validate(&rules, &plan).is_ok(),
                "{kind} bot returned {plan:?}, refused: {:?}",
                pos.validate(&rules, &plan).err()
            );
        }
    }
}

/// Rule 4.5 on positions reached in real matches: for 12 dice seeds, random bots
/// play up to 300 turns; at every 7th turn both bots (seeded with the turn number)
/// must return plans that `Match::submit` accepts. Expected: no refusal at all.
#[test]
fn bots_return_legal_plans_in_play() {
    let rules = RuleSet::default();
    let mut checked = 0;
    for s in 0..12u8 {
        let mode = if s % 2 == 0 {
            Mode::Clash
        } else {
            Mode::Journey
        };
        let mut m = Match::new(rules.clone(), mode, Seed([s; 32]), 0).unwrap();
        let mut driver = new_bot(BotKind::Random, s as u64);
        for turn in 0..300u64 {
            let Some(cur) = m.current_turn().cloned() else {
                break;
            };
            if turn % 7 == 0 {
                for kind in BotKind::ALL.into_iter().filter(|k| !k.searches()) {
                    let plan = new_bot(kind, turn).choose(m.position(), &rules);
                    let mut probe = m.clone();
                    probe
                        .submit(cur.seat, cur.turn_number, &plan, 0)
                        .unwrap_or_else(|e| panic!("{kind} plan {plan:?} refused: {e}"));
                    checked += 1;
                }
            }
            let plan = driver.choose(m.position(), &rules);
            m.submit(cur.seat, cur.turn_number, &plan, 0).unwrap();
        }
    }
    // 12 matches × 43 probed turns × 4 kinds (clash seeds may end earlier).
    assert!(checked >= 12 * 2 * 20, "only {checked} plans were checked");
}
