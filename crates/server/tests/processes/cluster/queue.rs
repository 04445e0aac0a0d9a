//! The cluster-wide queue: players queued on three nodes meet, the bot fill, the
//! queue outliving its matchmaker.

use super::*;

/// Shared quick play: four players queued on three different nodes (n1, n2, n3,
/// n2) meet in one match of four humans, run by the cluster's matchmaker node; a
/// player signing in again on its own node is shown the match (`active_matches`)
/// and gets its snapshot; they play it to `match_ended` and the replay verifies.
#[tokio::test]
async fn players_queued_on_three_nodes_meet_in_one_match() {
    with_db("ludo_cluster", |url| {
        Box::pin(async move {
            // Every wait is bounded, also one that keeps reading pings.
            tokio::time::timeout(Duration::from_secs(180), queue_across_nodes(url))
                .await
                .expect("the test ends within 3 minutes")
        })
    })
    .await;
}

async fn queue_across_nodes(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let nodes = cluster(&url, 3, 3000, dir.path()).await;
    let mm = matchmaker_node(&pool).await;
    let homes = [0usize, 1, 2, 1];
    let queued = queue_on(&nodes, &homes).await;
    let match_id = queued[0].1.match_id;
    let mut by_seat: Vec<Option<(usize, Player)>> = (0..4).map(|_| None).collect();
    for (i, (p, m)) in queued.into_iter().enumerate() {
        assert_eq!(m.match_id, match_id, "one match for the four");
        assert!(m.seats.iter().all(|s| !s.bot), "four humans, no bot");
        by_seat[m.your_seat.expect("seated").index()] = Some((homes[i], p));
    }
    assert_eq!(
        owner(&pool, match_id).await.expect("leased").0,
        mm,
        "the match runs on the matchmaker node"
    );
    let mut players = Vec::new();
    for slot in by_seat {
        let (home, old) = slot.expect("every seat taken");
        // Signing in again on its own node: the match is listed and attached.
        let p = rejoin(&nodes[home].proc, &old, match_id).await;
        drop(old);
        players.push(p);
    }
    assert_eq!(play_until(&mut players, match_id, u32::MAX).await, 0);
    check_replay(&nodes[0].proc, match_id, &seen_turns(&players)).await;
    // Out of the match, every player may queue again on its node.
    for (p, &h) in players.iter_mut().zip(homes.iter()) {
        p.send(json!({"t": "join_queue", "id": "again", "d": {"mode": "journey"}}))
            .await;
        let reply = p
            .until(|m| matches!(m, ServerMsg::Ack(_) | ServerMsg::Error(_)))
            .await;
        assert!(
            matches!(reply.msg, ServerMsg::Ack(_)),
            "queued again on {}: {:?}",
            nodes[h].id,
            reply.msg
        );
    }
    pool.close().await;
    for n in nodes {
        n.proc.kill9().await;
    }
}

/// The bot fill runs cluster-wide: two players queued on two different nodes get
/// one match with two bots once the (1 s) wait ran out.
#[tokio::test]
async fn the_bot_fill_joins_players_of_different_nodes() {
    with_db("ludo_cluster", |url| {
        Box::pin(async move {
            // Every wait is bounded, also one that keeps reading pings.
            tokio::time::timeout(Duration::from_secs(180), bot_fill_across_nodes(url))
                .await
                .expect("the test ends within 3 minutes")
        })
    })
    .await;
}

async fn bot_fill_across_nodes(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let mut spec = Spec::new(&url, 3000);
    spec.extra.push(("LUDO_BOT_FILL_SECONDS", "1"));
    spec.extra.push(("LUDO_BOT_THINK_MS", "10"));
    let nodes = cluster_of(&spec, 3, dir.path()).await;
    let mm = matchmaker_node(&pool).await;
    let queued = queue_on(&nodes, &[1, 2]).await;
    let match_id = queued[0].1.match_id;
    for (_, m) in &queued {
        assert_eq!(m.match_id, match_id, "one match for the two");
        assert_eq!(m.seats.iter().filter(|s| s.bot).count(), 2, "two bots");
    }
    assert_eq!(owner(&pool, match_id).await.expect("leased").0, mm);
    pool.close().await;
    for n in nodes {
        n.proc.kill9().await;
    }
}

