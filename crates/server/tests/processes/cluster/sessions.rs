//! A player's sessions and sockets across nodes: sign-out, a second socket, a remote
//! socket's close (abandon countdown), one match at a time.

use super::*;

/// Issue 29.3: a session whose socket is on n1 is signed out through n2: the socket
/// on n1 closes with 4002 within 1 s, and the token is refused by REST on both
/// nodes and by `hello` on n1.
#[tokio::test]
async fn a_sign_out_on_one_node_closes_the_socket_on_another() {
    with_db("ludo_cluster", |url| Box::pin(sign_out_across_nodes(url))).await;
}

async fn sign_out_across_nodes(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let nodes = cluster(&url, 2, 3000, dir.path()).await;
    let (n1, n2) = (&nodes[0].proc, &nodes[1].proc);
    let (id, guest_token) = n1.guest("Roamer").await;
    let http = reqwest::Client::new();
    let r = http
        .post(n2.url("/api/v1/accounts"))
        .bearer_auth(&guest_token)
        .json(&json!({"username": "roamer", "password": "across nodes"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let r = http
        .post(n2.url("/api/v1/sessions"))
        .json(&json!({"username": "roamer", "password": "across nodes"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let phone: serde_json::Value = r.json().await.unwrap();
    let phone_token = phone["token"].as_str().unwrap().to_string();
    let phone_session = phone["session_id"].as_str().unwrap().to_string();
    let mut socket = Player::connect(n1, id, &phone_token).await.0;

    let r = http
        .delete(n2.url(&format!("/api/v1/sessions/{phone_session}")))
        .bearer_auth(&guest_token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let signed_out = Instant::now();
    assert_eq!(closed(&mut socket).await, Some(4002));
    let took = signed_out.elapsed();
    eprintln!("socket on n1 closed {took:?} after the sign-out on n2");
    assert!(took < Duration::from_secs(1), "{took:?}");
    for n in [n1, n2] {
        let r = http
            .get(n.url("/api/v1/accounts/me"))
            .bearer_auth(&phone_token)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401);
    }
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", n1.addr))
        .await
        .unwrap();
    let mut again = Player::from_socket(ws, id, &phone_token);
    again
        .send(json!({"t": "hello", "d": {"token": phone_token, "protocol_version": 3, "client": "proc-test"}}))
        .await;
    match again.recv().await.msg {
        ServerMsg::Error(e) => assert_eq!(e.code, protocol::ErrorCode::NotAuthenticated),
        other => panic!("expected not_authenticated, got {other:?}"),
    }
    for n in nodes {
        n.proc.kill9().await;
    }
}

/// A second socket with the same token on another node replaces the first (close
/// 4000), as on one node.
#[tokio::test]
async fn a_second_socket_on_another_node_replaces_the_first() {
    with_db("ludo_cluster", |url| Box::pin(replace_across_nodes(url))).await;
}

async fn replace_across_nodes(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let nodes = cluster(&url, 2, 3000, dir.path()).await;
    let (id, token) = nodes[0].proc.guest("Twice").await;
    let (mut first, _) = Player::connect(&nodes[0].proc, id, &token).await;
    let (mut second, _) = Player::connect(&nodes[1].proc, id, &token).await;
    assert_eq!(closed(&mut first).await, Some(4000), "replaced");
    second.send(json!({"t": "ping", "id": "still-here"})).await;
    second.until(|m| matches!(m, ServerMsg::Pong)).await;
    for n in nodes {
        n.proc.kill9().await;
    }
}

/// A remote socket's close reaches the room: two players queued on the two nodes
/// that are not the matchmaker get a match (with two bots) on the matchmaker node,
/// seated through stand-ins; both sockets close without signing in again. The
/// abandon countdown starts as for local sockets: the match ends `abandoned`
/// within the abandon time (2 s), long before its clock (300 s).
#[tokio::test]
async fn remote_sockets_that_close_start_the_abandon_countdown() {
    with_db("ludo_cluster", |url| {
        Box::pin(async move {
            tokio::time::timeout(Duration::from_secs(180), remote_close_abandons(url))
                .await
                .expect("the test ends within 3 minutes")
        })
    })
    .await;
}

async fn remote_close_abandons(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let mut spec = Spec::new(&url, 3000);
    spec.extra = vec![
        ("LUDO_MATCH_SECONDS", "300"),
        ("LUDO_TURN_SECONDS", "30"),
        ("LUDO_BOT_FILL_SECONDS", "1"),
        ("LUDO_BOT_THINK_MS", "10"),
        ("LUDO_ABANDON_SECONDS", "2"),
    ];
    let nodes = cluster_of(&spec, 3, dir.path()).await;
    let mm = matchmaker_node(&pool).await;
    let others: Vec<usize> = (0..3).filter(|&i| nodes[i].id != mm).collect();
    let queued = queue_on(&nodes, &others).await;
    let match_id = queued[0].1.match_id;
    assert_eq!(owner(&pool, match_id).await.expect("leased").0, mm);
    let closed_at = Instant::now();
    drop(queued);
    let t0 = Instant::now();
    let detail = loop {
        let (status, d) = nodes[others[0]]
            .proc
            .get_json(&format!("/api/v1/matches/{match_id}"))
            .await;
        assert_eq!(status, 200);
        if d["status"] == json!("ended") {
            break d;
        }
        assert!(t0.elapsed() < BOUND, "the match was not abandoned: {d}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(detail["end_reason"], json!("abandoned"), "{detail}");
    let took = closed_at.elapsed();
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(20),
        "abandoned {took:?} after the sockets closed (abandon time 2 s)"
    );
    pool.close().await;
    for n in nodes {
        n.proc.kill9().await;
    }
}

/// A player seated in a match another node runs is busy on its own node too: its
/// `join_queue`, `create_lobby` and `join_lobby` there get `already_busy` (the
/// store knows every node's seats), and it stays seated in that one match only.
#[tokio::test]
async fn a_player_seated_on_another_node_cannot_start_a_second_match() {
    with_db("ludo_cluster", |url| {
        Box::pin(async move {
            tokio::time::timeout(Duration::from_secs(120), seated_elsewhere(url))
                .await
                .expect("the test ends within 2 minutes")
        })
    })
    .await;
}

async fn seated_elsewhere(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let mut spec = Spec::new(&url, 3000);
    spec.extra = vec![("LUDO_BOT_FILL_SECONDS", "1")];
    let nodes = cluster_of(&spec, 2, dir.path()).await;
    let (hid, htoken) = nodes[0].proc.guest("Host").await;
    let mut host = Player::connect(&nodes[0].proc, hid, &htoken).await.0;
    let (rid, rtoken) = nodes[1].proc.guest("Remote").await;
    let mut remote = Player::connect(&nodes[1].proc, rid, &rtoken).await.0;
    host.send(json!({"t": "create_lobby", "d": {"mode": "clash", "fill_with_bots": true}}))
        .await;
    let code = match host
        .until(|m| matches!(m, ServerMsg::LobbyState(_)))
        .await
        .msg
    {
        ServerMsg::LobbyState(l) => l.code,
        _ => unreachable!(),
    };
    join_lobby(&mut remote, &code, 2).await;
    host.send(json!({"t": "start_lobby"})).await;
    let match_id = match remote
        .until(|m| matches!(m, ServerMsg::MatchStarted(_)))
        .await
        .msg
    {
        ServerMsg::MatchStarted(m) => m.match_id,
        _ => unreachable!(),
    };
    assert_eq!(owner(&pool, match_id).await.unwrap().0, nodes[0].id);
    for (id, msg) in [
        (
            "q",
            json!({"t": "join_queue", "id": "q", "d": {"mode": "clash"}}),
        ),
        (
            "c",
            json!({"t": "create_lobby", "id": "c", "d": {"mode": "clash", "fill_with_bots": true}}),
        ),
        (
            "j",
            json!({"t": "join_lobby", "id": "j", "d": {"code": "ZZZZZZ"}}),
        ),
    ] {
        remote.send(msg).await;
        assert_eq!(
            error_of(&mut remote, id).await,
            protocol::ErrorCode::AlreadyBusy,
            "{id}: the player is seated in {match_id} on {}",
            nodes[0].id
        );
    }
    // Still seated in that one match only, and it goes on.
    let seats: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM match_seats s JOIN matches m ON m.id = s.match_id \
         WHERE s.player_id = $1 AND m.status = 'running'",
    )
    .bind(rid)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(seats, 1);
    pool.close().await;
    for n in nodes {
        n.proc.kill9().await;
    }
}
