//! Accounts and sessions end to end (issue 29; in-process server, SQLite; the
//! PostgreSQL side of the store is the store's contract suite, and the cluster
//! sign-out is `processes/cluster.rs`): a guest with a running match claims an
//! account and signs in from a fresh device, keeping id, history and match; sessions
//! are listed and signed out, closing the socket with 4002; sign-in failures look
//! alike and are limited; sessions expire on the (manual) clock; deleting an account
//! keeps replays verifiable and its name out of every REST answer; bad input gets
//! typed errors and changes nothing.

use crate::common::*;
use protocol::{ErrorCode, ServerMsg};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use std::net::IpAddr;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use uuid::Uuid;

/// A REST client whose requests come from 127.0.0.`host` (its own budgets).
pub(crate) fn from(host: u8) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(IpAddr::from([127, 0, 0, host]))
        .build()
        .unwrap()
}

/// Sends `method path` with `token` (when not empty) and `body` (when given);
/// returns (status, JSON body or null, Retry-After).
pub(crate) async fn call(
    c: &reqwest::Client,
    s: &TestServer,
    method: Method,
    path: &str,
    token: &str,
    body: Option<Value>,
) -> (StatusCode, Value, Option<String>) {
    let mut r = c.request(method, s.url(path));
    if !token.is_empty() {
        r = r.bearer_auth(token);
    }
    if let Some(b) = body {
        r = r.json(&b);
    }
    let r = r.send().await.unwrap();
    let status = r.status();
    let retry = r
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string());
    let text = r.text().await.unwrap();
    let v = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap()
    };
    (status, v, retry)
}

/// `GET path` with `token`: (status, body).
pub(crate) async fn get_as(s: &TestServer, path: &str, token: &str) -> (u16, Value) {
    let (st, v, _) = call(&reqwest::Client::new(), s, Method::GET, path, token, None).await;
    (st.as_u16(), v)
}

pub(crate) fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

pub(crate) async fn claim(s: &TestServer, token: &str, username: &str, password: &str) -> Value {
    let (st, v, _) = call(
        &reqwest::Client::new(),
        s,
        Method::POST,
        "/api/v1/accounts",
        token,
        Some(json!({"username": username, "password": password})),
    )
    .await;
    assert_eq!(st, 201, "{v}");
    v
}

pub(crate) async fn sign_in(
    s: &TestServer,
    username: &str,
    password: &str,
) -> (Uuid, String, Uuid) {
    let (st, v, _) = call(
        &reqwest::Client::new(),
        s,
        Method::POST,
        "/api/v1/sessions",
        "",
        Some(json!({"username": username, "password": password})),
    )
    .await;
    assert_eq!(st, 201, "{v}");
    (
        v["player_id"].as_str().unwrap().parse().unwrap(),
        v["token"].as_str().unwrap().to_string(),
        v["session_id"].as_str().unwrap().parse().unwrap(),
    )
}

/// A `hello` with `token` on a new socket is refused with `not_authenticated`.
async fn hello_refused(s: &TestServer, token: &str) {
    let mut sock = s.connect().await;
    sock.send(
        json!({"t": "hello", "d": {"token": token, "protocol_version": 3, "client": "test"}}),
    )
    .await;
    sock.expect_error(ErrorCode::NotAuthenticated).await;
}

/// Issue 29.1: a guest seated in a running match claims an account; a fresh device
/// (no stored token) signs in with username and password and gets the same
/// `player_id`, name and history, and its `hello` resumes the running match (the
/// old device's socket is replaced, 4000).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claimed_guest_signs_in_on_a_new_device_and_resumes_its_match() {
    let s = start(test_config()).await;
    let (mut clients, started) = lobby_of_four(&s, true, 1).await;
    let mut old = clients.remove(0);
    let match_id = started[0].match_id;
    let acc = claim(&s, &old.token, "Ada Lovelace", "অ্যানালিটিক্যাল ইঞ্জিন").await;
    assert_eq!(acc["player_id"], json!(old.player_id));
    assert_eq!(acc["username"], json!("Ada Lovelace"));
    assert_eq!(acc["name"], json!("P0"));

    // Any case of the username signs in.
    let (player, token, session) = sign_in(&s, "ADA LOVELACE", "অ্যানালিটিক্যাল ইঞ্জিন").await;
    assert_eq!(player, old.player_id);
    assert_ne!(token, old.token);
    let (st, me) = get_as(&s, "/api/v1/accounts/me", &token).await;
    assert_eq!(st, 200);
    assert_eq!(
        (
            &me["player_id"],
            &me["name"],
            &me["username"],
            &me["session_id"]
        ),
        (
            &json!(player),
            &json!("P0"),
            &json!("Ada Lovelace"),
            &json!(session)
        )
    );
    let (_, history) = get_as(&s, &format!("/api/v1/players/{player}/matches"), "").await;
    assert_eq!(history["matches"][0]["match_id"], json!(match_id));

    let (mut new, active) = s.reconnect(player, &token).await;
    assert_eq!(active, vec![match_id], "the running match is offered");
    let (f, _) = new
        .recv_until(|m| matches!(m, ServerMsg::Snapshot(_)))
        .await;
    let ServerMsg::Snapshot(snap) = f.msg else {
        unreachable!()
    };
    assert_eq!(snap.match_id, match_id);
    assert_eq!(old.expect_close().await, Some(CloseCode::from(4000)));
}

