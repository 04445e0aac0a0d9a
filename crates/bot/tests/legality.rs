//! Contract of every strategy: the plan it returns is legal for the position it was
//! given (rule 4.5), checked on random positions and on positions reached in play.

use bot::{new_bot, BotKind};
use engine::game::Match;
use engine::{Mode, RuleSet, Seed};
use proptest::prelude::*;

mod common;
use common::position;

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
