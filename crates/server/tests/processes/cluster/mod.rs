//! Cluster mode: three `ludo-server` nodes on one PostgreSQL database and the NATS
//! server at `LUDO_TEST_NATS_URL` (default `nats://127.0.0.1:4222`; the tests fail
//! when it is unreachable). Each test has its own database and NATS subject prefix.
//!
//! * `kill -9` of the node that owns a running match: another node claims it once
//!   the lease expires and resumes it; the players reconnect there and play it to
//!   `match_ended`; the replay has every turn they saw and verifies.
//! * SIGSTOP of the owner until another node has taken the match, a plan sent to the
//!   stopped owner, SIGCONT: the old owner writes nothing more for the match
//!   (fencing: no row for that turn), its socket is closed without an answer, and
//!   the match goes on on the new owner from what the players saw.
//! * SIGTERM of the owner: it hands the match over at once (well before its lease
//!   would expire).
//!
//! The tests, by concern: `failover` (the owner killed, stopped or terminated;
//! reconnects inside the lease; rolling restart), `faults` (NATS down, a duplicate
//! node id, a database blip), `lobbies`, `queue` (the cluster-wide queue and bot
//! fill), `sessions` (sign-out, replaced sockets, remote closes across nodes) and
//! `traffic` (NATS hops and fan-out, load placement, live lists). This file holds
//! what they share: starting a cluster, lease owners, turn rows, reconnects and
//! rejoins, lobby and queue steps.
//!
//! Leases are 3 s here (renewed every second): with shorter ones a node starved of
//! CPU by parallel tests can miss a renewal, and the match then moves once more
//! (correctly: its sockets are closed as moved), which these scripted players do
//! not expect.

mod failover;
mod faults;
mod handover;
mod lobbies;
mod queue;
mod sessions;
mod traffic;

use crate::durable::check_replay;
use crate::harness::*;
use protocol::ServerMsg;
use serde_json::json;
use std::time::Duration;
use tokio::time::Instant;
use uuid::Uuid;

/// Match clock of these tests, seconds.
const MATCH_SECONDS: &str = "12";

fn nats_url() -> String {
    std::env::var("LUDO_TEST_NATS_URL").unwrap_or_else(|_| "nats://127.0.0.1:4222".into())
}

/// Panics (the test fails) when the NATS server does not accept a connection.
async fn require_nats() {
    let url = nats_url();
    let authority = url.trim_start_matches("nats://").to_string();
    let ok = tokio::time::timeout(
        Duration::from_secs(5),
        tokio::net::TcpStream::connect(authority.as_str()),
    )
    .await;
    assert!(
        matches!(ok, Ok(Ok(_))),
        "NATS is required for the cluster tests ({url}, LUDO_TEST_NATS_URL) and is unreachable"
    );
}

/// A node of the test cluster.
struct Node {
    id: String,
    proc: ServerProc,
}

/// How the nodes of one test cluster are started (same database, prefix, lease).
#[derive(Clone)]
struct Spec {
    db: String,
    prefix: String,
    lease_ms: u64,
    extra: Vec<(&'static str, &'static str)>,
    /// The NATS server of the nodes (default: [`nats_url`]).
    nats: Option<String>,
}

impl Spec {
    fn new(db: &str, lease_ms: u64) -> Spec {
        Spec {
            db: db.to_string(),
            prefix: format!("t{}", Uuid::new_v4().simple()),
            lease_ms,
            extra: vec![
                ("LUDO_MATCH_SECONDS", MATCH_SECONDS),
                ("LUDO_TURN_SECONDS", "30"),
            ],
            nats: None,
        }
    }

    /// Starts node `id` (not waiting for readiness).
    async fn start(&self, id: &str, dir: &std::path::Path) -> Node {
        self.start_at(id, free_addr(), dir).await
    }

