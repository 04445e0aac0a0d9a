//! Issue 37: phones in the real world — clocks that are true on arrival after a
//! reconnect.

use crate::common::*;
use engine::{Seat, TurnKind};
use protocol::{ServerFrame, ServerMsg, TurnStarted};
use serde_json::json;

fn turn_started(f: &ServerFrame) -> TurnStarted {
    match &f.msg {
        ServerMsg::TurnStarted(t) => t.clone(),
        other => panic!("expected turn_started, got {other:?}"),
    }
}

/// Yellow's socket drops before its own `turn_started` (turn 4, seq 8) reaches it;
/// it is back 12 s later with `hello.last_seq` 6. The replayed `turn_started` is
/// the same turn with the same `seq` and deadline, but stamped as of its replay:
/// 18,000 ms left (not the 30,000 of its first sending), `now_ms` the server's time
/// of the replay, and the match clock likewise. A `resync` 2 s later says 16,000.
/// Counting down from arrival (`proto/README.md` §7), Yellow passes when its display
/// shows 8 s left: the pass is accepted (`kind: "pass"`, not a timeout).
#[tokio::test]
async fn a_replayed_turn_started_carries_the_times_left_when_it_is_replayed() {
    let (s, clock) = start_manual(test_config()).await;
    let (mut clients, started) = lobby_of_four(&s, false, 4).await;
    let id = started[0].match_id;
    let (g, y) = (
        index_of(&started, Seat::Green),
        index_of(&started, Seat::Yellow),
    );
    let (y_id, y_token) = (clients[y].player_id, clients[y].token.clone());
    // Yellow has processed up to seq 6 (turn 3's turn_started), then its socket drops.
    pass_first_turns(&mut clients, &started, id, 2).await;
    clients[y]
        .recv_until(|m| matches!(m, ServerMsg::TurnStarted(t) if t.turn_number == 3))
        .await;
    clients[y].ws.close(None).await.unwrap();
    s.eventually("yellow's socket is gone", |st| st.session(y_id).is_none())
        .await;
    // Blue passes turn 3: seq 7 (turn_resolved) and seq 8 (Yellow's turn_started).
    clients[index_of(&started, Seat::Blue)]
        .send(json!({"t": "pass", "d": {"match_id": id, "turn_number": 3}}))
        .await;
    let (resolved, _) = clients[g]
        .recv_until(|m| matches!(m, ServerMsg::TurnResolved(r) if r.turn_number == 3))
        .await;
    let live_frame = clients[g].recv().await;
    let live = turn_started(&live_frame);
    assert_eq!((resolved.seq, live_frame.seq), (Some(7), Some(8)));
    assert_eq!(
        (
            live.seat,
            live.turn_number,
            live.now_ms,
            live.turn_deadline_ms,
            live.turn_remaining_ms
        ),
        (Seat::Yellow, 4, T0, T0 + 30_000, 30_000)
    );

    // 12 s later Yellow is back with last_seq 6.
    clock.advance_ms(12_000);
    let mut back = s.connect().await;
    back.player_id = y_id;
    back.send(
        json!({"t": "hello", "d": {"token": y_token, "protocol_version": 3,
        "client": "test", "last_seq": {id.to_string(): 6}}}),
    )
    .await;
    match back.recv().await.msg {
        ServerMsg::Welcome(w) => assert_eq!(w.active_matches, vec![id]),
        other => panic!("expected welcome, got {other:?}"),
    }
    assert_eq!(
        back.recv().await,
        resolved,
        "seq 7 is replayed as it was sent"
    );
    let replayed = back.recv().await;
    assert_eq!(replayed.seq, Some(8));
    let t = turn_started(&replayed);
    assert_eq!(
        t,
        TurnStarted {
            turn_remaining_ms: 18_000,
            match_remaining_ms: live.match_remaining_ms - 12_000,
            now_ms: T0 + 12_000,
            ..live.clone()
        },
        "the turn in progress, with the times left at its replay"
    );

    // Through resync, 2 s later: 16,000 ms left.
    clock.advance_ms(2_000);
    back.send(json!({"t": "resync", "id": "r", "d": {"match_id": id, "last_seq": 7}}))
        .await;
    let (_, got) = back
        .recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "r"))
        .await;
    assert!(got.is_empty(), "{got:?}");
    let again = back.recv().await;
    assert_eq!(again.seq, Some(8));
    let t = turn_started(&again);
    assert_eq!(
        (t.turn_remaining_ms, t.now_ms, t.turn_deadline_ms),
        (16_000, T0 + 14_000, T0 + 30_000)
    );

    // Yellow's display (arrival + 16,000 ms) shows 8 s left: it passes, in time.
    clock.advance_ms(8_000);
    back.send(json!({"t": "pass", "id": "p", "d": {"match_id": id, "turn_number": 4}}))
        .await;
    let (f, skipped) = back
        .recv_until(|m| matches!(m, ServerMsg::TurnResolved(_)))
        .await;
    assert!(
        skipped
            .iter()
            .any(|f| matches!(&f.msg, ServerMsg::Ack(a) if a.id == "p")),
        "the pass is acknowledged: {skipped:?}"
    );
    match f.msg {
        ServerMsg::TurnResolved(r) => {
            assert_eq!(
                (r.turn_number, r.seat, r.kind),
                (4, Seat::Yellow, TurnKind::Pass)
            )
        }
        _ => unreachable!(),
    }
}

