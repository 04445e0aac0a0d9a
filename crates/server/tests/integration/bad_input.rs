//! Bad input: every case gets its own error code, changes nothing, and (except for
//! abuse) leaves the socket open.

use crate::common::*;
use engine::Seat;
use futures_util::SinkExt;
use protocol::{ErrorCode, ServerMsg};
use serde_json::json;
use std::time::Duration;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;

#[tokio::test]
async fn malformed_unknown_oversize_and_binary_frames_get_errors_and_the_socket_stays_open() {
    let s = start(test_config()).await;
    let mut c = s.player("Mallory").await;

    c.send_text("{not json".into()).await;
    let e = c.expect_error(ErrorCode::BadJson).await;
    assert_eq!(e.in_reply_to, None);

    c.send(json!({"t": "fly_away", "id": "x1"})).await;
    let e = c.expect_error(ErrorCode::UnknownType).await;
    assert_eq!(e.in_reply_to.as_deref(), Some("x1"), "the id is echoed");

    c.send(json!({"t": "join_queue", "id": "x2", "d": {"mode": "chess"}}))
        .await;
    let e = c.expect_error(ErrorCode::BadJson).await;
    assert_eq!(e.in_reply_to.as_deref(), Some("x2"));
    assert!(
        s.state.presence().is_empty(),
        "a bad join_queue queues nobody"
    );

    // 5000 bytes: over the 4096-byte frame limit, under the 16 KiB hard limit.
    let big = json!({"t": "chat", "d": {"match_id": uuid::Uuid::nil(), "text": "x".repeat(4950)}})
        .to_string();
    assert!(big.len() > 4096 && big.len() < 16384);
    c.send_text(big).await;
    c.expect_error(ErrorCode::TooLarge).await;

    c.ws.send(Message::binary(vec![1u8, 2, 3])).await.unwrap();
    c.expect_error(ErrorCode::BadJson).await;

    c.assert_open().await;
}

#[tokio::test]
async fn before_hello_only_ping_is_answered_and_bad_tokens_are_refused() {
    let s = start(test_config()).await;
    let mut c = s.connect().await;
    c.send(json!({"t": "join_queue", "id": "j", "d": {"mode": "clash"}}))
        .await;
    let e = c.expect_error(ErrorCode::NotAuthenticated).await;
    assert_eq!(e.in_reply_to.as_deref(), Some("j"));
    c.send(json!({"t": "hello", "d": {"token": "0".repeat(64), "protocol_version": 3}}))
        .await;
    c.expect_error(ErrorCode::NotAuthenticated).await;
    c.assert_open().await;
    assert!(s.state.session_count() == 0 && s.state.presence().is_empty());
}

#[tokio::test]
async fn an_unsupported_protocol_version_is_refused_and_the_socket_closes() {
    let s = start(test_config()).await;
    let (_, token) = s.guest("Future").await;
    // 1: the names before the one wire vocabulary (`match_deadline` …), which this
    // server no longer sends; 2: `turn_resolved` with a `position`, which it no
    // longer sends either; 99: a version from the future.
    for version in [1, 2, 99] {
        let mut c = s.connect().await;
        c.send(json!({"t": "hello", "d": {"token": token, "protocol_version": version}}))
            .await;
        c.expect_error(ErrorCode::UnsupportedVersion).await;
        assert_eq!(c.expect_close().await, Some(CloseCode::Protocol));
    }
    assert!(s.state.session_count() == 0);
}

#[tokio::test]
async fn a_frame_over_the_hard_limit_closes_the_socket_with_1009() {
    // proto/README.md §2: over 4× the 4096-byte limit the socket closes with 1009
    // (message too big), not 1002.
    let s = start(test_config()).await;
    let mut c = s.player("Huge").await;
    let _ = c.ws.send(Message::text("x".repeat(20_000))).await;
    assert_eq!(c.expect_close().await, Some(CloseCode::Size));
}

/// A fresh snapshot of match `id` for `c` (`resync` from 0 always answers with one).
async fn snapshot(c: &mut Client, id: uuid::Uuid) -> protocol::Snapshot {
    c.send(json!({"t": "resync", "d": {"match_id": id, "last_seq": 0}}))
        .await;
    let (f, _) = c.recv_until(|m| matches!(m, ServerMsg::Snapshot(_))).await;
    match f.msg {
        ServerMsg::Snapshot(snap) => *snap,
        _ => unreachable!(),
    }
}

