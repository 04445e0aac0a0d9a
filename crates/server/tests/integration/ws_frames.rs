//! The WebSocket layer's edges (`src/ws/socket.rs`): the close handshake from the
//! client's side, a half-close, a ping flood, and upgrade keys that are not 16
//! bytes of base64 (RFC 6455 §4.2.1, §5.5).

use crate::common::*;
use futures_util::{SinkExt, StreamExt};
use protocol::{ErrorCode, ServerMsg};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::{Bytes, Message};
use tokio_tungstenite::MaybeTlsStream;

/// RFC 6455 §5.5.1: a client's close frame gets one close frame back (with the
/// client's code), then the server closes the connection.
#[tokio::test]
async fn a_clients_close_gets_one_close_frame_back() {
    let s = start(test_config()).await;
    let mut c = s.player("Closer").await;
    c.ws.send(Message::Close(Some(CloseFrame {
        code: CloseCode::Normal,
        reason: "client bye".into(),
    })))
    .await
    .unwrap();
    let mut closes = Vec::new();
    loop {
        match tokio::time::timeout(STEP, c.ws.next())
            .await
            .expect("the server answers in time")
        {
            Some(Ok(Message::Close(f))) => closes.push(f.map(|f| f.code)),
            Some(Ok(_)) => {}
            Some(Err(_)) | None => break,
        }
    }
    assert_eq!(
        closes,
        vec![Some(CloseCode::Normal)],
        "exactly one close frame"
    );
}

/// A client that half-closes its socket without a close frame (TCP FIN) ends the
/// connection normally: the server's close frame says 1000, not a protocol error.
#[tokio::test]
async fn a_half_close_without_a_close_frame_is_a_normal_end() {
    let s = start(test_config()).await;
    let mut c = s.player("Half").await;
    let MaybeTlsStream::Plain(tcp) = c.ws.get_mut() else {
        panic!("a plain TCP client");
    };
    tcp.shutdown().await.unwrap();
    assert_eq!(c.expect_close().await, Some(CloseCode::Normal));
}

/// A ping is a message like any other for the per-connection budget (each costs a
/// pong, which tungstenite queues as it reads the ping): of 2,000 pings sent without
/// reading, the server reads the burst (20 by default) and `--abuse-strikes` (40)
/// more, so at most 60 pongs leave (tungstenite answers as it reads; a pong still
/// pending when a newer ping arrives is replaced by the newer one), the 39 over
/// budget before the last get `rate_limited`, and it closes with 1008 — all of it delivered although the
/// client's unread pings were still arriving when the server closed.
#[tokio::test]
async fn a_ping_flood_is_rate_limited_then_closed_with_1008() {
    let s = start(test_config()).await;
    let mut c = s.player("Pinger").await;
    // 125-byte payloads (the most a control frame holds): 250 KB in all, so the
    // server closes with unread pings in its socket.
    for i in 0..2_000u32 {
        let mut payload = vec![0u8; 125];
        payload[..4].copy_from_slice(&i.to_be_bytes());
        if c.ws
            .feed(Message::Ping(Bytes::from(payload)))
            .await
            .is_err()
        {
            break;
        }
    }
    let _ = c.ws.flush().await;
    let (mut pongs, mut limited, mut close) = (0, 0, None);
    loop {
        match tokio::time::timeout(STEP, c.ws.next())
            .await
            .expect("the server answers in time")
        {
            Some(Ok(Message::Pong(_))) => pongs += 1,
            Some(Ok(Message::Text(t))) => {
                if let ServerMsg::Error(e) = protocol::decode_server(t.as_str()).unwrap().msg {
                    assert_eq!(e.code, ErrorCode::RateLimited);
                    limited += 1;
                }
            }
            Some(Ok(Message::Close(f))) => {
                close = f.map(|f| (f.code, f.reason.to_string()));
                break;
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => panic!("the connection failed before its close frame: {e}"),
            None => break,
        }
    }
    assert!(
        (20..=60).contains(&pongs),
        "{pongs} pongs: the budget bounds them"
    );
    assert_eq!(limited, 39, "--abuse-strikes 40: 39 errors, then the close");
    assert_eq!(
        close,
        Some((CloseCode::Policy, "rate limit exceeded".to_string()))
    );
}

/// Unsolicited pongs are charged like pings (issue 37): of 2,000 pongs carrying
/// 8-byte numbers (as if answering lag probes never sent), the server reads the
/// burst (20) and 40 more over the budget, answering 39 of them `rate_limited`, then
/// closes with 1008 — a pong flood no longer runs free on the event loop.
#[tokio::test]
async fn an_unsolicited_pong_flood_is_rate_limited_then_closed_with_1008() {
    let s = start(test_config()).await;
    let mut c = s.player("Ponger").await;
    for i in 0..2_000u64 {
        if c.ws
            .feed(Message::Pong(Bytes::copy_from_slice(
                &(u64::MAX - i).to_be_bytes(),
            )))
            .await
            .is_err()
        {
            break;
        }
    }
    let _ = c.ws.flush().await;
    let (mut limited, mut close) = (0, None);
    loop {
        match tokio::time::timeout(STEP, c.ws.next())
            .await
            .expect("the server answers in time")
        {
            Some(Ok(Message::Text(t))) => {
                if let ServerMsg::Error(e) = protocol::decode_server(t.as_str()).unwrap().msg {
                    assert_eq!(e.code, ErrorCode::RateLimited);
                    limited += 1;
                }
            }
            Some(Ok(Message::Close(f))) => {
                close = f.map(|f| (f.code, f.reason.to_string()));
                break;
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => panic!("the connection failed before its close frame: {e}"),
            None => break,
        }
    }
    assert_eq!(limited, 39, "--abuse-strikes 40: 39 errors, then the close");
    assert_eq!(
        close,
        Some((CloseCode::Policy, "rate limit exceeded".to_string()))
    );
}

/// The raw answer (status line and body) to an upgrade request with `key`.
async fn upgrade_with_key(s: &TestServer, key: &str) -> String {
    let mut tcp = TcpStream::connect(s.addr).await.unwrap();
    let req = format!(
        "GET /ws HTTP/1.1\r\nHost: {}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {key}\r\n\r\n",
        s.addr
    );
    tcp.write_all(req.as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 4096];
    let n = tokio::time::timeout(STEP, tcp.read(&mut buf))
        .await
        .expect("an answer in time")
        .unwrap();
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

/// RFC 6455 §4.2.1: `Sec-WebSocket-Key` is 16 bytes in base64; anything else is
/// refused with 400 and the JSON error body, and a good key is switched.
#[tokio::test]
async fn an_upgrade_key_that_is_not_16_bytes_of_base64_is_refused() {
    let s = start(test_config()).await;
    for bad in ["", "not-base64!!", "c2hvcnQ="] {
        let answer = upgrade_with_key(&s, bad).await;
        assert!(answer.starts_with("HTTP/1.1 400"), "{bad:?}: {answer}");
        assert!(
            answer.contains(r#""code":"bad_request""#),
            "{bad:?}: {answer}"
        );
    }
    let good = upgrade_with_key(&s, "dGhlIHNhbXBsZSBub25jZQ==").await;
    assert!(good.starts_with("HTTP/1.1 101"), "{good}");
    assert!(good.contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), "{good}");
}