/// Plays a lobby of two humans (A, B) and two bots until B is away: A passes its own
/// turns, B's turns are timed out on the manual clock until everyone sees `seat_away`
/// (after `away_after_timeouts` 2), then two of B's turns must pass at once.
/// Returns the ms the clock advanced (B's two timed-out turns).
async fn until_b_is_away(
    a: &mut Client,
    clock: &server::Clock,
    id: uuid::Uuid,
    a_seat: Seat,
    b_seat: Seat,
) -> u64 {
    let start = clock.now_ms();
    let mut b_timeouts = 0;
    let mut b_passes = 0;
    let mut away_seen = false;
    // A passes its own turns; B's turns are timed out on the manual clock until B
    // is away, then must pass at once.
    while b_passes < 2 {
        let f = a.recv().await;
        match f.msg {
            ServerMsg::TurnStarted(t) if t.seat == a_seat => {
                a.send(json!({"t": "pass", "d": {"match_id": id, "turn_number": t.turn_number}}))
                    .await;
            }
            ServerMsg::TurnStarted(t) if t.seat == b_seat && !away_seen => {
                assert!(
                    b_timeouts < 2,
                    "B's turn {} waits though B is away",
                    t.turn_number
                );
                clock.advance_ms(30_000);
            }
            ServerMsg::TurnResolved(r) if r.seat == b_seat => {
                if away_seen {
                    assert_eq!(r.kind, TurnKind::Pass, "an away seat's turn passes at once");
                    b_passes += 1;
                } else {
                    assert_eq!(r.kind, TurnKind::Timeout);
                    b_timeouts += 1;
                }
            }
            ServerMsg::SeatAway(p) => {
                assert_eq!((p.match_id, p.seat, b_timeouts), (id, b_seat, 2));
                away_seen = true;
            }
            ServerMsg::SeatBack(p) => panic!("B is not back: {p:?}"),
            _ => {}
        }
    }
    clock.now_ms() - start
}

/// Away seats (issue 37.2). Two humans and two bots; B stays connected but sends
/// nothing. Its first two turns each run the whole 30 s turn timer and time out;
/// after the second (`away_after_timeouts` 2) everyone sees `seat_away`, and B's
/// later turns are passed at once (`kind: "pass"`) with the room's clock standing
/// still. B sends a chat line: everyone sees `seat_back`, and B's next turn waits for
/// it again (the room sends nothing after its `turn_started`).
#[tokio::test]
async fn a_silent_connected_seat_is_away_after_two_timeouts_until_it_speaks() {
    let (s, clock) = start_manual(test_config()).await;
    let (mut clients, started) = lobby_of_four(&s, true, 2).await;
    let id = started[0].match_id;
    let (a_seat, b_seat) = (started[0].your_seat.unwrap(), started[1].your_seat.unwrap());
    let mut b = clients.pop().unwrap();
    let mut a = clients.pop().unwrap();
    let waited = until_b_is_away(&mut a, &clock, id, a_seat, b_seat).await;
    assert_eq!(waited, 60_000, "only B's first two turns ran their timer");
    // B speaks: it is back at once, for everyone.
    b.send(json!({"t": "chat", "id": "c", "d": {"match_id": id, "text": "back"}}))
        .await;
    b.recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "c"))
        .await;
    // A sees seat_back; B's next turn then waits for B again.
    let mut back_seen = false;
    loop {
        let f = a.recv().await;
        match f.msg {
            ServerMsg::SeatBack(p) => {
                assert_eq!((f.seq, p.match_id, p.seat), (None, id, b_seat));
                back_seen = true;
            }
            ServerMsg::TurnStarted(t) if t.seat == a_seat => {
                a.send(json!({"t": "pass", "d": {"match_id": id, "turn_number": t.turn_number}}))
                    .await;
            }
            ServerMsg::TurnStarted(t) if t.seat == b_seat && back_seen => {
                expect_room_at(&mut a, id, f.seq.unwrap()).await;
                break;
            }
            ServerMsg::TurnResolved(r) if r.seat == b_seat && back_seen => {
                panic!("B's turn resolved without B: {r:?}")
            }
            _ => {}
        }
    }
}

