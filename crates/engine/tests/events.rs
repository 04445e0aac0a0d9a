//! The events a resolution reports, in the order things happened (rules 3.6, 5.3,
//! 6.5, 7.8, 8.3–8.8). Scenario files only see the resulting position; these tests
//! pin down what a client animates, including the [H] order of sub-groups after a
//! split (rule 5.3), which no position shows.

use engine::checkpoint::Checkpoint;
use engine::{Event, Location, PieceId, Plan, Position, RuleSet, Seat};
use serde_json::json;

use PieceId::{G1, G2, G3, G4, R};

fn play(position: &str, plan: &str) -> (Position, Vec<Event>) {
    let pos = Position::from_json(position).unwrap();
    pos.play(&RuleSet::default(), &Plan::from_json(plan).unwrap())
        .unwrap()
}

fn ring(n: u8) -> Location {
    Location::Ring(n)
}

fn mv(pieces: &[PieceId], from: Location, path: &[Location]) -> Event {
    Event::Move {
        seat: Seat::Green,
        pieces: pieces.to_vec(),
        from,
        path: path.to_vec(),
    }
}

fn fort(piece: PieceId, tile: u8) -> Event {
    Event::Checkpoint {
        seat: Seat::Green,
        piece,
        checkpoint: Checkpoint::Fort(tile),
        points: 20,
    }
}

/// Rule 5.3 [H]: after a split the sub-groups finish one after another, larger first:
/// the not-glowing pair G2+G3 runs past the home path before the glowing G1 enters it.
#[test]
fn split_sub_groups_move_larger_first() {
    let (_, ev) = play(
        r#"{"mode":"clash","to_move":"green","seats":{"green":{
            "pieces":{"G1":"ring:60","G2":"ring:60","G3":"ring:60"},"glowing":["G1"],"rolls":[6,6,6]}}}"#,
        r#"{"moves":{"G1":[6],"G2":[6],"G3":[6]}}"#,
    );
    assert_eq!(
        ev,
        [
            mv(&[G1, G2, G3], ring(60), &[ring(61), ring(62), ring(63)]),
            fort(G1, 63),
            fort(G2, 63),
            fort(G3, 63),
            mv(&[G2, G3], ring(63), &[ring(64), ring(65), ring(66)]),
            mv(
                &[G1],
                ring(63),
                &[
                    Location::HomePath(1),
                    Location::HomePath(2),
                    Location::HomePath(3)
                ]
            ),
        ]
    );
}

/// Rule 5.3 [H], equal sub-group sizes: the one holding the lowest-numbered guardian
/// moves first (G2, glowing, into HP4 before G4 runs on backward).
#[test]
fn split_equal_sub_groups_lowest_number_first() {
    let (_, ev) = play(
        r#"{"mode":"journey","to_move":"green","seats":{"green":{
            "pieces":{"G2":"ring:1","G4":"ring:1"},"glowing":["G2"],"rolls":[3,3]}}}"#,
        r#"{"direction":"backward","moves":{"G2":[3],"G4":[3]}}"#,
    );
    let entry = |piece| Event::Checkpoint {
        seat: Seat::Green,
        piece,
        checkpoint: Checkpoint::Entry,
        points: 10,
    };
    assert_eq!(
        ev,
        [
            mv(&[G2, G4], ring(1), &[ring(0)]),
            entry(G2),
            entry(G4),
            mv(
                &[G2],
                ring(0),
                &[Location::HomePath(4), Location::HomePath(5)]
            ),
            mv(&[G4], ring(0), &[ring(67), ring(66)]),
        ]
    );
}

/// Rule 5.2.2: only guardians with moves form moving groups. G2 has no move and
/// stands on G3's tile, so G3 moves alone, a group of one like G1, and G1 (the lower
/// number) goes first (rule 5.2.3); were G2 counted, G2+G3 would be the larger group.
#[test]
fn a_guardian_without_rolls_joins_no_group() {
    let (pos, ev) = play(
        r#"{"mode":"clash","to_move":"green","seats":{"green":{
            "pieces":{"G1":"ring:5","G2":"ring:14","G3":"ring:14"},"rolls":[1,2]}}}"#,
        r#"{"moves":{"G1":[1],"G3":[2]}}"#,
    );
    assert_eq!(
        ev,
        [
            mv(&[G1], ring(5), &[ring(6)]),
            mv(&[G3], ring(14), &[ring(15), ring(16)]),
        ]
    );
    assert_eq!(pos.seat(Seat::Green).location(G2), ring(14));
}

/// Rules 7.3, 7.8, 8.6 (S 003 example): the royal capture comes first (150), then one
/// cascade capture per ring guardian (100 each, flagged `cascade`), then the summary
/// with the rolls the seat lost and its new 2 exit credits.
#[test]
fn royal_capture_events() {
    let (_, ev) = play(
        r#"{"mode":"clash","to_move":"green","seats":{
            "green":{"pieces":{"R":"ring:40","G1":"ring:20","G2":"ring:20"},"rolls":[2,2]},
            "red":{"pieces":{"R":"ring:22","G1":"ring:30","G3":"ring:50","G4":"hp:2"},
                   "glowing":["G4"],"rolls":[6,1],"exit_credits":1}}}"#,
        r#"{"moves":{"G1":[2],"G2":[2]}}"#,
    );
    let cap = |captured, tile, points, cascade| Event::Capture {
        seat: Seat::Green,
        tile,
        captured_seat: Seat::Red,
        captured,
        points,
        cascade,
    };
    assert_eq!(
        ev,
        [
            mv(&[G1, G2], ring(20), &[ring(21), ring(22)]),
            cap(R, ring(22), 150, false),
            cap(G1, ring(30), 100, true),
            cap(G3, ring(50), 100, true),
            Event::RoyalCaptured {
                seat: Seat::Red,
                by: Seat::Green,
                guardians: vec![G1, G3],
                rolls_lost: vec![6, 1],
                exit_credits: 2,
            },
        ]
    );
}

