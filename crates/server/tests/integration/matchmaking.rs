//! Quick-play queue with bot fill, and private lobbies by code.

use crate::common::*;
use engine::Mode;
use protocol::{ErrorCode, ServerMsg};
use serde_json::json;
use std::time::Duration;

/// Bot fill (`--bot-fill-seconds`, here 20 s) on a manual clock that only the test
/// moves: the wait runs from the OLDEST waiting player's join, bots come not a
/// millisecond before it is over, and at once when it is (the match starts with the
/// clock still at that instant: its `match_deadline` is that instant plus the match
/// clock).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_queue_fills_with_bots_exactly_when_the_wait_is_over() {
    let clock = server::Clock::manual(T0);
    let config = server::Config {
        bot_fill_seconds: 20,
        match_seconds: 600,
        ..test_config()
    };
    let s = start_with_clock(config, clock.clone()).await;
    let mut c = s.player("Lonely").await;
    c.send(json!({"t": "join_queue", "id": "q", "d": {"mode": "journey"}}))
        .await;
    assert!(matches!(c.recv().await.msg, ServerMsg::Ack(a) if a.id == "q"));
    match c.recv().await.msg {
        ServerMsg::QueueStatus(q) => {
            assert_eq!(
                (q.mode, q.waiting, q.bots_in_seconds),
                (Mode::Journey, 1, 20)
            );
        }
        other => panic!("expected queue_status, got {other:?}"),
    }
    // Queued once only.
    c.send(json!({"t": "join_queue", "d": {"mode": "clash"}}))
        .await;
    c.expect_error(ErrorCode::AlreadyBusy).await;

    // A second player joins 5 s later: the wait still runs from the first join.
    clock.set_ms(T0 + 5_000);
    let mut d = s.player("Later").await;
    d.send(json!({"t": "join_queue", "d": {"mode": "journey"}}))
        .await;
    for p in [&mut c, &mut d] {
        let (f, _) = p
            .recv_until(|m| matches!(m, ServerMsg::QueueStatus(_)))
            .await;
        let ServerMsg::QueueStatus(q) = f.msg else {
            unreachable!()
        };
        assert_eq!((q.waiting, q.bots_in_seconds), (2, 15), "15 s left");
    }

    // 1 ms before the wait is over: no match.
    clock.set_ms(T0 + 20_000 - 1);
    c.expect_silence(Duration::from_millis(300)).await;
    d.expect_silence(Duration::from_millis(50)).await;
    assert!(s.state.room_count() == 0, "no match 1 ms early");
    assert_eq!(s.state.presence().active_match(c.player_id), None);

    // At the instant it is over: the match starts, the clock still standing there.
    clock.set_ms(T0 + 20_000);
    let st = expect_started(&mut c).await;
    let (f, _) = d
        .recv_until(|m| matches!(m, ServerMsg::MatchStarted(_)))
        .await;
    let ServerMsg::MatchStarted(m) = f.msg else {
        unreachable!()
    };
    assert_eq!(m.match_id, st.match_id, "both humans in one match");
    assert_eq!(
        m.match_deadline_ms,
        T0 + 20_000 + 600_000,
        "started at the bot-fill instant (match clock 600 s)"
    );
    assert_eq!(st.seats.iter().filter(|x| x.bot).count(), 2, "two bots");
    let mine: Vec<_> = st
        .seats
        .iter()
        .filter(|x| x.player_id == Some(c.player_id))
        .collect();
    assert_eq!(mine.len(), 1);
    assert_eq!(Some(mine[0].seat), st.your_seat);
    assert_eq!(mine[0].name, "Lonely");
    assert!(st
        .seats
        .iter()
        .filter(|x| x.bot)
        .all(|x| x.name.starts_with("Bot ") && x.player_id.is_none()));
    // Seated now: queueing again is refused.
    c.send(json!({"t": "join_queue", "d": {"mode": "journey"}}))
        .await;
    c.recv_until(|m| matches!(m, ServerMsg::Error(e) if e.code == ErrorCode::AlreadyBusy))
        .await;
}

