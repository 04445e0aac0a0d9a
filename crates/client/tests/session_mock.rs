//! The session against a scripted WebSocket server: `hello`/`welcome`, in-order
//! delivery with `seq` gap detection and `resync`, and reconnect (`hello` with the
//! last `seq` per match).

use client::{ClientError, Endpoint, Guest, Session};
use futures_util::{SinkExt, StreamExt};
use protocol::{ChatLine, ClientFrame, ClientMsg, ErrorCode, ServerMsg, Welcome};
use std::collections::BTreeMap;
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;
use uuid::Uuid;

const MATCH: Uuid = Uuid::from_u128(42);
/// A match the session watches (not in `welcome.active_matches`).
const WATCHED: Uuid = Uuid::from_u128(43);
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
    chat_in(MATCH, n)
}

fn chat_in(match_id: Uuid, n: u64) -> ServerMsg {
    ServerMsg::Chat(ChatLine {
        match_id,
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
    accept_hello_seen(l, active).await.0
}

/// [`accept_hello`], also returning the `hello`'s `last_seq`.
async fn accept_hello_seen(l: &TcpListener, active: Vec<Uuid>) -> (Ws, BTreeMap<Uuid, u64>) {
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
        return (ws, h.last_seq);
    }
    let w = Welcome {
        player_id: PLAYER,
        name: "p".into(),
        server_version: "0".into(),
        protocol_version: protocol::PROTOCOL_VERSION,
        active_matches: active,
    };
    send(&mut ws, None, &ServerMsg::Welcome(w)).await;
    (ws, h.last_seq)
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

/// Reconnect opens a new socket and says `hello` with the same token and the last
/// `seq` of every followed match: the server replays the running match from there,
/// so only the watched match (not in `active_matches`) is resynced.
#[tokio::test]
async fn reconnect_says_hello_with_the_last_seqs() {
    let (l, ep) = listener().await;
    let server = tokio::spawn(async move {
        let (mut ws, first) = accept_hello_seen(&l, vec![MATCH]).await;
        assert!(first.is_empty(), "a first hello has no last_seq");
        for n in 1..=3 {
            send(&mut ws, Some(n), &chat(n)).await;
        }
        for n in 1..=2 {
            send(&mut ws, Some(n), &chat_in(WATCHED, n)).await;
        }
        ws.close(None).await.unwrap();
        let (mut ws, last_seq) = accept_hello_seen(&l, vec![MATCH]).await;
        assert_eq!(last_seq, BTreeMap::from([(MATCH, 3), (WATCHED, 2)]));
        send(&mut ws, Some(4), &chat(4)).await;
        // Everything the client sends up to its ping: one resync, of the watched match.
        let mut sent = Vec::new();
        loop {
            let f = recv(&mut ws).await;
            if matches!(f.msg, ClientMsg::Ping) {
                break;
            }
            sent.push(f.msg);
        }
        assert_eq!(
            sent,
            vec![ClientMsg::Resync(protocol::Resync {
                match_id: WATCHED,
                last_seq: 2
            })]
        );
        send(&mut ws, None, &ServerMsg::Pong).await;
        ws
    });
    let mut s = Session::connect(&ep, guest("good"), "test").await.unwrap();
    for n in 1..=3 {
        assert_eq!(
            text_of(&s.next_frame().await.unwrap().msg),
            format!("line {n}")
        );
    }
    for n in 1..=2 {
        assert_eq!(
            text_of(&s.next_frame().await.unwrap().msg),
            format!("line {n}")
        );
    }
    assert!(matches!(s.next_frame().await, Err(ClientError::Closed)));
    s.reconnect().await.unwrap();
    s.ping().await.unwrap();
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