/// Away seats (issue 37.2, §6.2): an away player's `resync` (what the web client's
/// "I'm back" sends) brings its seat back: the others get `seat_back`; the player's
/// own connection gets the `ack`, then its replay, then `seat_away` only for seats
/// still away (not its own), so the client drops its own mark when it resyncs.
#[tokio::test]
async fn an_away_players_resync_brings_it_back() {
    let (s, clock) = start_manual(test_config()).await;
    let (mut clients, started) = lobby_of_four(&s, true, 2).await;
    let id = started[0].match_id;
    let (a_seat, b_seat) = (started[0].your_seat.unwrap(), started[1].your_seat.unwrap());
    let mut b = clients.pop().unwrap();
    let mut a = clients.pop().unwrap();
    assert_eq!(
        until_b_is_away(&mut a, &clock, id, a_seat, b_seat).await,
        60_000
    );
    // Everything B has not read yet, up to its own seat_away.
    b.recv_until(|m| matches!(m, ServerMsg::SeatAway(p) if p.seat == b_seat))
        .await;
    b.send(json!({"t": "resync", "id": "r", "d": {"match_id": id, "last_seq": 0}}))
        .await;
    let (f, _) = a.recv_until(|m| matches!(m, ServerMsg::SeatBack(_))).await;
    assert!(matches!(f.msg, ServerMsg::SeatBack(p) if (p.match_id, p.seat) == (id, b_seat)));
    assert_eq!(f.seq, None, "seat_back has no seq");
    // B: the ack, its replay from seq 1 (or a snapshot), and no seat_away for itself: all of it is
    // sent before the room handles B's next message (a chat line, acked after it).
    b.recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "r"))
        .await;
    b.send(json!({"t": "chat", "id": "c", "d": {"match_id": id, "text": "here"}}))
        .await;
    let (_, replay) = b
        .recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "c"))
        .await;
    let first = replay.first().map(|f| (f.seq, &f.msg));
    assert!(
        matches!(
            first,
            Some((Some(1), _)) | Some((_, ServerMsg::Snapshot(_)))
        ),
        "the replay from seq 1 or a snapshot first: {first:?}"
    );
    assert!(
        !replay
            .iter()
            .any(|f| matches!(&f.msg, ServerMsg::SeatAway(p) if p.seat == b_seat)),
        "B is not away after its resync"
    );
}

