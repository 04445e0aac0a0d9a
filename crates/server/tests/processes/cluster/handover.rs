//! A player's waiting state follows its socket to another node (breaker findings
//! of 2026-12-06, `crate::cluster::handover` in the server).

use super::*;

/// A member of a lobby on n1, signed in through n2, opens a second socket on n3
/// (the first is replaced, 4000). The new socket is still a member of that lobby
/// (proto §4: "a new tab or a reconnect" gets its `lobby_state` after `welcome`):
/// it gets the lobby's `lobby_state`, and its `create_lobby` is `already_busy`
/// (before the hand-over it was accepted, and the player ended up seated in two
/// running matches at once).
#[tokio::test]
async fn a_lobby_member_replaced_on_a_third_node_is_not_seated_twice() {
    with_db("ludo_cluster", |url| {
        Box::pin(async move {
            tokio::time::timeout(Duration::from_secs(120), replaced_member(url))
                .await
                .expect("the test ends within 2 minutes")
        })
    })
    .await;
}

async fn replaced_member(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let nodes = cluster(&url, 3, 3000, dir.path()).await;
    let (mut host, mut member, code) =
        remote_member(&nodes, json!({"mode": "clash", "fill_with_bots": true})).await;
    let (mid, mtoken) = (member.player_id, member.token.clone());

    // The same player on n3: the socket on n2 is replaced.
    let (mut again, active) = Player::connect(&nodes[2].proc, mid, &mtoken).await;
    assert!(active.is_empty());
    assert_eq!(closed(&mut member).await, Some(4000), "replaced");
    match again
        .until(|m| matches!(m, ServerMsg::LobbyState(_)))
        .await
        .msg
    {
        ServerMsg::LobbyState(l) => assert_eq!(l.code, code, "the lobby it is in"),
        _ => unreachable!(),
    }

    again
        .send(json!({"t": "create_lobby", "id": "c", "d": {"mode": "journey", "fill_with_bots": true}}))
        .await;
    let answer = answer_to(&mut again, "c").await;
    let second_lobby = matches!(answer, ServerMsg::Ack(_));
    if second_lobby {
        // Show the harm: both lobbies start, and the player sits in both matches.
        again.send(json!({"t": "start_lobby", "id": "s"})).await;
        again
            .until(|m| matches!(m, ServerMsg::MatchStarted(_)))
            .await;
        host.send(json!({"t": "start_lobby", "id": "s"})).await;
        host.until(|m| matches!(m, ServerMsg::MatchStarted(_)))
            .await;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let seats: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM match_seats s JOIN matches m ON m.id = s.match_id \
         WHERE s.player_id = $1 AND m.status = 'running'",
    )
    .bind(mid)
    .fetch_one(&pool)
    .await
    .unwrap();
    pool.close().await;
    for n in nodes {
        n.proc.kill9().await;
    }
    assert!(
        !second_lobby,
        "create_lobby of a lobby member (its lobby on n1, its new socket on n3) was \
         accepted; the player is now seated in {seats} running matches"
    );
}

/// A player queued through one node that is not the matchmaker opens a second
/// socket on another such node (the first is replaced, 4000). The new socket gets
/// its `queue_status` (proto §4), and its `leave_queue` (id `l`) is answered `ack`
/// (before, the matchmaker answered through the stand-in of the first socket,
/// which is gone, and the request was never answered).
#[tokio::test]
async fn leave_queue_after_a_replacement_on_another_node_is_answered() {
    with_db("ludo_cluster", |url| {
        Box::pin(async move {
            tokio::time::timeout(Duration::from_secs(120), replaced_queued(url))
                .await
                .expect("the test ends within 2 minutes")
        })
    })
    .await;
}

async fn replaced_queued(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let mut spec = Spec::new(&url, 3000);
    spec.extra = vec![("LUDO_BOT_FILL_SECONDS", "60")];
    let nodes = cluster_of(&spec, 3, dir.path()).await;
    let mm = matchmaker_node(&pool).await;
    let others: Vec<&Node> = nodes.iter().filter(|n| n.id != mm).collect();
    let (x, y) = (&others[0].proc, &others[1].proc);
    let (id, token) = x.guest("Queued").await;
    let mut first = Player::connect(x, id, &token).await.0;
    first
        .send(json!({"t": "join_queue", "id": "q", "d": {"mode": "clash"}}))
        .await;
    first
        .until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "q"))
        .await;
    let (mut again, _) = Player::connect(y, id, &token).await;
    assert_eq!(closed(&mut first).await, Some(4000), "replaced");
    again
        .until(|m| matches!(m, ServerMsg::QueueStatus(_)))
        .await;
    again.send(json!({"t": "leave_queue", "id": "l"})).await;
    let answer = tokio::time::timeout(Duration::from_secs(10), answer_to(&mut again, "l")).await;
    pool.close().await;
    for n in nodes {
        n.proc.kill9().await;
    }
    let answer = answer.expect("leave_queue (id l) on the new socket is answered within 10 s");
    assert!(matches!(answer, ServerMsg::Ack(_)), "{answer:?}");
}

