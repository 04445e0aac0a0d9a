//! The edge (issue 13): timeouts on every stage a client controls, connection caps,
//! per-address limits, browser security headers and the `Origin` policy, close 1007.
//! Real sockets on 127.0.0.0/8 (distinct 127.0.0.x source addresses stand for
//! distinct clients); every wait is bounded.

use crate::common::*;
use futures_util::{SinkExt, StreamExt};
use protocol::ServerMsg;
use serde_json::{json, Value};
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::oneshot;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;

/// A TCP connection to `server` from the loopback address `127.0.0.<host>`.
pub(crate) async fn connect_from(host: u8, server: SocketAddr) -> TcpStream {
    let sock = TcpSocket::new_v4().unwrap();
    sock.bind(SocketAddr::new(IpAddr::from([127, 0, 0, host]), 0))
        .unwrap();
    sock.connect(server).await.unwrap()
}

/// Reads until the server closes the connection (EOF or reset), at most `limit`;
/// returns what was read and when it closed.
pub(crate) async fn read_until_closed(mut s: TcpStream, limit: Duration) -> (String, Instant) {
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    let deadline = Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(deadline, s.read(&mut buf)).await {
            Err(_) => panic!(
                "still open after {limit:?}; read so far: {:?}",
                String::from_utf8_lossy(&got)
            ),
            Ok(Ok(0)) | Ok(Err(_)) => {
                return (String::from_utf8_lossy(&got).into(), Instant::now())
            }
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}

pub(crate) const HALF_HEADERS: &str = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
pub(crate) const HALF_UPGRADE: &str = "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
const HALF_BODY: &str = "POST /api/v1/guests HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"na";

/// Plays `c`'s seat by passing each of its turns until `stop` (or `match_ended`);
/// returns the number of `turn_resolved` seen by then.
async fn pass_until(mut c: Client, st: Started, mut stop: oneshot::Receiver<()>) -> usize {
    let me = st.your_seat.unwrap();
    let mut resolved = 0;
    loop {
        let frame = tokio::select! {
            _ = &mut stop => return resolved,
            f = c.recv() => f,
        };
        match frame.msg {
            ServerMsg::TurnStarted(t) if t.seat == me => {
                c.send(json!({"t": "pass", "d": {"match_id": st.match_id, "turn_number": t.turn_number}}))
                    .await;
            }
            ServerMsg::TurnResolved(_) => resolved += 1,
            ServerMsg::MatchEnded(_) => return resolved,
            ServerMsg::Error(e) => assert_eq!(e.code, protocol::ErrorCode::MatchOver, "{e:?}"),
            _ => {}
        }
    }
}

/// Real time, on purpose: the claim is that the edge's timeouts hold for 300
/// sockets at once while a match keeps playing on the same two worker threads.
/// Tokio's paused clock needs a single-threaded runtime, and it jumps to the next
/// timer whenever every task waits on a socket or the store, so the 1 s timeouts
/// would pass before one turn is stored and nothing would play "meanwhile". The
/// wait is bounded by the timeouts: every close is asserted between 0.85 s and 2 s
/// after its request was sent; the test takes about 1.5 s beyond setup.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_sent_requests_are_closed_within_the_timeouts_while_a_match_plays() {
    // Timeouts of 1 s; 300 hostile connections from ten addresses (30 each, under
    // the per-address cap of 64): 100 half-sent headers, 100 half-sent upgrades,
    // 100 bodies that never arrive.
    let timeout = Duration::from_millis(1_000);
    let s = start(server::Config {
        header_timeout_ms: 1_000,
        body_timeout_ms: 1_000,
        hello_timeout_ms: 1_000,
        rate_per_second: 1000,
        rate_burst: 1000,
        ..test_config()
    })
    .await;
    let (mut clients, started) = lobby_of_four(&s, true, 1).await;
    let (stop, stopped) = oneshot::channel();
    let player = tokio::spawn(pass_until(
        clients.remove(0),
        started.into_iter().next().unwrap(),
        stopped,
    ));

    let mut hostile = Vec::new();
    for i in 0..300usize {
        let kind = [HALF_HEADERS, HALF_UPGRADE, HALF_BODY][i % 3];
        let mut tcp = connect_from(10 + (i % 10) as u8, s.addr).await;
        tcp.write_all(kind.as_bytes()).await.unwrap();
        let sent = Instant::now();
        hostile.push(tokio::spawn(async move {
            let (answer, closed) = read_until_closed(tcp, Duration::from_secs(10)).await;
            (i % 3, answer, closed - sent)
        }));
    }
    let mut slowest = [Duration::ZERO; 3];
    for h in hostile {
        let (kind, answer, took) = h.await.unwrap();
        // Closed by the timeout: not before it, and at most 1 s after it.
        assert!(
            took >= timeout - Duration::from_millis(150)
                && took <= timeout + Duration::from_secs(1),
            "kind {kind}: closed after {took:?}"
        );
        slowest[kind] = slowest[kind].max(took);
        if kind == 2 {
            // The stalled body: 408 with the JSON error body, then closed.
            assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
            let body = answer.split_once("\r\n\r\n").unwrap().1;
            let v: Value = serde_json::from_str(body).unwrap();
            assert_eq!(v["error"]["code"], "request_timeout");
        } else {
            assert_eq!(answer, "", "half-sent headers get no answer");
        }
    }
    println!("slowest close (headers, upgrade, body): {slowest:?}");
    // Meanwhile the player's match played on.
    let _ = stop.send(());
    let resolved = tokio::time::timeout(STEP, player).await.unwrap().unwrap();
    assert!(resolved >= 8, "turns were resolved meanwhile: {resolved}");
    s.eventually("every connection slot is released", |st| {
        st.edge().open_connections() == 0
    })
    .await;
}

