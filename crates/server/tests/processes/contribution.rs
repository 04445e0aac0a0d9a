//! Dice contributions survive `kill -9` (proto/README.md §10, issue 31): three of
//! four players contribute (each stored before its `ack`), the server is killed
//! before the first roll, and a new server on the same database resumes the match
//! still waiting, with a fresh window and the three contributions kept; the fourth
//! contributes, the dice are sealed with all four, and every die the players then
//! see is the one the replay records and re-derives from the revealed seed and the
//! recorded contributions (SQLite and PostgreSQL).

use crate::harness::*;
use engine::{Dice, DiceScheme};
use protocol::ServerMsg;
use serde_json::json;
use uuid::Uuid;

/// A window far longer than the test: only the contributions seal the dice.
const WINDOW: &str = "60000";

fn entropy(seat: usize) -> String {
    format!("{:02x}", 0x10 + seat).repeat(16 + seat)
}

async fn contribute(p: &mut Player, match_id: Uuid, seat: usize) {
    p.send(json!({"t": "contribute_entropy", "id": "e", "d": {"match_id": match_id, "entropy": entropy(seat)}}))
        .await;
    let f = p
        .until(|m| matches!(m, ServerMsg::Ack(_) | ServerMsg::Error(_)))
        .await;
    assert!(
        matches!(f.msg, ServerMsg::Ack(_)),
        "contribution accepted: {f:?}"
    );
}

async fn kill9_between_contributions_and_first_roll(database_url: String) {
    let database_url = database_url.as_str();
    let dir = tempfile::tempdir().unwrap();
    let env = [
        ("LUDO_CONTRIBUTION_WINDOW_MS", WINDOW),
        ("LUDO_MATCH_SECONDS", "600"),
    ];
    let s1 = ServerProc::start(database_url, &env, dir.path()).await;
    s1.wait_ready().await;
    let (mut players, match_id) = lobby_of_four(&s1).await;
    for (seat, p) in players.iter_mut().enumerate().take(3) {
        contribute(p, match_id, seat).await;
    }
    assert!(
        players.iter().all(|p| p.turn.is_none()),
        "nothing rolled yet"
    );
    s1.kill9().await;

    let s2 = ServerProc::start(database_url, &env, dir.path()).await;
    s2.wait_ready().await;
    let mut resumed = Vec::new();
    for old in &players {
        let (mut p, active) = Player::connect(&s2, old.player_id, &old.token).await;
        assert_eq!(active, vec![match_id]);
        let snap = p.snapshot().await;
        assert_eq!(snap.seq, 1, "only match_started was shown");
        assert!(snap.turn.is_none() && snap.contributions.is_none());
        assert_eq!(snap.dice_scheme, DiceScheme::Contributed);
        assert!(snap.contribution_deadline_ms.is_some(), "a fresh window");
        resumed.push(p);
    }
    let mut players = resumed;
    // A seat that contributed before the crash cannot again (it was stored).
    players[0]
        .send(json!({"t": "contribute_entropy", "id": "x", "d": {"match_id": match_id, "entropy": "99".repeat(16)}}))
        .await;
    let f = players[0].until(|m| matches!(m, ServerMsg::Error(_))).await;
    let ServerMsg::Error(e) = f.msg else {
        unreachable!()
    };
    assert_eq!(e.code, protocol::ErrorCode::AlreadyContributed);
    contribute(&mut players[3], match_id, 3).await;
    let mut sealed = None;
    for p in players.iter_mut() {
        let f = p.until(|m| matches!(m, ServerMsg::DiceSealed(_))).await;
        assert_eq!(f.seq, Some(2));
        let ServerMsg::DiceSealed(d) = f.msg else {
            unreachable!()
        };
        for (seat, c) in d.contributions.iter().enumerate() {
            assert_eq!((c.entropy.to_hex(), c.defaulted), (entropy(seat), false));
        }
        sealed = Some(d.contributions);
    }
    let contributions = sealed.unwrap();
    assert_eq!(play_until(&mut players, match_id, 9).await, 9);
    for p in players.iter_mut() {
        p.send(json!({"t": "leave_match", "id": "bye", "d": {"match_id": match_id}}))
            .await;
        p.until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "bye"))
            .await;
    }
    let (status, doc) = s2
        .get_json(&format!("/api/v1/matches/{match_id}/replay"))
        .await;
    assert_eq!(status, 200);
    let replay: engine::Replay = serde_json::from_value(doc).unwrap();
    assert_eq!(replay.dice_scheme, DiceScheme::Contributed);
    assert_eq!(replay.contributions.as_ref(), Some(&contributions));
    engine::replay::verify(&replay).expect("the replay verifies");
    // Every turn the players saw rolled the replay's dice, which follow from the
    // revealed seed and the recorded contributions.
    let seen = seen_turns(&players);
    // Turns 1..=8 in lock-step, and the bots' turns while the players were leaving.
    assert!(seen.len() >= 8, "{} turns seen", seen.len());
    let mut dice = Dice::contributed(replay.seed.unwrap(), &contributions).unwrap();
    for t in &replay.turns {
        let derived: Vec<u8> = (0..t.dice.len()).map(|_| dice.roll()).collect();
        assert_eq!(t.dice, derived, "turn {}", t.turn_number);
    }
    for (n, r) in &seen {
        let t = &replay.turns[*n as usize - 1];
        assert_eq!((t.seat, &t.events), (r.seat, &r.events), "turn {n}");
    }
    s2.kill9().await;
}

#[tokio::test]
async fn kill9_between_contributions_and_first_roll_on_sqlite() {
    let db = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", db.path().join("contrib.db").display());
    kill9_between_contributions_and_first_roll(url).await;
}

#[tokio::test]
async fn kill9_between_contributions_and_first_roll_on_postgres() {
    let db = store::testing::TempPg::create("ludo_contrib").await;
    let outcome =
        store::testing::run_catching(kill9_between_contributions_and_first_roll(db.url.clone()))
            .await;
    db.drop_db().await;
    if let Err(p) = outcome {
        std::panic::resume_unwind(p);
    }
}