/// Issue 29.3: a player lists its sessions (most recently used first, the caller
/// marked), signs one out — that session's socket closes with 4002 within 1 s, its
/// token is refused by REST (401) and by `hello` — and then signs out all others,
/// and itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signing_out_a_session_closes_its_socket_with_4002_and_refuses_its_token() {
    let s = start(test_config()).await;
    let (id, guest_token) = s.guest("Bo").await;
    claim(&s, &guest_token, "bo", "password-1").await;
    let (_, phone_token, phone) = sign_in(&s, "bo", "password-1").await;
    let (_, tablet_token, tablet) = sign_in(&s, "bo", "password-1").await;
    let (mut socket, _) = s.reconnect(id, &phone_token).await;

    let c = reqwest::Client::new();
    let (st, list) = get_as(&s, "/api/v1/sessions", &tablet_token).await;
    assert_eq!(st, 200);
    let sessions = list["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 3, "{list}");
    // The phone's hello is its latest use; its client string is the hello's.
    assert_eq!(sessions[0]["session_id"], json!(phone));
    assert_eq!(sessions[0]["client"], json!("test"));
    let current: Vec<&Value> = sessions
        .iter()
        .filter(|x| x["current"] == json!(true))
        .collect();
    assert_eq!(current.len(), 1);
    assert_eq!(current[0]["session_id"], json!(tablet));

    let path = format!("/api/v1/sessions/{phone}");
    let (st, _, _) = call(&c, &s, Method::DELETE, &path, &tablet_token, None).await;
    assert_eq!(st, 204);
    let t = tokio::time::Instant::now();
    assert_eq!(socket.expect_close().await, Some(CloseCode::from(4002)));
    assert!(
        t.elapsed() < std::time::Duration::from_secs(1),
        "{:?}",
        t.elapsed()
    );
    let (st, v) = get_as(&s, "/api/v1/accounts/me", &phone_token).await;
    assert_eq!((st, code(&v)), (401, "not_authenticated"));
    hello_refused(&s, &phone_token).await;
    // Signing it out again: 404.
    let (st, v, _) = call(&c, &s, Method::DELETE, &path, &tablet_token, None).await;
    assert_eq!((st.as_u16(), code(&v)), (404, "session_not_found"));

    let (mut guest_socket, _) = s.reconnect(id, &guest_token).await;
    let (st, v, _) = call(
        &c,
        &s,
        Method::DELETE,
        "/api/v1/sessions/others",
        &tablet_token,
        None,
    )
    .await;
    assert_eq!((st.as_u16(), &v), (200, &json!({"signed_out": 1})));
    assert_eq!(
        guest_socket.expect_close().await,
        Some(CloseCode::from(4002))
    );
    let (st, list) = get_as(&s, "/api/v1/sessions", &tablet_token).await;
    assert_eq!(st, 200);
    assert_eq!(list["sessions"].as_array().unwrap().len(), 1);
    // Signing out itself (`current`): its own token stops working.
    let (st, _, _) = call(
        &c,
        &s,
        Method::DELETE,
        "/api/v1/sessions/current",
        &tablet_token,
        None,
    )
    .await;
    assert_eq!(st, 204);
    assert_eq!(get_as(&s, "/api/v1/sessions", &tablet_token).await.0, 401);
}

