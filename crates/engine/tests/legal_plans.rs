//! `legal::legal_plans`: every distinct legal plan (rule 4.5), perft-style counts on
//! fixed positions, and a brute-force check that the enumerator yields exactly the
//! plans that validate.
//!
//! The expected counts are worked out by hand in each test from the rules: exits are
//! sets of Yard guardians within the exit credits (rule 4.3); each stored roll goes
//! unused or to one guardian that may move (rule 4.5); the royal stays or moves
//! 1..=`royal_max_steps` first or last (rules 4.3, 5.1); a plan that moves something
//! comes in two directions.

use engine::legal::{count_legal_plans, legal_plans, movable_guardians, random_plan};
use engine::{Direction, Location, PieceId, Plan, Position, RuleSet, Seat};
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::collections::BTreeSet;

fn pos(json: &str) -> Position {
    Position::from_json(json).unwrap()
}

/// The plans as canonical JSON strings, checking on the way that each one is legal,
/// canonical and new.
fn enumerate(p: &Position, rules: &RuleSet) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for plan in legal_plans(p, rules) {
        assert!(p.validate(rules, &plan).is_ok(), "{plan:?} is not legal");
        assert_eq!(plan.canonical(), plan, "not canonical");
        let key = serde_json::to_string(&plan).unwrap();
        assert!(seen.insert(key.clone()), "{key} enumerated twice");
    }
    assert_eq!(seen.len() as u64, count_legal_plans(p, rules));
    seen
}

/// Rules 4.2, 4.3: at the start green holds no rolls and 2 exit credits, all five
/// pieces in the Yard. Exits: {} + 4 singles + 6 pairs = 11 sets; no roll to give
/// (D = 1); the royal has 1 + 2×8 = 17 choices. Per exit set 2×17 − 1 = 33 plans
/// (the pass-like plan with no royal move has one direction): 11 × 33 = 363.
#[test]
fn start_position_has_363_plans() {
    let rules = RuleSet::default();
    let p = Position::start(engine::Mode::Clash, rules.start_exit_credits);
    assert_eq!(enumerate(&p, &rules).len(), 363);
    assert_eq!(legal_plans(&p, &rules).next(), Some(Plan::pass()));
}

/// Rules 3.5, 4.3, 4.5: G1 on ring 5 with rolls [3, 3], no exit credits, the royal at
/// Home (it cannot move). The plans are exactly: the pass, G1 [3] and G1 [3, 3], each
/// forward and backward — 5.
#[test]
fn one_guardian_two_equal_rolls_has_5_plans() {
    let rules = RuleSet::default();
    let p = pos(r#"{"mode":"journey","to_move":"green","seats":{"green":{
        "pieces":{"G1":"ring:5","R":"home"},"glowing":["R"],"rolls":[3,3]}}}"#);
    let got: Vec<Plan> = legal_plans(&p, &rules).collect();
    let g1 = |d, r: &[u8]| Plan::new(d).mv(PieceId::G1, r);
    let want = [
        Plan::pass(),
        g1(Direction::Forward, &[3]),
        g1(Direction::Backward, &[3]),
        g1(Direction::Forward, &[3, 3]),
        g1(Direction::Backward, &[3, 3]),
    ];
    assert_eq!(got.len(), 5, "{got:?}");
    for w in want {
        assert!(got.contains(&w), "{w:?} missing from {got:?}");
    }
    assert_eq!(count_legal_plans(&p, &rules), 5);
}

/// Rules 3.5, 4.3, 4.5 on a mixed position: G1 on the ring and G2 in the home path
/// may move, G3 is Home (never), G4 is in the Yard with 1 exit credit, the royal is on
/// the ring; rolls [1, 2, 2, 6].
/// * no exit: 2 movers; the 1 goes 3 ways, the two 2s C(2+2, 2) = 6 ways, the 6 3
///   ways: D = 54; 2 × 54 × 17 − 1 = 1835;
/// * exit G4: 3 movers; D = 4 × C(5, 3) × 4 = 160; 2 × 160 × 17 − 1 = 5439.
///
/// In all 7274.
#[test]
fn mixed_position_has_7274_plans() {
    let rules = RuleSet::default();
    let p = pos(r#"{"mode":"clash","to_move":"red","seats":{"red":{
        "pieces":{"G1":"ring:10","G2":"hp:3","G3":"home","R":"ring:20"},
        "glowing":["G2","G3"],"rolls":[1,2,2,6],"exit_credits":1}}}"#);
    assert_eq!(enumerate(&p, &rules).len(), 7274);
}

/// A changed rule set changes the count: with `royal_max_steps` 3 the royal has
/// 1 + 2×3 = 7 choices, so the start position has 11 × (2×7 − 1) = 143 plans.
#[test]
fn royal_max_steps_changes_the_count() {
    let rules = RuleSet {
        royal_max_steps: 3,
        ..RuleSet::default()
    };
    let p = Position::start(engine::Mode::Journey, 2);
    assert_eq!(enumerate(&p, &rules).len(), 143);
}