/// The hello deadline passes on Tokio's paused clock (no wall-clock wait); the clock
/// runs while the guest is created and says hello (store reads on another thread).
#[tokio::test]
async fn an_upgraded_socket_without_hello_is_closed_after_the_hello_timeout() {
    let s = start(server::Config {
        hello_timeout_ms: 500,
        ..test_config()
    })
    .await;
    tokio::time::pause();
    let t0 = Instant::now();
    let mut silent = s.connect().await;
    assert_eq!(silent.expect_close().await, Some(CloseCode::Policy));
    let took = t0.elapsed();
    assert!(
        took >= Duration::from_millis(500) && took < Duration::from_millis(600),
        "{took:?}"
    );
    tokio::time::resume();
    // A socket that said hello in time stays open past the deadline.
    let mut p = s.player("Ada").await;
    tokio::time::pause();
    tokio::time::sleep(Duration::from_millis(700)).await;
    p.assert_open().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_the_connection_cap_new_connections_are_refused_and_players_play_on() {
    // Cap 12: one player socket plus 11 half-sent requests from 11 addresses fill it.
    let s = start(server::Config {
        max_connections: Some(12),
        header_timeout_ms: 30_000,
        ..test_config()
    })
    .await;
    let mut p = s.player("Ada").await;
    let mut held = Vec::new();
    for i in 0..11u8 {
        let mut tcp = connect_from(20 + i, s.addr).await;
        tcp.write_all(HALF_HEADERS.as_bytes()).await.unwrap();
        held.push(tcp);
    }
    s.eventually("the cap is reached", |st| {
        st.edge().open_connections() == 12
    })
    .await;
    // The 13th connection is answered 503 and closed at once.
    let t0 = Instant::now();
    let mut extra = connect_from(40, s.addr).await;
    let _ = extra
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await;
    let (answer, _) = read_until_closed(extra, Duration::from_secs(2)).await;
    assert!(
        t0.elapsed() < Duration::from_millis(500),
        "{:?}",
        t0.elapsed()
    );
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 503 "),
        "{answer}"
    );
    // The player is unaffected.
    p.assert_open().await;
    // Once the hostile connections go, new ones are served again.
    drop(held);
    s.eventually("slots released", |st| st.edge().open_connections() == 1)
        .await;
    let r = reqwest::get(s.url("/healthz")).await.unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_is_capped_at_its_connection_budget() {
    let s = start(server::Config {
        max_connections_per_ip: 5,
        header_timeout_ms: 30_000,
        ..test_config()
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..5 {
        let mut tcp = connect_from(50, s.addr).await;
        tcp.write_all(HALF_HEADERS.as_bytes()).await.unwrap();
        held.push(tcp);
    }
    s.eventually("five from 127.0.0.50", |st| {
        st.edge().open_connections() == 5
    })
    .await;
    // A sixth from the same address is refused at once ...
    let sixth = connect_from(50, s.addr).await;
    let t0 = Instant::now();
    let (answer, _) = read_until_closed(sixth, Duration::from_secs(2)).await;
    assert!(t0.elapsed() < Duration::from_millis(500));
    // (429 naming the address's limit, with Retry-After: not "server down".)
    assert!(
        answer.is_empty()
            || (answer.starts_with("HTTP/1.1 429 ")
                && answer.contains("retry-after: 1")
                && answer.contains("max_connections_per_ip")),
        "{answer}"
    );
    // ... another address is served.
    let mut other = connect_from(51, s.addr).await;
    other
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let (answer, _) = read_until_closed(other, Duration::from_secs(2)).await;
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    drop(held);
}

/// A reqwest client whose connections come from `127.0.0.<host>`.
fn http_from(host: u8) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(IpAddr::from([127, 0, 0, host]))
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_flood_from_one_address_gets_429_past_its_budget() {
    // Budget: a burst of 5, then one a minute.
    let s = start(server::Config {
        guests_per_minute: 1,
        guest_burst: 5,
        ..test_config()
    })
    .await;
    let flood = http_from(60);
    let mut statuses = Vec::new();
    let mut retry_after = None;
    for i in 0..8 {
        let r = flood
            .post(s.url("/api/v1/guests"))
            .json(&json!({"name": format!("F{i}")}))
            .send()
            .await
            .unwrap();
        statuses.push(r.status().as_u16());
        if r.status() == 429 {
            retry_after = Some(r.headers()["retry-after"].to_str().unwrap().to_string());
            let v: Value = r.json().await.unwrap();
            assert_eq!(v["error"]["code"], "rate_limited");
        }
    }
    assert_eq!(statuses, [201, 201, 201, 201, 201, 429, 429, 429]);
    // One a minute: the next one is at most 60 s away.
    let secs: u64 = retry_after.unwrap().parse().unwrap();
    assert!((1..=60).contains(&secs), "{secs}");
    // Another address is unaffected.
    let r = http_from(61)
        .post(s.url("/api/v1/guests"))
        .json(&json!({"name": "Calm"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forwarded_for_names_the_client_only_behind_a_trusted_proxy() {
    // 127.0.0.70 is the trusted proxy; its clients have budgets of their own.
    let s = start(server::Config {
        guests_per_minute: 1,
        guest_burst: 1,
        trusted_proxies: vec!["127.0.0.70".parse().unwrap()],
        ..test_config()
    })
    .await;
    let post = |c: reqwest::Client, xff: &'static str| {
        let url = s.url("/api/v1/guests");
        async move {
            c.post(url)
                .header("x-forwarded-for", xff)
                .json(&json!({"name": "P"}))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    let proxy = http_from(70);
    assert_eq!(post(proxy.clone(), "198.51.100.1").await, 201);
    assert_eq!(post(proxy.clone(), "198.51.100.1").await, 429);
    assert_eq!(
        post(proxy.clone(), "198.51.100.2").await,
        201,
        "another client behind the proxy"
    );
    // From an untrusted peer the header is ignored: its own address is the key.
    let direct = http_from(71);
    assert_eq!(post(direct.clone(), "198.51.100.3").await, 201);
    assert_eq!(post(direct, "198.51.100.4").await, 429);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn security_headers_are_on_the_client_and_the_api() {
    let s = start(test_config()).await;
    for path in [
        "/",
        "/js/app.js",
        "/api/v1/leaderboard?mode=clash",
        "/no/such/file",
    ] {
        let r = reqwest::get(s.url(path)).await.unwrap();
        let h = r.headers();
        assert_eq!(
            h["content-security-policy"],
            server::CONTENT_SECURITY_POLICY,
            "{path}"
        );
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("script-src 'self';") && !csp.contains("unsafe-inline"));
        assert!(csp.contains("frame-ancestors 'none'"));
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(h["referrer-policy"], "no-referrer", "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_origin_rest_and_websocket_follow_the_allowed_origins() {
    let allowed = "https://play.example.com";
    let s = start(server::Config {
        allowed_origins: vec![allowed.to_string()],
        ..test_config()
    })
    .await;
    let c = reqwest::Client::new();
    // An allowed origin: preflight and call succeed with CORS headers.
    let pre = c
        .request(reqwest::Method::OPTIONS, s.url("/api/v1/guests"))
        .header("origin", allowed)
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "content-type")
        .send()
        .await
        .unwrap();
    assert!(pre.status().is_success(), "{}", pre.status());
    assert_eq!(pre.headers()["access-control-allow-origin"], allowed);
    let r = c
        .post(s.url("/api/v1/guests"))
        .header("origin", allowed)
        .json(&json!({"name": "Cors"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    assert_eq!(r.headers()["access-control-allow-origin"], allowed);
    // The server's own origin needs no listing.
    let own = format!("http://{}", s.addr);
    let r = c
        .get(s.url("/api/v1/leaderboard?mode=clash"))
        .header("origin", &own)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    // A disallowed origin: 403 origin_not_allowed, no CORS grant, nothing created.
    for req in [
        c.post(s.url("/api/v1/guests"))
            .header("origin", "https://evil.example")
            .json(&json!({"name": "Evil"})),
        c.request(reqwest::Method::OPTIONS, s.url("/api/v1/guests"))
            .header("origin", "https://evil.example")
            .header("access-control-request-method", "POST"),
    ] {
        let r = req.send().await.unwrap();
        assert_eq!(r.status(), 403);
        assert!(r.headers().get("access-control-allow-origin").is_none());
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["error"]["code"], "origin_not_allowed");
    }
    // WebSocket: a disallowed Origin is refused at the upgrade; an allowed one is served.
    let ws_req = |origin: &str| {
        let mut req =
            tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(
                format!("ws://{}/ws", s.addr),
            )
            .unwrap();
        req.headers_mut().insert("origin", origin.parse().unwrap());
        req
    };
    match tokio_tungstenite::connect_async(ws_req("https://evil.example")).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 403),
        other => panic!("expected a 403 refusal, got {other:?}"),
    }
    let (mut ws, _) = tokio_tungstenite::connect_async(ws_req(allowed))
        .await
        .unwrap();
    ws.send(Message::text(r#"{"t":"ping"}"#)).await.unwrap();
    let pong = tokio::time::timeout(STEP, ws.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(pong.to_text().unwrap().contains("\"pong\""), "{pong:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_utf8_in_a_text_frame_closes_with_1007() {
    let s = start(test_config()).await;
    let mut tcp = TcpStream::connect(s.addr).await.unwrap();
    tcp.write_all(b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
        .await
        .unwrap();
    // Read the 101 answer.
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        tokio::time::timeout(STEP, tcp.read_exact(&mut b))
            .await
            .unwrap()
            .unwrap();
        head.push(b[0]);
    }
    assert!(head.starts_with(b"HTTP/1.1 101"));
    // A masked text frame (FIN, opcode 1) holding 0xFF 0xFE: not UTF-8.
    let payload = [0xFFu8, 0xFE];
    let mask = [1u8, 2, 3, 4];
    let mut frame = vec![0x81, 0x80 | payload.len() as u8];
    frame.extend_from_slice(&mask);
    frame.extend(payload.iter().enumerate().map(|(i, p)| p ^ mask[i % 4]));
    tcp.write_all(&frame).await.unwrap();
    // The server's close frame: 0x88, length, then the code big-endian.
    let mut close = [0u8; 4];
    tokio::time::timeout(STEP, tcp.read_exact(&mut close))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(close[0], 0x88, "a close frame");
    assert_eq!(u16::from_be_bytes([close[2], close[3]]), 1007);
}

/// Every error answer has the JSON error body with the documented code (`openapi.json`
/// info): 405, 404, 426 `upgrade_required` (with `Upgrade: websocket`) for a plain
/// `GET /ws`, 400 for an upgrade without its key, 415 without a JSON content type,
/// 413 over the 2 MB body limit (with `Connection: close`), 400 `invalid_id` whose message quotes a long id
/// only in part.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_answer_has_the_json_error_body() {
    let s = start(test_config()).await;
    let c = reqwest::Client::new();
    for (req, status, code) in [
        (c.delete(s.url("/api/v1/guests")), 405, "method_not_allowed"),
        (c.post(s.url("/index.html")), 405, "method_not_allowed"),
        (c.get(s.url("/no/such/file.js")), 404, "not_found"),
        // A plain GET of the WebSocket endpoint: 426, naming the protocol.
        (c.get(s.url("/ws")), 426, "upgrade_required"),
        // An upgrade request without its key: 400 naming what is missing.
        (
            c.get(s.url("/ws"))
                .header("connection", "upgrade")
                .header("upgrade", "websocket"),
            400,
            "bad_request",
        ),
        (
            c.post(s.url("/api/v1/guests"))
                .header("content-type", "text/plain")
                .body("x"),
            415,
            "unsupported_media_type",
        ),
        (
            c.post(s.url("/api/v1/guests")).body("{}"),
            415,
            "unsupported_media_type",
        ),
        // Over axum's 2 MB body limit.
        (
            c.post(s.url("/api/v1/guests"))
                .header("content-type", "application/json")
                .body(format!("{{\"name\":\"{}\"}}", "a".repeat(3 << 20))),
            413,
            "too_large",
        ),
        // A 2,000-character id: the message quotes at most 200 characters of it.
        (
            c.get(s.url(&format!("/api/v1/matches/{}/replay", "a".repeat(2_000)))),
            400,
            "invalid_id",
        ),
    ] {
        let r = req.send().await.unwrap();
        assert_eq!(r.status().as_u16(), status);
        if status == 426 {
            assert_eq!(r.headers()["upgrade"], "websocket");
        }
        // A body not read to its end: the server closes the connection and says so,
        // so this pooled client opens a new one for the next request.
        if status == 413 {
            assert_eq!(r.headers()["connection"], "close");
        }
        assert!(r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json"));
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["error"]["code"], code, "{v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty() && m.chars().count() <= 300),
            "{v}"
        );
    }
}

#[tokio::test]
async fn a_dripped_body_is_cut_off_at_the_body_deadline() {
    // One byte every 200 ms never stalls long, but the body is not complete 1 s
    // after the headers: 408, then the connection closes. On Tokio's paused clock.
    let s = start(server::Config {
        body_timeout_ms: 1_000,
        ..test_config()
    })
    .await;
    tokio::time::pause();
    let mut tcp = connect_from(80, s.addr).await;
    tcp.write_all(HALF_BODY.as_bytes()).await.unwrap();
    let sent = Instant::now();
    let (mut rd, mut wr) = tcp.into_split();
    let drip = tokio::spawn(async move {
        for _ in 0..50 {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if wr.write_all(b" ").await.is_err() {
                return;
            }
        }
    });
    let mut got = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), rd.read_to_end(&mut got)).await;
    let took = sent.elapsed();
    drip.abort();
    let _ = read.expect("closed within 5 s");
    let answer = String::from_utf8_lossy(&got);
    assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
    assert!(
        answer
            .to_ascii_lowercase()
            .contains("\r\nconnection: close\r\n"),
        "{answer}"
    );
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_millis(2_000),
        "{took:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upgrade_request_with_a_body_is_refused_at_once() {
    // A WebSocket handshake is a GET without a body; one announcing a body that
    // never comes would otherwise hold the connection after its headers.
    let s = start(test_config()).await;
    let mut tcp = connect_from(85, s.addr).await;
    let req = HALF_UPGRADE.to_string() + "Content-Length: 1000\r\n\r\n";
    tcp.write_all(req.as_bytes()).await.unwrap();
    let t0 = Instant::now();
    let (answer, _) = read_until_closed(tcp, Duration::from_secs(3)).await;
    assert!(t0.elapsed() < Duration::from_secs(1), "{:?}", t0.elapsed());
    assert!(answer.starts_with("HTTP/1.1 400 "), "{answer}");
    let v: Value = serde_json::from_str(answer.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert_eq!(v["error"]["code"], "bad_request");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sockets_relayed_by_a_trusted_proxy_are_capped_per_forwarded_client() {
    // The proxy (127.0.0.90) is exempt from the per-address cap of 2; the clients
    // it names in X-Forwarded-For are not.
    let s = start(server::Config {
        max_connections_per_ip: 2,
        trusted_proxies: vec!["127.0.0.90".parse().unwrap()],
        ..test_config()
    })
    .await;
    let via_proxy = |client: &'static str| {
        let addr = s.addr;
        async move {
            let tcp = connect_from(90, addr).await;
            let mut req =
                tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(
                    format!("ws://{addr}/ws"),
                )
                .unwrap();
            req.headers_mut()
                .insert("x-forwarded-for", client.parse().unwrap());
            tokio_tungstenite::client_async(req, tcp).await
        }
    };
    let a1 = via_proxy("198.51.100.9").await.unwrap();
    let a2 = via_proxy("198.51.100.9").await.unwrap();
    match via_proxy("198.51.100.9").await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 429),
        other => panic!("expected 429, got {other:?}"),
    }
    let b = via_proxy("198.51.100.10").await;
    assert!(b.is_ok(), "another client behind the proxy is served");
    // A closed socket frees its client's share.
    drop(a1);
    let t0 = Instant::now();
    loop {
        if via_proxy("198.51.100.9").await.is_ok() {
            break;
        }
        assert!(t0.elapsed() < STEP, "the share is released");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop((a2, b));
}

/// Issue 37.3: many players behind one address (a carrier's NAT). With a cap of 8
/// connections per address, four players seated in a running match drop and come
/// back from 127.0.0.1; signed in as seat holders they no longer count against the
/// address, so eight more sockets that say nothing are still let in, and the ninth
/// is refused: 429 `rate_limited` with `Retry-After`, naming the limit. (8, not 4:
/// setting the match up also opens HTTP connections for the guests.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seat_holders_do_not_count_against_their_address() {
    let s = start(server::Config {
        max_connections_per_ip: 8,
        header_timeout_ms: 30_000,
        ..test_config()
    })
    .await;
    let (clients, _) = lobby_of_four(&s, false, 4).await;
    let who: Vec<_> = clients
        .iter()
        .map(|c| (c.player_id, c.token.clone()))
        .collect();
    for mut c in clients {
        c.ws.close(None).await.unwrap();
    }
    s.eventually("the old sockets are gone", |st| {
        st.edge().open_connections() == 0
    })
    .await;
    let mut back = Vec::new();
    for (id, token) in &who {
        let (c, active) = s.reconnect(*id, token).await;
        assert_eq!(active.len(), 1, "seated in the running match");
        back.push(c);
    }
    s.eventually("four sockets open", |st| st.edge().open_connections() == 4)
        .await;
    let mut held = Vec::new();
    for i in 0..8 {
        let mut tcp = connect_from(1, s.addr).await;
        tcp.write_all(HALF_HEADERS.as_bytes()).await.unwrap();
        held.push(tcp);
        let n = 5 + i;
        s.eventually("the silent socket is let in", |st| {
            st.edge().open_connections() == n
        })
        .await;
    }
    let ninth = connect_from(1, s.addr).await;
    let (answer, _) = read_until_closed(ninth, Duration::from_secs(2)).await;
    assert!(answer.starts_with("HTTP/1.1 429 "), "{answer}");
    assert!(answer.contains("\r\nretry-after: 1\r\n"), "{answer}");
    let v: Value = serde_json::from_str(answer.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert_eq!(v["error"]["code"], "rate_limited");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("max_connections_per_ip"),
        "{v}"
    );
    for c in &mut back {
        c.assert_open().await;
    }
}