/// Issue 29.4: an unknown username and a wrong password get the same status, body
/// and code; 20 wrong passwords from one address are cut off after the address's
/// burst (10) with `Retry-After`; the right password still works from another
/// address while the account's budget (burst 15) allows; past it, attempts on the
/// account wait whatever the address.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_sign_ins_look_alike_and_are_limited_per_address_and_per_account() {
    let s = start(server::Config {
        sign_ins_per_minute: 1,
        sign_in_burst: 10,
        account_sign_ins_per_minute: 1,
        account_sign_in_burst: 15,
        ..test_config()
    })
    .await;
    let (_, token) = s.guest("Cy").await;
    claim(&s, &token, "cy", "right password").await;
    let post = |c: reqwest::Client, user: &'static str, pw: &'static str| {
        let url = s.url("/api/v1/sessions");
        async move {
            let r = c
                .post(url)
                .json(&json!({"username": user, "password": pw}))
                .send()
                .await
                .unwrap();
            let st = r.status().as_u16();
            let retry = r
                .headers()
                .get("retry-after")
                .map(|v| v.to_str().unwrap().to_string());
            (st, r.text().await.unwrap(), retry)
        }
    };
    let (a, b) = (from(81), from(82));
    let wrong = post(a.clone(), "cy", "wrong password").await;
    let unknown = post(b.clone(), "nobody", "wrong password").await;
    assert_eq!(wrong.0, 401);
    assert_eq!(
        (wrong.0, &wrong.1),
        (unknown.0, &unknown.1),
        "identical answers"
    );
    assert!(
        wrong.1.contains(r#""code":"bad_credentials""#),
        "{}",
        wrong.1
    );

    // 19 more wrong passwords from address a: 9 more 401s, then 429s.
    let mut statuses = Vec::new();
    let mut retry = None;
    for _ in 0..19 {
        let (st, _, r) = post(a.clone(), "cy", "wrong password").await;
        statuses.push(st);
        retry = retry.or(r);
    }
    assert_eq!(statuses[..9], [401; 9]);
    assert_eq!(statuses[9..], [429; 10]);
    let retry: u64 = retry.expect("Retry-After on 429").parse().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    // The account took 10 attempts (a's 429s took none): 5 left, from b and c.
    assert_eq!(post(b.clone(), "cy", "right password").await.0, 201);
    for _ in 0..3 {
        assert_eq!(post(b.clone(), "cy", "wrong password").await.0, 401);
    }
    assert_eq!(post(from(83), "cy", "right password").await.0, 201);
    // The 16th attempt on "cy" waits, from a fresh address too.
    let (st, body, r) = post(from(84), "cy", "right password").await;
    assert_eq!(st, 429, "{body}");
    assert!(r.is_some());
}

/// Issue 29.3: a session idle for `--session-idle-days` (30) still works; one idle
/// a millisecond longer has expired: REST 401 and `hello` `not_authenticated`, on
/// the manual clock.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_idle_past_the_limit_expires() {
    let (s, clock) = start_manual(test_config()).await;
    let (id, token) = s.guest("Di").await;
    let (_, other) = s.guest("Ed").await;
    let idle = 30 * 86_400_000;
    clock.advance_ms(idle);
    let (st, _) = get_as(&s, "/api/v1/accounts/me", &token).await;
    assert_eq!(st, 200, "exactly 30 days idle: still valid (and now used)");
    clock.advance_ms(idle);
    let (st, _) = get_as(&s, "/api/v1/accounts/me", &token).await;
    assert_eq!(st, 200, "30 days after its last use");
    clock.advance_ms(idle + 1);
    let (st, v) = get_as(&s, "/api/v1/accounts/me", &token).await;
    assert_eq!((st, code(&v)), (401, "not_authenticated"));
    hello_refused(&s, &token).await;
    // Ed's session, unused for 90 days, has expired too; the players remain.
    assert_eq!(get_as(&s, "/api/v1/accounts/me", &other).await.0, 401);
    assert_eq!(s.store.player(id).await.unwrap().unwrap().name, "Di");
    assert!(s.store.sessions_of(id).await.unwrap().is_empty());
}

