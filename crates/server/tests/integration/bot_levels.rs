//! Bot levels (issue 32): chosen per lobby and per quick-play request, shown on seats
//! and in the stored match; an expert bot searches off the event loop, so its room
//! answers other commands meanwhile.

use crate::common::*;
use protocol::{BotLevel, ServerMsg};
use serde_json::json;
use server::Config;

/// A lobby created with `bot_level: casual` says so in `lobby_state`, its three bot
/// seats carry `bot_level: casual` in `match_started` (the human's seat none), and
/// the stored match shows the same levels over REST (as replays do).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lobby_bot_level_is_on_seats_and_in_the_stored_match() {
    let s = start(test_config()).await;
    let mut c = s.player("Ada").await;
    c.send(json!({"t": "create_lobby", "d": {"mode": "clash", "fill_with_bots": true, "bot_level": "casual"}}))
        .await;
    match c.recv().await.msg {
        ServerMsg::LobbyState(l) => assert_eq!(l.bot_level, BotLevel::Casual),
        other => panic!("expected lobby_state, got {other:?}"),
    }
    c.send(json!({"t": "start_lobby"})).await;
    let st = expect_started(&mut c).await;
    let levels: Vec<Option<BotLevel>> = st.seats.iter().map(|s| s.bot_level).collect();
    assert_eq!(
        levels
            .iter()
            .filter(|l| **l == Some(BotLevel::Casual))
            .count(),
        3
    );
    let mine = st.your_seat.unwrap().index();
    assert_eq!(levels[mine], None, "a human's seat has no bot level");

    // The stored match (what the summary and the replay read) keeps the levels.
    let summary: serde_json::Value =
        reqwest::get(s.url(&format!("/api/v1/matches/{}", st.match_id)))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    let stored: Vec<Option<String>> = summary["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["bot_level"].as_str().map(String::from))
        .collect();
    let mut expected = vec![Some("casual".to_string()); 4];
    expected[mine] = None;
    assert_eq!(stored, expected);
}

/// Quick play: `join_queue` with `bot_level: beginner` gets beginner bots when the
/// bot-fill wait (0 s here) runs out; without the field, greedy ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_play_bots_have_the_requested_level() {
    let s = start(Config {
        bot_fill_seconds: 0,
        ..test_config()
    })
    .await;
    for (request, level) in [
        (
            json!({"mode": "journey", "bot_level": "beginner"}),
            BotLevel::Beginner,
        ),
        (json!({"mode": "journey"}), BotLevel::Greedy),
    ] {
        let mut c = s.player("Bo").await;
        c.send(json!({"t": "join_queue", "d": request})).await;
        let st = expect_started(&mut c).await;
        let bots: Vec<Option<BotLevel>> = st
            .seats
            .iter()
            .filter(|s| s.bot)
            .map(|s| s.bot_level)
            .collect();
        assert_eq!(bots, vec![Some(level); 3]);
        c.send(json!({"t": "leave_match", "d": {"match_id": st.match_id}}))
            .await;
    }
}

/// An unknown level is refused with a typed error and opens no lobby.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_bot_level_is_refused() {
    let s = start(test_config()).await;
    let mut c = s.player("Cy").await;
    c.send(json!({"t": "create_lobby", "d": {"mode": "clash", "fill_with_bots": true, "bot_level": "grandmaster"}}))
        .await;
    c.expect_error(protocol::ErrorCode::BadJson).await;
    c.assert_open().await;
}

/// While an expert bot searches (a 1.5 s wall-clock budget and no node bound, so the
/// search surely outlasts the round trip), the room answers a `resync` at once: its
/// `ack` comes before the bot's `turn_resolved`. (A search on the room's own task
/// would resolve the turn first and answer the `resync` only after it.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_answers_resync_while_its_expert_bot_searches() {
    let s = start(Config {
        bot_budget_ms: 1500,
        bot_nodes: 0,
        ..test_config()
    })
    .await;
    let mut c = s.player("Di").await;
    c.send(json!({"t": "create_lobby", "d": {"mode": "clash", "fill_with_bots": true, "bot_level": "expert"}}))
        .await;
    c.recv().await; // lobby_state
    c.send(json!({"t": "start_lobby"})).await;
    let st = expect_started(&mut c).await;
    let me = st.your_seat.unwrap();
    // Pass our own turn if we move first; then a bot's turn starts.
    let (seat, turn, seq) = loop {
        let (seat, turn, seq) = next_turn(&mut c).await;
        if seat == me {
            c.send(json!({"t": "pass", "d": {"match_id": st.match_id, "turn_number": turn}}))
                .await;
            continue;
        }
        break (seat, turn, seq);
    };
    c.send(json!({"t": "resync", "id": "r1", "d": {"match_id": st.match_id, "last_seq": seq}}))
        .await;
    let f = c.recv().await;
    assert!(
        matches!(&f.msg, ServerMsg::Ack(a) if a.id == "r1"),
        "expected the resync's ack while the bot searches, got {f:?}"
    );
    // The bot's plan comes afterwards and is accepted.
    let r = next_resolved(&mut c).await;
    assert_eq!((r.seat, r.turn_number), (seat, turn));
}
