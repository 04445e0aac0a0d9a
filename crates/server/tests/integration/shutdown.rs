//! Graceful shutdown.

use crate::common::*;
use protocol::ServerMsg;
use serde_json::json;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_closes_sockets_stops_rooms_and_keeps_the_turn_log() {
    let mut s = start(test_config()).await;
    let (mut clients, started) = lobby_of_four(&s, false, 4).await;
    let id = started[0].match_id;
    let green = index_of(&started, engine::Seat::Green);
    clients[green]
        .send(json!({"t": "pass", "id": "p", "d": {"match_id": id, "turn_number": 1}}))
        .await;
    clients[green]
        .recv_until(|m| matches!(m, ServerMsg::TurnResolved(_)))
        .await;

    s.stop().await.expect("run returns Ok");
    for c in clients.iter_mut() {
        assert_eq!(
            c.expect_close().await,
            Some(CloseCode::Away),
            "1001: server going away"
        );
    }
    assert!(s.state.room_count() == 0, "rooms stopped");
    assert!(
        s.state.tasks().is_empty(),
        "no connection or room task left"
    );
    // The match stays running in the store, with the turn played.
    let summary = s.store.match_summary(id).await.unwrap().unwrap();
    assert_eq!(summary.status, store::MatchStatus::Running);
    assert_eq!(summary.turn_count, 1);
    // No longer accepting.
    assert!(tokio::net::TcpStream::connect(s.addr).await.is_err());
}
