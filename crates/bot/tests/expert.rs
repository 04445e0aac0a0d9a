//! The expert bot: always a legal plan (rule 4.5) within its node budget, on random
//! positions of both modes under non-default rule sets; deterministic for its seed;
//! and clearly stronger than random bots.

use bot::{ExpertBot, ExpertConfig, Strategy as _};
use engine::game::Match;
use engine::{Mode, Position, RuleSet, Seat, Seed};
use proptest::prelude::*;

mod common;
use common::position;

/// Rule sets other than the default (§10): 1..=4 dice per turn, a store of up to
/// 12 rolls, royal moves of 1..=10 steps, other exit credit numbers.
fn rule_set() -> impl Strategy<Value = RuleSet> {
    (1u8..=4, 0u8..=8, 1u8..=10, 0u8..=3, 1u8..=6, 0u8..=3).prop_map(
        |(dice, extra_cap, royal, start, cap, royal_credits)| RuleSet {
            dice_per_turn: dice,
            roll_store_cap: dice + extra_cap,
            royal_max_steps: royal,
            start_exit_credits: start,
            exit_credit_cap: cap,
            royal_capture_exit_credits: royal_credits,
            ..RuleSet::default()
        },
    )
}

/// A small search for debug-build tests: 4 candidates, 150 plans of rollouts in
/// either mode.
fn small() -> ExpertConfig {
    ExpertConfig {
        candidates: 4,
        node_budget: 150,
        journey_node_budget: 150,
        ..ExpertConfig::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Rule 4.5: the expert's plan is accepted by the engine, and its search stops at
    /// the node budget (plus at most the one rollout that crossed it: `depth` policy
    /// searches of at most `max_evals` plans each, and the leaf).
    #[test]
    fn expert_returns_legal_plans_within_its_budget(
        pos in position(),
        rules in rule_set(),
        seed in any::<u64>(),
    ) {
        prop_assert!(rules.check().is_ok());
        let cfg = small();
        let slack = cfg.depth as usize * cfg.policy.max_evals + 1;
        let budget = cfg.nodes_for(pos.mode());
        let mut bot = ExpertBot::with_config(seed, cfg);
        let (plan, stats) = bot.choose_stats(&pos, &rules);
        prop_assert!(
            pos.validate(&rules, &plan).is_ok(),
            "expert returned {plan:?}, refused: {:?}",
            pos.validate(&rules, &plan).err()
        );
        prop_assert!(stats.nodes < budget + slack, "{} nodes for a budget of {budget}", stats.nodes);
    }
}

/// The same seed and position give the same plan (no wall-clock budget), and the
/// search really compares candidates by rollouts (more than one rollout each).
#[test]
fn expert_is_deterministic_and_searches() {
    let rules = RuleSet::default();
    let pos = Position::from_json(
        r#"{"mode":"clash","to_move":"green","seats":{
        "green":{"pieces":{"G1":"ring:3","G2":"ring:20","G3":"ring:33","R":"ring:7"},
                 "rolls":[1,2,3,4,5,6],"exit_credits":1},
        "red":{"pieces":{"G1":"ring:10","G2":"ring:10","G3":"ring:25","R":"ring:29"},"rolls":[6,6]},
        "blue":{"pieces":{"G1":"ring:40","G2":"ring:44","R":"ring:34"},"exit_credits":2},
        "yellow":{"pieces":{"G1":"ring:55","G2":"ring:60","G3":"ring:60","G4":"ring:1"},"rolls":[3]}}}"#,
    )
    .unwrap();
    let cfg = ExpertConfig {
        node_budget: 8000,
        ..small()
    };
    let (a, sa) = ExpertBot::with_config(5, cfg.clone()).choose_stats(&pos, &rules);
    let (b, sb) = ExpertBot::with_config(5, cfg).choose_stats(&pos, &rules);
    assert_eq!(a, b);
    assert_eq!(sa, sb);
    assert_eq!(sa.candidates, 4);
    assert!(sa.rollouts >= 2 * sa.candidates, "{sa:?}");
    assert!(sa.nodes >= 8000, "the budget is spent: {sa:?}");
    // A zero node budget plays the greedy ranking's best without any rollout.
    let zero = ExpertConfig {
        node_budget: 0,
        ..small()
    };
    let (_, s0) = ExpertBot::with_config(5, zero).choose_stats(&pos, &rules);
    assert_eq!((s0.rollouts, s0.nodes), (0, 0));
}

