//! The release-like binary under a low open-file limit: `ludo-server` started by a
//! shell with `ulimit -n 512`, 600 half-sent connections from one attacker address,
//! while a player on another address plays a match. The server's own process is
//! the only one killed.

use crate::edge::{connect_from, HALF_HEADERS};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::net::{IpAddr, SocketAddr};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

/// The value of `key=` in a log line.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = line.find(&format!("{key}="))? + key.len() + 1;
    line[at..].split_whitespace().next()
}

/// Resident memory of `pid`, KiB (`VmRSS` of `/proc/<pid>/status`).
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_512_files_600_half_sent_connections_do_not_stop_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -n 512 && exec "$0""#)
        .arg(env!("CARGO_BIN_EXE_ludo-server"))
        .env("LUDO_BIND", "127.0.0.1:0")
        .env(
            "DATABASE_URL",
            format!("sqlite://{}", dir.path().join("edge.db").display()),
        )
        .env("LUDO_HEADER_TIMEOUT_MS", "30000")
        .env("LUDO_BOT_THINK_MS", "50")
        .env("LUDO_TURN_SECONDS", "5")
        .env("LUDO_RATE_PER_SECOND", "1000")
        .env("LUDO_RATE_BURST", "1000")
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let pid = child.id().unwrap();
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // The address and the derived cap from the start-up lines.
    let (mut addr, mut cap) = (None::<SocketAddr>, None::<usize>);
    let t0 = Instant::now();
    while addr.is_none() || cap.is_none() {
        let line = tokio::time::timeout_at(t0 + Duration::from_secs(30), lines.next_line())
            .await
            .expect("the server starts within 30 s")
            .unwrap()
            .expect("the server is running");
        if line.contains("listening") {
            addr = field(&line, "addr").map(|a| a.parse().unwrap());
        }
        if line.contains("accepting connections") {
            cap = field(&line, "max_connections").map(|c| c.parse().unwrap());
        }
    }
    let addr = addr.unwrap();
    // 512 files minus the 64 kept for the listener, the database and files.
    assert_eq!(cap, Some(512 - server::FD_HEADROOM));
    {
        let log = log.clone();
        tokio::spawn(async move {
            while let Ok(Some(l)) = lines.next_line().await {
                log.lock().unwrap().push(l);
            }
        });
    }
    let url = |p: &str| format!("http://{addr}{p}");
    let from = |host: u8| {
        reqwest::Client::builder()
            .local_address(IpAddr::from([127, 0, 0, host]))
            .timeout(Duration::from_secs(1))
            .build()
            .unwrap()
    };

    // A player on 127.0.0.2 starts a lobby match with three bots.
    let v: Value = from(2)
        .post(url("/api/v1/guests"))
        .json(&json!({"name": "Ada"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = v["token"].as_str().unwrap().to_string();
    let tcp = connect_from(2, addr).await;
    let (mut ws, _) = tokio_tungstenite::client_async(format!("ws://{addr}/ws"), tcp)
        .await
        .unwrap();
    for m in [
        json!({"t": "hello", "d": {"token": token, "protocol_version": 3, "client": "edge-test"}}),
        json!({"t": "create_lobby", "d": {"mode": "clash", "fill_with_bots": true}}),
        json!({"t": "start_lobby"}),
    ] {
        ws.send(Message::text(m.to_string())).await.unwrap();
    }
    // Reads frames until `n` turns are resolved (passing the player's own turns).
    async fn turns(
        ws: &mut (impl StreamExt<Item = Result<Message, tokio_tungstenite::tungstenite::Error>>
                  + SinkExt<Message>
                  + Unpin),
        me: &mut Option<Value>,
        n: usize,
    ) {
        let mut seen = 0;
        let deadline = Instant::now() + Duration::from_secs(30);
        while seen < n {
            let m = tokio::time::timeout_at(deadline, ws.next())
                .await
                .expect("the match goes on")
                .expect("open")
                .expect("readable");
            let Message::Text(t) = m else { continue };
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            match v["t"].as_str().unwrap() {
                "match_started" => *me = Some(v["d"]["your_seat"].clone()),
                "turn_started" if Some(&v["d"]["seat"]) == me.as_ref() => {
                    let pass = json!({"t": "pass", "d": {"match_id": v["d"]["match_id"], "turn_number": v["d"]["turn_number"]}});
                    let _ = ws.send(Message::text(pass.to_string())).await;
                }
                "turn_resolved" => seen += 1,
                "error" => panic!("unexpected error {v}"),
                _ => {}
            }
        }
    }
    let mut me = None;
    turns(&mut ws, &mut me, 4).await;

    // 600 half-sent requests from the attacker's address.
    let mut hostile = Vec::new();
    for _ in 0..600 {
        let mut tcp = connect_from(1, addr).await;
        let _ = tcp.write_all(HALF_HEADERS.as_bytes()).await;
        hostile.push(tcp);
    }
    // /healthz from a third address answers within 1 s.
    let t = Instant::now();
    let r = from(3).get(url("/healthz")).send().await.unwrap();
    let healthz = t.elapsed();
    assert_eq!(r.status(), 200);
    assert!(healthz < Duration::from_secs(1), "{healthz:?}");
    // The match goes on.
    turns(&mut ws, &mut me, 8).await;
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count();
    let rss = rss_kib(pid);
    println!(
        "ulimit 512, 600 hostile connections: /healthz in {healthz:?}, {fds} open files, RSS {} KiB",
        rss
    );
    assert!(fds < 512, "{fds} files open");
    let log = log.lock().unwrap().join("\n");
    assert!(!log.contains("Too many open files"), "{log}");
    drop(hostile);
    child.kill().await.unwrap();
}