/// Issue 37.4: a queued player's socket blips for 5 s (default queue grace 10 s).
/// Signed in again it is still queued, told so (`queue_status` after `welcome`),
/// with the same bot timer: 20 s bot-fill, 5 s gone → bots in 15 s; the match with
/// bots starts when the clock reads join + 20 s, not a millisecond earlier.
#[tokio::test]
async fn a_queued_player_back_within_10_s_keeps_its_place_and_bot_timer() {
    let (s, clock) = start_manual(server::Config {
        bot_fill_seconds: 20,
        ..test_config()
    })
    .await;
    let mut c = s.player("Blip").await;
    let (id, token) = (c.player_id, c.token.clone());
    c.send(json!({"t": "join_queue", "d": {"mode": "clash"}}))
        .await;
    let (f, _) = c
        .recv_until(|m| matches!(m, ServerMsg::QueueStatus(_)))
        .await;
    assert!(matches!(f.msg, ServerMsg::QueueStatus(q) if q.bots_in_seconds == 20));
    c.ws.close(None).await.unwrap();
    drop(c);
    s.eventually("the socket is gone", |st| st.session(id).is_none())
        .await;
    clock.advance_ms(5_000);
    let (mut c, active) = s.reconnect(id, &token).await;
    assert!(active.is_empty());
    let (f, _) = c
        .recv_until(|m| matches!(m, ServerMsg::QueueStatus(_)))
        .await;
    match f.msg {
        ServerMsg::QueueStatus(q) => assert_eq!((q.waiting, q.bots_in_seconds), (1, 15)),
        _ => unreachable!(),
    }
    // The grace period's end (join + 5 s + 10 s) passes: still queued.
    clock.advance_ms(10_000);
    c.send(json!({"t": "ping"})).await;
    c.recv_until(|m| matches!(m, ServerMsg::Pong)).await;
    assert!(s.state.presence().get(id).is_some(), "still queued");
    clock.advance_ms(4_999);
    c.send(json!({"t": "ping"})).await;
    let (_, before) = c.recv_until(|m| matches!(m, ServerMsg::Pong)).await;
    assert!(
        !before
            .iter()
            .any(|f| matches!(f.msg, ServerMsg::MatchStarted(_))),
        "{before:?}"
    );
    clock.advance_ms(1);
    expect_started(&mut c).await;
}

/// A queued player away longer than the queue grace (10 s) leaves the queue then,
/// not before: at 9,999 ms it is still queued, at 10,000 ms it is free.
#[tokio::test]
async fn a_queued_player_away_past_10_s_leaves_the_queue() {
    let (s, clock) = start_manual(test_config()).await;
    let mut c = s.player("Gone").await;
    let id = c.player_id;
    c.send(json!({"t": "join_queue", "d": {"mode": "journey"}}))
        .await;
    c.recv_until(|m| matches!(m, ServerMsg::QueueStatus(_)))
        .await;
    c.ws.close(None).await.unwrap();
    drop(c);
    s.eventually("the socket is gone", |st| st.session(id).is_none())
        .await;
    // (Another player's join is handled after the drop: a ping of the matchmaker.)
    let mut other = s.player("Other").await;
    other
        .send(json!({"t": "join_queue", "d": {"mode": "clash"}}))
        .await;
    other
        .recv_until(|m| matches!(m, ServerMsg::QueueStatus(_)))
        .await;
    clock.advance_ms(9_999);
    other.send(json!({"t": "leave_queue", "id": "l"})).await;
    other
        .recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "l"))
        .await;
    assert!(s.state.presence().get(id).is_some(), "still queued");
    clock.advance_ms(1);
    s.eventually("out of the queue", |st| st.presence().get(id).is_none())
        .await;
}

/// Issue 37.4: under the default lobby grace (60 s) a host away 45 s (a phone
/// sharing the lobby code through a messenger) is still the host on return, and is
/// told so: `lobby_state` right after `welcome`. Tokio's clock is paused and moved.
#[tokio::test]
async fn a_lobby_host_away_45_s_is_still_host_on_return() {
    let s = start(test_config()).await;
    assert_eq!(s.state.config().lobby_grace_seconds, 60, "the default");
    let mut host = s.player("Ada").await;
    let mut bo = s.player("Bo").await;
    host.send(json!({"t": "create_lobby", "d": {"mode": "journey"}}))
        .await;
    let (f, _) = host
        .recv_until(|m| matches!(m, ServerMsg::LobbyState(_)))
        .await;
    let ServerMsg::LobbyState(l) = f.msg else {
        unreachable!()
    };
    bo.send(json!({"t": "join_lobby", "id": "j", "d": {"code": l.code}}))
        .await;
    bo.recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "j"))
        .await;
    let (host_id, token) = (host.player_id, host.token.clone());
    host.ws.close(None).await.unwrap();
    drop(host);
    s.eventually("the host's socket is gone", |st| {
        st.session(host_id).is_none()
    })
    .await;
    tokio::time::pause();
    tokio::time::advance(std::time::Duration::from_secs(45)).await;
    tokio::time::resume();
    let mut back = s.connect().await;
    back.send(
        json!({"t": "hello", "d": {"token": token, "protocol_version": 3, "client": "test"}}),
    )
    .await;
    assert!(matches!(back.recv().await.msg, ServerMsg::Welcome(_)));
    let f = back.recv().await;
    let ServerMsg::LobbyState(now) = f.msg else {
        panic!("expected lobby_state right after welcome, got {:?}", f.msg)
    };
    assert_eq!(
        (now.code, now.host, now.members.len()),
        (l.code, host_id, 2)
    );
}

