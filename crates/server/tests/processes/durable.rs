//! Durable matches: `kill -9` or SIGTERM of the server mid-match, restart on the same
//! database (SQLite and PostgreSQL): the match is resumed with the same `seq`, the
//! same position and turn, no downtime charged to the match clock (rule 9.1); four
//! players reconnect with their tokens and play it to `match_ended`; every
//! `turn_resolved` any of them saw is in the final replay, identical, and the replay
//! verifies.

use crate::harness::*;
use engine::{Position, Seat};
use protocol::{Snapshot, TurnResolved, TurnStarted};
use std::collections::BTreeMap;
use std::time::Duration;
use uuid::Uuid;

#[derive(Clone, Copy, Debug)]
enum Stop {
    Kill9,
    Term,
}

/// Match clock of these tests, seconds (rule 9.1).
const MATCH_SECONDS: u64 = 8;
/// How long the server stays down between the stop and the restart.
const DOWNTIME: Duration = Duration::from_secs(2);

/// The snapshot equals what the players last saw (`seen`: a snapshot asked for
/// right before the stop): `seq`, turns played, the turn in progress (seat, number,
/// dice, roll store) and every seat's pieces, points and rolls.
fn assert_same_as_seen(snap: &Snapshot, seq: u64, turn: &TurnStarted, seen: &Snapshot) {
    assert_eq!(snap.seq, seq, "resumed seq");
    assert_eq!(snap.turns_played, seen.turns_played, "turns played");
    let t = snap.turn.as_ref().expect("a turn in progress");
    assert_eq!(
        (
            t.seat,
            t.turn_number,
            &t.dice,
            &t.roll_store,
            t.exit_credits
        ),
        (
            turn.seat,
            turn.turn_number,
            &turn.dice,
            &turn.roll_store,
            turn.exit_credits
        ),
        "the turn in progress"
    );
    let (a, b): (&Position, &Position) = (&snap.position, &seen.position);
    for seat in Seat::ALL {
        let (x, y) = (a.seat(seat), b.seat(seat));
        assert_eq!(x.pieces, y.pieces, "{seat:?} pieces");
        assert_eq!(
            (x.combat, x.bonus, x.progress, x.finished),
            (y.combat, y.bonus, y.progress, y.finished),
            "{seat:?} points"
        );
        assert_eq!(
            x.rolls.as_slice(),
            y.rolls.as_slice(),
            "{seat:?} roll store"
        );
    }
    assert_eq!(
        a.seat(turn.seat).rolls.as_slice(),
        &turn.roll_store[..],
        "mover's roll store"
    );
    assert_eq!(a, b, "the whole position");
}

