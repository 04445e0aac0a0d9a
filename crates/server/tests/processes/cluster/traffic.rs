//! Frames between nodes: NATS hop latency, one broadcast per node, where load
//! lands, the live-match list from any node.

use super::*;

/// Passes `turns` turns in lock-step; returns each mover's time from sending its
/// `pass` to reading that turn's `turn_resolved`.
async fn timed_passes(players: &mut [Player], match_id: Uuid, turns: u32) -> Vec<Duration> {
    let mut out = Vec::new();
    for p in players.iter_mut() {
        while p.turn.is_none() {
            p.recv().await;
        }
    }
    for _ in 0..turns {
        let t = players[0].turn.clone().expect("a turn");
        let mover = &mut players[t.seat.index()];
        let t0 = Instant::now();
        mover
            .send(json!({"t": "pass", "id": "p", "d": {"match_id": match_id, "turn_number": t.turn_number}}))
            .await;
        mover
            .until(|m| matches!(m, ServerMsg::TurnResolved(r) if r.turn_number == t.turn_number))
            .await;
        out.push(t0.elapsed());
        for p in players.iter_mut() {
            while p
                .turn
                .as_ref()
                .is_none_or(|x| x.turn_number <= t.turn_number)
            {
                p.recv().await;
            }
        }
    }
    out
}

fn percentiles(mut v: Vec<Duration>) -> String {
    v.sort();
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    format!(
        "n {} p50 {:?} p99 {:?} max {:?}",
        v.len(),
        at(0.5),
        at(0.99),
        at(1.0)
    )
}

/// Measurement (BENCHMARKS.md): the NATS hop at low load. One match, 60 passes with
/// all four players on the owner, then 60 with all four on another node.
#[tokio::test]
#[ignore = "measurement; run with --ignored"]
async fn nats_hop_latency_one_match() {
    with_db("ludo_cluster", |url| Box::pin(nats_hop(url))).await;
}

async fn nats_hop(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = Spec::new(&url, 3000);
    spec.extra = vec![("LUDO_MATCH_SECONDS", "300"), ("LUDO_TURN_SECONDS", "30")];
    let nodes = cluster_of(&spec, 2, dir.path()).await;
    let (mut players, match_id) = lobby_of_four(&nodes[0].proc).await;
    let local = timed_passes(&mut players, match_id, 60).await;
    let mut remote_players = Vec::new();
    for old in &players {
        remote_players.push(rejoin(&nodes[1].proc, old, match_id).await);
    }
    drop(players);
    let remote = timed_passes(&mut remote_players, match_id, 60).await;
    eprintln!(
        "submit->turn_resolved, all players on the owner: {}\nall players on another node: {}",
        percentiles(local),
        percentiles(remote)
    );
    for n in nodes {
        n.proc.kill9().await;
    }
}

/// Fan-out across nodes: a match on n1 with three of its players on n2. A
/// broadcast frame (`turn_resolved`, `turn_started`) crosses NATS once for n2, not
/// once per socket there; a reply (the mover's `ack`) crosses once for its socket.
/// Over `K` passes: the owner publishes `2K + A` frame messages (A: acks to movers
/// on n2) carrying `6K + A` socket deliveries (three sockets per broadcast).
#[tokio::test]
async fn a_broadcast_crosses_nats_once_per_node() {
    with_db("ludo_cluster", |url| Box::pin(fanout_count(url))).await;
}

async fn fanout_count(url: String) {
    const K: u32 = 8;
    const FRAMES: &str = "ludo_cluster_relayed_frames_total";
    const SOCKETS: &str = "ludo_cluster_relayed_socket_frames_total";
    let dir = tempfile::tempdir().unwrap();
    let mut spec = Spec::new(&url, 3000);
    spec.extra = vec![("LUDO_MATCH_SECONDS", "300"), ("LUDO_TURN_SECONDS", "30")];
    let nodes = cluster_of(&spec, 2, dir.path()).await;
    let (players, match_id) = lobby_of_four(&nodes[0].proc).await;
    let mut moved = Vec::new();
    for (i, old) in players.into_iter().enumerate() {
        if i == 0 {
            moved.push(old);
        } else {
            moved.push(rejoin(&nodes[1].proc, &old, match_id).await);
        }
    }
    let mut players = moved;
    // Every socket has its snapshot and the turn in progress: nothing is in flight.
    for p in players.iter_mut() {
        while p.turn.is_none() {
            p.recv().await;
        }
    }
    let owner = &nodes[0].proc;
    let (f0, s0) = (counter(owner, FRAMES).await, counter(owner, SOCKETS).await);
    let first = players[0].turn.as_ref().unwrap().turn_number;
    timed_passes(&mut players, match_id, K).await;
    let (f1, s1) = (counter(owner, FRAMES).await, counter(owner, SOCKETS).await);
    let remote_movers = players[0]
        .resolved
        .range(first..first + K)
        .filter(|(_, r)| r.seat.index() != 0)
        .count() as u64;
    assert_eq!(
        players[0].resolved.range(first..first + K).count(),
        K as usize
    );
    let k = u64::from(K);
    assert_eq!(
        f1 - f0,
        2 * k + remote_movers,
        "one message per broadcast frame for n2, one per ack"
    );
    assert_eq!(
        s1 - s0,
        6 * k + remote_movers,
        "each broadcast reaches n2's three sockets"
    );
    for n in nodes {
        n.proc.kill9().await;
    }
}

