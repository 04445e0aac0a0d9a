//! Test harness: the real server (`server::run`) on 127.0.0.1:0 with an SQLite
//! temp-file store and short clocks, driven by tokio-tungstenite clients.

use engine::Seat;
use futures_util::{SinkExt, StreamExt};
use protocol::{ErrorCode, ErrorMsg, ServerFrame, ServerMsg};
use serde_json::{json, Value};
use server::{AppState, Config};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use uuid::Uuid;

/// How long a test waits for any one expected frame.
pub(crate) const STEP: Duration = Duration::from_secs(10);

pub(crate) struct TestServer {
    pub addr: SocketAddr,
    pub state: AppState,
    pub store: store::Store,
    /// The SQLite store's URL (`sqlite://…`), for tools run against it.
    pub db_url: String,
    handle: Option<JoinHandle<std::io::Result<()>>>,
    _dir: tempfile::TempDir,
}

/// Test defaults: bots move at once, long clocks unless a test shortens them; no
/// dice contributions (window 0: the seed alone keys the dice, the first
/// `turn_started` is seq 2; `contribution.rs` tests the contributed scheme).
pub(crate) fn test_config() -> Config {
    Config {
        bot_think_ms: 0,
        contribution_window_ms: 0,
        bot_fill_seconds: 60,
        shutdown_grace_seconds: 5,
        ..Config::default()
    }
}

pub(crate) async fn start(config: Config) -> TestServer {
    start_with_clock(config, server::Clock::system()).await
}

/// [`start`] with the clock the rooms read (a [`server::Clock::manual`] clock
/// makes turn timers and the match clock move only when the test moves it).
pub(crate) async fn start_with_clock(config: Config, clock: server::Clock) -> TestServer {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("test.db").display());
    let store = store::Store::connect(Some(&url)).await.unwrap();
    let writer = store::spawn_writer(store.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = AppState::with_clock(config, store.clone(), writer, clock);
    let handle = tokio::spawn(server::run(listener, state.clone(), std::future::pending()));
    let s = TestServer {
        addr,
        state,
        store,
        db_url: url,
        handle: Some(handle),
        _dir: dir,
    };
    // Serving starts once the store is migrated: a test that pauses Tokio's clock
    // right after this must not let the start-up wait run out meanwhile.
    s.eventually("the store is ready", |st| st.store_ready())
        .await;
    s
}

