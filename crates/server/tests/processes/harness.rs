//! A `ludo-server` process and lock-step test players over real sockets.

use futures_util::{SinkExt, StreamExt};
use protocol::{ServerFrame, ServerMsg, Snapshot, TurnResolved, TurnStarted};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use uuid::Uuid;

/// The longest any single wait of these tests may take.
pub(crate) const BOUND: Duration = Duration::from_secs(30);

/// A running `ludo-server` child process (killed when dropped).
pub(crate) struct ServerProc {
    pub child: Child,
    pub addr: SocketAddr,
    /// The process's stderr log file (kept for failure messages).
    pub log: std::path::PathBuf,
}

/// Sends SIGTERM to `child` and waits (bounded: `expect` names what failed when
/// it does not exit in time) for its exit status.
pub(crate) async fn sigterm(child: &mut Child, expect: &str) -> std::process::ExitStatus {
    let pid = child.id().expect("running").to_string();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(status.success());
    tokio::time::timeout(BOUND, child.wait())
        .await
        .expect(expect)
        .unwrap()
}

/// A free 127.0.0.1 port (bound and released; the server binds it right after).
pub(crate) fn free_addr() -> SocketAddr {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap()
}

/// The `ludo-server` binary bound to `addr` on `database_url`, serving `dir` as its
/// web directory, logging at `info`, with no stdin, killed when the handle drops;
/// the caller chooses where its output goes.
pub(crate) fn server_command(
    addr: SocketAddr,
    database_url: &str,
    dir: &std::path::Path,
) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ludo-server"));
    cmd.env("LUDO_BIND", addr.to_string())
        .env("DATABASE_URL", database_url)
        .env("LUDO_WEB_DIR", dir)
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .kill_on_drop(true);
    cmd
}

impl ServerProc {
    /// Starts `ludo-server` on a free port with `database_url` and `env`, and waits
    /// (bounded) until it listens. It does not wait for `/readyz`: see
    /// [`ServerProc::wait_ready`].
    pub(crate) async fn start(
        database_url: &str,
        env: &[(&str, &str)],
        dir: &std::path::Path,
    ) -> ServerProc {
        ServerProc::start_at(free_addr(), database_url, env, dir).await
    }

