//! Turn timer (rule 4.6) and match clock (rule 9.1) on a manual clock that only the
//! test moves: each fires exactly at its deadline — not 1 ms before, and at once
//! when reached — and a plan read at or after `turn_deadline` resolves the turn as a
//! timeout (the submitter gets `stale_turn`), while one read 1 ms before it is played.

use crate::common::*;
use engine::TurnKind;
use protocol::{ErrorCode, ServerMsg};
use serde_json::json;
use server::Clock;
use std::time::Duration;

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
    turn_of_all_but(clients, None).await
}

/// [`turn_of_all`] when client `already.0` has read that `turn_started` already.
async fn turn_of_all_but(
    clients: &mut [Client],
    already: Option<(usize, (usize, u32, u64))>,
) -> (usize, u32, u64) {
    let mut out = already.map(|a| a.1);
    for (i, c) in clients.iter_mut().enumerate() {
        if already.is_some_and(|a| a.0 == i) {
            continue;
        }
        let (f, _) = c
            .recv_until(|m| matches!(m, ServerMsg::TurnStarted(_)))
            .await;
        if let ServerMsg::TurnStarted(t) = f.msg {
            out = Some((t.seat.index(), t.turn_number, t.turn_deadline_ms));
        }
    }
    out.unwrap()
}

fn mover_index(started: &[Started], seat: usize) -> usize {
    started
        .iter()
        .position(|s| s.your_seat.map(|x| x.index()) == Some(seat))
        .unwrap()
}

fn mover<'a>(clients: &'a mut [Client], started: &[Started], seat: usize) -> &'a mut Client {
    &mut clients[mover_index(started, seat)]
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
    // The room may see the plan before or after its own timer: either way the
    // turn times out and the plan is answered with stale_turn.
    let (mut reply, mut kind, mut next) = (None, None, None);
    while reply.is_none() || kind.is_none() {
        match m.recv().await.msg {
            ServerMsg::Error(e) => reply = Some(e),
            ServerMsg::Ack(a) => panic!("a late plan was accepted: {a:?}"),
            ServerMsg::TurnResolved(r) if r.turn_number == n => kind = Some(r.kind),
            ServerMsg::TurnStarted(t) => {
                next = Some((t.seat.index(), t.turn_number, t.turn_deadline_ms))
            }
            _ => {}
        }
    }
    let already = next.map(|t| (mover_index(&started, seat), t));
    let e = reply.unwrap();
    assert_eq!(
        (e.code, e.in_reply_to.as_deref()),
        (ErrorCode::StaleTurn, Some("late"))
    );
    assert_eq!(kind, Some(TurnKind::Timeout));

    // Turn 3: nobody submits; the timer fires when the clock reaches the deadline.
    let (seat, n, deadline) = turn_of_all_but(&mut clients, already).await;
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

/// A seat's queue of frames, read as the room fills it.
struct Seat {
    player: uuid::Uuid,
    conn: server::ws::ConnHandle,
    rx: tokio::sync::mpsc::Receiver<server::ws::Frame>,
    seat: Option<engine::Seat>,
}

impl Seat {
    async fn until(&mut self, pred: impl Fn(&ServerMsg) -> bool) -> ServerMsg {
        loop {
            let f = tokio::time::timeout(STEP, self.rx.recv())
                .await
                .expect("a frame in time")
                .expect("queue open");
            let msg = protocol::decode_server(f.as_str()).unwrap().msg;
            if let ServerMsg::MatchStarted(m) = &msg {
                self.seat = m.your_seat;
            }
            if pred(&msg) {
                return msg;
            }
        }
    }
}

/// Rule 4.6, whatever the order: a plan read at `turn_deadline` is late even when the
/// room handles it before its own timer (here the clock stands 1 ms before the
/// deadline, so the timer cannot fire; the plan carries the time it was read).
#[tokio::test]
async fn a_plan_read_at_the_deadline_times_out_even_when_the_room_sees_it_first() {
    let clock = Clock::manual(T0);
    let s = start_with_clock(test_config(), clock.clone()).await;
    let mut seats = Vec::new();
    for i in 0..4u64 {
        let (player, _) = s.guest(&format!("S{i}")).await;
        let (tx, rx) = tokio::sync::mpsc::channel(64);
        let conn = server::ws::ConnHandle::new(10_000 + i, tx);
        s.state.game().registries().attach_session(
            player,
            &conn,
            clock.now_ms(),
            uuid::Uuid::nil(),
        );
        seats.push(Seat {
            player,
            conn,
            rx,
            seat: None,
        });
    }
    let occupants = seats
        .iter()
        .enumerate()
        .map(|(i, st)| server::room::Occupant::Human {
            player_id: st.player,
            name: format!("S{i}"),
        })
        .collect();
    let id = server::room::start(s.state.game(), engine::Mode::Clash, occupants).unwrap();
    let mut turn = None;
    for st in seats.iter_mut() {
        if let ServerMsg::TurnStarted(t) =
            st.until(|m| matches!(m, ServerMsg::TurnStarted(_))).await
        {
            turn = Some(t);
        }
    }
    let turn = turn.unwrap();
    assert_eq!((turn.turn_number, turn.turn_deadline_ms), (1, T0 + 30_000));
    clock.set_ms(turn.turn_deadline_ms - 1);
    let m = seats
        .iter_mut()
        .find(|st| st.seat == Some(turn.seat))
        .unwrap();
    let submit = server::room::RoomCmd::Submit {
        player: m.player,
        conn: m.conn.clone(),
        req: Some("late".into()),
        turn_number: 1,
        plan: engine::Plan::pass(),
        received: std::time::Instant::now(),
        at_ms: turn.turn_deadline_ms,
    };
    s.state.room(id).unwrap().send(submit).await.unwrap();
    match m
        .until(|msg| matches!(msg, ServerMsg::Error(_) | ServerMsg::Ack(_)))
        .await
    {
        ServerMsg::Error(e) => assert_eq!(
            (e.code, e.in_reply_to.as_deref()),
            (ErrorCode::StaleTurn, Some("late"))
        ),
        other => panic!("a plan read at the deadline was accepted: {other:?}"),
    }
    match m
        .until(|msg| matches!(msg, ServerMsg::TurnResolved(_)))
        .await
    {
        ServerMsg::TurnResolved(r) => assert_eq!((r.turn_number, r.kind), (1, TurnKind::Timeout)),
        _ => unreachable!(),
    }
}