/// Issue 37.5: a resend of a plan that was already applied (its `ack` was lost) is
/// answered `ack` with `applied_seq`, the `seq` of the `turn_resolved` that applied
/// it, and nothing is applied again; it is no `stale_turn`. Another plan for that
/// turn still is refused (`stale_turn`: the turn is over).
#[tokio::test]
async fn a_resend_of_an_applied_plan_is_acknowledged_with_its_seq() {
    let (s, _clock) = start_manual(test_config()).await;
    let (mut clients, started) = lobby_of_four(&s, false, 4).await;
    let id = started[0].match_id;
    let g = index_of(&started, Seat::Green);
    let gc = &mut clients[g];
    gc.recv_until(|m| matches!(m, ServerMsg::TurnStarted(t) if t.turn_number == 1))
        .await;
    let pass = |req: &str| json!({"t": "pass", "id": req, "d": {"match_id": id, "turn_number": 1}});
    gc.send(pass("p1")).await;
    let (f, _) = gc
        .recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "p1"))
        .await;
    assert_eq!(
        f.msg,
        ServerMsg::Ack(protocol::Ack {
            id: "p1".into(),
            applied_seq: None
        })
    );
    let (resolved, _) = gc
        .recv_until(|m| matches!(m, ServerMsg::TurnResolved(_)))
        .await;
    assert_eq!(resolved.seq, Some(3));
    // The same pass again, as after a lost ack.
    gc.send(pass("p1-again")).await;
    let (f, skipped) = gc
        .recv_until(|m| matches!(m, ServerMsg::Ack(_) | ServerMsg::Error(_)))
        .await;
    assert_eq!(
        f.msg,
        ServerMsg::Ack(protocol::Ack {
            id: "p1-again".into(),
            applied_seq: Some(3)
        })
    );
    assert!(
        !skipped
            .iter()
            .any(|f| matches!(f.msg, ServerMsg::TurnResolved(_))),
        "nothing applied again: {skipped:?}"
    );
    // A different plan for turn 1 is late.
    gc.send(
        json!({"t": "submit_turn", "id": "other", "d": {"match_id": id, "turn_number": 1,
        "plan": {"direction": "backward", "exits": [], "moves": {}}}}),
    )
    .await;
    let (f, _) = gc
        .recv_until(|m| matches!(m, ServerMsg::Ack(_) | ServerMsg::Error(_)))
        .await;
    assert!(
        matches!(&f.msg, ServerMsg::Error(e) if e.code == protocol::ErrorCode::StaleTurn && e.in_reply_to.as_deref() == Some("other")),
        "{f:?}"
    );
}