/// Rule 4.5: a refused plan changes nothing. After each refusal a fresh snapshot is
/// compared with the one taken before: the position, the turn's roll store and exit
/// credits, the turn deadline and `seq` are the same (the clock is a manual one that
/// stands still, so the whole snapshot must be identical).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_seat_stale_turn_and_illegal_plans_are_refused_and_change_nothing() {
    let clock = server::Clock::manual(1_800_000_000_000);
    let s = start_with_clock(test_config(), clock).await;
    let (mut clients, started) = lobby_of_four(&s, false, 4).await;
    let id = started[0].match_id;
    let seat_of = |seat: Seat| index_of(&started, seat);
    let (g, r, b) = (
        seat_of(Seat::Green),
        seat_of(Seat::Red),
        seat_of(Seat::Blue),
    );
    for c in clients.iter_mut() {
        assert_eq!(
            next_turn(c).await,
            (Seat::Green, 1, 2),
            "turn 1 is green's, seq 2"
        );
    }
    // Blue watches the match state through snapshots.
    let before = snapshot(&mut clients[b], id).await;
    let turn = before.turn.clone().expect("turn 1 runs");
    assert_eq!(
        (turn.turn_number, turn.seat, before.seq),
        (1, Seat::Green, 2)
    );
    assert!(
        turn.exit_credits >= 1,
        "rule 4.2: green starts with exit credits"
    );
    let a_roll = turn.roll_store[0];
    let submit = |id_: &str, turn: u32, plan: serde_json::Value| json!({"t": "submit_turn", "id": id_, "d": {"match_id": id, "turn_number": turn, "plan": plan}});

    // Rule 4.5 / protocol: each refusal has its own code and answers only the sender;
    // the plans that start with legal steps (an exit, a roll in the store) show that
    // nothing of a refused plan is applied.
    let refusals: Vec<(usize, serde_json::Value, ErrorCode)> = vec![
        (r, submit("w", 1, json!({})), ErrorCode::NotYourTurn),
        (g, submit("s", 7, json!({})), ErrorCode::StaleTurn),
        (
            g,
            submit("i1", 1, json!({"moves": {"G1": [1]}})),
            ErrorCode::PieceInYard,
        ),
        (
            g,
            submit("i2", 1, json!({"exits": ["G1"], "moves": {"G1": [7]}})),
            ErrorCode::RollNotInStore,
        ),
        (
            g,
            submit(
                "i3",
                1,
                json!({"exits": ["G1"], "moves": {"G1": [a_roll]}, "royal": 9}),
            ),
            ErrorCode::RoyalStepsOutOfRange,
        ),
        (
            g,
            submit("i4", 1, json!({"exits": ["R"]})),
            ErrorCode::UnknownPiece,
        ),
        (
            g,
            json!({"t": "pass", "id": "nf", "d": {"match_id": uuid::Uuid::new_v4(), "turn_number": 1}}),
            ErrorCode::MatchNotFound,
        ),
    ];
    for (who, frame, code) in refusals {
        let rid = frame["id"].as_str().unwrap().to_string();
        clients[who].send(frame).await;
        let e = clients[who].expect_error(code).await;
        assert_eq!(e.in_reply_to.as_deref(), Some(rid.as_str()));
        let after = snapshot(&mut clients[b], id).await;
        let t = after.turn.clone().expect("turn 1 still runs");
        assert_eq!(after.position, before.position, "{rid}: position");
        assert_eq!(
            (t.turn_number, t.seat, &t.roll_store, t.exit_credits),
            (1, Seat::Green, &turn.roll_store, turn.exit_credits),
            "{rid}: turn, roll store, exit credits"
        );
        assert_eq!(
            after.clocks.turn_deadline_ms, before.clocks.turn_deadline_ms,
            "{rid}: turn deadline"
        );
        assert_eq!(
            (after.seq, after.turns_played),
            (before.seq, before.turns_played),
            "{rid}: seq"
        );
        assert_eq!(after, before, "{rid}: the whole snapshot");
    }
    let mut outsider = s.player("Outsider").await;
    outsider.send(submit("o", 1, json!({}))).await;
    outsider.expect_error(ErrorCode::NotInMatch).await;
    assert_eq!(snapshot(&mut clients[b], id).await, before, "outsider");

    // Nobody else heard anything, and turn 1 is still green's.
    for c in clients.iter_mut() {
        c.expect_silence(Duration::from_millis(200)).await;
    }
    clients[g].send(submit("ok", 1, json!({}))).await;
    let ack = clients[g].recv().await;
    assert!(
        matches!(ack.msg, ServerMsg::Ack(ref a) if a.id == "ok"),
        "got {:?}",
        ack.msg
    );
    for c in clients.iter_mut() {
        let f = c.recv().await;
        assert_eq!(f.seq, Some(3), "the refused plans used no sequence numbers");
        let ServerMsg::TurnResolved(tr) = f.msg else {
            panic!("expected turn_resolved, got {:?}", f.msg)
        };
        assert_eq!(
            (tr.turn_number, tr.seat, tr.kind),
            (1, Seat::Green, engine::TurnKind::Pass)
        );
    }
}