/// `ludo-load --placement` over two nodes (4 matches, each created on node t % 2):
/// with `owner` the players sit on their match's node and no frame crosses NATS
/// (the relayed-frames counters stay 0); with `other` they move to the other node
/// once the match started and every frame crosses it (the counters grow). Every
/// match ends, no client error.
#[tokio::test]
async fn load_placement_owner_or_other_node() {
    with_db("ludo_cluster", |url| Box::pin(load_placement(url))).await;
}

async fn load_placement(url: String) {
    const FRAMES: &str = "ludo_cluster_relayed_frames_total";
    let dir = tempfile::tempdir().unwrap();
    // 10 s leases: a node starved of CPU by parallel tests does not lose a match
    // (which would move its sockets and make them cross NATS).
    let mut spec = Spec::new(&url, 10_000);
    spec.extra = vec![
        ("LUDO_MATCH_SECONDS", "6"),
        ("LUDO_TURN_SECONDS", "3"),
        ("LUDO_GUESTS_PER_MINUTE", "0"),
        ("LUDO_MAX_CONNECTIONS_PER_IP", "0"),
    ];
    let nodes = cluster_of(&spec, 2, dir.path()).await;
    for placement in [
        client::load::Placement::Owner,
        client::load::Placement::Other,
    ] {
        let mut before = Vec::new();
        for n in &nodes {
            before.push(counter(&n.proc, FRAMES).await);
        }
        let run = client::load::run(client::load::LoadConfig {
            urls: nodes.iter().map(|n| n.proc.url("")).collect(),
            placement,
            matches: 4,
            max_matches: Some(4),
            think_ms: 50,
            duration_secs: 40,
            warmup_secs: 1,
            mode: client::load::LoadMode::Lobby,
            ..client::load::LoadConfig::default()
        });
        let report = tokio::time::timeout(Duration::from_secs(90), run)
            .await
            .expect("the load run ends by itself")
            .expect("the load run");
        let s = &report.stats;
        assert_eq!(
            (s.matches_started, s.matches_completed),
            (4, 4),
            "{}",
            report.render()
        );
        assert_eq!(s.errors, Default::default(), "{}", report.render());
        assert_eq!(s.reconnects, 0, "{}", report.render());
        for (i, n) in nodes.iter().enumerate() {
            let relayed = counter(&n.proc, FRAMES).await - before[i];
            match placement {
                client::load::Placement::Owner => {
                    assert_eq!(relayed, 0, "{placement:?}: nothing crosses NATS")
                }
                client::load::Placement::Other => {
                    assert!(
                        relayed > 0,
                        "{placement:?}: {} relays its matches' frames",
                        n.id
                    )
                }
            }
        }
    }
    for n in nodes {
        n.proc.kill9().await;
    }
}

/// `GET /api/v1/matches/live` on any node lists the quick-play matches of every
/// node, and not a private lobby's match.
#[tokio::test]
async fn live_matches_of_every_node_from_any_node() {
    with_db("ludo_cluster", |url| Box::pin(live_everywhere(url))).await;
}

async fn live_everywhere(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = Spec::new(&url, 3000);
    spec.extra.push(("LUDO_BOT_FILL_SECONDS", "0"));
    let nodes = cluster_of(&spec, 2, dir.path()).await;
    let mut public = Vec::new();
    let mut sockets = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        let (id, token) = n.proc.guest(&format!("Q{i}")).await;
        let (mut p, _) = Player::connect(&n.proc, id, &token).await;
        p.send(json!({"t": "join_queue", "d": {"mode": "clash"}}))
            .await;
        match p
            .until(|m| matches!(m, ServerMsg::MatchStarted(_)))
            .await
            .msg
        {
            ServerMsg::MatchStarted(m) => public.push(m.match_id),
            _ => unreachable!(),
        }
        sockets.push(p);
    }
    let (_private, private_id) = lobby_of_four(&nodes[0].proc).await;
    for n in &nodes {
        let (status, body) = n.proc.get_json("/api/v1/matches/live").await;
        assert_eq!(status, 200);
        let listed: Vec<Uuid> = body["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["match_id"].as_str().unwrap().parse().unwrap())
            .collect();
        for id in &public {
            assert!(listed.contains(id), "{} lists {id}: {listed:?}", n.id);
        }
        assert!(
            !listed.contains(&private_id),
            "a private match is not listed"
        );
    }
    for n in nodes {
        n.proc.kill9().await;
    }
}
