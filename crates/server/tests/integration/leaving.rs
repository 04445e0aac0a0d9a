//! Leaving a match (`leave_match`) and abandoned matches, on a manual clock.
//!
//! * A player who leaves is free at once (can queue), a bot plays the seat on, every
//!   player sees `seat_left` in the match's `seq`, and at the end the seat ranks
//!   below every seat that stayed (`left: true`); the replay records the leaver and
//!   verifies.
//! * A match whose humans are all away for `abandon_seconds` ends with reason
//!   `abandoned` — not a millisecond earlier — and its replay verifies.

use crate::common::*;
use protocol::{ErrorCode, ServerMsg};
use serde_json::{json, Value};
use server::Clock;

async fn get(s: &TestServer, path: &str) -> Value {
    reqwest::get(s.url(path))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn verify_replay(s: &TestServer, id: uuid::Uuid) -> engine::Replay {
    let doc = get(s, &format!("/api/v1/matches/{id}/replay")).await;
    let replay: engine::Replay = serde_json::from_value(doc).unwrap();
    engine::replay::verify(&replay).expect("the replay verifies");
    replay
}

#[tokio::test]
async fn a_player_who_leaves_is_free_and_ranks_last() {
    let clock = Clock::manual(T0);
    let config = server::Config {
        match_seconds: 600,
        ..test_config()
    };
    let s = start_with_clock(config, clock.clone()).await;
    let (mut clients, started) = lobby_of_four(&s, false, 4).await;
    let id = started[0].match_id;
    let leaver_seat = started[0].your_seat.unwrap();
    for c in clients.iter_mut() {
        next_turn(c).await;
    }
    clients[0]
        .send(json!({"t": "leave_match", "id": "bye", "d": {"match_id": id}}))
        .await;
    let (ack, _) = clients[0]
        .recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "bye"))
        .await;
    assert!(matches!(ack.msg, ServerMsg::Ack(_)));
    // Every player sees seat_left, sequenced after the first turn_started (seq 2).
    for c in clients.iter_mut().skip(1) {
        let (f, _) = c.recv_until(|m| matches!(m, ServerMsg::SeatLeft(_))).await;
        match f.msg {
            ServerMsg::SeatLeft(l) => assert_eq!((l.match_id, l.seat), (id, leaver_seat)),
            _ => unreachable!(),
        }
        assert!(f.seq.unwrap() > 2);
    }
    // The leaver is free at once: it can queue, and a reconnect lists no match.
    clients[0]
        .send(json!({"t": "join_queue", "id": "q", "d": {"mode": "clash"}}))
        .await;
    let (f, _) = clients[0]
        .recv_until(|m| matches!(m, ServerMsg::Ack(_) | ServerMsg::Error(_)))
        .await;
    assert!(
        matches!(f.msg, ServerMsg::Ack(ref a) if a.id == "q"),
        "{:?}",
        f.msg
    );
    let (_, active) = s.reconnect(clients[0].player_id, &clients[0].token).await;
    assert!(active.is_empty(), "the leaver is seated nowhere");
    // Leaving again (from the old seat) is refused: the player has no seat now.
    let (mut again, _) = s.reconnect(clients[0].player_id, &clients[0].token).await;
    again
        .send(json!({"t": "leave_match", "id": "again", "d": {"match_id": id}}))
        .await;
    // (It is still queued — a dropped socket keeps its queue place for the queue
    // grace — so a queue_status may come first.)
    let (f, _) = again.recv_until(|m| matches!(m, ServerMsg::Error(_))).await;
    assert!(
        matches!(&f.msg, ServerMsg::Error(e) if e.code == ErrorCode::NotInMatch),
        "{f:?}"
    );

    // The match clock ends the match (rule 9.1); the leaver ranks below every seat
    // that stayed, and the standing says it left.
    clock.set_ms(T0 + 600_000);
    let (f, _) = clients[1]
        .recv_until(|m| matches!(m, ServerMsg::MatchEnded(_)))
        .await;
    let ServerMsg::MatchEnded(end) = f.msg else {
        unreachable!()
    };
    let leaver = end
        .standings
        .iter()
        .find(|s| s.seat == leaver_seat)
        .unwrap();
    assert!(leaver.left);
    for st in end.standings.iter().filter(|s| s.seat != leaver_seat) {
        assert!(!st.left);
        assert!(
            st.place < leaver.place,
            "{st:?} ranks above the leaver {leaver:?}"
        );
    }
    let replay = verify_replay(&s, id).await;
    assert_eq!(replay.left, vec![leaver_seat]);
}

/// `resync` from 0 by a spectator: the room's snapshot, answered in the order of the
/// room's queue (so it also shows the room handled everything queued before it).
/// Panics if `match_ended` comes first.
async fn watch_snapshot(c: &mut Client, id: uuid::Uuid) -> protocol::Snapshot {
    c.send(json!({"t": "resync", "d": {"match_id": id, "last_seq": 0}}))
        .await;
    let (f, _) = c
        .recv_until(|m| matches!(m, ServerMsg::Snapshot(_) | ServerMsg::MatchEnded(_)))
        .await;
    match f.msg {
        ServerMsg::Snapshot(snap) => *snap,
        other => panic!("the match ended before the snapshot: {other:?}"),
    }
}

