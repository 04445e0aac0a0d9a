//! Many players behind one address (issue 37.3): a mobile carrier's NAT puts the
//! players of many matches behind one IP. After a restart, every seat holder comes
//! back at once from 127.0.0.1 under the **default** configuration; the
//! per-address connection limit still bounds unauthenticated sockets, and its
//! refusal is HTTP 429 with `Retry-After`, naming the limit.

use crate::harness::*;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite;
use uuid::Uuid;

/// Matches and players of the test.
const MATCHES: usize = 50;
const PLAYERS: usize = MATCHES * 4;
/// The default `--max-connections-per-ip`.
const PER_IP: usize = 64;
/// Unauthenticated sockets opened at once from the same address.
const FLOOD: usize = 1_000;

/// One WebSocket upgrade to `server`: the socket, or the refusal's (status,
/// `Retry-After` seconds, body).
async fn upgrade(
    server: &ServerProc,
) -> Result<
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
    (u16, Option<u64>, String),
> {
    let url = format!("ws://{}/ws", server.addr);
    match tokio::time::timeout(BOUND, tokio_tungstenite::connect_async(url))
        .await
        .expect("the upgrade is answered in time")
    {
        Ok((ws, _)) => Ok(ws),
        Err(tungstenite::Error::Http(r)) => {
            let retry = r
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok()?.parse().ok());
            let body = String::from_utf8_lossy(r.body().as_deref().unwrap_or_default()).into();
            Err((r.status().as_u16(), retry, body))
        }
        Err(e) => panic!("upgrade failed: {e}"),
    }
}

/// A seat holder coming back: upgrades (after each 429, waits its `Retry-After`
/// and tries again), says `hello` with its token and reads up to the snapshot of
/// its match. Returns the player and the refusals it met.
async fn come_back(server: &ServerProc, id: Uuid, token: &str, match_id: Uuid) -> (Player, u32) {
    let mut refused = 0;
    loop {
        match upgrade(server).await {
            Ok(ws) => {
                let mut p = Player::from_socket(ws, id, token);
                let active = p.hello().await;
                assert_eq!(active, vec![match_id], "welcome lists the player's match");
                let snap = p.snapshot().await;
                assert_eq!(snap.match_id, match_id);
                return (p, refused);
            }
            Err((status, retry, body)) => {
                assert_eq!(status, 429, "a per-address refusal is 429: {body}");
                assert!(
                    body.contains("max_connections_per_ip"),
                    "names the limit: {body}"
                );
                let secs = retry.expect("429 carries Retry-After");
                refused += 1;
                tokio::time::sleep(Duration::from_secs(secs)).await;
            }
        }
    }
}

/// 50 running matches of 4 players each, made on a server with the per-address
/// limits lifted (to seat 200 players from one address), stopped with SIGTERM and
/// restarted on the same database with the default limits. All 200 players
/// reconnect at the same moment from 127.0.0.1: each is back, with the snapshot of
/// its match, within 10 s (those refused at first got 429 with `Retry-After` and
/// came back after it). With all 200 connected, 1,000 unauthenticated sockets
/// from the same address: at most 64 are upgraded (the default per-address limit),
/// every other one is refused with 429, `Retry-After` and the limit's name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_seat_holders_behind_one_address_are_back_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}", dir.path().join("nat.db").display());
    let lifted = [
        ("LUDO_MAX_CONNECTIONS_PER_IP", "1000"),
        ("LUDO_GUESTS_PER_MINUTE", "100000"),
        ("LUDO_GUEST_BURST", "1000"),
    ];
    let s1 = ServerProc::start(&db, &lifted, dir.path()).await;
    s1.wait_ready().await;
    let mut seated = Vec::new();
    for _ in 0..MATCHES {
        let (players, match_id) = lobby_of_four(&s1).await;
        for p in players {
            seated.push((p.player_id, p.token.clone(), match_id));
        }
    }
    assert_eq!(seated.len(), PLAYERS);
    s1.terminate().await;

    // The default configuration (the harness sets only the bot think time and the
    // dice contribution window).
    let s2 = ServerProc::start(&db, &[], dir.path()).await;
    s2.wait_ready().await;
    assert_eq!(
        s2.metric("ludo_rooms_resumed_total").await,
        Some(MATCHES as f64)
    );
    let t0 = Instant::now();
    let back = futures_util::future::join_all(
        seated
            .iter()
            .map(|(id, token, m)| come_back(&s2, *id, token, *m)),
    )
    .await;
    let all_back = t0.elapsed();
    let refusals: u32 = back.iter().map(|(_, r)| r).sum();
    eprintln!("{PLAYERS} players back in {all_back:?} ({refusals} refusals with 429 on the way)");
    assert!(
        all_back < Duration::from_secs(10),
        "all {PLAYERS} back in {all_back:?}"
    );

    let flood = futures_util::future::join_all((0..FLOOD).map(|_| upgrade(&s2))).await;
    let upgraded = flood.iter().filter(|r| r.is_ok()).count();
    for r in &flood {
        if let Err((status, retry, body)) = r {
            assert_eq!(*status, 429, "{body}");
            assert_eq!(*retry, Some(1), "Retry-After: 1");
            assert!(body.contains("max_connections_per_ip"), "{body}");
        }
    }
    eprintln!("of {FLOOD} unauthenticated sockets, {upgraded} upgraded");
    assert!(
        upgraded <= PER_IP,
        "{upgraded} unauthenticated sockets upgraded"
    );
    assert!(upgraded > 0, "the limit leaves room for new sockets");
    // The seat holders are still connected and served.
    for (mut p, _) in back {
        p.send(serde_json::json!({"t": "ping"})).await;
        p.until(|m| matches!(m, protocol::ServerMsg::Pong)).await;
    }
}