/// The matchmaker's death does not lose its queue: two players queued on the two
/// other nodes, `kill -9` of the matchmaker node; once another node is elected,
/// their nodes queue them there again, and two players queueing after the
/// election on the surviving nodes meet them in one match of four humans — the
/// first two never sent `join_queue` again.
#[tokio::test]
async fn the_queue_survives_the_matchmakers_death() {
    with_db("ludo_cluster", |url| {
        Box::pin(async move {
            tokio::time::timeout(Duration::from_secs(180), queue_survives(url))
                .await
                .expect("the test ends within 3 minutes")
        })
    })
    .await;
}

async fn queue_survives(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let mut spec = Spec::new(&url, 3000);
    // No bot fill during the test: only four humans make a match.
    spec.extra.push(("LUDO_BOT_FILL_SECONDS", "600"));
    let mut nodes = cluster_of(&spec, 3, dir.path()).await;
    let mm = matchmaker_node(&pool).await;
    let dead = nodes.iter().position(|n| n.id == mm).unwrap();
    let dead = nodes.remove(dead);
    let mut players = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        let (id, token) = n.proc.guest(&format!("S{i}")).await;
        let (mut p, _) = Player::connect(&n.proc, id, &token).await;
        p.send(json!({"t": "join_queue", "id": "q", "d": {"mode": "clash"}}))
            .await;
        match p.recv().await.msg {
            ServerMsg::Ack(a) => assert_eq!(a.id, "q"),
            other => panic!("not queued on {}: {other:?}", n.id),
        }
        players.push(p);
    }
    dead.proc.kill9().await;
    // Another node takes the role once the dead one's expires.
    let t0 = Instant::now();
    let new_mm = loop {
        let n = matchmaker_node(&pool).await;
        if n != mm {
            break n;
        }
        assert!(t0.elapsed() < BOUND, "no new matchmaker");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(nodes.iter().any(|n| n.id == new_mm));
    // Two more players, one per surviving node; a join may find the new matchmaker
    // not serving yet for a moment (`internal`): it is tried again.
    for (i, n) in nodes.iter().enumerate() {
        let (id, token) = n.proc.guest(&format!("T{i}")).await;
        let (mut p, _) = Player::connect(&n.proc, id, &token).await;
        let t0 = Instant::now();
        loop {
            p.send(json!({"t": "join_queue", "id": "q", "d": {"mode": "clash"}}))
                .await;
            match p
                .until(|m| matches!(m, ServerMsg::Ack(_) | ServerMsg::Error(_)))
                .await
                .msg
            {
                ServerMsg::Ack(_) => break,
                ServerMsg::Error(e) => {
                    assert_eq!(e.code, protocol::ErrorCode::Internal, "{e:?}");
                    assert!(t0.elapsed() < BOUND, "never queued on {}", n.id);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                _ => unreachable!(),
            }
        }
        players.push(p);
    }
    let mut ids = Vec::new();
    for p in players.iter_mut() {
        match p
            .until(|m| matches!(m, ServerMsg::MatchStarted(_)))
            .await
            .msg
        {
            ServerMsg::MatchStarted(m) => {
                assert!(m.seats.iter().all(|s| !s.bot), "four humans");
                ids.push(m.match_id);
            }
            _ => unreachable!(),
        }
    }
    assert!(ids.iter().all(|m| *m == ids[0]), "one match: {ids:?}");
    assert_eq!(owner(&pool, ids[0]).await.expect("leased").0, new_mm);
    pool.close().await;
    for n in nodes {
        n.proc.kill9().await;
    }
}
