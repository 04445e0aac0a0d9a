//! Keep-alive: server pings, idle timeout, one socket per player.

use crate::common::*;
use futures_util::StreamExt;
use protocol::ServerMsg;
use serde_json::json;
use std::time::Duration;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;

/// Pings every second and the 2 s idle close, on Tokio's paused clock: once the
/// player is welcomed (the `hello` reads the store, on a thread of its own, which a
/// paused clock would run past) time moves only when every task waits on a timer,
/// so the seconds below take no wall-clock time and fire in their exact order.
#[tokio::test]
async fn the_server_pings_and_closes_a_silent_client() {
    let s = start(server::Config {
        ping_seconds: 1,
        idle_seconds: 2,
        ..test_config()
    })
    .await;
    let mut c = s.player("Quiet").await;
    tokio::time::pause();
    // A client that keeps reading answers the pings (tungstenite does) and stays.
    let mut pings = 0;
    let until = tokio::time::Instant::now() + Duration::from_millis(3200);
    while let Ok(Some(m)) = tokio::time::timeout_at(until, c.ws.next()).await {
        match m.unwrap() {
            Message::Ping(_) => pings += 1,
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(pings, 3, "a ping per second (at 1, 2 and 3 s)");
    c.assert_open().await;
    // A client that neither reads nor writes for the idle timeout is closed (1001).
    // (Its automatic pong to a ping still in its buffer may meet the closed socket
    // and turn the close frame into a reset; either way it is closed.)
    let quiet_from = tokio::time::Instant::now();
    s.eventually("the server dropped the silent client", |st| {
        st.session_count() == 0
    })
    .await;
    let waited = quiet_from.elapsed();
    assert!(
        waited >= Duration::from_secs(2) && waited < Duration::from_millis(2100),
        "closed at the idle timeout, not before ({waited:?})"
    );
    let code = c.expect_close().await;
    assert!(
        code.is_none() || code == Some(CloseCode::Away),
        "closed, got {code:?}"
    );
}

/// The keep-alive ping goes only to a socket quiet for a whole ping period (issue 14:
/// a ping and its pong cost the server a write, a read and two wake-ups per socket,
/// and a client that speaks shows it is there). Paused clock, pings every second:
/// a client sending `{"t":"ping"}` every 600 ms for 3 s gets no WebSocket ping, only
/// its six `pong`s; once it falls quiet, the first ping comes 1 s after its last
/// frame, not at the next tick of a fixed period.
#[tokio::test]
async fn a_client_that_speaks_is_not_pinged() {
    let s = start(server::Config {
        ping_seconds: 1,
        idle_seconds: 5,
        ..test_config()
    })
    .await;
    let mut c = s.player("Chatty").await;
    tokio::time::pause();
    let mut pongs = 0;
    let mut last_sent = tokio::time::Instant::now();
    for _ in 0..6 {
        let until = last_sent + Duration::from_millis(600);
        while let Ok(Some(m)) = tokio::time::timeout_at(until, c.ws.next()).await {
            match m.unwrap() {
                Message::Text(t) if t.as_str() == r#"{"t":"pong"}"# => pongs += 1,
                other => panic!("a client that spoke within the period got {other:?}"),
            }
        }
        c.send(json!({"t": "ping"})).await;
        last_sent = tokio::time::Instant::now();
    }
    // Quiet from here: the sixth pong, then the first WebSocket ping 1 s after the
    // last frame.
    let mut ping_after = None;
    let until = last_sent + Duration::from_millis(1500);
    while let Ok(Some(m)) = tokio::time::timeout_at(until, c.ws.next()).await {
        match m.unwrap() {
            Message::Text(t) if t.as_str() == r#"{"t":"pong"}"# => pongs += 1,
            Message::Ping(_) => {
                ping_after.get_or_insert(last_sent.elapsed());
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(pongs, 6, "each {{\"t\":\"ping\"}} answered");
    let after = ping_after.expect("a quiet client is pinged");
    assert!(
        after >= Duration::from_millis(1000) && after < Duration::from_millis(1010),
        "the first ping 1 s after the client's last frame, got {after:?}"
    );
}

#[tokio::test]
async fn a_second_socket_of_the_same_player_replaces_the_first() {
    let s = start(test_config()).await;
    let mut first = s.player("Twin").await;
    let (mut second, active) = s.reconnect(first.player_id, &first.token).await;
    assert!(active.is_empty());
    assert_eq!(first.expect_close().await, Some(CloseCode::Library(4000)));
    second.assert_open().await;
    // The player is still known as connected (through the second socket).
    s.eventually("one session", |st| st.session_count() == 1)
        .await;
    second
        .send(json!({"t": "join_queue", "id": "q", "d": {"mode": "clash"}}))
        .await;
    assert!(matches!(second.recv().await.msg, ServerMsg::Ack(a) if a.id == "q"));
}
