//! Rule 7.2, the capture table, for every unit strength against every group size:
//! strength 1 captures nothing; 2 captures a single piece; 3 captures singles and
//! groups of 2; 4 captures singles and groups of 2, 3 or 4 ("a group captures only
//! smaller groups, except that 4 captures 4"). A group it cannot capture blocks it
//! (rule 6.4) and stays.

use engine::{Direction, Location, PieceId, Plan, Position, RuleSet, Seat};

/// Green moves `strength` guardians from ring 20 by 2 each (one unit, rule 5.2) onto
/// ring 22, where red has a group of `size` guardians. Returns how many red guardians
/// are still on ring 22 afterwards.
fn red_left_on_22(strength: usize, size: usize) -> usize {
    let names = ["G1", "G2", "G3", "G4"];
    let green: Vec<String> = names[..strength]
        .iter()
        .map(|g| format!(r#""{g}":"ring:20""#))
        .collect();
    let red: Vec<String> = names[..size]
        .iter()
        .map(|g| format!(r#""{g}":"ring:22""#))
        .collect();
    let rolls = vec!["2"; strength].join(",");
    let json = format!(
        r#"{{"mode":"clash","to_move":"green","seats":{{
            "green":{{"pieces":{{{}}},"rolls":[{rolls}]}},
            "red":{{"pieces":{{{}}}}}}}}}"#,
        green.join(","),
        red.join(",")
    );
    let pos = Position::from_json(&json).unwrap();
    let mut plan = Plan::new(Direction::Forward);
    for g in &PieceId::GUARDIANS[..strength] {
        plan = plan.mv(*g, &[2]);
    }
    let (next, _) = pos.play(&RuleSet::default(), &plan).unwrap();
    PieceId::GUARDIANS
        .iter()
        .filter(|g| next.seat(Seat::Red).location(**g) == Location::Ring(22))
        .count()
}

#[test]
fn capture_table_of_rule_7_2() {
    // (strength, group size) → captured?
    let captured = |s: usize, g: usize| match (s, g) {
        (1, _) => false,
        (2, 1) => true,
        (2, _) => false,
        (3, 1 | 2) => true,
        (3, _) => false,
        (4, _) => true,
        _ => unreachable!(),
    };
    for s in 1..=4 {
        for g in 1..=4 {
            let want = if captured(s, g) { 0 } else { g };
            assert_eq!(
                red_left_on_22(s, g),
                want,
                "rule 7.2: strength {s} against a group of {g}"
            );
        }
    }
}

/// Rule 7.7: a captured piece goes to its Yard, stops glowing and its progress points
/// become 0; the seat's other pieces keep their glow and their points, and its
/// checkpoint record is kept (rule 8.3).
#[test]
fn a_captured_piece_stops_glowing_and_loses_its_progress() {
    let pos = Position::from_json(
        r#"{"mode":"journey","to_move":"green","seats":{
            "green":{"pieces":{"G1":"ring:20","G2":"ring:20"},"rolls":[2,2]},
            "red":{"pieces":{"G1":"hp:2","G2":"ring:22"},"glowing":["G1","G2"],
                   "progress":{"G1":60,"G2":70},"scored":{"G2":["entry"]}}}}"#,
    )
    .unwrap();
    let plan = Plan::new(Direction::Forward)
        .mv(PieceId::G1, &[2])
        .mv(PieceId::G2, &[2]);
    let (next, _) = pos.play(&RuleSet::default(), &plan).unwrap();
    let red = next.seat(Seat::Red);
    assert_eq!(red.location(PieceId::G2), Location::Yard);
    assert!(!red.glows(PieceId::G2), "the captured G2 stops glowing");
    assert_eq!(red.progress[PieceId::G2.index()], 0);
    assert!(red.glows(PieceId::G1), "G1, not captured, still glows");
    assert_eq!(red.progress[PieceId::G1.index()], 60);
    assert_eq!(red.scored, pos.seat(Seat::Red).scored, "records are kept");
    assert_eq!(red.location(PieceId::G1), Location::HomePath(2));
}
