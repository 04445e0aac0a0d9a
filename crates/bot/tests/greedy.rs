//! What the greedy bot does in small, clear positions (each test names the rule that
//! makes its choice the right one and the exact outcome expected).

use bot::{GreedyBot, Strategy};
use engine::{Event, Location, Mode, PieceId, Position, RuleSet, Seat};

fn pos(json: &str) -> Position {
    Position::from_json(json).unwrap()
}

/// Plays the greedy bot's plan and returns the position after it and the events.
fn greedy_result(p: &Position) -> (Position, Vec<Event>) {
    let rules = RuleSet::default();
    let plan = GreedyBot::new(11).choose(p, &rules);
    p.play(&rules, &plan).expect("greedy plans are legal")
}

/// Rules 5.2, 5.4, 7.2: two guardians on one tile given equal rolls move as a unit of
/// strength 2 and capture a single piece they pass. Green G1+G2 on ring 10 with rolls
/// [4, 4], a red guardian alone on ring 14: the capture is the best plan, so red G1
/// must end in its Yard.
#[test]
fn captures_with_a_pair() {
    let p = pos(r#"{"mode":"clash","to_move":"green","seats":{
        "green":{"pieces":{"G1":"ring:10","G2":"ring:10"},"rolls":[4,4]},
        "red":{"pieces":{"G1":"ring:14"}}}}"#);
    let (next, events) = greedy_result(&p);
    assert_eq!(next.seat(Seat::Red).location(PieceId::G1), Location::Yard);
    let captures = events
        .iter()
        .filter(|e| {
            matches!(
                e,
                Event::Capture {
                    seat: Seat::Green,
                    ..
                }
            )
        })
        .count();
    assert_eq!(captures, 1);
}

/// Rules 7.3, 7.6: a royal on ring 20 can be reached by the red pair on ring 30 with
/// the 3 dice red rolls next; forts are safe. Green has no rolls, so only the royal
/// can move (1..=8 steps): it must end on the fort 24 (4 forward, also scoring
/// fort:24) or the fort 12 (8 backward).
#[test]
fn royal_takes_shelter_on_a_fort() {
    let p = pos(r#"{"mode":"clash","to_move":"green","seats":{
        "green":{"pieces":{"R":"ring:20"}},
        "red":{"pieces":{"G1":"ring:30","G2":"ring:30"}}}}"#);
    let (next, _) = greedy_result(&p);
    let r = next.seat(Seat::Green).location(PieceId::R);
    assert!(
        r == Location::Ring(24) || r == Location::Ring(12),
        "royal ended on {r}, not on a fort"
    );
}

/// Rule 8.4: reaching the midpoint (green: ring 34) scores 50 points in journey and
/// starts glowing. G1 on ring 30 with the roll [4] must take it.
#[test]
fn reaches_the_midpoint() {
    let p = pos(r#"{"mode":"journey","to_move":"green","seats":{
        "green":{"pieces":{"G1":"ring:30"},"rolls":[4]}}}"#);
    let (next, _) = greedy_result(&p);
    let g = next.seat(Seat::Green);
    assert_eq!(g.location(PieceId::G1), Location::Ring(34));
    assert!(g.glows(PieceId::G1));
    assert_eq!(g.progress[PieceId::G1.index()], 50);
}

/// Rules 4.2, 4.3, 7.6: at the start, with 2 exit credits and a safe own entry tile,
/// bringing both guardians out (10 points each) is best: the plan exits two.
#[test]
fn brings_guardians_out() {
    let rules = RuleSet::default();
    let p = Position::start(Mode::Journey, rules.start_exit_credits);
    let plan = GreedyBot::new(5).choose(&p, &rules);
    assert_eq!(plan.exits.len(), 2, "plan {plan:?}");
}

/// Rules 6.2, 6.5: the red pair on ring 14 blocks a single green guardian; moving G1
/// (ring 10) forward by its only roll 6 would stop it on 13 and cost 3 lost steps ×
/// 10 = 30 combat points in clash. Backward the same 6 steps are free and pass the
/// fort on ring 7 (+20, rule 8.5): the greedy plan must take that way — G1 ends on
/// ring 4 with 20 progress points, the roll used, no blockade and combat still 0. (A
/// bot that passes, or that walks into the blockade, fails.)
#[test]
fn avoids_blockade_penalties() {
    let p = pos(r#"{"mode":"clash","to_move":"green","seats":{
        "green":{"pieces":{"G1":"ring:10"},"rolls":[6]},
        "red":{"pieces":{"G1":"ring:14","G2":"ring:14"}}}}"#);
    let (next, events) = greedy_result(&p);
    let green = next.seat(Seat::Green);
    assert_eq!(green.location(PieceId::G1), Location::Ring(4));
    assert_eq!(green.progress[PieceId::G1.index()], 20);
    assert!(green.rolls.is_empty(), "the 6 is used");
    assert_eq!(green.combat, 0);
    assert!(!events.iter().any(|e| matches!(e, Event::Blocked { .. })));
}