/// No fixed wait: a spectator's `resync` is the barrier. The room reads its queue and
/// polls its timer in one task, so by the time one answer arrives the room has
/// handled what was queued before it (both players' `Detach`) and polled its timer
/// at the clock of that moment; a second answer shows what it did then. Turns last
/// 600 s, so the abandon wait (120 s) is the only deadline that can pass.
#[tokio::test]
async fn a_match_whose_humans_are_all_away_ends_as_abandoned() {
    let clock = Clock::manual(T0);
    let config = server::Config {
        abandon_seconds: 120,
        turn_seconds: 600,
        ..test_config()
    };
    let s = start_with_clock(config, clock.clone()).await;
    let (clients, started) = lobby_of_four(&s, true, 2).await;
    let id = started[0].match_id;
    let mut watcher = s.player("Watcher").await;
    watcher
        .send(json!({"t": "spectate", "d": {"match_id": id}}))
        .await;
    watcher
        .recv_until(|m| matches!(m, ServerMsg::Snapshot(_)))
        .await;
    let away_from = clock.now_ms();
    drop(clients);
    // Each closed socket queues its `Detach` to the room as it forgets its session.
    s.eventually("both players' sockets closed", |st| st.session_count() == 1)
        .await;
    assert_eq!(watch_snapshot(&mut watcher, id).await.ended, None);
    clock.set_ms(away_from + 120_000 - 1);
    watch_snapshot(&mut watcher, id).await;
    let snap = watch_snapshot(&mut watcher, id).await;
    assert_eq!(snap.ended, None, "1 ms early: still running");
    clock.set_ms(away_from + 120_000);
    let (f, _) = watcher
        .recv_until(|m| matches!(m, ServerMsg::MatchEnded(_)))
        .await;
    let ServerMsg::MatchEnded(ended) = f.msg else {
        unreachable!()
    };
    assert_eq!(ended.reason, engine::EndReason::Abandoned);
    // Shown only once durable: the store has the result.
    let m = get(&s, &format!("/api/v1/matches/{id}")).await;
    assert_eq!(
        (&m["status"], &m["end_reason"]),
        (&json!("ended"), &json!("abandoned"))
    );
    let replay = verify_replay(&s, id).await;
    assert_eq!(replay.end.unwrap().reason, engine::EndReason::Abandoned);
}

/// A match that ended while a player was away is still reachable: `resync` (its
/// player) and `spectate` (anyone) answer with a `snapshot` whose `ended` is set —
/// the stored result, the seed, and the seq of its `match_ended`.
#[tokio::test]
async fn resync_and_spectate_of_an_ended_match_answer_its_end() {
    let clock = Clock::manual(T0);
    let config = server::Config {
        match_seconds: 60,
        ..test_config()
    };
    let s = start_with_clock(config, clock.clone()).await;
    let (mut clients, started) = lobby_of_four(&s, false, 4).await;
    let id = started[0].match_id;
    clock.set_ms(T0 + 60_000);
    let (f, _) = clients[1]
        .recv_until(|m| matches!(m, ServerMsg::MatchEnded(_)))
        .await;
    let end_seq = f.seq.unwrap();
    let ServerMsg::MatchEnded(ended) = f.msg else {
        unreachable!()
    };
    s.eventually("the room is gone", |st| st.room(id).is_none())
        .await;
    let (mut back, active) = s.reconnect(clients[0].player_id, &clients[0].token).await;
    assert!(active.is_empty());
    back.send(json!({"t": "resync", "id": "r", "d": {"match_id": id, "last_seq": 0}}))
        .await;
    let (f, _) = back
        .recv_until(|m| matches!(m, ServerMsg::Snapshot(_)))
        .await;
    let ServerMsg::Snapshot(snap) = f.msg else {
        unreachable!()
    };
    assert_eq!(snap.seq, end_seq, "the seq of match_ended");
    assert_eq!(snap.your_seat, started[0].your_seat);
    assert_eq!(snap.ended.as_ref(), Some(&ended));
    let mut stranger = s.player("Stranger").await;
    stranger
        .send(json!({"t": "spectate", "d": {"match_id": id}}))
        .await;
    let (f, _) = stranger
        .recv_until(|m| matches!(m, ServerMsg::Snapshot(_)))
        .await;
    let ServerMsg::Snapshot(snap) = f.msg else {
        unreachable!()
    };
    assert_eq!((snap.your_seat, snap.ended.as_ref()), (None, Some(&ended)));
    // A match id nobody knows is still match_not_found.
    stranger
        .send(json!({"t": "spectate", "d": {"match_id": uuid::Uuid::new_v4()}}))
        .await;
    stranger.expect_error(ErrorCode::MatchNotFound).await;
}