/// Issue 29.5: after a finished rated match, the player renames itself, claims an
/// account, changes its password (the other session is signed out) and deletes its
/// account: 204; its token and credentials are refused; the replay still verifies
/// with the seat's name `""`; its names appear in no REST answer (match, replay, the
/// other player's history, the leaderboard, where it stood before); its profile is
/// 404.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_an_account_keeps_replays_verifiable_and_its_name_nowhere() {
    let (s, clock) = start_manual(server::Config {
        match_seconds: 600,
        rating_min_matches: 1,
        ..test_config()
    })
    .await;
    let (mut clients, started) = lobby_of_four(&s, true, 2).await;
    let match_id = started[0].match_id;
    // P1 leaves; the clock moves only while nothing is being written (a write in
    // flight across the jump would postpone the match clock, as after a slow
    // store): once the leave is shown and the turn is P0's own.
    clients[1]
        .send(json!({"t": "leave_match", "id": "bye", "d": {"match_id": match_id}}))
        .await;
    clients[1]
        .recv_until(|m| matches!(m, ServerMsg::Ack(a) if a.id == "bye"))
        .await;
    let mine = started[0].your_seat;
    let (mut left, mut turn) = (false, None);
    while !(left && turn == mine) {
        match clients[0].recv().await.msg {
            ServerMsg::SeatLeft(_) => left = true,
            ServerMsg::TurnStarted(t) => turn = Some(t.seat),
            _ => {}
        }
    }
    clock.advance_ms(600_001);
    clients[0]
        .recv_until(|m| matches!(m, ServerMsg::MatchEnded(_)))
        .await;
    let p0 = clients.remove(0);
    let c = reqwest::Client::new();

    let (st, v, _) = call(
        &c,
        &s,
        Method::PATCH,
        "/api/v1/accounts/me",
        &p0.token,
        Some(json!({"name": "Zephyrine"})),
    )
    .await;
    assert_eq!((st.as_u16(), &v["name"]), (200, &json!("Zephyrine")));
    claim(&s, &p0.token, "zephyrine_q", "first password").await;
    let (_, second, _) = sign_in(&s, "zephyrine_q", "first password").await;
    let change = |cur: &str, new: &str| json!({"current_password": cur, "new_password": new});
    let (st, v, _) = call(
        &c,
        &s,
        Method::POST,
        "/api/v1/accounts/me/password",
        &p0.token,
        Some(change("wrong one!", "second password")),
    )
    .await;
    assert_eq!((st.as_u16(), code(&v)), (401, "bad_credentials"));
    let (st, v, _) = call(
        &c,
        &s,
        Method::POST,
        "/api/v1/accounts/me/password",
        &p0.token,
        Some(change("first password", "second password")),
    )
    .await;
    assert_eq!((st.as_u16(), &v), (200, &json!({"signed_out": 1})));
    assert_eq!(
        get_as(&s, "/api/v1/accounts/me", &second).await.0,
        401,
        "signed out"
    );
    let board = get_as(&s, "/api/v1/leaderboard?mode=journey", "")
        .await
        .1
        .to_string();
    assert!(board.contains("Zephyrine"), "on the board before: {board}");

    // Delete: the wrong password changes nothing; the right one deletes.
    let (st, v, _) = call(
        &c,
        &s,
        Method::DELETE,
        "/api/v1/accounts/me",
        &p0.token,
        Some(json!({"password": "first password"})),
    )
    .await;
    assert_eq!((st.as_u16(), code(&v)), (401, "bad_credentials"));
    let (st, _, _) = call(
        &c,
        &s,
        Method::DELETE,
        "/api/v1/accounts/me",
        &p0.token,
        Some(json!({"password": "second password"})),
    )
    .await;
    assert_eq!(st, 204);
    assert_eq!(get_as(&s, "/api/v1/accounts/me", &p0.token).await.0, 401);
    let (st, v, _) = call(
        &c,
        &s,
        Method::POST,
        "/api/v1/sessions",
        "",
        Some(json!({"username": "zephyrine_q", "password": "second password"})),
    )
    .await;
    assert_eq!((st.as_u16(), code(&v)), (401, "bad_credentials"));

    let (st, replay) = get_as(&s, &format!("/api/v1/matches/{match_id}/replay"), "").await;
    assert_eq!(st, 200);
    let r: engine::Replay = serde_json::from_value(replay.clone()).unwrap();
    engine::replay::verify(&r).expect("the replay verifies");
    let p1 = clients[0].player_id;
    let name_of = |player: Uuid| {
        replay["seats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["player_id"] == json!(player))
            .map(|x| x["name"].clone())
    };
    assert_eq!(
        name_of(p0.player_id),
        Some(json!("")),
        "the deleted player's seat"
    );
    assert_eq!(name_of(p1), Some(json!("P1")));
    let mut answers = vec![replay];
    for path in [
        format!("/api/v1/matches/{match_id}"),
        format!("/api/v1/players/{p1}/matches"),
        "/api/v1/leaderboard?mode=journey".to_string(),
    ] {
        let (st, v) = get_as(&s, &path, "").await;
        assert_eq!(st, 200, "{path}");
        answers.push(v);
    }
    for a in &answers {
        let text = a.to_string();
        for name in ["Zephyrine", "\"P0\"", "zephyrine_q"] {
            assert!(!text.contains(name), "{name} in {text}");
        }
    }
    let (st, v) = get_as(&s, &format!("/api/v1/players/{}", p0.player_id), "").await;
    assert_eq!((st, code(&v)), (404, "player_not_found"));
}