    /// [`ServerProc::start`] on `addr` (a restarted node keeps its address, so the
    /// clients' server lists stay valid).
    pub(crate) async fn start_at(
        addr: SocketAddr,
        database_url: &str,
        env: &[(&str, &str)],
        dir: &std::path::Path,
    ) -> ServerProc {
        let log = dir.join(format!(
            "server-{}-{}.log",
            addr.port(),
            uuid::Uuid::new_v4().simple()
        ));
        let err = std::fs::File::create(&log).unwrap();
        let mut cmd = server_command(addr, database_url, dir);
        cmd.env("LUDO_BOT_THINK_MS", "0")
            // No dice contributions unless a test sets a window: the seed alone
            // keys the dice (scheme `server_seed`; `contribution.rs` tests the other).
            .env("LUDO_CONTRIBUTION_WINDOW_MS", "0")
            // The server logs to stdout: keep it with stderr for failure messages.
            .stdout(err.try_clone().unwrap())
            .stderr(err);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = cmd.spawn().expect("ludo-server starts");
        let s = ServerProc { child, addr, log };
        let t0 = tokio::time::Instant::now();
        while TcpStream::connect(addr).await.is_err() {
            assert!(
                t0.elapsed() < BOUND,
                "server did not listen: {}",
                s.log_text()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        s
    }

    /// Starts `ludo-server` as [`ServerProc::start_at`] does, for a start expected
    /// to fail: waits (bounded) for the process to exit and returns its status and
    /// output; panics if it ever listens on `addr`.
    pub(crate) async fn refused_start(
        addr: SocketAddr,
        database_url: &str,
        env: &[(&str, &str)],
        dir: &std::path::Path,
    ) -> (std::process::ExitStatus, String) {
        let out = tempfile::NamedTempFile::new_in(dir).unwrap();
        let mut cmd = server_command(addr, database_url, dir);
        cmd.stdout(out.reopen().unwrap())
            .stderr(out.reopen().unwrap());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("ludo-server starts");
        let t0 = tokio::time::Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(
                TcpStream::connect(addr).await.is_err(),
                "the server listens: {}",
                std::fs::read_to_string(out.path()).unwrap_or_default()
            );
            assert!(t0.elapsed() < BOUND, "the server did not exit");
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        (status, std::fs::read_to_string(out.path()).unwrap())
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub(crate) fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// `GET /readyz` status code.
    pub(crate) async fn readyz(&self) -> u16 {
        match reqwest::get(self.url("/readyz")).await {
            Ok(r) => r.status().as_u16(),
            Err(_) => 0,
        }
    }

    /// Waits (bounded) until `/readyz` answers `want`.
    pub(crate) async fn wait_readyz(&self, want: u16) {
        let t0 = tokio::time::Instant::now();
        loop {
            if self.readyz().await == want {
                return;
            }
            assert!(
                t0.elapsed() < BOUND,
                "readyz never answered {want}: {}",
                self.log_text()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub(crate) async fn wait_ready(&self) {
        self.wait_readyz(200).await
    }

    /// `kill -9`: the process gets no chance to clean up.
    pub(crate) async fn kill9(mut self) {
        self.child.start_kill().unwrap();
        tokio::time::timeout(BOUND, self.child.wait())
            .await
            .expect("killed process exits")
            .unwrap();
    }

    /// SIGTERM, then waits (bounded) for a clean exit (status 0).
    pub(crate) async fn terminate(mut self) {
        let exit = sigterm(&mut self.child, "server exits after SIGTERM").await;
        assert!(
            exit.success(),
            "exit after SIGTERM: {exit:?}\n{}",
            self.log_text()
        );
    }

    /// A new guest: (player id, token).
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

    /// The `/metrics` page as text.
    pub(crate) async fn metrics_text(&self) -> String {
        reqwest::get(self.url("/metrics"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    /// The value of the first series `name` in `/metrics`, unlabelled or labelled
    /// (in cluster mode, with the node id), (None: not exported).
    pub(crate) async fn metric(&self, name: &str) -> Option<f64> {
        self.metrics_text().await.lines().find_map(|l| {
            let rest = l.strip_prefix(name)?;
            let value = match rest.strip_prefix('{') {
                Some(labelled) => labelled.split_once("} ")?.1,
                None => rest.strip_prefix(' ')?,
            };
            value.trim().parse().ok()
        })
    }

    /// `GET path` as JSON (status, body).
    pub(crate) async fn get_json(&self, path: &str) -> (u16, Value) {
        let r = reqwest::get(self.url(path)).await.unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }
}

/// One test player: a socket, its token and everything it saw of its match.
pub(crate) struct Player {
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub player_id: Uuid,
    pub token: String,
    /// Every `turn_resolved` seen, by turn number.
    pub resolved: BTreeMap<u32, TurnResolved>,
    /// The last `turn_started` seen.
    pub turn: Option<TurnStarted>,
    /// The highest `seq` seen.
    pub seq: u64,
    /// The `match_ended`'s payload once seen.
    pub ended: Option<protocol::MatchEnded>,
    /// Guardians this seat has brought out so far (to name the next exit).
    pub exited: u8,
}

impl Player {
    /// Connects to `server` and sends `hello`; returns the player and
    /// `welcome.active_matches`.
    pub(crate) async fn connect(
        server: &ServerProc,
        player_id: Uuid,
        token: &str,
    ) -> (Player, Vec<Uuid>) {
        let (ws, _) = tokio::time::timeout(
            BOUND,
            tokio_tungstenite::connect_async(format!("ws://{}/ws", server.addr)),
        )
        .await
        .expect("connects in time")
        .expect("websocket upgrade");
        let mut p = Player::from_socket(ws, player_id, token);
        let active = p.hello().await;
        (p, active)
    }

    /// The player `player_id` on the upgraded socket `ws` (no `hello` sent yet).
    pub(crate) fn from_socket(
        ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
        player_id: Uuid,
        token: &str,
    ) -> Player {
        Player {
            ws,
            player_id,
            token: token.to_string(),
            resolved: BTreeMap::new(),
            turn: None,
            seq: 0,
            ended: None,
            exited: 0,
        }
    }

    /// Sends `hello` with the player's token; returns `welcome.active_matches`.
    pub(crate) async fn hello(&mut self) -> Vec<Uuid> {
        let token = self.token.clone();
        self.send(json!({"t": "hello", "d": {"token": token, "protocol_version": 3, "client": "proc-test"}}))
            .await;
        match self.recv().await.msg {
            ServerMsg::Welcome(w) => w.active_matches,
            other => panic!("expected welcome, got {other:?}"),
        }
    }

    pub(crate) async fn send(&mut self, v: Value) {
        self.ws.send(Message::text(v.to_string())).await.unwrap();
    }

    /// The next frame (pings skipped), recording match messages. Panics on close or
    /// after [`BOUND`].
    pub(crate) async fn recv(&mut self) -> ServerFrame {
        loop {
            let m = tokio::time::timeout(BOUND, self.ws.next())
                .await
                .expect("a frame in time")
                .expect("socket open")
                .expect("readable frame");
            if let Message::Close(c) = &m {
                panic!("the server closed the socket: {c:?}");
            }
            let Message::Text(t) = m else { continue };
            let f = protocol::decode_server(t.as_str()).expect("a valid server frame");
            if let Some(seq) = f.seq {
                assert!(
                    seq > self.seq || matches!(f.msg, ServerMsg::Snapshot(_)),
                    "seq went from {} to {seq} ({:?})",
                    self.seq,
                    f.msg
                );
                self.seq = self.seq.max(seq);
            }
            match &f.msg {
                ServerMsg::TurnResolved(r) => {
                    self.resolved.insert(r.turn_number, r.clone());
                }
                ServerMsg::TurnStarted(t) => self.turn = Some(t.clone()),
                ServerMsg::MatchEnded(e) => self.ended = Some(e.clone()),
                ServerMsg::Snapshot(s) => {
                    self.seq = s.seq;
                    self.turn = s.turn.clone();
                    if let Some(e) = &s.ended {
                        self.ended = Some(e.clone());
                    }
                }
                _ => {}
            }
            return f;
        }
    }

    /// Reads until `pred` holds for a frame; returns it.
    pub(crate) async fn until(&mut self, pred: impl Fn(&ServerMsg) -> bool) -> ServerFrame {
        loop {
            let f = self.recv().await;
            if pred(&f.msg) {
                return f;
            }
        }
    }

    /// Reads until the snapshot the server sends on attach.
    pub(crate) async fn snapshot(&mut self) -> Box<Snapshot> {
        match self
            .until(|m| matches!(m, ServerMsg::Snapshot(_)))
            .await
            .msg
        {
            ServerMsg::Snapshot(s) => s,
            _ => unreachable!(),
        }
    }

    /// A simple legal-looking plan for the current turn: bring out the next
    /// guardian when an exit credit is held (moving it by the first roll), else move
    /// the first guardian out by the first roll, else pass. The server may still
    /// refuse it (then the caller passes).
    pub(crate) fn plan(&self) -> Value {
        let t = self.turn.as_ref().expect("a turn");
        let roll = t.roll_store.first().copied();
        if t.exit_credits > 0 && self.exited < 4 {
            let g = format!("G{}", self.exited + 1);
            return match roll {
                Some(r) => json!({"exits": [g], "moves": {g.clone(): [r]}}),
                None => json!({"exits": [g]}),
            };
        }
        match (self.exited, roll) {
            (1.., Some(r)) => json!({"moves": {"G1": [r]}}),
            _ => json!({}),
        }
    }
}

/// Four players in one lobby (clash, no bots), started by the first; each has read
/// its `match_started`. Returns them in seat order, and the match id.
pub(crate) async fn lobby_of_four(server: &ServerProc) -> (Vec<Player>, Uuid) {
    let mut players = Vec::new();
    for i in 0..4 {
        let (id, token) = server.guest(&format!("P{i}")).await;
        players.push(Player::connect(server, id, &token).await.0);
    }
    players[0]
        .send(json!({"t": "create_lobby", "d": {"mode": "clash", "fill_with_bots": false}}))
        .await;
    let code = match players[0]
        .until(|m| matches!(m, ServerMsg::LobbyState(_)))
        .await
        .msg
    {
        ServerMsg::LobbyState(l) => l.code,
        _ => unreachable!(),
    };
    for p in players.iter_mut().skip(1) {
        p.send(json!({"t": "join_lobby", "id": "join", "d": {"code": code}}))
            .await;
        p.until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "join"))
            .await;
    }
    players[0].send(json!({"t": "start_lobby"})).await;
    let mut seats = Vec::new();
    let mut match_id = Uuid::nil();
    for p in players.iter_mut() {
        match p
            .until(|m| matches!(m, ServerMsg::MatchStarted(_)))
            .await
            .msg
        {
            ServerMsg::MatchStarted(m) => {
                match_id = m.match_id;
                seats.push(m.your_seat.expect("seated").index());
            }
            _ => unreachable!(),
        }
    }
    let mut by_seat: Vec<Option<Player>> = (0..4).map(|_| None).collect();
    for (p, s) in players.into_iter().zip(seats) {
        by_seat[s] = Some(p);
    }
    (by_seat.into_iter().map(Option::unwrap).collect(), match_id)
}

/// Every player reads up to the `turn_started` of turn `n` (or `match_ended`).
async fn all_reach(players: &mut [Player], n: u32) {
    for p in players.iter_mut() {
        while p.ended.is_none() && p.turn.as_ref().is_none_or(|t| t.turn_number < n) {
            p.recv().await;
        }
    }
}

/// Plays in lock-step until turn `until` has started for everyone (or the match
/// ended): the seat to move submits [`Player::plan`] (a pass if refused), and every
/// player reads up to the next `turn_started`. Returns the number of the turn in
/// progress at the end (0 once the match ended).
pub(crate) async fn play_until(players: &mut [Player], match_id: Uuid, until: u32) -> u32 {
    loop {
        let current = players[0].turn.as_ref().map_or(0, |t| t.turn_number);
        all_reach(players, current).await;
        if players.iter().any(|p| p.ended.is_some()) {
            for p in players.iter_mut() {
                while p.ended.is_none() {
                    p.recv().await;
                }
            }
            return 0;
        }
        let t = players[0].turn.clone().expect("a turn");
        if t.turn_number >= until {
            return t.turn_number;
        }
        let mover = &mut players[t.seat.index()];
        let plan = mover.plan();
        mover
            .send(json!({"t": "submit_turn", "id": "s", "d": {"match_id": match_id, "turn_number": t.turn_number, "plan": plan}}))
            .await;
        let reply = mover
            .until(|m| matches!(m, ServerMsg::Ack(_) | ServerMsg::Error(_)))
            .await;
        match reply.msg {
            ServerMsg::Ack(_) => {
                if plan.get("exits").is_some() {
                    mover.exited += 1;
                }
            }
            ServerMsg::Error(e) if e.code == protocol::ErrorCode::MatchOver => {}
            ServerMsg::Error(_) => {
                mover
                    .send(json!({"t": "pass", "id": "p", "d": {"match_id": match_id, "turn_number": t.turn_number}}))
                    .await;
                mover
                    .until(|m| matches!(m, ServerMsg::Ack(_) | ServerMsg::Error(_)))
                    .await;
            }
            _ => unreachable!(),
        }
        all_reach(players, t.turn_number + 1).await;
    }
}

/// The turns any of `players` saw resolved, by turn number (all saw the same).
pub(crate) fn seen_turns(players: &[Player]) -> BTreeMap<u32, TurnResolved> {
    let mut all = BTreeMap::new();
    for p in players {
        for (n, r) in &p.resolved {
            if let Some(prev) = all.insert(*n, r.clone()) {
                assert_eq!(&prev, r, "two players saw turn {n} differently");
            }
        }
    }
    all
}
