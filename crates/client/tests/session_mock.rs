//! The session against a scripted WebSocket server: `hello`/`welcome`, in-order
//! delivery with `seq` gap detection and `resync`, and reconnect with resync.

use client::{ClientError, Endpoint, Guest, Session};
use futures_util::{SinkExt, StreamExt};
use protocol::{ChatLine, ClientFrame, ClientMsg, ErrorCode, ServerMsg, Welcome};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;
use uuid::Uuid;

const MATCH: Uuid = Uuid::from_u128(42);
const PLAYER: Uuid = Uuid::from_u128(1);

type Ws = WebSocketStream<TcpStream>;

async fn recv(ws: &mut Ws) -> ClientFrame {
    loop {
        match ws.next().await.expect("client frame").expect("ws ok") {
            Message::Text(t) => {
                return protocol::decode_client(t.as_bytes()).expect("valid client frame")
            }
            _ => continue,
        }
    }
}

async fn send(ws: &mut Ws, seq: Option<u64>, msg: &ServerMsg) {
    ws.send(Message::text(protocol::encode_server(seq, msg)))
        .await
        .unwrap();
}

fn chat(n: u64) -> ServerMsg {
    ServerMsg::Chat(ChatLine {
        match_id: MATCH,
        seat: None,
        name: "x".into(),
        text: format!("line {n}"),
    })
}

fn text_of(msg: &ServerMsg) -> String {
    match msg {
        ServerMsg::Chat(c) => c.text.clone(),
        m => panic!("unexpected {m:?}"),
    }
}

/// Accepts one socket and answers its `hello` (token "good") with `welcome`.
async fn accept_hello(l: &TcpListener, active: Vec<Uuid>) -> Ws {
    let (tcp, _) = l.accept().await.unwrap();
    let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
    let f = recv(&mut ws).await;
    let ClientMsg::Hello(h) = f.msg else {
        panic!("first frame must be hello, got {:?}", f.msg)
    };
    assert_eq!(h.protocol_version, protocol::PROTOCOL_VERSION);
    if h.token != "good" {
        send(
            &mut ws,
            None,
            &ServerMsg::error(ErrorCode::NotAuthenticated, "unknown token", f.id),
        )
        .await;
        return ws;
    }
    let w = Welcome {
        player_id: PLAYER,
        name: "p".into(),
        server_version: "0".into(),
        protocol_version: 1,
        active_matches: active,
    };
    send(&mut ws, None, &ServerMsg::Welcome(w)).await;
    ws
}

async fn listener() -> (TcpListener, Endpoint) {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let ep = Endpoint::parse(&format!("http://{}", l.local_addr().unwrap())).unwrap();
    (l, ep)
}

fn guest(token: &str) -> Guest {
    Guest {
        player_id: PLAYER,
        token: token.into(),
    }
}

/// A skipped `seq` makes the client send `resync` with the last `seq` it handed out;
/// replayed duplicates are dropped, so the caller sees 1, 2, 3, 4, 5 exactly once.
#[tokio::test]
async fn gap_triggers_resync_and_delivery_stays_in_order() {
    let (l, ep) = listener().await;
    let server = tokio::spawn(async move {
        let mut ws = accept_hello(&l, vec![]).await;
        for n in [1, 2, 4] {
            send(&mut ws, Some(n), &chat(n)).await;
        }
        let f = recv(&mut ws).await;
        let ClientMsg::Resync(r) = f.msg else {
            panic!("expected resync, got {:?}", f.msg)
        };
        assert_eq!((r.match_id, r.last_seq), (MATCH, 2));
        // Seq 5 was already on the wire before the resync was read: it is dropped and
        // comes again in the replay.
        send(&mut ws, Some(5), &chat(5)).await;
        for n in [3, 4, 5] {
            send(&mut ws, Some(n), &chat(n)).await;
        }
        send(&mut ws, Some(5), &chat(5)).await; // duplicate
        send(&mut ws, Some(6), &chat(6)).await;
        ws
    });
    let mut s = Session::connect(&ep, guest("good"), "test").await.unwrap();
    assert_eq!(s.player_id(), PLAYER);
    let mut got = Vec::new();
    for _ in 0..6 {
        got.push(text_of(&s.next_frame().await.unwrap().msg));
    }
    assert_eq!(
        got,
        ["line 1", "line 2", "line 3", "line 4", "line 5", "line 6"]
    );
    assert_eq!(s.gaps_detected(), 1);
    assert_eq!(s.last_seq(MATCH), 6);
    server.await.unwrap();
}

/// Reconnect opens a new socket, says `hello` with the same token and resyncs every
/// followed match from its last `seq`.
#[tokio::test]
async fn reconnect_says_hello_and_resyncs() {
    let (l, ep) = listener().await;
    let server = tokio::spawn(async move {
        let mut ws = accept_hello(&l, vec![MATCH]).await;
        for n in 1..=3 {
            send(&mut ws, Some(n), &chat(n)).await;
        }
        ws.close(None).await.unwrap();
        let mut ws = accept_hello(&l, vec![MATCH]).await;
        let f = recv(&mut ws).await;
        let ClientMsg::Resync(r) = f.msg else {
            panic!("expected resync, got {:?}", f.msg)
        };
        assert_eq!((r.match_id, r.last_seq), (MATCH, 3));
        send(&mut ws, Some(4), &chat(4)).await;
        ws
    });
    let mut s = Session::connect(&ep, guest("good"), "test").await.unwrap();
    for n in 1..=3 {
        assert_eq!(
            text_of(&s.next_frame().await.unwrap().msg),
            format!("line {n}")
        );
    }
    assert!(matches!(s.next_frame().await, Err(ClientError::Closed)));
    s.reconnect().await.unwrap();
    assert_eq!(text_of(&s.next_frame().await.unwrap().msg), "line 4");
    server.await.unwrap();
}

/// A refused `hello` is a typed server error with the server's code.
#[tokio::test]
async fn bad_token_is_not_authenticated() {
    let (l, ep) = listener().await;
    let server = tokio::spawn(async move { accept_hello(&l, vec![]).await });
    let err = Session::connect(&ep, guest("bad"), "test")
        .await
        .expect_err("refused");
    assert_eq!(err.code(), Some(ErrorCode::NotAuthenticated), "{err}");
    server.await.unwrap();
}