/// Rule 6.5: the blocked unit's event names the blocking tile and seat, the steps
/// lost (summed over its pieces) and the penalty (clash 10 per step).
#[test]
fn blocked_event() {
    let (_, ev) = play(
        r#"{"mode":"clash","to_move":"green","seats":{
            "green":{"pieces":{"G1":"ring:20","G4":"ring:20"},"rolls":[5,5]},
            "blue":{"pieces":{"G1":"ring:23","G2":"ring:23"}}}}"#,
        r#"{"moves":{"G1":[5],"G4":[5]}}"#,
    );
    assert_eq!(
        ev,
        [
            mv(&[G1, G4], ring(20), &[ring(21), ring(22)]),
            Event::Blocked {
                seat: Seat::Green,
                pieces: vec![G1, G4],
                at: ring(22),
                tile: ring(23),
                by: Seat::Blue,
                lost_steps: 6,
                penalty: 60,
            },
        ]
    );
}

/// Rules 5.2.1, 8.5, 3.3, 8.8: an exit, the royal's last step Home and the completion,
/// in order; and the wire form of an event (tagged by `type`, snake_case).
#[test]
fn exit_home_and_finish_events() {
    let (_, ev) = play(
        r#"{"mode":"journey","to_move":"green","seats":{"green":{
            "pieces":{"G1":"home","G2":"home","G3":"home","G4":"yard","R":"hp:7"},
            "glowing":["G1","G2","G3","R"],"exit_credits":1}}}"#,
        r#"{"exits":["G4"],"royal":3}"#,
    );
    assert_eq!(
        ev[..2],
        [
            Event::Exit {
                seat: Seat::Green,
                piece: G4,
                to: ring(0)
            },
            Event::Checkpoint {
                seat: Seat::Green,
                piece: G4,
                checkpoint: Checkpoint::Entry,
                points: 10
            },
        ]
    );
    assert_eq!(
        ev[2..],
        [
            mv(&[R], Location::HomePath(7), &[Location::Home]),
            Event::Home {
                seat: Seat::Green,
                piece: R,
                points: 200
            },
        ],
        "G4 is still out, so the seat does not finish"
    );
    let (_, ev) = play(
        r#"{"mode":"journey","to_move":"green","seats":{"green":{
            "pieces":{"G1":"home","G2":"home","G3":"home","G4":"home","R":"hp:7"},
            "glowing":["G1","G2","G3","G4","R"]}}}"#,
        r#"{"royal":3}"#,
    );
    assert_eq!(
        ev.last(),
        Some(&Event::Finished {
            seat: Seat::Green,
            place: 1,
            bonus: 400
        })
    );
    assert_eq!(
        serde_json::to_value(ev.last().unwrap()).unwrap(),
        json!({"type": "finished", "seat": "green", "place": 1, "bonus": 400})
    );
}

/// Rule 8.4: the midpoint event (journey guardian 50) comes after the move that
/// reached it, and the piece moves on afterwards.
#[test]
fn midpoint_event() {
    let (pos, ev) = play(
        r#"{"mode":"journey","to_move":"green","seats":{"green":{"pieces":{"G3":"ring:33"},"rolls":[2]}}}"#,
        r#"{"moves":{"G3":[2]}}"#,
    );
    assert_eq!(
        ev,
        [
            mv(&[G3], ring(33), &[ring(34)]),
            Event::Midpoint {
                seat: Seat::Green,
                piece: G3,
                points: 50
            },
            mv(&[G3], ring(34), &[ring(35)]),
        ]
    );
    assert!(pos.seat(Seat::Green).glows(G3));
}

/// Rule 4.3: a royal move that reaches no checkpoint is one `Move` event whose path
/// holds every step (ring 1 → 2, 3, 4), not one event per step: clients animate the
/// path of each event as one movement.
#[test]
fn royal_move_without_checkpoint_is_one_move_event() {
    let (_, ev) = play(
        r#"{"mode":"clash","to_move":"green","seats":{"green":{"pieces":{"R":"ring:1"}}}}"#,
        r#"{"royal":3}"#,
    );
    assert_eq!(
        ev,
        [Event::Move {
            seat: Seat::Green,
            pieces: vec![R],
            from: ring(1),
            path: vec![ring(2), ring(3), ring(4)],
        }]
    );
}

/// Rules 4.3, 8.5: a royal move of 6 from ring 3 passes the fort on ring 7: the path is
/// cut at the fort (one `Move` to 7, its checkpoint of 40 points for a royal, then one
/// `Move` on to 9).
#[test]
fn royal_move_through_a_fort_is_cut_at_the_checkpoint() {
    let (_, ev) = play(
        r#"{"mode":"journey","to_move":"green","seats":{"green":{"pieces":{"R":"ring:3"}}}}"#,
        r#"{"royal":6}"#,
    );
    assert_eq!(
        ev,
        [
            Event::Move {
                seat: Seat::Green,
                pieces: vec![R],
                from: ring(3),
                path: vec![ring(4), ring(5), ring(6), ring(7)],
            },
            Event::Checkpoint {
                seat: Seat::Green,
                piece: R,
                checkpoint: Checkpoint::Fort(7),
                points: 40,
            },
            Event::Move {
                seat: Seat::Green,
                pieces: vec![R],
                from: ring(7),
                path: vec![ring(8), ring(9)],
            },
        ]
    );
}
