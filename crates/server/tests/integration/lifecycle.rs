//! Match lifecycle for real players (issue 12): request order on one socket, a
//! second tab, the lobby grace period, the text policy over REST and chat, private
//! matches kept out of the live list, and answers that match `proto/README.md`.

use crate::common::*;
use protocol::{ErrorCode, ServerFrame, ServerMsg};
use serde_json::{json, Value};
use std::time::Duration;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use uuid::Uuid;

/// Test defaults without the message budget getting in the way of many requests.
fn roomy_config() -> server::Config {
    server::Config {
        rate_per_second: 10_000,
        rate_burst: 10_000,
        ..test_config()
    }
}

/// The answers (`ack` ids, `error` codes with their `in_reply_to`) among `frames`,
/// in order.
fn answers(frames: &[ServerFrame]) -> Vec<String> {
    frames
        .iter()
        .filter_map(|f| match &f.msg {
            ServerMsg::Ack(a) => Some(format!("ack {}", a.id)),
            ServerMsg::Error(e) => Some(format!(
                "error {} {}",
                e.code.as_str(),
                e.in_reply_to.as_deref().unwrap_or("-")
            )),
            ServerMsg::Pong => Some("pong".into()),
            _ => None,
        })
        .collect()
}

/// Frames up to and including the one `pred` accepts.
async fn frames_until(c: &mut Client, pred: impl Fn(&ServerMsg) -> bool) -> Vec<ServerFrame> {
    let (last, mut before) = c.recv_until(pred).await;
    before.push(last);
    before
}

fn is_ack(id: &str) -> impl Fn(&ServerMsg) -> bool + '_ {
    move |m| matches!(m, ServerMsg::Ack(a) if a.id == id)
}

async fn lobby_code(c: &mut Client) -> protocol::LobbyState {
    let (f, _) = c
        .recv_until(|m| matches!(m, ServerMsg::LobbyState(_)))
        .await;
    match f.msg {
        ServerMsg::LobbyState(l) => l,
        _ => unreachable!(),
    }
}