/// Away seats, the ping bound (issue 37.2, `--pong-timeout-ms`). At the start of
/// each of its turns a connected seat's socket gets a WebSocket ping; B's socket is
/// not read, so it never answers (a locked phone, a dead link). B's first turn ends
/// on the real clock between the bound (400 ms) and 2 s later — not after the 30 s
/// turn timer: the manual clock never moves — with `seat_away` for B, then B's turn
/// as `pass`. Once B reads again (its library answers pings) and speaks, it is back,
/// and its next turn waits for it: while B reads, nothing comes for 3 bounds.
#[tokio::test]
async fn a_seat_that_does_not_answer_its_turns_ping_is_away_at_once() {
    const BOUND_MS: u64 = 400;
    let config = server::Config {
        pong_timeout_ms: BOUND_MS as u32,
        ..test_config()
    };
    let (s, clock) = start_manual(config).await;
    let (mut clients, started) = lobby_of_four(&s, true, 2).await;
    let id = started[0].match_id;
    let (a_seat, b_seat) = (started[0].your_seat.unwrap(), started[1].your_seat.unwrap());
    let mut b = clients.pop().unwrap();
    let mut a = clients.pop().unwrap();
    let t0 = clock.now_ms();
    let mut b_turn_at = None;
    loop {
        let f = a.recv().await;
        match f.msg {
            ServerMsg::TurnStarted(t) if t.seat == a_seat => {
                a.send(json!({"t": "pass", "d": {"match_id": id, "turn_number": t.turn_number}}))
                    .await;
            }
            ServerMsg::TurnStarted(t) if t.seat == b_seat => {
                b_turn_at = Some(std::time::Instant::now());
            }
            ServerMsg::SeatAway(p) => {
                let waited = b_turn_at.expect("B's turn began").elapsed();
                assert_eq!((p.match_id, p.seat), (id, b_seat));
                assert!(
                    waited >= std::time::Duration::from_millis(BOUND_MS)
                        && waited < std::time::Duration::from_millis(BOUND_MS + 2_000),
                    "B is away {waited:?} after its turn began (bound {BOUND_MS} ms)"
                );
                let (f, _) = a
                    .recv_until(|m| matches!(m, ServerMsg::TurnResolved(r) if r.seat == b_seat))
                    .await;
                match f.msg {
                    ServerMsg::TurnResolved(r) => assert_eq!(r.kind, TurnKind::Pass),
                    _ => unreachable!(),
                }
                break;
            }
            ServerMsg::TurnResolved(r) if r.seat == b_seat => {
                panic!("B's turn resolved before B was away: {r:?}")
            }
            _ => {}
        }
    }
    assert_eq!(clock.now_ms(), t0, "no turn timer ran out");
    // B reads again and speaks: back for everyone.
    b.send(json!({"t": "chat", "id": "c", "d": {"match_id": id, "text": "back"}}))
        .await;
    b.recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "c"))
        .await;
    let mut back_seen = false;
    loop {
        let f = a.recv().await;
        match f.msg {
            ServerMsg::SeatBack(p) => {
                assert_eq!((p.match_id, p.seat), (id, b_seat));
                back_seen = true;
            }
            ServerMsg::TurnStarted(t) if t.seat == a_seat => {
                a.send(json!({"t": "pass", "d": {"match_id": id, "turn_number": t.turn_number}}))
                    .await;
            }
            ServerMsg::TurnStarted(t) if t.seat == b_seat && back_seen => break,
            ServerMsg::TurnResolved(r) if r.seat == b_seat && back_seen => {
                panic!("B's turn resolved without B: {r:?}")
            }
            _ => {}
        }
    }
    // B's socket is read now (its pongs go out); A hears nothing for 3 bounds.
    let silence = std::time::Duration::from_millis(3 * BOUND_MS);
    let b_reads = async {
        let until = tokio::time::Instant::now() + silence;
        while let Ok(Some(m)) =
            tokio::time::timeout_at(until, futures_util::StreamExt::next(&mut b.ws)).await
        {
            m.expect("B's socket stays open");
        }
    };
    tokio::join!(a.expect_silence(silence), b_reads);
}