/// Rule 4.7: with no seat to move there is no legal plan (every plan is `match_over`).
#[test]
fn no_plan_when_nobody_is_to_move() {
    let rules = RuleSet::default();
    let p = pos(r#"{"mode":"clash","to_move":null}"#);
    assert_eq!(legal_plans(&p, &rules).count(), 0);
    assert_eq!(count_legal_plans(&p, &rules), 0);
}

/// The documented size example of `legal_plans`: four guardians and the royal on the
/// ring, store [1,2,3,4,5,6,1,2,3]: 1, 2, 3 twice (C(2+4, 4) = 15 ways each), 4, 5, 6
/// once (5 ways each): D = 15³ × 5³ = 421 875; 2 × 421 875 × 17 − 1 = 14 343 749.
/// (Counted, not enumerated.)
#[test]
fn full_store_count_is_14_343_749() {
    let rules = RuleSet::default();
    let p = pos(r#"{"mode":"clash","to_move":"green","seats":{"green":{
        "pieces":{"G1":"ring:1","G2":"ring:2","G3":"ring:3","G4":"ring:4","R":"ring:5"},
        "rolls":[1,2,3,4,5,6,1,2,3]}}}"#);
    assert_eq!(count_legal_plans(&p, &rules), 14_343_749);
}

/// Rules 4.3, 4.5: the guardians a plan may move are those on the ring or in the
/// home path, plus each guardian in the Yard that the plan exits (bit `i` of
/// `exited` for guardian `i`); a guardian in the Yard that is not exited, or at Home,
/// may not move. Blue: G1, G2 in the Yard, G3 on ring 30, G4 at Home.
#[test]
fn movable_guardians_are_on_the_board_or_exited() {
    let p = pos(r#"{"mode":"clash","to_move":"blue","seats":{"blue":{
        "pieces":{"G1":"yard","G2":"yard","G3":"ring:30","G4":"home","R":"ring:2"}}}}"#);
    use PieceId::{G1, G2, G3};
    assert_eq!(movable_guardians(&p, 0b0000), [G3]);
    assert_eq!(movable_guardians(&p, 0b0001), [G1, G3]);
    assert_eq!(movable_guardians(&p, 0b0010), [G2, G3]);
    assert_eq!(movable_guardians(&p, 0b0011), [G1, G2, G3]);
    // Rule 4.7: nobody to move, nobody movable.
    let over = pos(r#"{"mode":"clash","to_move":null}"#);
    assert_eq!(movable_guardians(&over, 0b1111), []);
}

/// `random_plan` (rule 4.5) draws every choice both ways: from a fixed seed, 400
/// draws on a position where every choice is open (G1, G2 in the Yard with 2 exit
/// credits, G3 on the ring, the royal on the ring, rolls [2, 5]) are all legal and
/// include both directions, each exit taken and not, each roll given to each movable
/// guardian and left unused, the royal moved and not, first and last, by 1 and by 8.
#[test]
fn random_plans_take_every_choice_both_ways() {
    let rules = RuleSet::default();
    let p = pos(r#"{"mode":"clash","to_move":"green","seats":{"green":{
        "pieces":{"G1":"yard","G2":"yard","G3":"ring:30","G4":"home","R":"ring:2"},
        "rolls":[2,5],"exit_credits":2}}}"#);
    let mut rng = ChaCha20Rng::seed_from_u64(38);
    let mut seen = BTreeSet::new();
    for _ in 0..400 {
        let plan = random_plan(&p, &rules, &mut rng);
        assert!(p.validate(&rules, &plan).is_ok(), "{plan:?} is not legal");
        seen.insert(format!("{:?}", plan.direction));
        for g in ["G1", "G2"] {
            let exited = plan.exits.iter().any(|e| e == g);
            seen.insert(format!("{g} exited {exited}"));
        }
        for v in [2, 5] {
            let to = PieceId::GUARDIANS
                .into_iter()
                .find(|g| plan.moves.get(g.name()).is_some_and(|r| r.contains(&v)));
            seen.insert(format!("{v} to {to:?}"));
        }
        match plan.royal {
            Some(s) => {
                seen.insert(format!("royal first {}", plan.royal_first));
                seen.insert(format!("royal {s}"));
            }
            None => {
                seen.insert("royal stays".into());
            }
        }
    }
    let mut want = vec![
        "Forward".to_string(),
        "Backward".into(),
        "royal stays".into(),
        "royal first true".into(),
        "royal first false".into(),
        "royal 1".into(),
        "royal 8".into(),
    ];
    for g in ["G1", "G2"] {
        want.push(format!("{g} exited true"));
        want.push(format!("{g} exited false"));
    }
    for v in [2, 5] {
        want.push(format!("{v} to None"));
        for g in ["G1", "G2", "G3"] {
            want.push(format!("{v} to Some({g})"));
        }
    }
    for w in &want {
        assert!(seen.contains(w), "no draw had {w}: {seen:?}");
    }
}