#[tokio::test]
async fn a_flood_is_rate_limited_then_closed() {
    let cfg = server::Config {
        rate_per_second: 1,
        rate_burst: 5,
        abuse_strikes: 10,
        ..test_config()
    };
    let s = start(cfg).await;
    let mut c = s.player("Flood").await; // hello used one unit of the budget
    for _ in 0..4 {
        c.send(json!({"t": "ping"})).await;
    }
    c.send(json!({"t": "join_queue", "d": {"mode": "clash"}}))
        .await;
    c.send(json!({"t": "ping"})).await;
    for _ in 0..4 {
        assert!(
            matches!(c.recv().await.msg, ServerMsg::Pong),
            "within the burst of 5"
        );
    }
    c.expect_error(ErrorCode::RateLimited).await;
    c.expect_error(ErrorCode::RateLimited).await;
    assert!(
        s.state.presence().is_empty(),
        "the rate-limited join_queue changed nothing"
    );

    // The budget refills (1 per second) on Tokio's clock: 1.1 s pass at once (the
    // clock is paused only to move it, so no socket read waits on a paused clock).
    tokio::time::pause();
    tokio::time::advance(Duration::from_millis(1100)).await;
    tokio::time::resume();
    c.assert_open().await;

    // Sustained abuse: 10 refused messages in a row close the socket (1008).
    for _ in 0..30 {
        if c.ws
            .send(Message::text(json!({"t": "ping"}).to_string()))
            .await
            .is_err()
        {
            break;
        }
    }
    assert_eq!(c.expect_close().await, Some(CloseCode::Policy));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_does_not_read_is_disconnected_not_buffered() {
    let cfg = server::Config {
        rate_per_second: 100_000,
        rate_burst: 100_000,
        outbound_queue: 16,
        ..test_config()
    };
    let s = start(cfg).await;
    let (mut clients, started) = lobby_of_four(&s, false, 2).await;
    let id = started[0].match_id;
    let slow = &mut clients[1];
    let player = slow.player_id;
    // Each resync from 0 queues a snapshot of a few KiB; the client never reads.
    let frame = json!({"t": "resync", "d": {"match_id": id, "last_seq": 0}}).to_string();
    for _ in 0..6000 {
        if slow.ws.feed(Message::text(frame.clone())).await.is_err() {
            break;
        }
    }
    let _ = slow.ws.flush().await;
    s.eventually("slow client disconnected", |st| {
        st.session(player).is_none()
    })
    .await;
    // Its seat is kept: the match still runs.
    assert!(s.state.room(id).is_some());
    assert_eq!(s.state.presence().active_match(player), Some(id));
}

/// Chat (protocol `chat`): a good line is acked and relayed to every seat with the
/// next seq; an empty line, one over 280 characters, or one holding a control
/// character is `bad_json` for the sender only and spends no seq.
#[tokio::test]
async fn chat_is_relayed_and_bad_chat_is_refused() {
    let s = start(test_config()).await;
    let (mut clients, started) = lobby_of_four(&s, false, 4).await;
    let id = started[0].match_id;
    for c in clients.iter_mut() {
        assert_eq!(next_turn(c).await.2, 2, "turn_started is seq 2");
    }
    let chat = |rid: &str, text: String| json!({"t": "chat", "id": rid, "d": {"match_id": id, "text": text}});
    for (rid, text) in [
        ("empty", String::new()),
        ("long", "é".repeat(281)),
        ("ctl", "hi\u{1b}[31m".to_string()),
        ("nul", "a\u{0}b".to_string()),
    ] {
        clients[0].send(chat(rid, text)).await;
        // The text policy (proto/README.md §4.1) refuses these with invalid_text.
        let e = clients[0].expect_error(ErrorCode::InvalidText).await;
        assert_eq!(e.in_reply_to.as_deref(), Some(rid));
    }
    clients[0].send(chat("ok", "gl hf ♟".to_string())).await;
    let (ack, _) = clients[0]
        .recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "ok"))
        .await;
    assert!(matches!(ack.msg, ServerMsg::Ack(_)));
    for c in clients.iter_mut() {
        let (f, _) = c.recv_until(|m| matches!(m, ServerMsg::Chat(_))).await;
        assert_eq!(f.seq, Some(3), "the refused lines spent no seq");
        let ServerMsg::Chat(line) = f.msg else {
            unreachable!()
        };
        assert_eq!((line.text.as_str(), line.name.as_str()), ("gl hf ♟", "P0"));
    }
}
