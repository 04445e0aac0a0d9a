//! Turn timer (rule 4.6) and match clock (rule 9.1) on a manual clock that only the
//! test moves: each fires exactly at its deadline — not 1 ms before, and at once
//! when reached — and a plan read at or after `turn_deadline` resolves the turn as a
//! timeout (the submitter gets `stale_turn`), while one read 1 ms before it is played.

use crate::common::*;
use engine::TurnKind;
use protocol::{ErrorCode, ServerMsg};
use serde_json::json;
use server::clock::Clock;
use std::time::Duration;

/// Start of the manual clock (Unix ms).
const T0: u64 = 1_800_000_000_000;

/// Reads until the `turn_resolved` of `n`; returns its kind.
async fn resolved_kind(c: &mut Client, n: u32) -> TurnKind {
    let (f, _) = c
        .recv_until(|m| matches!(m, ServerMsg::TurnResolved(r) if r.turn_number == n))
        .await;
    match f.msg {
        ServerMsg::TurnResolved(r) => r.kind,
        _ => unreachable!(),
    }
}

/// The `turn_started` everyone reads next: (seat index, turn number, deadline).
async fn turn_of_all(clients: &mut [Client]) -> (usize, u32, u64) {
    let mut out = None;
    for c in clients.iter_mut() {
        let (f, _) = c
            .recv_until(|m| matches!(m, ServerMsg::TurnStarted(_)))
            .await;
        if let ServerMsg::TurnStarted(t) = f.msg {
            out = Some((t.seat.index(), t.turn_number, t.turn_deadline));
        }
    }
    out.unwrap()
}

fn mover<'a>(clients: &'a mut [Client], started: &[Started], seat: usize) -> &'a mut Client {
    let i = started
        .iter()
        .position(|s| s.your_seat.map(|x| x.index()) == Some(seat))
        .unwrap();
    &mut clients[i]
}

#[tokio::test]
async fn turn_timer_and_match_clock_fire_exactly_at_their_deadlines() {
    let clock = Clock::manual(T0);
    let config = server::Config {
        turn_seconds: 30,
        match_seconds: 120,
        ..test_config()
    };
    let s = start_with_clock(config, clock.clone()).await;
    let (mut clients, started) = lobby_of_four(&s, false, 4).await;
    let id = started[0].match_id;

    // Turn 1: the turn timer is 30 s from the start (rule 4.6).
    let (seat, n, deadline) = turn_of_all(&mut clients).await;
    assert_eq!((n, deadline), (1, T0 + 30_000));
    // 1 ms before the deadline nothing happens ...
    clock.set_ms(deadline - 1);
    mover(&mut clients, &started, seat)
        .expect_silence(Duration::from_millis(300))
        .await;
    // ... and a plan read then is played (kind pass: the pass plan).
    let m = mover(&mut clients, &started, seat);
    m.send(json!({"t": "pass", "id": "in-time", "d": {"match_id": id, "turn_number": n}}))
        .await;
    assert_eq!(resolved_kind(m, n).await, TurnKind::Pass);

    // Turn 2: a plan read exactly at turn_deadline is late: the turn times out.
    let (seat, n, deadline) = turn_of_all(&mut clients).await;
    assert_eq!(n, 2);
    clock.set_ms(deadline);
    let m = mover(&mut clients, &started, seat);
    m.send(json!({"t": "pass", "id": "late", "d": {"match_id": id, "turn_number": n}}))
        .await;
    let (f, _) = m
        .recv_until(|msg| matches!(msg, ServerMsg::Error(_) | ServerMsg::Ack(_)))
        .await;
    match f.msg {
        ServerMsg::Error(e) => {
            assert_eq!(e.code, ErrorCode::StaleTurn);
            assert_eq!(e.in_reply_to.as_deref(), Some("late"));
        }
        other => panic!("a late plan was accepted: {other:?}"),
    }
    assert_eq!(resolved_kind(m, n).await, TurnKind::Timeout);

    // Turn 3: nobody submits; the timer fires when the clock reaches the deadline.
    let (seat, n, deadline) = turn_of_all(&mut clients).await;
    clock.set_ms(deadline - 1);
    mover(&mut clients, &started, seat)
        .expect_silence(Duration::from_millis(300))
        .await;
    clock.set_ms(deadline);
    assert_eq!(
        resolved_kind(mover(&mut clients, &started, seat), n).await,
        TurnKind::Timeout
    );

    // The match clock (rule 9.1): 120 s from the start; not a millisecond earlier.
    // Turn 4 is played at T0 + 90 s, so turn 5's timer is capped by the match clock.
    let match_deadline = T0 + 120_000;
    let (seat, n, _) = turn_of_all(&mut clients).await;
    clock.set_ms(T0 + 90_000);
    let m = mover(&mut clients, &started, seat);
    m.send(json!({"t": "pass", "d": {"match_id": id, "turn_number": n}}))
        .await;
    assert_eq!(resolved_kind(m, n).await, TurnKind::Pass);
    let (seat, _, deadline) = turn_of_all(&mut clients).await;
    assert_eq!(deadline, match_deadline, "a turn never outlasts the match");
    clock.set_ms(match_deadline - 1);
    let m = mover(&mut clients, &started, seat);
    m.expect_silence(Duration::from_millis(300)).await;
    clock.set_ms(match_deadline);
    let (f, _) = m
        .recv_until(|msg| matches!(msg, ServerMsg::MatchEnded(_)))
        .await;
    match f.msg {
        ServerMsg::MatchEnded(e) => assert_eq!(e.reason, engine::EndReason::Clock),
        _ => unreachable!(),
    }
}