async fn get_json(s: &TestServer, path: &str) -> (u16, Value) {
    let r = reqwest::get(s.url(path)).await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

async fn post_guest(s: &TestServer, name: &str) -> (u16, Value) {
    let r = reqwest::Client::new()
        .post(s.url("/api/v1/guests"))
        .json(&json!({ "name": name }))
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

/// A one-human lobby match with bots, started; returns the player and match id.
async fn solo_match(s: &TestServer, name: &str, private: bool) -> (Client, Uuid) {
    let mut c = s.player(name).await;
    c.send(json!({"t": "create_lobby", "d": {"mode": "clash", "private": private, "fill_with_bots": true}}))
        .await;
    lobby_code(&mut c).await;
    c.send(json!({"t": "start_lobby"})).await;
    let st = expect_started(&mut c).await;
    (c, st.match_id)
}

// ----- item 4: one socket's requests take effect in the order sent -----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn join_leave_join_sent_back_to_back_are_answered_in_order() {
    // Issue 12 item 4: `j2` used to get `already_busy` in 40 of 50 trials, sometimes
    // before `l1`'s ack. Each request now takes effect before the next one is read.
    let s = start(roomy_config()).await;
    let mut c = s.player("Ada").await;
    for trial in 0..50 {
        for f in [
            json!({"t": "join_queue", "id": "j1", "d": {"mode": "clash"}}),
            json!({"t": "leave_queue", "id": "l1"}),
            json!({"t": "join_queue", "id": "j2", "d": {"mode": "clash"}}),
            json!({"t": "leave_queue", "id": "l2"}),
        ] {
            c.send(f).await;
        }
        let frames = frames_until(&mut c, is_ack("l2")).await;
        assert_eq!(
            answers(&frames),
            ["ack j1", "ack l1", "ack j2", "ack l2"],
            "trial {trial}"
        );
    }
    assert_eq!(
        s.state.presence().get(c.player_id),
        None,
        "not queued at the end"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_after_a_queue_leave_sees_the_player_free() {
    // leave_queue is handled by the matchmaker task; a create_lobby sent right after
    // it must find the player free.
    let s = start(roomy_config()).await;
    let mut c = s.player("Ada").await;
    c.send(json!({"t": "join_queue", "id": "j1", "d": {"mode": "journey"}}))
        .await;
    c.send(json!({"t": "leave_queue", "id": "l1"})).await;
    c.send(json!({"t": "create_lobby", "id": "c1", "d": {"mode": "journey"}}))
        .await;
    let frames = frames_until(&mut c, |m| matches!(m, ServerMsg::LobbyState(_))).await;
    assert_eq!(answers(&frames), ["ack j1", "ack l1"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_answers_before_the_next_request_is_handled() {
    // The room answers `chat` (ack, then the relayed line); a `ping` sent right
    // after it is answered only then.
    let s = start(roomy_config()).await;
    let (mut c, id) = solo_match(&s, "Ada", true).await;
    for i in 0..20 {
        let cid = format!("c{i}");
        c.send(json!({"t": "chat", "id": cid, "d": {"match_id": id, "text": "hi"}}))
            .await;
        c.send(json!({"t": "ping"})).await;
        let frames = frames_until(&mut c, |m| matches!(m, ServerMsg::Pong)).await;
        let order: Vec<&str> = frames
            .iter()
            .filter_map(|f| match &f.msg {
                ServerMsg::Ack(_) => Some("ack"),
                ServerMsg::Chat(_) => Some("chat"),
                ServerMsg::Pong => Some("pong"),
                _ => None,
            })
            .collect();
        assert_eq!(order, ["ack", "chat", "pong"], "round {i}");
    }
}

// ----- item 6: a second tab learns its state -----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_tab_gets_the_lobby_state_and_the_first_closes_with_4000() {
    let s = start(roomy_config()).await;
    let mut host = s.player("Ada").await;
    let mut bo = s.player("Bo").await;
    host.send(json!({"t": "create_lobby", "d": {"mode": "journey"}}))
        .await;
    let code = lobby_code(&mut host).await.code;
    bo.send(json!({"t": "join_lobby", "id": "jl", "d": {"code": code}}))
        .await;
    bo.recv_until(is_ack("jl")).await;

    let (mut tab2, active) = s.reconnect(host.player_id, &host.token).await;
    assert!(active.is_empty());
    assert_eq!(host.expect_close().await, Some(CloseCode::Library(4000)));
    // Right after welcome: the lobby as it is, code and members included.
    match tab2.recv().await.msg {
        ServerMsg::LobbyState(l) => {
            assert_eq!(l.code, code);
            assert_eq!(l.host, host.player_id);
            let members: Vec<Uuid> = l.members.iter().map(|m| m.player_id).collect();
            assert_eq!(members, [host.player_id, bo.player_id]);
        }
        other => panic!("expected lobby_state after welcome, got {other:?}"),
    }
    // The new tab is the member: it can start the lobby.
    tab2.send(json!({"t": "start_lobby"})).await;
    expect_started(&mut tab2).await;
    expect_started(&mut bo).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_tab_gets_the_queue_status() {
    let s = start(roomy_config()).await;
    let mut ada = s.player("Ada").await;
    ada.send(json!({"t": "join_queue", "id": "j", "d": {"mode": "clash"}}))
        .await;
    ada.recv_until(is_ack("j")).await;
    let (mut tab2, _) = s.reconnect(ada.player_id, &ada.token).await;
    assert_eq!(ada.expect_close().await, Some(CloseCode::Library(4000)));
    match tab2.recv().await.msg {
        ServerMsg::QueueStatus(q) => {
            assert_eq!(q.mode, engine::Mode::Clash);
            assert_eq!(q.waiting, 1);
            assert!(q.bots_in_seconds <= 60, "{}", q.bots_in_seconds);
        }
        other => panic!("expected queue_status after welcome, got {other:?}"),
    }
    // Still queued: leaving works from the new tab.
    tab2.send(json!({"t": "leave_queue", "id": "l"})).await;
    tab2.recv_until(is_ack("l")).await;
    assert_eq!(s.state.presence().get(ada.player_id), None);
}

// ----- item 8: a lobby keeps a seat for a grace period -----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_back_within_the_grace_period_keeps_the_lobby() {
    let s = start(server::Config {
        lobby_grace_seconds: 60,
        ..roomy_config()
    })
    .await;
    let mut host = s.player("Ada").await;
    let mut bo = s.player("Bo").await;
    host.send(json!({"t": "create_lobby", "d": {"mode": "journey"}}))
        .await;
    let code = lobby_code(&mut host).await.code;
    bo.send(json!({"t": "join_lobby", "id": "jl", "d": {"code": code}}))
        .await;
    bo.recv_until(is_ack("jl")).await;

    // A network blip: the host's socket drops.
    let (host_id, token) = (host.player_id, host.token.clone());
    host.ws.close(None).await.unwrap();
    drop(host);
    s.eventually("the host's socket is gone", |st| {
        st.session(host_id).is_none()
    })
    .await;
    // Bo's ping is answered with nothing before it: the lobby did not change.
    bo.send(json!({"t": "ping"})).await;
    assert!(matches!(bo.recv().await.msg, ServerMsg::Pong));

    let (mut host, _) = s.reconnect(host_id, &token).await;
    let l = lobby_code(&mut host).await;
    assert_eq!((l.code.as_str(), l.host), (code.as_str(), host_id));
    assert_eq!(l.members.len(), 2);
    host.send(json!({"t": "start_lobby"})).await;
    expect_started(&mut host).await;
    expect_started(&mut bo).await;
}

/// The grace period passes on Tokio's paused clock (no wall-clock wait), resumed
/// before the reconnect's `hello` reads the store.
#[tokio::test]
async fn a_member_away_past_the_grace_period_leaves_the_lobby() {
    let s = start(server::Config {
        lobby_grace_seconds: 1,
        ..roomy_config()
    })
    .await;
    let mut host = s.player("Ada").await;
    let mut bo = s.player("Bo").await;
    host.send(json!({"t": "create_lobby", "d": {"mode": "journey"}}))
        .await;
    let code = lobby_code(&mut host).await.code;
    bo.send(json!({"t": "join_lobby", "id": "jl", "d": {"code": code}}))
        .await;
    bo.recv_until(is_ack("jl")).await;

    let (host_id, token) = (host.player_id, host.token.clone());
    tokio::time::pause();
    let t0 = tokio::time::Instant::now();
    host.ws.close(None).await.unwrap();
    drop(host);
    // After the grace period (never before it) Bo is alone and the host.
    let l = lobby_code(&mut bo).await;
    let waited = t0.elapsed();
    tokio::time::resume();
    assert!(
        waited >= Duration::from_secs(1) && waited < Duration::from_millis(1100),
        "removed after {waited:?}, not at the end of the 1 s grace period"
    );
    assert_eq!(l.host, bo.player_id);
    let members: Vec<Uuid> = l.members.iter().map(|m| m.player_id).collect();
    assert_eq!(members, [bo.player_id]);

    // Back too late: no lobby state, and free to open a new lobby.
    let (mut host, _) = s.reconnect(host_id, &token).await;
    host.send(json!({"t": "create_lobby", "d": {"mode": "journey"}}))
        .await;
    let fresh = lobby_code(&mut host).await;
    assert_ne!(fresh.code, code);
    assert_eq!(fresh.members.len(), 1);
}

// ----- item 9: one text policy for names and chat -----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guest_names_follow_the_text_policy() {
    let s = start(roomy_config()).await;
    for (name, stored) in [
        ("👩\u{200D}💻", "👩\u{200D}💻"),
        (
            "👨\u{200D}👩\u{200D}👧\u{200D}👦 fam",
            "👨\u{200D}👩\u{200D}👧\u{200D}👦 fam",
        ),
        ("می\u{200C}خواهم", "می\u{200C}خواهم"),
        ("क्\u{200D}ष", "क्\u{200D}ष"),
        ("রবীন্দ্রনাথ", "রবীন্দ্রনাথ"),
        // Stored NFC-normalized.
        ("Zoe\u{301}", "Zo\u{E9}"),
    ] {
        let (status, v) = post_guest(&s, name).await;
        assert_eq!(status, 201, "{name:?}: {v}");
        let r = reqwest::Client::new()
            .get(s.url("/api/v1/guests/me"))
            .bearer_auth(v["token"].as_str().unwrap())
            .send()
            .await
            .unwrap();
        let me: Value = r.json().await.unwrap();
        assert_eq!(me["name"], stored, "{name:?}");
    }
    for bad in [
        "\u{2800}",
        "\u{301}\u{301}",
        "abc\u{2066}xyz\u{2069}",
        "a\u{200B}b",
        "\u{202E}Ada",
    ] {
        let (status, v) = post_guest(&s, bad).await;
        assert_eq!(
            (status, v["error"]["code"].as_str()),
            (400, Some("invalid_name")),
            "{bad:?}: {v}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_follows_the_text_policy() {
    let s = start(roomy_config()).await;
    let (mut c, id) = solo_match(&s, "Ada", true).await;
    for bad in [
        "\u{202E}olleh",
        "\u{200B}",
        "\u{2800}",
        "Z\u{336}\u{336}\u{336}\u{336}\u{336}",
    ] {
        c.send(json!({"t": "chat", "id": "bad", "d": {"match_id": id, "text": bad}}))
            .await;
        let (f, _) = c
            .recv_until(|m| matches!(m, ServerMsg::Error(_) | ServerMsg::Chat(_)))
            .await;
        match f.msg {
            ServerMsg::Error(e) => {
                assert_eq!(e.code, ErrorCode::InvalidText, "{bad:?}: {}", e.message);
                assert_eq!(e.in_reply_to.as_deref(), Some("bad"));
            }
            other => panic!("{bad:?} was relayed: {other:?}"),
        }
    }
    for (text, relayed) in [
        ("আমি বাংলায় গান গাই 🙂", "আমি বাংলায় গান গাই 🙂"),
        (
            "👨\u{200D}👩\u{200D}👧\u{200D}👦",
            "👨\u{200D}👩\u{200D}👧\u{200D}👦",
        ),
        ("cafe\u{301}", "caf\u{E9}"),
    ] {
        c.send(json!({"t": "chat", "id": "ok", "d": {"match_id": id, "text": text}}))
            .await;
        let (f, _) = c
            .recv_until(|m| matches!(m, ServerMsg::Error(_) | ServerMsg::Chat(_)))
            .await;
        match f.msg {
            ServerMsg::Chat(line) => assert_eq!(line.text, relayed),
            other => panic!("{text:?} was refused: {other:?}"),
        }
    }
}

// ----- item 10: private means unlisted -----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_lobbys_match_is_not_listed_but_can_be_watched_by_id() {
    let s = start(roomy_config()).await;
    let (_public_player, public) = solo_match(&s, "Pub", false).await;
    let (_private_player, private) = solo_match(&s, "Priv", true).await;
    // Wait until the store has both matches, so only the privacy rule can hide one.
    for id in [public, private] {
        let t0 = tokio::time::Instant::now();
        while get_json(&s, &format!("/api/v1/matches/{id}")).await.0 != 200 {
            assert!(t0.elapsed() < STEP, "match {id} stored");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let (status, live) = get_json(&s, "/api/v1/matches/live").await;
    assert_eq!(status, 200);
    let ids: Vec<&str> = live["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["match_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [public.to_string()], "{live}");
    // Whoever has the id can still watch.
    let mut watcher = s.player("Watcher").await;
    watcher
        .send(json!({"t": "spectate", "id": "w", "d": {"match_id": private}}))
        .await;
    let (f, _) = watcher
        .recv_until(|m| matches!(m, ServerMsg::Snapshot(_) | ServerMsg::Error(_)))
        .await;
    match f.msg {
        ServerMsg::Snapshot(snap) => assert_eq!(snap.match_id, private),
        other => panic!("expected a snapshot, got {other:?}"),
    }
}

// ----- item 11: answers as documented -----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pass_after_the_match_ended_is_match_over() {
    // proto/README.md §7: a plan that arrives after the match clock ran out gets
    // `match_over`, also once the room is gone.
    let (s, clock) = start_manual(server::Config {
        match_seconds: 1,
        turn_seconds: 1,
        ..roomy_config()
    })
    .await;
    let (mut c, id) = solo_match(&s, "Ada", true).await;
    clock.set_ms(T0 + 1_000);
    c.recv_until(|m| matches!(m, ServerMsg::MatchEnded(_)))
        .await;
    s.eventually("the room is gone", |st| st.room(id).is_none())
        .await;
    let t0 = tokio::time::Instant::now();
    while get_json(&s, &format!("/api/v1/matches/{id}")).await.0 != 200 {
        assert!(t0.elapsed() < STEP, "match stored");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    c.send(json!({"t": "pass", "id": "late", "d": {"match_id": id, "turn_number": 3}}))
        .await;
    let e = c.expect_error(ErrorCode::MatchOver).await;
    assert_eq!(e.in_reply_to.as_deref(), Some("late"));
    c.send(
        json!({"t": "submit_turn", "id": "late2", "d": {"match_id": id, "turn_number": 3,
        "plan": {"direction": "forward", "exits": [], "moves": {}, "royal_first": false}}}),
    )
    .await;
    let e = c.expect_error(ErrorCode::MatchOver).await;
    assert_eq!(e.in_reply_to.as_deref(), Some("late2"));
    // A match id never seen stays match_not_found.
    let unknown = Uuid::new_v4();
    c.send(json!({"t": "pass", "id": "nope", "d": {"match_id": unknown, "turn_number": 1}}))
        .await;
    let e = c.expect_error(ErrorCode::MatchNotFound).await;
    assert_eq!(e.in_reply_to.as_deref(), Some("nope"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limited_names_the_dropped_frame() {
    let s = start(server::Config {
        rate_per_second: 1,
        rate_burst: 1,
        ..test_config()
    })
    .await;
    // hello spends the one-message burst; of two frames sent at once right after
    // it, at most one fits the budget of one per second.
    let mut c = s.player("Ada").await;
    c.send(json!({"t": "ping", "id": "p2"})).await;
    c.send(json!({"t": "ping", "id": "p3"})).await;
    let (a, b) = (c.recv().await, c.recv().await);
    let limited: Vec<Option<String>> = [a, b]
        .into_iter()
        .filter_map(|f| match f.msg {
            ServerMsg::Error(e) => {
                assert_eq!(e.code, ErrorCode::RateLimited, "{}", e.message);
                Some(e.in_reply_to)
            }
            _ => None,
        })
        .collect();
    assert!(!limited.is_empty(), "one of the two is over the budget");
    let expected = [Some("p2".to_string()), Some("p3".to_string())];
    assert_eq!(
        limited,
        expected[2 - limited.len()..],
        "in_reply_to names the frame"
    );
}
