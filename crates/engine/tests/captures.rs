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
