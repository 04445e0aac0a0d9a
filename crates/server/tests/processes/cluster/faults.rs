//! Faults of what the nodes share (issue 34): NATS down, a second node with a live
//! node id, PostgreSQL refusing connections for 8 s.

use super::*;

/// A `nats-server` of the test's own on 127.0.0.1:`port`, ready (it accepts
/// connections); killed when dropped.
async fn own_nats(port: u16) -> tokio::process::Child {
    let child = tokio::process::Command::new("nats-server")
        .args(["-a", "127.0.0.1", "-p", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("nats-server runs (Debian package nats-server)");
    let t0 = Instant::now();
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(t0.elapsed() < BOUND, "nats-server did not listen");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    child
}

/// Issue 34.2: NATS down. Two nodes on a NATS server of the test's own; a lobby
/// match on n1 with one player (P) on n2. NATS is stopped: on n2, P's
/// `submit_turn` is answered `cluster_unavailable` within 1 s (nothing is sent, so
/// nothing is played after the outage), and its `join_queue` is refused at once
/// too; a new player's `hello` on n2 gets `welcome` within 1 s. NATS starts again
/// on the same port while n1 is paused (SIGSTOP): n2 is back on it first, and P's
/// `resync` (which only n1 can answer) is refused with `cluster_unavailable`, its
/// socket kept open — n1 still holds the lease, so the match is not moving (no
/// close 1012). Once n1 runs again and is back on NATS, P plays on and the match
/// ends, its replay verifying. (That a late sign-in notice replaces nothing newer is
/// `state::tests::a_late_sign_in_notice_does_not_replace_a_newer_socket`.)
#[tokio::test]
async fn with_nats_down_requests_fail_fast_and_nothing_is_replayed_after() {
    with_db("ludo_cluster", |url| Box::pin(nats_down(url))).await;
}

async fn nats_down(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let port = free_addr().port();
    let mut nats = own_nats(port).await;
    let mut spec = Spec::new(&url, 6000);
    spec.nats = Some(format!("nats://127.0.0.1:{port}"));
    let nodes = cluster_of(&spec, 2, dir.path()).await;
    let (players, match_id) = lobby_of_four(&nodes[0].proc).await;
    let mut players: Vec<Player> = {
        let mut v = Vec::new();
        for (i, old) in players.into_iter().enumerate() {
            if i == 1 {
                v.push(rejoin(&nodes[1].proc, &old, match_id).await);
            } else {
                v.push(old);
            }
        }
        v
    };
    assert_eq!(play_until(&mut players, match_id, 4).await, 4);

    nats.kill().await.unwrap();
    let turn = players[1].turn.clone().unwrap().turn_number;
    let p = &mut players[1];
    let t0 = Instant::now();
    p.send(json!({"t": "submit_turn", "id": "outage", "d": {"match_id": match_id, "turn_number": turn, "plan": {}}}))
        .await;
    assert_eq!(
        error_of(p, "outage").await,
        protocol::ErrorCode::ClusterUnavailable
    );
    p.send(json!({"t": "join_queue", "id": "q", "d": {"mode": "clash"}}))
        .await;
    let queued = error_of(p, "q").await;
    let refused_in = t0.elapsed();
    // Seated: already_busy is checked first (the store knows the seat); either way
    // the answer is at once.
    assert!(
        [
            protocol::ErrorCode::AlreadyBusy,
            protocol::ErrorCode::ClusterUnavailable
        ]
        .contains(&queued),
        "{queued:?}"
    );
    assert!(refused_in < Duration::from_secs(1), "{refused_in:?}");
    let (gid, gtoken) = nodes[1].proc.guest("G").await;
    let t0 = Instant::now();
    let (_g, _) = Player::connect(&nodes[1].proc, gid, &gtoken).await;
    let welcomed_in = t0.elapsed();
    assert!(welcomed_in < Duration::from_secs(1), "{welcomed_in:?}");
    eprintln!("NATS down: refused in {refused_in:?}, welcome in {welcomed_in:?}");

    // n1 is paused while NATS starts again, so n2 is back on NATS before n1 (each
    // node reconnects after its own back-off; up to 4 s apart). P's resync, which
    // only n1 can answer, is then refused with `cluster_unavailable` and P keeps
    // its socket: n1 still holds the match's lease, so the match is not moving and
    // is not closed as moved (1012). (The lease is 6 s; n1 renews it every 2 s.)
    signal(&nodes[0].proc, "-STOP");
    let _nats = own_nats(port).await;
    let t0 = Instant::now();
    while nodes[1].proc.metric("ludo_cluster_nats_up").await != Some(1.0) {
        if t0.elapsed() > BOUND {
            signal(&nodes[0].proc, "-CONT");
            panic!("n2 never came back on NATS");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let p = &mut players[1];
    p.send(json!({"t": "resync", "id": "early", "d": {"match_id": match_id, "last_seq": p.seq}}))
        .await;
    let early = answer_to(p, "early").await;
    signal(&nodes[0].proc, "-CONT");
    let ServerMsg::Error(e) = early else {
        panic!("n1 is paused, yet the resync was answered: {early:?}");
    };
    assert_eq!(e.code, protocol::ErrorCode::ClusterUnavailable, "{e:?}");
    // The nodes are back on NATS once a request from n2 reaches the match on n1.
    let t0 = Instant::now();
    loop {
        let p = &mut players[1];
        p.send(json!({"t": "resync", "id": "r", "d": {"match_id": match_id, "last_seq": p.seq}}))
            .await;
        if matches!(answer_to(p, "r").await, ServerMsg::Ack(_)) {
            break;
        }
        assert!(t0.elapsed() < BOUND, "the nodes never came back on NATS");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    eprintln!("back on NATS {:?} after its restart", t0.elapsed());
    // The outage's plan was never played: the match goes on to its end.
    let p = &mut players[1];
    p.send(json!({"t": "resync", "id": "r2", "d": {"match_id": match_id, "last_seq": 0}}))
        .await;
    p.snapshot().await;
    assert_eq!(play_until(&mut players, match_id, u32::MAX).await, 0);
    let seen = seen_turns(&players);
    check_replay(&nodes[0].proc, match_id, &seen).await;
    for n in nodes {
        n.proc.kill9().await;
    }
}

/// Two nodes with one id (issue 34.5): a node started with the id of a live node
/// of the same cluster exits with a failure before it listens, saying the id is
/// live — whether that node answers (running) or not (SIGSTOPped: it still holds
/// the id); the live node serves on; once it has stopped (SIGTERM) the id starts
/// again. Another id starts beside it.
#[tokio::test]
async fn a_node_id_already_live_refuses_to_start() {
    with_db("ludo_cluster", |url| Box::pin(duplicate_node_id(url))).await;
}

async fn duplicate_node_id(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let spec = Spec::new(&url, 3000);
    let mut nodes = cluster_of(&spec, 1, dir.path()).await;
    let (status, out) = spec.refused("n1", dir.path()).await;
    assert!(!status.success(), "{status:?}");
    assert!(
        out.contains("node id \"n1\" is already live in the cluster (it answered: pid"),
        "{out}"
    );
    nodes[0].proc.wait_ready().await;
    // A paused node still holds its id.
    signal(&nodes[0].proc, "-STOP");
    let (status, out) = spec.refused("n1", dir.path()).await;
    signal(&nodes[0].proc, "-CONT");
    assert!(!status.success(), "{status:?}");
    assert!(
        out.contains("is already live in the cluster (it holds the id but did not answer"),
        "{out}"
    );
    let other = spec.start("n2", dir.path()).await;
    other.proc.wait_ready().await;
    nodes.remove(0).proc.terminate().await;
    let again = spec.start("n1", dir.path()).await;
    again.proc.wait_ready().await;
    again.proc.kill9().await;
    other.proc.kill9().await;
}

/// Issue 34.4: PostgreSQL refusing connections for 8 s (every lease expires
/// meanwhile, 3 s leases) moves no match: each owner still runs its match and says
/// so when asked (lease grace), so no node claims it and the owner renews it once
/// the database answers. A turn submitted in each match during the outage appears
/// after it (durable before visible), on the same owner with the same fencing
/// token; no node took anything over; a `hello` during the outage is answered
/// `store_unavailable` and closed with 1013 (reconnect later) at once; every match
/// plays to its end and its replay verifies.
#[tokio::test]
async fn a_database_blip_moves_no_match() {
    let db = store::testing::TempPg::create("ludo_cluster").await;
    let outcome =
        store::testing::run_catching(database_blip(db.name.clone(), db.url.clone())).await;
    let admin = crate::outage::admin().await;
    let _ = sqlx::Executor::execute(
        &admin,
        format!("ALTER DATABASE {} ALLOW_CONNECTIONS true", db.name).as_str(),
    )
    .await;
    admin.close().await;
    db.drop_db().await;
    if let Err(p) = outcome {
        std::panic::resume_unwind(p);
    }
}

async fn database_blip(db_name: String, url: String) {
    const OUTAGE: Duration = Duration::from_secs(8);
    let dir = tempfile::tempdir().unwrap();
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let mut spec = Spec::new(&url, 3_000);
    spec.extra = vec![("LUDO_MATCH_SECONDS", "20"), ("LUDO_TURN_SECONDS", "60")];
    let nodes = cluster_of(&spec, 3, dir.path()).await;
    let mut matches = Vec::new();
    for n in &nodes {
        let (mut players, m) = lobby_of_four(&n.proc).await;
        assert_eq!(play_until(&mut players, m, 3).await, 3);
        let lease = owner(&pool, m).await.expect("a lease");
        assert_eq!(lease, (n.id.clone(), 1), "the lobby's node runs its match");
        matches.push((players, m, lease));
    }
    let (idle_id, idle_token) = nodes[1].proc.guest("Idle").await;
    pool.close().await;

    let admin = crate::outage::admin().await;
    sqlx::Executor::execute(
        &admin,
        format!("ALTER DATABASE {db_name} ALLOW_CONNECTIONS false").as_str(),
    )
    .await
    .unwrap();
    crate::outage::terminate(&admin, &db_name).await;
    let began = Instant::now();
    // A turn in progress in every match, submitted during the outage.
    for (players, m, _) in matches.iter_mut() {
        let t = players[0].turn.clone().unwrap();
        players[t.seat.index()]
            .send(json!({"t": "pass", "id": "during", "d": {"match_id": *m, "turn_number": t.turn_number}}))
            .await;
    }
    // A sign-in during the outage: a typed answer and a close to reconnect on.
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", nodes[1].proc.addr))
        .await
        .unwrap();
    let mut idle = Player::from_socket(ws, idle_id, &idle_token);
    let asked = Instant::now();
    idle.send(json!({"t": "hello", "d": {"token": idle_token, "protocol_version": 3}}))
        .await;
    match idle.recv().await.msg {
        ServerMsg::Error(e) => assert_eq!(e.code, protocol::ErrorCode::StoreUnavailable),
        other => panic!("expected store_unavailable, got {other:?}"),
    }
    assert_eq!(closed(&mut idle).await, Some(1013));
    let answered = asked.elapsed();
    assert!(
        answered < Duration::from_secs(2),
        "hello answered in {answered:?}"
    );
    tokio::time::sleep(OUTAGE.saturating_sub(began.elapsed())).await;
    sqlx::Executor::execute(
        &admin,
        format!("ALTER DATABASE {db_name} ALLOW_CONNECTIONS true").as_str(),
    )
    .await
    .unwrap();
    admin.close().await;
    let back = Instant::now();

    // Each pending turn appears, from the same owner.
    let mut first_frame = Vec::new();
    for (players, _, _) in matches.iter_mut() {
        let mover = players[0].turn.as_ref().unwrap().seat.index();
        let ack = players[mover]
            .until(|m| matches!(m, ServerMsg::Ack(_) | ServerMsg::Error(_)))
            .await;
        assert!(
            matches!(ack.msg, ServerMsg::Ack(ref a) if a.id == "during"),
            "{:?}",
            ack.msg
        );
        first_frame.push(back.elapsed());
    }
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    for (_, m, lease) in &matches {
        assert_eq!(
            owner(&pool, *m).await.as_ref(),
            Some(lease),
            "the match stayed with its owner, same fencing token"
        );
    }
    for n in &nodes {
        assert_eq!(
            counter(&n.proc, "ludo_cluster_takeovers_total").await,
            0,
            "{} took nothing over",
            n.id
        );
    }
    eprintln!("database blip of {OUTAGE:?}: first frame after it {first_frame:?}");
    // The writer retries at least every 500 ms (1 s with jitter).
    assert!(
        first_frame.iter().all(|d| *d < Duration::from_secs(3)),
        "{first_frame:?}"
    );
    for (players, m, _) in matches.iter_mut() {
        assert_eq!(play_until(players, *m, u32::MAX).await, 0);
        check_replay(&nodes[0].proc, *m, &seen_turns(players)).await;
    }
    pool.close().await;
    for n in nodes {
        n.proc.kill9().await;
    }
}

/// A member on n2 of a lobby on n1 sends `leave_lobby` while n1 is stalled
/// (SIGSTOP: a long GC-like pause, an overloaded VM). After 10 s n2 answers it
/// `internal` (the owner did not answer; before, a NATS timeout could be read as
/// `lobby_not_found` and free the member on n2). Once n1 runs again the request is
/// past its deadline and not applied: no second answer within 5 s (before, n1
/// applied it and answered `ack`: a refused request took effect; proto §4: a
/// refused request "changes nothing"; breaker F4).
#[tokio::test]
async fn a_lobby_request_refused_for_a_stalled_owner_is_not_applied_later() {
    with_db("ludo_cluster", |url| {
        Box::pin(async move {
            tokio::time::timeout(Duration::from_secs(120), stalled_lobby_owner(url))
                .await
                .expect("the test ends within 2 minutes")
        })
    })
    .await;
}

async fn stalled_lobby_owner(url: String) {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    let dir = tempfile::tempdir().unwrap();
    let nodes = cluster(&url, 2, 3000, dir.path()).await;
    let (_host, mut member, _code) =
        remote_member(&nodes, json!({"mode": "clash", "fill_with_bots": true})).await;

    signal(&nodes[0].proc, "-STOP");
    member.send(json!({"t": "leave_lobby", "id": "l"})).await;
    let first = error_of(&mut member, "l").await;
    assert_eq!(
        first,
        protocol::ErrorCode::Internal,
        "the stalled owner's answer"
    );
    signal(&nodes[0].proc, "-CONT");
    // Whatever else answers "l" within 5 s of the owner's resumption.
    let mut again = Vec::new();
    let until = Instant::now() + Duration::from_secs(5);
    while let Ok(Some(Ok(m))) = tokio::time::timeout_at(until, member.ws.next()).await {
        let Message::Text(t) = m else { continue };
        let f = protocol::decode_server(t.as_str()).unwrap();
        match f.msg {
            ServerMsg::Ack(a) if a.id == "l" => again.push("ack".to_string()),
            ServerMsg::Error(e) if e.in_reply_to.as_deref() == Some("l") => {
                again.push(format!("{:?}", e.code))
            }
            _ => {}
        }
    }
    for n in nodes {
        n.proc.kill9().await;
    }
    assert!(
        again.is_empty(),
        "leave_lobby was answered {first:?} while the owner was stopped, then again \
         after it resumed: {again:?}"
    );
}