async fn stop_and_resume(database_url: String, stop: Stop) {
    let database_url = database_url.as_str();
    let dir = tempfile::tempdir().unwrap();
    let secs = MATCH_SECONDS.to_string();
    let env = [
        ("LUDO_MATCH_SECONDS", secs.as_str()),
        ("LUDO_TURN_SECONDS", "30"),
    ];
    let s1 = ServerProc::start(database_url, &env, dir.path()).await;
    s1.wait_ready().await;
    // The match clock cannot have started before its lobby was opened.
    let t0 = tokio::time::Instant::now();
    let (mut players, match_id) = lobby_of_four(&s1).await;
    // Lock-step to turn 20: every player has seen turn 20 start and nothing is in
    // flight, so the stored state is exactly what they saw.
    assert_eq!(play_until(&mut players, match_id, 20).await, 20);
    let seq = players.iter().map(|p| p.seq).max().unwrap();
    let turn = players[0].turn.clone().unwrap();
    // What the players see now, as a snapshot (resync from 0: no new message).
    players[0]
        .send(serde_json::json!({"t": "resync", "d": {"match_id": match_id, "last_seq": 0}}))
        .await;
    let seen = players[0].snapshot().await;
    assert_eq!(seen.seq, seq, "the snapshot is of what was seen");
    let before = seen_turns(&players);
    assert_eq!(before.len(), 19);
    match stop {
        Stop::Kill9 => s1.kill9().await,
        Stop::Term => s1.terminate().await,
    }
    // The most the clock can have run before the stop: until the process was gone.
    let used_before_stop = t0.elapsed();
    tokio::time::sleep(DOWNTIME).await;

    let resumed_at = tokio::time::Instant::now();
    let s2 = ServerProc::start(database_url, &env, dir.path()).await;
    s2.wait_ready().await;
    // The resumed room counts in /metrics (it did not: the recorder was installed
    // after the start-up resume).
    assert_eq!(s2.metric("ludo_rooms_resumed_total").await, Some(1.0));
    assert_eq!(s2.metric("ludo_rooms_active").await, Some(1.0));
    let mut resumed = Vec::new();
    for old in &players {
        let (mut p, active) = Player::connect(&s2, old.player_id, &old.token).await;
        assert_eq!(active, vec![match_id], "welcome lists the resumed match");
        let snap = p.snapshot().await;
        assert_same_as_seen(&snap, seq, &turn, &seen);
        // Rule 9.1: the clock was charged at most the time played before the stop
        // and since the restart, not the downtime (DOWNTIME alone is 2 s of an 8 s
        // clock); 50 ms for the rounding of instants to ms.
        let left = snap.clocks.match_deadline_ms - snap.clocks.now_ms;
        let most_used = (used_before_stop + resumed_at.elapsed()).as_millis() as u64 + 50;
        assert!(
            left + most_used >= MATCH_SECONDS * 1000,
            "match clock left {left} ms after {most_used} ms of play"
        );
        // Rule 4.6: the turn in progress got a fresh 30 s timer.
        let turn_left = snap.clocks.turn_deadline_ms.unwrap() - snap.clocks.now_ms;
        assert!(
            turn_left > 29_000 || turn_left + 100 >= left,
            "turn timer {turn_left} ms"
        );
        p.resolved = old.resolved.clone();
        p.exited = old.exited;
        resumed.push(p);
    }
    let mut players = resumed;
    assert_eq!(play_until(&mut players, match_id, u32::MAX).await, 0);
    let seen = seen_turns(&players);
    check_replay(&s2, match_id, &seen).await;
    for (n, r) in &before {
        assert_eq!(seen.get(n), Some(r), "turn {n} seen before the stop");
    }
    s2.kill9().await;
}

/// The stored replay has every turn 1..=n once, each seen turn identical, and it
/// verifies (rule §10).
pub(crate) async fn check_replay(
    s: &ServerProc,
    match_id: Uuid,
    seen: &BTreeMap<u32, TurnResolved>,
) {
    let (status, doc) = s
        .get_json(&format!("/api/v1/matches/{match_id}/replay"))
        .await;
    assert_eq!(status, 200);
    let replay: engine::Replay = serde_json::from_value(doc).unwrap();
    assert!(replay.end.is_some(), "the replay has the end");
    let numbers: Vec<u32> = replay.turns.iter().map(|t| t.turn_number).collect();
    assert_eq!(
        numbers,
        (1..=numbers.len() as u32).collect::<Vec<_>>(),
        "no turn lost or duplicated"
    );
    for (n, r) in seen {
        let t = &replay.turns[*n as usize - 1];
        assert_eq!(
            (t.seat, t.kind, &t.plan, &t.events),
            (r.seat, r.kind, &r.plan, &r.events),
            "turn {n} differs from what the players saw"
        );
    }
    assert_eq!(
        seen.len(),
        replay.turns.len(),
        "players saw every stored turn"
    );
    engine::replay::verify(&replay).expect("the replay verifies");
}

fn sqlite_url(dir: &tempfile::TempDir) -> String {
    format!("sqlite://{}", dir.path().join("durable.db").display())
}

#[tokio::test]
async fn kill9_mid_match_resumes_on_sqlite() {
    let db = tempfile::tempdir().unwrap();
    stop_and_resume(sqlite_url(&db), Stop::Kill9).await;
}

#[tokio::test]
async fn sigterm_mid_match_resumes_on_sqlite() {
    let db = tempfile::tempdir().unwrap();
    stop_and_resume(sqlite_url(&db), Stop::Term).await;
}

#[tokio::test]
async fn kill9_mid_match_resumes_on_postgres() {
    let db = store::testing::TempPg::create("ludo_proc").await;
    let outcome = store::testing::run_catching(stop_and_resume(db.url.clone(), Stop::Kill9)).await;
    db.drop_db().await;
    if let Err(p) = outcome {
        std::panic::resume_unwind(p);
    }
}

#[tokio::test]
async fn sigterm_mid_match_resumes_on_postgres() {
    let db = store::testing::TempPg::create("ludo_proc").await;
    let outcome = store::testing::run_catching(stop_and_resume(db.url.clone(), Stop::Term)).await;
    db.drop_db().await;
    if let Err(p) = outcome {
        std::panic::resume_unwind(p);
    }
}