/// Zero-think play (issue 37.5): with a budget of 1 message per second (burst 3), a
/// player who passes each of its own turns at once, in a match of three bots that
/// move at once, gets 30 `ack`s and no `rate_limited`: an applied plan is not
/// charged. A burst of 6 resends of the last applied pass (which take no effect)
/// still is: answered `ack` with `applied_seq` up to the one that goes over the
/// budget (`ack`, then `rate_limited`); every later one only `rate_limited`, not
/// handled at all.
#[tokio::test]
async fn applied_plans_are_never_rate_limited_refused_ones_are() {
    let config = server::Config {
        rate_per_second: 1,
        rate_burst: 3,
        abuse_strikes: 20,
        ..test_config()
    };
    let (s, _clock) = start_manual(config).await;
    let (mut clients, started) = lobby_of_four(&s, true, 1).await;
    let id = started[0].match_id;
    let me = started[0].your_seat.unwrap();
    let mut c = clients.pop().unwrap();
    let mut acks = 0;
    let mut last_turn = 0;
    while acks < 30 {
        let f = c.recv().await;
        match f.msg {
            ServerMsg::TurnStarted(t) if t.seat == me => {
                last_turn = t.turn_number;
                c.send(json!({"t": "pass", "id": format!("p{}", t.turn_number),
                    "d": {"match_id": id, "turn_number": t.turn_number}}))
                    .await;
            }
            ServerMsg::Ack(a) if a.id.starts_with('p') => acks += 1,
            ServerMsg::Error(e) => panic!("an applied pass was refused: {e:?}"),
            ServerMsg::MatchEnded(m) => panic!("the match ended early: {m:?}"),
            _ => {}
        }
    }
    for i in 0..6 {
        c.send(json!({"t": "pass", "id": format!("s{i}"),
            "d": {"match_id": id, "turn_number": last_turn}}))
            .await;
    }
    // Sent within a few ms, at least the last three exceed the burst of 3. Each
    // resend is charged after its answer (an `ack` naming the applied sequence,
    // §6.2) until one goes over the budget (`rate_limited` after its `ack`); from
    // then on, a plan is charged before it is handled and dropped: only
    // `rate_limited`, no `ack` (a flood of refused plans is not even handled).
    let mut replies: std::collections::BTreeMap<String, Vec<&'static str>> = Default::default();
    loop {
        match c.recv().await.msg {
            ServerMsg::Ack(a) if a.id.starts_with('s') => {
                assert!(
                    a.applied_seq.is_some(),
                    "a resend names the applied sequence"
                );
                replies.entry(a.id).or_default().push("ack");
            }
            ServerMsg::Error(e) if e.code == protocol::ErrorCode::RateLimited => {
                let id = e.in_reply_to.expect("names the plan");
                replies.entry(id.clone()).or_default().push("rate_limited");
                if id == "s5" {
                    break;
                }
            }
            ServerMsg::Error(e) => panic!("unexpected {e:?}"),
            _ => {}
        }
    }
    // Nothing more for them comes after (a ping's answer comes after anything the
    // resends caused).
    c.send(json!({"t": "ping", "id": "after"})).await;
    let (_, later) = c
        .recv_until(|m| {
            matches!(m, ServerMsg::Pong)
                || matches!(m, ServerMsg::Error(e) if e.in_reply_to.as_deref() == Some("after"))
        })
        .await;
    assert!(
        !later.iter().any(|f| matches!(&f.msg, ServerMsg::Ack(_))),
        "{later:?}"
    );
    let kinds: Vec<&[&str]> = (0..6)
        .map(|i| replies.get(&format!("s{i}")).map_or(&[][..], |v| &v[..]))
        .collect();
    let first_over = kinds
        .iter()
        .position(|k| k.contains(&"rate_limited"))
        .expect("a resend over the budget");
    assert!(first_over <= 3, "the burst of 3 is spent by s3: {kinds:?}");
    for (i, k) in kinds.iter().enumerate() {
        let want: &[&str] = match i.cmp(&first_over) {
            std::cmp::Ordering::Less => &["ack"],
            std::cmp::Ordering::Equal => &["ack", "rate_limited"],
            std::cmp::Ordering::Greater => &["rate_limited"],
        };
        assert_eq!(*k, want, "s{i}: {kinds:?}");
    }
}