/// Each mode searches with its own node budget: the same position in journey spends
/// `journey_node_budget` (clash's `node_budget` is 0 there, and the other way round).
#[test]
fn journey_decisions_spend_the_journey_budget() {
    let rules = RuleSet::default();
    let board = |mode: &str| {
        Position::from_json(&format!(
            r#"{{"mode":"{mode}","to_move":"green","seats":{{
            "green":{{"pieces":{{"G1":"ring:3","G2":"ring:20","G3":"ring:33","R":"ring:7"}},
                     "rolls":[1,2,3,4,5,6],"exit_credits":1}},
            "red":{{"pieces":{{"G1":"ring:10","G2":"ring:10","R":"ring:29"}},"rolls":[6,6]}},
            "blue":{{"pieces":{{"G1":"ring:40","G2":"ring:44","R":"ring:34"}}}},
            "yellow":{{"pieces":{{"G1":"ring:55","G2":"ring:60","G4":"ring:1"}}}}}}}}"#
        ))
        .unwrap()
    };
    let journey_only = ExpertConfig {
        node_budget: 0,
        journey_node_budget: 2000,
        ..small()
    };
    assert_eq!(journey_only.nodes_for(Mode::Journey), 2000);
    assert_eq!(journey_only.nodes_for(Mode::Clash), 0);
    let (_, sj) =
        ExpertBot::with_config(5, journey_only.clone()).choose_stats(&board("journey"), &rules);
    assert!(sj.nodes >= 2000 && sj.rollouts >= sj.candidates, "{sj:?}");
    let (_, sc) = ExpertBot::with_config(5, journey_only).choose_stats(&board("clash"), &rules);
    assert_eq!((sc.rollouts, sc.nodes), (0, 0));
    let clash_only = ExpertConfig {
        node_budget: 2000,
        journey_node_budget: 0,
        ..small()
    };
    let (_, sj) =
        ExpertBot::with_config(5, clash_only.clone()).choose_stats(&board("journey"), &rules);
    assert_eq!((sj.rollouts, sj.nodes), (0, 0));
    let (_, sc) = ExpertBot::with_config(5, clash_only).choose_stats(&board("clash"), &rules);
    assert!(sc.nodes >= 2000, "{sc:?}");
    // The defaults: twice clash's budget in journey.
    let d = ExpertConfig::default();
    assert_eq!(
        (d.nodes_for(Mode::Clash), d.nodes_for(Mode::Journey)),
        (16_000, 32_000)
    );
}

/// The match over (nobody to move): the pass, without searching.
#[test]
fn expert_passes_when_the_match_is_over() {
    let rules = RuleSet::default();
    let pos = Position::from_json(r#"{"mode":"journey","to_move":null}"#).unwrap();
    let (plan, stats) = ExpertBot::new(1).choose_stats(&pos, &rules);
    assert_eq!(plan, engine::Plan::pass());
    assert_eq!(stats.nodes, 0);
}

/// Legal in play too: a seeded clash match of four small experts runs 120 turns
/// without a refused plan.
#[test]
fn experts_play_a_match() {
    let rules = RuleSet::default();
    let mut m = Match::new(rules.clone(), Mode::Clash, Seed([3; 32]), 0).unwrap();
    let mut bots: Vec<ExpertBot> = (0..4).map(|i| ExpertBot::with_config(i, small())).collect();
    for _ in 0..120 {
        let Some(cur) = m.current_turn().cloned() else {
            break;
        };
        let plan = bots[cur.seat.index()].choose(m.position(), &rules);
        m.submit(cur.seat, cur.turn_number, &plan, 0)
            .unwrap_or_else(|e| panic!("expert plan {plan:?} refused: {e}"));
    }
    assert!(m.turns_played() >= 100);
}

/// Strength, deterministic by seed: a small expert (4 candidates, 300 plans of
/// rollouts a turn) against three random bots, its seat rotating, 60 clash matches
/// of 60 turns (15 per seat) with dice seeds 0..60. Equal bots would take 15 first
/// places; the expert must take at least 54 (90 %).
#[test]
fn expert_beats_random_bots() {
    use bot::RandomBot;
    let rules = RuleSet::default();
    let play = |i: u32| -> f64 {
        let mut seed = [0u8; 32];
        seed[..4].copy_from_slice(&i.to_le_bytes());
        let mut m = Match::new(rules.clone(), Mode::Clash, Seed(seed), 0).unwrap();
        let expert_seat = (i % 4) as usize;
        let mut bots: Vec<Box<dyn bot::Strategy>> = (0..4)
            .map(|s| -> Box<dyn bot::Strategy> {
                if s == expert_seat {
                    Box::new(ExpertBot::with_config(
                        i as u64,
                        ExpertConfig {
                            node_budget: 300,
                            ..small()
                        },
                    ))
                } else {
                    Box::new(RandomBot::new(1000 * i as u64 + s as u64))
                }
            })
            .collect();
        for _ in 0..60 {
            let Some(cur) = m.current_turn().cloned() else {
                break;
            };
            let plan = bots[cur.seat.index()].choose(m.position(), &rules);
            m.submit(cur.seat, cur.turn_number, &plan, 0).unwrap();
        }
        let end = match m.end() {
            Some(e) => e.clone(),
            None => m.end_by_clock(),
        };
        let firsts: Vec<Seat> = end
            .standings
            .iter()
            .filter(|s| s.place == 1)
            .map(|s| s.seat)
            .collect();
        if firsts.contains(&Seat::from_index(expert_seat)) {
            1.0 / firsts.len() as f64
        } else {
            0.0
        }
    };
    let firsts: f64 = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2u32)
            .map(|t| {
                let play = &play;
                s.spawn(move || (0..60u32).filter(|i| i % 2 == t).map(play).sum::<f64>())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    eprintln!("expert first places against three random bots: {firsts} of 60");
    assert!(firsts >= 54.0, "expert took {firsts} of 60 first places");
}