/// A location for the generated positions.
fn location() -> impl Strategy<Value = Location> {
    prop_oneof![
        3 => Just(Location::Yard),
        3 => (0u8..68).prop_map(Location::Ring),
        1 => (1u8..=7).prop_map(Location::HomePath),
        1 => Just(Location::Home),
    ]
}

/// Small positions for the seat to move: any locations, at most 3 stored rolls,
/// 0..=3 exit credits, and a rule set with `royal_max_steps` 1..=8 — the bounds within
/// which the brute force below stays fast.
fn small_position() -> impl Strategy<Value = (Position, RuleSet)> {
    (
        0usize..4,
        prop::collection::vec(location(), 5),
        prop::collection::vec(1i64..=6, 0..=3),
        0i64..=3,
        1u8..=8,
    )
        .prop_map(|(seat, locs, rolls, credits, royal_max)| {
            let seat = Seat::from_index(seat);
            let mut s = engine::SeatSetup {
                rolls,
                exit_credits: credits,
                ..Default::default()
            };
            for (p, l) in PieceId::ALL.into_iter().zip(locs) {
                s.pieces.insert(p, l);
                if l != Location::Yard {
                    s.glowing.push(p);
                }
            }
            let setup = engine::Setup {
                mode: engine::Mode::Clash,
                to_move: Some(seat),
                seats: [(seat, s)].into_iter().collect(),
            };
            let rules = RuleSet {
                royal_max_steps: royal_max,
                ..RuleSet::default()
            };
            (Position::from_setup(&setup).unwrap(), rules)
        })
}

/// Every plan of a superset of the legal ones: both directions, every subset of
/// `G1`..`G4` as exits, each stored roll unused or given to any of `G1`..`G4`, and the
/// royal absent or 0..=`royal_max_steps` + 1 steps, first or last.
fn brute_force(p: &Position, rules: &RuleSet) -> impl Iterator<Item = Plan> {
    let rolls: Vec<u8> = p
        .to_move()
        .map(|s| p.seat(s).rolls.as_slice().to_vec())
        .unwrap_or_default();
    let n = rolls.len() as u32;
    let royal_max = rules.royal_max_steps as i64;
    let royals: Vec<(Option<i64>, bool)> = std::iter::once((None, false))
        .chain(std::iter::once((None, true)))
        .chain((0..=royal_max + 1).flat_map(|r| [(Some(r), false), (Some(r), true)]))
        .collect();
    let mut out = Vec::new();
    for dir in [Direction::Forward, Direction::Backward] {
        for exits in 0..16u8 {
            for assign in 0..5u32.pow(n) {
                for &(royal, first) in &royals {
                    let mut plan = Plan::new(dir);
                    for g in PieceId::GUARDIANS {
                        if exits & (1 << g.index()) != 0 {
                            plan = plan.exit(g);
                        }
                    }
                    let mut a = assign;
                    let mut per: [Vec<u8>; 4] = Default::default();
                    for &v in &rolls {
                        let bin = a % 5;
                        a /= 5;
                        if bin > 0 {
                            per[bin as usize - 1].push(v);
                        }
                    }
                    for g in PieceId::GUARDIANS {
                        if !per[g.index()].is_empty() {
                            plan = plan.mv(g, &per[g.index()]);
                        }
                    }
                    plan.royal = royal;
                    plan.royal_first = first;
                    out.push(plan);
                }
            }
        }
    }
    out.into_iter()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Rule 4.5, both ways: every enumerated plan validates (and is canonical and
    /// distinct, and `count_legal_plans` agrees), and every plan of the brute-force
    /// superset that validates is enumerated in its canonical form — so the
    /// enumerated set is exactly the set of canonical legal plans. Each enumerated
    /// plan also resolves the same through `play` and `validate` + `play_unchecked`.
    #[test]
    fn enumerated_plans_are_exactly_the_legal_ones((p, rules) in small_position()) {
        let listed = enumerate(&p, &rules);
        let mut valid = BTreeSet::new();
        for plan in brute_force(&p, &rules) {
            if p.validate(&rules, &plan).is_ok() {
                let key = serde_json::to_string(&plan.canonical()).unwrap();
                prop_assert!(listed.contains(&key), "legal {:?} not enumerated", plan);
                valid.insert(key);
            }
        }
        prop_assert_eq!(&valid, &listed);
        let mut events = Vec::new();
        for plan in legal_plans(&p, &rules).take(500) {
            let vp = p.validate(&rules, &plan).unwrap();
            let mut next = p;
            events.clear();
            next.play_unchecked(&rules, &vp, &mut events);
            let (want, want_events) = p.play(&rules, &plan).unwrap();
            prop_assert_eq!(next, want);
            prop_assert_eq!(&events, &want_events);
        }
    }
}