    /// The environment of node `id`.
    fn env(&self, id: &str) -> Vec<(String, String)> {
        let mut env = vec![
            (
                "LUDO_NATS_URL".to_string(),
                self.nats.clone().unwrap_or_else(nats_url),
            ),
            ("LUDO_NATS_PREFIX".into(), self.prefix.clone()),
            ("LUDO_NODE_ID".into(), id.to_string()),
            ("LUDO_LEASE_MS".into(), self.lease_ms.to_string()),
        ];
        env.extend(
            self.extra
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        env
    }

    /// Starts node `id` on `addr` (not waiting for readiness).
    async fn start_at(&self, id: &str, addr: std::net::SocketAddr, dir: &std::path::Path) -> Node {
        let env = self.env(id);
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        Node {
            id: id.to_string(),
            proc: ServerProc::start_at(addr, &self.db, &env, dir).await,
        }
    }

    /// Starts node `id` expecting it to refuse: its exit status and output.
    async fn refused(&self, id: &str, dir: &std::path::Path) -> (std::process::ExitStatus, String) {
        let env = self.env(id);
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        ServerProc::refused_start(free_addr(), &self.db, &env, dir).await
    }
}

/// Starts `n` nodes (`n1`…) of `spec` and waits until each is ready.
async fn cluster_of(spec: &Spec, n: usize, dir: &std::path::Path) -> Vec<Node> {
    require_nats().await;
    let mut nodes = Vec::new();
    for i in 1..=n {
        nodes.push(spec.start(&format!("n{i}"), dir).await);
    }
    for n in &nodes {
        n.proc.wait_ready().await;
    }
    nodes
}

/// Starts `n` nodes (`n1`…) on `db` with lease `lease_ms` and a fresh subject prefix,
/// and waits until each is ready.
async fn cluster(db: &str, n: usize, lease_ms: u64, dir: &std::path::Path) -> Vec<Node> {
    cluster_of(&Spec::new(db, lease_ms), n, dir).await
}

/// The node id owning `match_id`'s lease and its fencing token.
async fn owner(pool: &sqlx::PgPool, match_id: Uuid) -> Option<(String, i64)> {
    sqlx::query_as("SELECT node_id, fencing_token FROM room_leases WHERE match_id = $1")
        .bind(match_id)
        .fetch_optional(pool)
        .await
        .unwrap()
}

/// Waits (bounded) until a node other than `old` owns `match_id`; returns it.
async fn new_owner(pool: &sqlx::PgPool, match_id: Uuid, old: &str) -> (String, i64) {
    let t0 = Instant::now();
    loop {
        if let Some((node, token)) = owner(pool, match_id).await {
            if node != old {
                return (node, token);
            }
        }
        assert!(t0.elapsed() < BOUND, "no node took the match over");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn turn_rows(pool: &sqlx::PgPool, match_id: Uuid) -> Vec<i32> {
    sqlx::query_scalar("SELECT turn_number FROM turns WHERE match_id = $1 ORDER BY turn_number")
        .bind(match_id)
        .fetch_all(pool)
        .await
        .unwrap()
}

/// The players reconnect to `node` with their tokens: the match is listed, the
/// snapshot has the `seq` they last saw; they keep what they saw.
async fn reconnect_all(node: &ServerProc, players: Vec<Player>, match_id: Uuid) -> Vec<Player> {
    let seq = players.iter().map(|p| p.seq).max().unwrap();
    let mut out = Vec::new();
    for old in players {
        // The lease names the new owner as soon as its claim commits; the room is
        // resumed right after (a read of the turn log): until then the client gets
        // no snapshot and tries again.
        let p = rejoin(node, &old, match_id).await;
        assert_eq!(
            p.seq, seq,
            "the new owner goes on from what the players saw"
        );
        out.push(p);
    }
    out
}

async fn with_db(
    prefix: &str,
    f: impl FnOnce(String) -> futures_util::future::BoxFuture<'static, ()>,
) {
    let db = store::testing::TempPg::create(prefix).await;
    let outcome = store::testing::run_catching(f(db.url.clone())).await;
    db.drop_db().await;
    if let Err(p) = outcome {
        std::panic::resume_unwind(p);
    }
}

fn signal(proc: &ServerProc, sig: &str) {
    let pid = proc.child.id().expect("running").to_string();
    let status = std::process::Command::new("kill")
        .args([sig, pid.as_str()])
        .status()
        .unwrap();
    assert!(status.success(), "kill {sig} {pid}");
}

/// `player` signs in on `node` again: until that node lists the match and the
/// match's owner sends the snapshot (a just-resumed match may not serve yet), it
/// tries again. Keeps what the player saw.
async fn rejoin(node: &ServerProc, old: &Player, match_id: Uuid) -> Player {
    let t0 = Instant::now();
    loop {
        let (mut p, active) = Player::connect(node, old.player_id, &old.token).await;
        if active == vec![match_id] {
            let snap = tokio::time::timeout(Duration::from_secs(2), p.snapshot()).await;
            if snap.is_ok() {
                p.resolved = old.resolved.clone();
                p.exited = old.exited;
                return p;
            }
        }
        assert!(
            t0.elapsed() < BOUND,
            "{} never rejoined the match",
            old.player_id
        );
        drop(p);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// After a takeover, `p`'s socket (which followed the match on the old owner) gets
/// the new owner's snapshot first (true: it stays, its `seq` and turn taken from the
/// snapshot) or is closed as moved (false); nothing else: no live frame before the
/// snapshot, no other close, no silence of `silence` or longer.
async fn snapshot_or_moved(p: &mut Player, silence: Duration) -> bool {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    loop {
        let m = tokio::time::timeout(silence, p.ws.next())
            .await
            .unwrap_or_else(|_| {
                panic!("{} heard nothing of its match for {silence:?}", p.player_id)
            });
        match m {
            Some(Ok(Message::Text(t))) => {
                let f = protocol::decode_server(t.as_str()).unwrap();
                if let ServerMsg::Snapshot(s) = f.msg {
                    p.seq = s.seq;
                    p.turn = s.turn.clone();
                    return true;
                }
                assert!(
                    f.seq.is_none(),
                    "a live frame before the snapshot: {:?}",
                    f.msg
                );
            }
            Some(Ok(Message::Close(c))) => {
                assert_eq!(c.map(|c| u16::from(c.code)), Some(1012), "closed as moved");
                return false;
            }
            Some(Ok(_)) => {}
            None | Some(Err(_)) => panic!("the socket ended without a close frame"),
        }
    }
}

/// Reads (bounded) until the server closes `p`'s socket; returns the close code.
async fn closed(p: &mut Player) -> Option<u16> {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    loop {
        match tokio::time::timeout(BOUND, p.ws.next())
            .await
            .expect("closed in time")
        {
            None | Some(Err(_)) => return None,
            Some(Ok(Message::Close(c))) => return c.map(|c| u16::from(c.code)),
            Some(Ok(_)) => {}
        }
    }
}

/// The value of counter `name` (labelled with the node id only) in `node`'s
/// `/metrics`; 0 when not yet counted.
async fn counter(node: &ServerProc, name: &str) -> u64 {
    node.metric(name).await.map_or(0, |v| v as u64)
}

/// The node holding the cluster's matchmaker role, once one does (bounded wait).
async fn matchmaker_node(pool: &sqlx::PgPool) -> String {
    let t0 = Instant::now();
    loop {
        let node: Option<String> = sqlx::query_scalar(
            "SELECT node_id FROM cluster_roles WHERE role = 'matchmaker' AND expires_at > now()",
        )
        .fetch_optional(pool)
        .await
        .unwrap();
        if let Some(n) = node {
            return n;
        }
        assert!(t0.elapsed() < BOUND, "no node became the matchmaker");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A guest on each of `nodes[homes[i]]` joins the clash queue (each reads its
/// `ack`, the first frame after the request); then each reads its `match_started`. Returns the players with their
/// `match_started`.
async fn queue_on(nodes: &[Node], homes: &[usize]) -> Vec<(Player, protocol::MatchStarted)> {
    let mut players = Vec::new();
    for (i, &h) in homes.iter().enumerate() {
        let (id, token) = nodes[h].proc.guest(&format!("Q{i}")).await;
        let (mut p, active) = Player::connect(&nodes[h].proc, id, &token).await;
        assert!(active.is_empty());
        p.send(json!({"t": "join_queue", "id": "q", "d": {"mode": "clash"}}))
            .await;
        // The ack is the first answer, before any `queue_status` (also for a
        // player on a node that is not the matchmaker).
        match p.recv().await.msg {
            ServerMsg::Ack(a) => assert_eq!(a.id, "q"),
            other => panic!("player {i} on {} not queued: {other:?}", nodes[h].id),
        }
        players.push(p);
    }
    let mut out = Vec::new();
    for mut p in players {
        let started = match p
            .until(|m| matches!(m, ServerMsg::MatchStarted(_)))
            .await
            .msg
        {
            ServerMsg::MatchStarted(m) => m,
            _ => unreachable!(),
        };
        out.push((p, started));
    }
    out
}

/// The answer to `p`'s request `id`: its `ack` or the `error` naming it (bounded).
async fn answer_to(p: &mut Player, id: &str) -> ServerMsg {
    p.until(|m| match m {
        ServerMsg::Ack(a) => a.id == id,
        ServerMsg::Error(e) => e.in_reply_to.as_deref() == Some(id),
        _ => false,
    })
    .await
    .msg
}

/// Reads until `p` gets the error answering `id`; returns its code.
async fn error_of(p: &mut Player, id: &str) -> protocol::ErrorCode {
    match p
        .until(|m| matches!(m, ServerMsg::Error(e) if e.in_reply_to.as_deref() == Some(id)))
        .await
        .msg
    {
        ServerMsg::Error(e) => e.code,
        _ => unreachable!(),
    }
}

/// `p` joins lobby `code` (request id `join`): it reads the lobby's state with
/// `members` members, then the `ack`.
async fn join_lobby(p: &mut Player, code: &str, members: usize) {
    p.send(json!({"t": "join_lobby", "id": "join", "d": {"code": code.to_lowercase()}}))
        .await;
    let first = p
        .until(|m| {
            matches!(
                m,
                ServerMsg::LobbyState(_) | ServerMsg::Ack(_) | ServerMsg::Error(_)
            )
        })
        .await;
    match first.msg {
        ServerMsg::LobbyState(l) => assert_eq!(l.members.len(), members),
        other => panic!("expected the lobby's state first, got {other:?}"),
    }
    // (A subscriber may get a `lobby_list` in between: the list is not an answer.)
    match p.until(|m| !matches!(m, ServerMsg::LobbyList(_))).await.msg {
        ServerMsg::Ack(a) => assert_eq!(a.id, "join"),
        other => panic!("expected the ack after the lobby's state, got {other:?}"),
    }
}

/// A host on node 0 and a member on node 1 of the host's lobby (`d`: the
/// `create_lobby` data): (host, member, lobby code).
async fn remote_member(nodes: &[Node], d: serde_json::Value) -> (Player, Player, String) {
    let (hid, htoken) = nodes[0].proc.guest("Host").await;
    let mut host = Player::connect(&nodes[0].proc, hid, &htoken).await.0;
    let (mid, mtoken) = nodes[1].proc.guest("Member").await;
    let mut member = Player::connect(&nodes[1].proc, mid, &mtoken).await.0;
    host.send(json!({"t": "create_lobby", "d": d})).await;
    let code = match host
        .until(|m| matches!(m, ServerMsg::LobbyState(_)))
        .await
        .msg
    {
        ServerMsg::LobbyState(l) => l.code,
        _ => unreachable!(),
    };
    join_lobby(&mut member, &code, 2).await;
    (host, member, code)
}