/// Issue 29: bad input gets a typed error and changes nothing: empty, over-long,
/// control-character and space-led usernames; short, 10 kB and control-character
/// passwords; bodies that are not objects or have unknown fields; a taken username
/// (any case); a second claim; a guest changing a password it does not have.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_account_input_gets_typed_errors_and_changes_nothing() {
    let s = start(test_config()).await;
    let (id, token) = s.guest("Fay").await;
    let (_, other) = s.guest("Gus").await;
    let c = reqwest::Client::new();
    let long = "p".repeat(10_000);
    let cases: Vec<(Value, u16, &str)> = vec![
        (
            json!({"username": "", "password": "password1"}),
            400,
            "invalid_username",
        ),
        (
            json!({"username": "x".repeat(25), "password": "password1"}),
            400,
            "invalid_username",
        ),
        (
            json!({"username": "a\u{7}b", "password": "password1"}),
            400,
            "invalid_username",
        ),
        (
            json!({"username": " fay", "password": "password1"}),
            400,
            "invalid_username",
        ),
        (
            json!({"username": "fay", "password": "1234567"}),
            400,
            "invalid_password",
        ),
        (
            json!({"username": "fay", "password": long}),
            400,
            "invalid_password",
        ),
        (
            json!({"username": "fay", "password": "pass\u{0}word1"}),
            400,
            "invalid_password",
        ),
        (json!({"username": "fay"}), 400, "bad_json"),
        (json!(["fay", "password1"]), 400, "bad_json"),
        (
            json!({"username": "fay", "password": "password1", "admin": true}),
            400,
            "bad_json",
        ),
    ];
    for (body, status, want) in cases {
        let (st, v, _) = call(
            &c,
            &s,
            Method::POST,
            "/api/v1/accounts",
            &token,
            Some(body.clone()),
        )
        .await;
        assert_eq!((st.as_u16(), code(&v)), (status, want), "{body}");
    }
    assert_eq!(
        s.store.player(id).await.unwrap().unwrap().username,
        None,
        "nothing claimed"
    );
    let ok = json!({"username": "fay", "password": "password1"});
    let (st, v, _) = call(
        &c,
        &s,
        Method::POST,
        "/api/v1/accounts",
        "",
        Some(ok.clone()),
    )
    .await;
    assert_eq!((st.as_u16(), code(&v)), (401, "not_authenticated"));
    let (st, v, _) = call(
        &c,
        &s,
        Method::POST,
        "/api/v1/accounts/me/password",
        &token,
        Some(json!({"current_password": "password1", "new_password": "password2"})),
    )
    .await;
    assert_eq!((st.as_u16(), code(&v)), (409, "not_claimed"));

    claim(&s, &token, "Fay", "password1").await;
    let (st, v, _) = call(
        &c,
        &s,
        Method::POST,
        "/api/v1/accounts",
        &token,
        Some(json!({"username": "fay2", "password": "password1"})),
    )
    .await;
    assert_eq!((st.as_u16(), code(&v)), (409, "already_claimed"));
    let (st, v, _) = call(
        &c,
        &s,
        Method::POST,
        "/api/v1/accounts",
        &other,
        Some(json!({"username": "FAY", "password": "password1"})),
    )
    .await;
    assert_eq!((st.as_u16(), code(&v)), (409, "username_taken"));
    let (st, v, _) = call(
        &c,
        &s,
        Method::PATCH,
        "/api/v1/accounts/me",
        &token,
        Some(json!({"name": "\u{202E}evil"})),
    )
    .await;
    assert_eq!((st.as_u16(), code(&v)), (400, "invalid_name"));
    let (st, v, _) = call(
        &c,
        &s,
        Method::DELETE,
        "/api/v1/sessions/not-a-uuid",
        &token,
        None,
    )
    .await;
    assert_eq!((st.as_u16(), code(&v)), (400, "invalid_id"));
    let (st, v, _) = call(
        &c,
        &s,
        Method::DELETE,
        "/api/v1/accounts/me",
        &token,
        Some(json!({})),
    )
    .await;
    assert_eq!(
        (st.as_u16(), code(&v)),
        (400, "invalid_password"),
        "an account needs its password"
    );
    // A 10 kB password at sign-in is a wrong one.
    let (st, v, _) = call(
        &c,
        &s,
        Method::POST,
        "/api/v1/sessions",
        "",
        Some(json!({"username": "fay", "password": long})),
    )
    .await;
    assert_eq!((st.as_u16(), code(&v)), (401, "bad_credentials"));
    let p = s.store.player(id).await.unwrap().unwrap();
    assert_eq!(
        (p.name.as_str(), p.username.as_deref()),
        ("Fay", Some("Fay"))
    );
    assert_eq!(s.store.sessions_of(id).await.unwrap().len(), 1);
}