/// Two sockets of one player sign in on two nodes at the same moment (a phone
/// and a laptop, or a reconnect racing the old socket) and each at once creates
/// and starts a lobby with bots. Each node's `create_lobby` first waits for the
/// hand-over of the player's other socket (at most 200 ms after sign-in); by then
/// the older socket is replaced (4000) and its request goes no further. In each of
/// five tries the player is seated in at most one running match (proto §4:
/// `already_busy` when "seated in a running match"; before the hand-over, most
/// tries seated it twice).
#[tokio::test]
async fn simultaneous_sign_ins_on_two_nodes_do_not_seat_a_player_twice() {
    with_db("ludo_cluster", |url| {
        Box::pin(async move {
            tokio::time::timeout(Duration::from_secs(120), simultaneous_sign_ins(url))
                .await
                .expect("the test ends within 2 minutes")
        })
    })
    .await;
}

async fn simultaneous_sign_ins(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let nodes = cluster(&url, 2, 3000, dir.path()).await;
    let mut twice = Vec::new();
    for attempt in 0..5 {
        let (id, token) = nodes[0].proc.guest(&format!("Racer{attempt}")).await;
        let mut sockets = Vec::new();
        for n in &nodes {
            let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", n.proc.addr))
                .await
                .unwrap();
            sockets.push(Player::from_socket(ws, id, &token));
        }
        let hello =
            json!({"t": "hello", "d": {"token": token, "protocol_version": 3, "client": "race"}});
        let create =
            json!({"t": "create_lobby", "id": "c", "d": {"mode": "clash", "fill_with_bots": true}});
        let start = json!({"t": "start_lobby", "id": "s"});
        for msg in [&hello, &create, &start] {
            for s in sockets.iter_mut() {
                s.send(msg.clone()).await;
            }
        }
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let seats: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM match_seats s JOIN matches m ON m.id = s.match_id \
             WHERE s.player_id = $1 AND m.status = 'running'",
        )
        .bind(id)
        .fetch_one(&pool)
        .await
        .unwrap();
        if seats > 1 {
            twice.push((attempt, seats));
        }
    }
    pool.close().await;
    for n in nodes {
        n.proc.kill9().await;
    }
    assert!(
        twice.is_empty(),
        "(attempt, running matches the player is seated in): {twice:?}"
    );
}

/// A member on n2 of a lobby on n1 drops (its socket closes: the seat is away for
/// the lobby's grace) and signs in again on n3 within the grace. n3 gets the seat
/// handed over: the new socket gets the lobby's `lobby_state` and its
/// `create_lobby` is `already_busy` (before, n3 knew nothing of the lobby and the
/// player could open a second one).
#[tokio::test]
async fn a_lobby_member_back_on_another_node_within_the_grace_keeps_its_seat() {
    with_db("ludo_cluster", |url| {
        Box::pin(async move {
            tokio::time::timeout(Duration::from_secs(120), back_on_another_node(url))
                .await
                .expect("the test ends within 2 minutes")
        })
    })
    .await;
}

async fn back_on_another_node(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let nodes = cluster(&url, 3, 3000, dir.path()).await;
    let (host, member, code) =
        remote_member(&nodes, json!({"mode": "clash", "fill_with_bots": true})).await;
    let (mid, mtoken) = (member.player_id, member.token.clone());
    drop(member);
    // The member's seat is kept, away, for the lobby's grace.
    let (mut again, _) = Player::connect(&nodes[2].proc, mid, &mtoken).await;
    match again
        .until(|m| matches!(m, ServerMsg::LobbyState(_)))
        .await
        .msg
    {
        ServerMsg::LobbyState(l) => {
            assert_eq!(l.code, code, "the lobby it is in");
            assert_eq!(l.members.len(), 2);
        }
        _ => unreachable!(),
    }
    again
        .send(json!({"t": "create_lobby", "id": "c", "d": {"mode": "journey"}}))
        .await;
    assert_eq!(
        error_of(&mut again, "c").await,
        protocol::ErrorCode::AlreadyBusy
    );
    drop(host);
    for n in nodes {
        n.proc.kill9().await;
    }
}