/// A spectator on a slow link (issue 37.5): it reads 2 KB per second (a 4 KB
/// receive buffer) of a match that plays 100 rounds at full speed (≈ 800 frames, at least 200,
/// minutes of reading at that rate). With `--max-lag-ms` 2000 the server resets its
/// socket (close code 4001 where the frame gets through) once a lag probe is
/// 2 s unanswered, dropping the backlog: the spectator sees the socket end within
/// 2 × 2 s plus the 8 s its own receive buffer (≤ 16 KB) takes at 2 KB/s, instead
/// of a stream that stays minutes stale; watching again, it gets a snapshot at the
/// live `seq`. The host and a spectator that read at full speed are not closed.
#[tokio::test]
async fn a_spectator_too_far_behind_is_closed_to_resync_and_gets_a_snapshot() {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    let config = server::Config {
        max_lag_ms: 2_000,
        // The slow consumer's queue (1008) must not close it first.
        outbound_queue: 65_536,
        ..test_config()
    };
    let (s, _clock) = start_manual(config).await;
    let (mut clients, started) = lobby_of_four(&s, true, 1).await;
    let id = started[0].match_id;
    let me = started[0].your_seat.unwrap();
    let mut host = clients.pop().unwrap();

    // The slow spectator: a 4 KB receive buffer, and 1 s of reading per 2 KB.
    let (sid, stoken) = s.guest("Slow").await;
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.set_recv_buffer_size(4096).unwrap();
    let tcp = sock.connect(s.addr).await.unwrap();
    let (mut slow, _) = tokio_tungstenite::client_async(format!("ws://{}/ws", s.addr), tcp)
        .await
        .unwrap();
    for v in [
        json!({"t": "hello", "d": {"token": stoken, "protocol_version": 3, "client": "slow"}}),
        json!({"t": "spectate", "d": {"match_id": id}}),
    ] {
        futures_util::SinkExt::send(&mut slow, Message::text(v.to_string()))
            .await
            .unwrap();
    }
    let watching = std::time::Instant::now();
    let mut slow_reads = tokio::spawn(async move {
        loop {
            let m = tokio::time::timeout(STEP, slow.next())
                .await
                .expect("the slow spectator is closed within the step timeout");
            match m {
                Some(Ok(Message::Close(Some(c)))) => {
                    return (Some(u16::from(c.code)), watching.elapsed())
                }
                // The reset that drops the backlog (the close frame, if written,
                // waits behind it).
                Some(Err(tokio_tungstenite::tungstenite::Error::Io(e)))
                    if e.kind() == std::io::ErrorKind::ConnectionReset =>
                {
                    return (None, watching.elapsed())
                }
                Some(Ok(m)) => {
                    let ms = (m.len() as u64 * 1000) / 2048;
                    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                }
                other => panic!("expected the socket to end, got {other:?}"),
            }
        }
    });
    let mut fast = s.player("Fast").await;
    fast.send(json!({"t": "spectate", "d": {"match_id": id}}))
        .await;

    // The match: the host passes its turns at once for 100 rounds (bots move at
    // once), then lets its 101st wait (the manual clock never moves). The fast
    // spectator reads meanwhile, to the live seq.
    let (last_tx, mut last_rx) = tokio::sync::watch::channel(0u32);
    let host_plays = async {
        let mut passed = 0;
        loop {
            if let ServerMsg::TurnStarted(t) = host.recv().await.msg {
                if t.seat == me && passed == 100 {
                    last_tx.send(t.turn_number).unwrap();
                    return;
                }
                if t.seat == me {
                    host.send(
                        json!({"t": "pass", "d": {"match_id": id, "turn_number": t.turn_number}}),
                    )
                    .await;
                    passed += 1;
                }
            }
        }
    };
    let fast_reads = async {
        let (mut live_seq, mut last_turn) = (0, 0);
        loop {
            let waiting = *last_rx.borrow();
            if waiting > 0 && last_turn >= waiting {
                return live_seq;
            }
            tokio::select! {
                f = fast.recv() => {
                    live_seq = f.seq.unwrap_or(live_seq).max(live_seq);
                    if let ServerMsg::TurnStarted(t) = &f.msg {
                        last_turn = t.turn_number;
                    }
                }
                _ = last_rx.changed() => {}
            }
        }
    };
    let ((), live_seq) = tokio::join!(host_plays, fast_reads);
    // At least the host's 100 turns, a `turn_started` and a `turn_resolved` each
    // (about 800 frames while every bot still plays; fewer once bots finish).
    assert!(live_seq > 200, "100 rounds: {live_seq} frames");
    // The host and the fast spectator keep reading (answering the probes) until
    // the slow one's socket ends.
    let (code, after) = tokio::time::timeout(STEP * 2, async {
        loop {
            tokio::select! {
                r = &mut slow_reads => break r.unwrap(),
                m = host.ws.next() => assert!(matches!(m, Some(Ok(_))), "the host's socket: {m:?}"),
                m = fast.ws.next() => assert!(matches!(m, Some(Ok(_))), "the fast socket: {m:?}"),
            }
        }
    })
    .await
    .expect("the slow spectator's socket ends");
    assert!(
        matches!(code, None | Some(4001)),
        "closed as too far behind: {code:?}"
    );
    assert!(
        after < std::time::Duration::from_millis(2 * 2_000 + 8_000),
        "closed {after:?} after it started watching"
    );
    // Watching again (a new socket, as the client reconnects): a snapshot of now.
    let (mut again, _) = s.reconnect(sid, &stoken).await;
    again
        .send(json!({"t": "spectate", "d": {"match_id": id}}))
        .await;
    match again.recv().await.msg {
        ServerMsg::Snapshot(snap) => assert_eq!(snap.seq, live_seq, "the live seq"),
        other => panic!("expected a snapshot, got {other:?}"),
    }
    for c in [&mut host, &mut fast] {
        c.send(json!({"t": "ping"})).await;
        c.recv_until(|m| matches!(m, ServerMsg::Pong)).await;
    }
}