#[tokio::test]
async fn leaving_the_queue_frees_the_player() {
    let s = start(test_config()).await;
    let mut c = s.player("Fickle").await;
    c.send(json!({"t": "join_queue", "d": {"mode": "clash"}}))
        .await;
    assert!(
        matches!(c.recv().await.msg, ServerMsg::QueueStatus(q) if q.waiting == 1 && q.bots_in_seconds == 60)
    );
    c.send(json!({"t": "leave_queue", "id": "l"})).await;
    assert!(matches!(c.recv().await.msg, ServerMsg::Ack(a) if a.id == "l"));
    assert!(s.state.presence().is_empty());
    c.send(json!({"t": "create_lobby", "d": {"mode": "clash"}}))
        .await;
    assert!(
        matches!(c.recv().await.msg, ServerMsg::LobbyState(_)),
        "free to do something else"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_lobby_is_joined_by_code_and_started_by_its_host() {
    let s = start(test_config()).await;
    let mut host = s.player("Host").await;
    let mut guest = s.player("Guest").await;
    let mut stranger = s.player("Stranger").await;

    host.send(json!({"t": "create_lobby", "d": {"mode": "clash", "fill_with_bots": true}}))
        .await;
    let ServerMsg::LobbyState(l) = host.recv().await.msg else {
        panic!("expected lobby_state")
    };
    assert_eq!(l.code.len(), 6);
    assert!(l.code.bytes().all(|b| server::CODE_ALPHABET.contains(&b)));
    assert_eq!(
        (l.mode, l.private, l.fill_with_bots, l.host),
        (Mode::Clash, true, true, host.player_id)
    );

    stranger
        .send(json!({"t": "join_lobby", "d": {"code": "ZZZZZZ"}}))
        .await;
    stranger.expect_error(ErrorCode::LobbyNotFound).await;

    // Codes are case-insensitive.
    guest
        .send(json!({"t": "join_lobby", "id": "j", "d": {"code": l.code.to_lowercase()}}))
        .await;
    for c in [&mut host, &mut guest] {
        let (f, _) = c
            .recv_until(|m| matches!(m, ServerMsg::LobbyState(_)))
            .await;
        let ServerMsg::LobbyState(l2) = f.msg else {
            unreachable!()
        };
        let names: Vec<_> = l2.members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["Host", "Guest"]);
    }
    assert!(matches!(guest.recv().await.msg, ServerMsg::Ack(a) if a.id == "j"));

    guest.send(json!({"t": "start_lobby"})).await;
    guest.expect_error(ErrorCode::NotHost).await;

    host.send(json!({"t": "start_lobby"})).await;
    let a = expect_started(&mut host).await;
    let b = expect_started(&mut guest).await;
    assert_eq!(a.match_id, b.match_id);
    assert_eq!(a.seats, b.seats);
    assert_ne!(a.your_seat, b.your_seat);
    assert_eq!(
        a.seats.iter().filter(|x| x.bot).count(),
        2,
        "the two empty seats got bots"
    );
    assert!(s.state.lobbies().is_empty(), "a started lobby is closed");
    stranger
        .send(json!({"t": "join_lobby", "d": {"code": l.code}}))
        .await;
    stranger.expect_error(ErrorCode::LobbyNotFound).await;
}

#[tokio::test]
async fn a_lobby_holds_four_and_needs_two_without_bots() {
    let s = start(test_config()).await;
    let mut host = s.player("H").await;
    host.send(json!({"t": "create_lobby", "d": {"mode": "journey"}}))
        .await;
    let ServerMsg::LobbyState(l) = host.recv().await.msg else {
        panic!("expected lobby_state")
    };
    host.send(json!({"t": "start_lobby"})).await;
    let e = host.expect_error(ErrorCode::LobbyTooSmall).await;
    assert!(e.message.contains("at least two"), "{}", e.message);
    let mut others = Vec::new();
    for i in 0..4 {
        let mut c = s.player(&format!("M{i}")).await;
        c.send(json!({"t": "join_lobby", "d": {"code": l.code}}))
            .await;
        others.push(c);
    }
    let last = others.last_mut().unwrap();
    last.expect_error(ErrorCode::LobbyFull).await;
    assert_eq!(s.state.presence().len(), 4, "the fifth player stays free");
    // The host leaves: the next member becomes host.
    host.send(json!({"t": "leave_lobby", "id": "bye"})).await;
    let (f, _) = others[0]
        .recv_until(
            |m| matches!(m, ServerMsg::LobbyState(x) if x.members.iter().all(|p| p.name != "H")),
        )
        .await;
    let ServerMsg::LobbyState(after) = f.msg else {
        unreachable!()
    };
    assert_eq!(after.host, others[0].player_id);
    assert_eq!(after.members.len(), 3);
}