impl TestServer {
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// `POST /api/v1/guests`: (player id, token).
    pub(crate) async fn guest(&self, name: &str) -> (Uuid, String) {
        let r = reqwest::Client::new()
            .post(self.url("/api/v1/guests"))
            .json(&json!({ "name": name }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        let v: Value = r.json().await.unwrap();
        (
            v["player_id"].as_str().unwrap().parse().unwrap(),
            v["token"].as_str().unwrap().to_string(),
        )
    }

    /// A raw, unauthenticated socket.
    pub(crate) async fn connect(&self) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", self.addr))
            .await
            .unwrap();
        Client {
            ws,
            player_id: Uuid::nil(),
            token: String::new(),
            name: String::new(),
        }
    }

    /// A new guest, connected and welcomed.
    pub(crate) async fn player(&self, name: &str) -> Client {
        let (player_id, token) = self.guest(name).await;
        let mut c = self.connect().await;
        c.player_id = player_id;
        c.token = token;
        c.name = name.to_string();
        c.hello().await;
        c
    }

    /// The same guest on a new socket (reconnect); returns the welcome's active matches.
    pub(crate) async fn reconnect(&self, player_id: Uuid, token: &str) -> (Client, Vec<Uuid>) {
        let mut c = self.connect().await;
        c.player_id = player_id;
        c.token = token.to_string();
        let active = c.hello().await;
        (c, active)
    }

    /// Cancels the server and waits for `run` to return.
    pub(crate) async fn stop(&mut self) -> std::io::Result<()> {
        self.state.shutdown_token().cancel();
        let h = self.handle.take().expect("running");
        tokio::time::timeout(Duration::from_secs(15), h)
            .await
            .expect("run returns")
            .unwrap()
    }

    /// Waits until `cond` holds (polling), failing after `STEP`.
    pub(crate) async fn eventually(&self, what: &str, cond: impl Fn(&AppState) -> bool) {
        let t0 = tokio::time::Instant::now();
        while !cond(&self.state) {
            assert!(t0.elapsed() < STEP, "timed out waiting for: {what}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

pub(crate) struct Client {
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub player_id: Uuid,
    pub token: String,
    pub name: String,
}

impl Client {
    pub(crate) async fn send(&mut self, v: Value) {
        self.ws.send(Message::text(v.to_string())).await.unwrap();
    }

    pub(crate) async fn send_text(&mut self, s: String) {
        self.ws.send(Message::text(s)).await.unwrap();
    }

    /// Sends `hello`; returns `welcome.active_matches`.
    pub(crate) async fn hello(&mut self) -> Vec<Uuid> {
        let token = self.token.clone();
        self.send(
            json!({"t": "hello", "d": {"token": token, "protocol_version": 3, "client": "test"}}),
        )
        .await;
        match self.recv().await.msg {
            ServerMsg::Welcome(w) => {
                assert_eq!(w.player_id, self.player_id);
                assert_eq!(w.protocol_version, 3);
                w.active_matches
            }
            other => panic!("expected welcome, got {other:?}"),
        }
    }

    /// The next server frame (ping/pong frames skipped). Panics on close or timeout.
    pub(crate) async fn recv(&mut self) -> ServerFrame {
        loop {
            let m = tokio::time::timeout(STEP, self.ws.next())
                .await
                .expect("a frame within the step timeout")
                .expect("socket open")
                .expect("readable frame");
            match m {
                Message::Text(t) => {
                    return protocol::decode_server(t.as_str()).expect("a valid server frame")
                }
                Message::Ping(_) | Message::Pong(_) => continue,
                other => panic!("unexpected frame {other:?}"),
            }
        }
    }

    /// Frames until one matches `pred` (the ones before are returned too).
    pub(crate) async fn recv_until(
        &mut self,
        pred: impl Fn(&ServerMsg) -> bool,
    ) -> (ServerFrame, Vec<ServerFrame>) {
        let mut skipped = Vec::new();
        loop {
            let f = self.recv().await;
            if pred(&f.msg) {
                return (f, skipped);
            }
            skipped.push(f);
        }
    }

    /// The next frame must be an error with `code`.
    pub(crate) async fn expect_error(&mut self, code: ErrorCode) -> ErrorMsg {
        match self.recv().await.msg {
            ServerMsg::Error(e) => {
                assert_eq!(e.code, code, "error message: {}", e.message);
                e
            }
            other => panic!("expected error {code:?}, got {other:?}"),
        }
    }

    /// No message arrives for the whole of `d` and the socket stays open: keep-alive
    /// pings and pongs are skipped without ending the wait; a message, a close, a read
    /// error or the end of the stream within `d` fails the test.
    pub(crate) async fn expect_silence(&mut self, d: Duration) {
        let until = tokio::time::Instant::now() + d;
        loop {
            match tokio::time::timeout_at(until, self.ws.next()).await {
                Err(_) => return,
                Ok(Some(Ok(Message::Ping(_) | Message::Pong(_)))) => continue,
                Ok(Some(Ok(m))) => panic!("expected nothing, got {m:?}"),
                Ok(Some(Err(e))) => panic!("expected an open, silent socket; read error {e}"),
                Ok(None) => panic!("expected an open, silent socket; the stream ended"),
            }
        }
    }

    /// The socket is still usable: `ping` → `pong`.
    pub(crate) async fn assert_open(&mut self) {
        self.send(json!({"t": "ping"})).await;
        let (_, _) = self.recv_until(|m| matches!(m, ServerMsg::Pong)).await;
    }

    /// Reads until the server closes; returns the close code.
    pub(crate) async fn expect_close(&mut self) -> Option<CloseCode> {
        loop {
            match tokio::time::timeout(STEP, self.ws.next())
                .await
                .expect("closed within the step timeout")
            {
                Some(Ok(Message::Close(f))) => return f.map(|f| f.code),
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return None,
            }
        }
    }
}

/// The `match_started` payload's fields a test needs, and the whole message.
pub(crate) struct Started {
    pub match_id: Uuid,
    pub your_seat: Option<Seat>,
    pub seats: Vec<protocol::SeatInfo>,
    pub seq: u64,
    pub msg: protocol::MatchStarted,
}

pub(crate) async fn expect_started(c: &mut Client) -> Started {
    let (f, _) = c
        .recv_until(|m| matches!(m, ServerMsg::MatchStarted(_)))
        .await;
    match f.msg {
        ServerMsg::MatchStarted(m) => Started {
            match_id: m.match_id,
            your_seat: m.your_seat,
            seats: m.seats.clone(),
            seq: f.seq.unwrap(),
            msg: m,
        },
        _ => unreachable!(),
    }
}

/// Start of the manual clocks of these tests (Unix ms).
pub(crate) const T0: u64 = 1_800_000_000_000;

/// [`start`] on a [`server::Clock::manual`] clock standing at [`T0`]: turn
/// timers, the match clock and the abandon timer move only when the test moves it.
pub(crate) async fn start_manual(config: Config) -> (TestServer, server::Clock) {
    let clock = server::Clock::manual(T0);
    (start_with_clock(config, clock.clone()).await, clock)
}

/// The room of `match_id` has sent `c` nothing after `seq`: asks it (`resync` from
/// `seq - 1`) to replay frame `seq` and reads that replay as the very next frame. A
/// room that had already queued a later frame for `c` (a timer that fired early)
/// fails this, with no wall-clock wait.
pub(crate) async fn expect_room_at(c: &mut Client, match_id: Uuid, seq: u64) {
    c.send(json!({"t": "resync", "d": {"match_id": match_id, "last_seq": seq - 1}}))
        .await;
    let f = c.recv().await;
    assert_eq!(f.seq, Some(seq), "the room sent nothing after {seq}: {f:?}");
}

/// The index (in lobby order) of the client seated at `seat`.
pub(crate) fn index_of(started: &[Started], seat: Seat) -> usize {
    started
        .iter()
        .position(|st| st.your_seat == Some(seat))
        .expect("a client has that seat")
}

/// The first `turns` turns (green, red, blue, yellow, green …) are passed, each by its
/// seat's client once it has read that turn's `turn_started`.
pub(crate) async fn pass_first_turns(
    clients: &mut [Client],
    started: &[Started],
    match_id: Uuid,
    turns: u32,
) {
    for turn in 1..=turns {
        let c = &mut clients[index_of(started, Seat::from_index((turn as usize - 1) % 4))];
        c.recv_until(|m| matches!(m, ServerMsg::TurnStarted(t) if t.turn_number == turn))
            .await;
        c.send(json!({"t": "pass", "d": {"match_id": match_id, "turn_number": turn}}))
            .await;
    }
}

/// Reads until the next `turn_resolved`; returns its payload.
pub(crate) async fn next_resolved(c: &mut Client) -> protocol::TurnResolved {
    let (f, _) = c
        .recv_until(|m| matches!(m, ServerMsg::TurnResolved(_)))
        .await;
    match f.msg {
        ServerMsg::TurnResolved(r) => r,
        _ => unreachable!(),
    }
}

/// Waits for the next `turn_started`; returns (seat, turn number, seq).
pub(crate) async fn next_turn(c: &mut Client) -> (Seat, u32, u64) {
    let (f, _) = c
        .recv_until(|m| matches!(m, ServerMsg::TurnStarted(_)))
        .await;
    match f.msg {
        ServerMsg::TurnStarted(t) => (t.seat, t.turn_number, f.seq.unwrap()),
        _ => unreachable!(),
    }
}

/// Four fresh players in one lobby (no bots); returns them with the match info of
/// each, started by the first (the host).
pub(crate) async fn lobby_of_four(
    s: &TestServer,
    fill_with_bots: bool,
    humans: usize,
) -> (Vec<Client>, Vec<Started>) {
    let mut clients = Vec::new();
    for i in 0..humans {
        clients.push(s.player(&format!("P{i}")).await);
    }
    clients[0].send(json!({"t": "create_lobby", "d": {"mode": "journey", "fill_with_bots": fill_with_bots}})).await;
    let code = match clients[0].recv().await.msg {
        ServerMsg::LobbyState(l) => l.code,
        other => panic!("expected lobby_state, got {other:?}"),
    };
    for c in clients.iter_mut().skip(1) {
        c.send(json!({"t": "join_lobby", "id": "join", "d": {"code": code}}))
            .await;
        // Wait until the join is done, so the host cannot start before it.
        c.recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "join"))
            .await;
    }
    clients[0].send(json!({"t": "start_lobby"})).await;
    let mut started = Vec::new();
    for c in clients.iter_mut() {
        started.push(expect_started(c).await);
    }
    (clients, started)
}
