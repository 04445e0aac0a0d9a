//! The read-only REST API (`/api/v1/matches`, `/players`, `/leaderboard`, `/readyz`,
//! the OpenAPI document) against both stores: one suite, run on a SQLite file and on
//! a fresh PostgreSQL database. Matches are real: two connected humans play greedy
//! plans next to two bots until the 2-second match clock ends them (rule 9.1).

use crate::backends::*;
use crate::common::expect_started;
use engine::Mode;
use serde_json::{json, Value};
use server::room::{self, Occupant};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::time::Duration;
use uuid::Uuid;

/// Seconds of each match's clock.
const MATCH_SECONDS: u32 = 2;

/// The error body of a failed call: exactly `{"error": {"code", "message"}}`.
fn assert_error(path: &str, got: (u16, Value), status: u16, code: &str) {
    let (s, v) = got;
    assert_eq!(s, status, "{path}: {v}");
    assert_eq!(v["error"]["code"], code, "{path}: {v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{path}: {v}"
    );
    assert_eq!(v.as_object().map(|o| o.len()), Some(1), "{path}: {v}");
    assert_eq!(
        v["error"].as_object().map(|o| o.len()),
        Some(2),
        "{path}: {v}"
    );
}

/// Plays one journey match of `a` and `b` (connected humans) with two bots to its
/// end; before it ends checks what the API shows of a running match. Returns the
/// match id, the humans' clients back, the `match_ended` and the turns resolved.
async fn play_match(
    srv: &Srv,
    mut a: crate::common::Client,
    mut b: crate::common::Client,
) -> (
    Uuid,
    [crate::common::Client; 2],
    protocol::MatchEnded,
    Vec<u32>,
) {
    let occupants = vec![
        human(&a),
        human(&b),
        Occupant::Bot(bot::BotKind::Greedy),
        Occupant::Bot(bot::BotKind::Greedy),
    ];
    let id = room::start(srv.state.game(), Mode::Journey, occupants).expect("room starts");
    let (sa, sb) = (expect_started(&mut a).await, expect_started(&mut b).await);
    assert_eq!((sa.match_id, sb.match_id), (id, id));

    // While it runs: the summary says running and has no standings, the replay has
    // no seed and no end (RULES.md §10: the seed is revealed only at the end). The
    // humans have not started playing yet, so the match waits at the first human
    // turn (the match clock and the turn timer are seconds away): it is surely running.
    srv.state.writer().flush().await;
    let (s, m) = srv.get(&format!("/api/v1/matches/{id}")).await;
    assert_eq!(s, 200, "{m}");
    assert_eq!(
        (
            &m["status"],
            &m["standings"],
            &m["ended_at"],
            &m["end_reason"]
        ),
        (&json!("running"), &Value::Null, &Value::Null, &Value::Null),
        "{m}"
    );
    let (s, r) = srv.get(&format!("/api/v1/matches/{id}/replay")).await;
    assert_eq!(s, 200, "{r}");
    assert_eq!((&r["seed"], &r["end"]), (&Value::Null, &Value::Null), "{r}");
    assert_eq!(r["dice_commitment"], m["dice_commitment"]);
    // The live list shows the running room (for spectators), with its seats.
    let (s, l) = srv.get("/api/v1/matches/live").await;
    assert_eq!(s, 200, "{l}");
    let live: Vec<&Value> = l["matches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["match_id"] == json!(id))
        .collect();
    assert_eq!(live.len(), 1, "{l}");
    assert_eq!(
        (
            &live[0]["status"],
            live[0]["seats"].as_array().unwrap().len()
        ),
        (&json!("running"), 4)
    );

    let ta = tokio::spawn(play_greedy(a, sa));
    let tb = tokio::spawn(play_greedy(b, sb));
    let pa = tokio::time::timeout(Duration::from_secs(20), ta)
        .await
        .unwrap()
        .unwrap();
    let pb = tokio::time::timeout(Duration::from_secs(20), tb)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(pa.ended, pb.ended, "both humans see the same end");
    assert_eq!(pa.resolved, pb.resolved);
    srv.state.writer().flush().await;
    // Once ended, its room is gone from the live list (the room removes itself as it stops).
    let mut gone = false;
    for _ in 0..50 {
        let (_, l) = srv.get("/api/v1/matches/live").await;
        if !l["matches"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["match_id"] == json!(id))
        {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(gone, "an ended match is not listed as live");
    (id, [pa.client, pb.client], pa.ended, pa.resolved)
}

/// An ended match as the API shows it: summary, seats, standings and a replay that
/// re-plays to the same dice, events and standings.
async fn check_ended_match(
    srv: &Srv,
    id: Uuid,
    humans: [(Uuid, &str); 2],
    ended: &protocol::MatchEnded,
    resolved: &[u32],
) -> Value {
    let (s, m) = srv.get(&format!("/api/v1/matches/{id}")).await;
    assert_eq!(s, 200, "{m}");
    assert_eq!(m["match_id"], json!(id));
    assert_eq!(
        (&m["mode"], &m["status"]),
        (&json!("journey"), &json!("ended"))
    );
    assert_eq!(m["end_reason"], json!(ended.reason));
    assert!(m["ended_at"].is_string() && m["started_at"].is_string());
    assert_eq!(
        m["turns_played"],
        json!(resolved.len()),
        "every turn is stored"
    );
    // Rule 9.2: the same standings the players were told, best first.
    assert_eq!(m["standings"], json!(ended.standings), "{m}");
    // Seats in turn order, as `match_started` shows them; the two humans by id and
    // name, bots named after their seat; nobody left.
    let seats = m["seats"].as_array().unwrap();
    let order: Vec<&str> = seats.iter().map(|s| s["seat"].as_str().unwrap()).collect();
    assert_eq!(order, ["green", "red", "blue", "yellow"]);
    let mut people: Vec<(Value, Value, Value)> = seats
        .iter()
        .map(|s| (s["player_id"].clone(), s["name"].clone(), s["bot"].clone()))
        .collect();
    people.sort_by_key(|p| p.1.as_str().unwrap().to_string());
    let mut want: Vec<(Value, Value, Value)> = humans
        .iter()
        .map(|(id, name)| (json!(id), json!(name), json!(false)))
        .collect();
    assert!(seats.iter().all(|s| s["left"] == json!(false)), "{m}");
    for s in seats.iter().filter(|s| s["bot"] == json!(true)) {
        let seat = s["seat"].as_str().unwrap();
        let name = format!("Bot {}{}", seat[..1].to_uppercase(), &seat[1..]);
        want.push((Value::Null, json!(name), json!(true)));
    }
    want.sort_by_key(|p| p.1.as_str().unwrap().to_string());
    assert_eq!(people, want, "two humans and two bots");
    for old in ["id", "turn_count"] {
        assert!(
            m.get(old).is_none(),
            "no field {old} (protocol 2 vocabulary)"
        );
    }

    let (s, r) = srv.get(&format!("/api/v1/matches/{id}/replay")).await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(r["match_id"], json!(id));
    assert_eq!(
        (&r["mode"], &r["dice_commitment"]),
        (&m["mode"], &m["dice_commitment"])
    );
    let seed_hex = r["seed"].as_str().expect("the seed once ended");
    assert_eq!(seed_hex, ended.seed);
    let seed = hex::decode(seed_hex).unwrap();
    assert_eq!(
        json!(hex::encode(Sha256::digest(&seed))),
        r["dice_commitment"]
    );
    let turns: Vec<u64> = r["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["turn_number"].as_u64().unwrap())
        .collect();
    let want: Vec<u64> = resolved.iter().map(|&n| n.into()).collect();
    assert_eq!(turns, want, "every turn, in order");
    // The replay's standings are the result without the rating changes.
    let results: Vec<&engine::Standing> = ended.standings.iter().map(|s| &s.standing).collect();
    assert_eq!(r["end"]["standings"], json!(results));
    // The replay's seats are the summary's: one seat shape everywhere.
    assert_eq!(r["seats"], m["seats"]);
    let replay: engine::Replay = serde_json::from_value(r).unwrap();
    engine::replay::verify(&replay).expect("the served replay re-plays identically");
    m
}

/// The suite: runs against whatever store `srv` uses.
async fn rest_suite(srv: &Srv) {
    let (s, v) = srv.get("/readyz").await;
    assert_eq!((s, v), (200, json!({"status": "ready"})));

    let ana = srv.player("Ana").await;
    let bruno = srv.player("Bruno").await;
    let carla = srv.player("Carla").await;
    let dora = srv.player("Dora").await;
    let (ana_id, bruno_id, carla_id) = (ana.player_id, bruno.player_id, carla.player_id);

    let (m1, [ana, _bruno], end1, turns1) = play_match(srv, ana, bruno).await;
    let d1 = check_ended_match(
        srv,
        m1,
        [(ana_id, "Ana"), (bruno_id, "Bruno")],
        &end1,
        &turns1,
    )
    .await;
    let (m2, _, end2, turns2) = play_match(srv, ana, carla).await;
    let d2 = check_ended_match(
        srv,
        m2,
        [(ana_id, "Ana"), (carla_id, "Carla")],
        &end2,
        &turns2,
    )
    .await;

    // History: newest first, summaries exactly as `GET /matches/{id}` shows them.
    let summary = |d: &Value| d.clone();
    let hist = |p: Uuid, q: &str| format!("/api/v1/players/{p}/matches{q}");
    let last_page = |matches: Vec<Value>| json!({"matches": matches, "next_before": null, "next_before_id": null});
    let (s, h) = srv.get(&hist(ana_id, "")).await;
    assert_eq!(s, 200);
    assert_eq!(h, last_page(vec![summary(&d2), summary(&d1)]));
    // Exactly `limit` matches: one full page, and it is the last.
    let (s, h) = srv.get(&hist(ana_id, "?limit=2")).await;
    assert_eq!((s, h), (200, last_page(vec![summary(&d2), summary(&d1)])));
    // Paging by one: the cursor is the last match's start and id; the last page says null.
    let (s, p1) = srv.get(&hist(ana_id, "?limit=1")).await;
    assert_eq!(s, 200);
    assert_eq!(
        p1,
        json!({"matches": [summary(&d2)], "next_before": d2["started_at"], "next_before_id": d2["match_id"]})
    );
    let cursor = p1["next_before"].as_str().unwrap().replace('+', "%2B");
    let cursor_id = p1["next_before_id"].as_str().unwrap();
    let (s, p2) = srv
        .get(&hist(
            ana_id,
            &format!("?limit=1&before={cursor}&before_id={cursor_id}"),
        ))
        .await;
    assert_eq!((s, p2), (200, last_page(vec![summary(&d1)])));
    // `before` alone: the matches that started strictly before it.
    let (s, p2) = srv
        .get(&hist(ana_id, &format!("?limit=1&before={cursor}")))
        .await;
    assert_eq!((s, p2), (200, last_page(vec![summary(&d1)])));
    let (_, b) = srv.get(&hist(bruno_id, "")).await;
    assert_eq!(b, last_page(vec![summary(&d1)]));
    let (_, c) = srv.get(&hist(carla_id, "?limit=100")).await;
    assert_eq!(c, last_page(vec![summary(&d2)]));
    let (s, d) = srv.get(&hist(dora.player_id, "")).await;
    assert_eq!((s, d), (200, last_page(vec![])));

    // Leaderboard: the rated humans of the two matches (each had two or more
    // humans) by conservative rating μ − 3σ; counts recomputed from the two
    // summaries; each row's rating is the player's profile rating and the rating
    // after that player's last match. Bots are never listed.
    let mut rows: BTreeMap<String, (i64, i64, Value)> = BTreeMap::new();
    let mut ids: BTreeMap<String, Value> = BTreeMap::new();
    for d in [&d1, &d2] {
        for seat in d["seats"].as_array().unwrap() {
            if seat["bot"] == json!(true) {
                continue;
            }
            let name = seat["name"].as_str().unwrap().to_string();
            let e = rows.entry(name.clone()).or_insert((0, 0, Value::Null));
            e.0 += 1;
            let line = d["standings"]
                .as_array()
                .unwrap()
                .iter()
                .find(|l| l["seat"] == seat["seat"])
                .unwrap();
            e.1 += i64::from(line["place"] == json!(1));
            e.2 = line["rating"]["after"].clone();
            ids.insert(name, seat["player_id"].clone());
        }
    }
    assert_eq!(rows.len(), 3, "Ana, Bruno and Carla");
    let (s, lb) = srv.get("/api/v1/leaderboard?mode=journey").await;
    assert_eq!(s, 200);
    assert_eq!(lb["min_matches"], 1);
    let listed = lb["players"].as_array().unwrap();
    assert_eq!(listed.len(), 3, "{lb}");
    for w in listed.windows(2) {
        assert!(
            w[0]["rating"]["conservative"].as_f64() >= w[1]["rating"]["conservative"].as_f64(),
            "{lb}"
        );
    }
    for row in listed {
        let name = row["name"].as_str().unwrap();
        let (matches, wins, after) = &rows[name];
        assert_eq!(row["player_id"], ids[name]);
        assert_eq!(
            (&row["rated_matches"], &row["wins"]),
            (&json!(matches), &json!(wins))
        );
        assert_eq!(&row["rating"], after, "{name}");
        let (_, p) = srv
            .get(&format!("/api/v1/players/{}", ids[name].as_str().unwrap()))
            .await;
        assert_eq!(p["modes"][0]["rating"], row["rating"]);
    }
    let (_, top) = srv.get("/api/v1/leaderboard?mode=journey&limit=1").await;
    assert_eq!(top["players"], json!([listed[0]]));
    let (s, clash) = srv.get("/api/v1/leaderboard?mode=clash").await;
    assert_eq!(
        (s, clash),
        (
            200,
            json!({"mode": "clash", "min_matches": 1, "players": []})
        )
    );

    // Unknown ids: 404 with the error body.
    let nobody = Uuid::new_v4();
    for (path, code) in [
        (format!("/api/v1/matches/{nobody}"), "match_not_found"),
        (
            format!("/api/v1/matches/{nobody}/replay"),
            "match_not_found",
        ),
        (hist(nobody, ""), "player_not_found"),
    ] {
        assert_error(&path, srv.get(&path).await, 404, code);
    }
    // Bad parameters: 400 with the error body.
    for (path, code) in [
        ("/api/v1/matches/not-a-uuid".to_string(), "invalid_id"),
        ("/api/v1/matches/123/replay".to_string(), "invalid_id"),
        ("/api/v1/players/x/matches".to_string(), "invalid_id"),
        (hist(ana_id, "?limit=0"), "invalid_limit"),
        (hist(ana_id, "?limit=101"), "invalid_limit"),
        (hist(ana_id, "?limit=ten"), "invalid_limit"),
        (hist(ana_id, "?before=yesterday"), "invalid_cursor"),
        (hist(ana_id, &format!("?before_id={m1}")), "invalid_cursor"),
        (
            hist(ana_id, "?before=2026-01-02T03:04:05Z&before_id=m1"),
            "invalid_cursor",
        ),
        (hist(ana_id, "?limit=1&limit=2"), "bad_query"),
        ("/api/v1/leaderboard".to_string(), "invalid_mode"),
        ("/api/v1/leaderboard?mode=chess".to_string(), "invalid_mode"),
        (
            "/api/v1/leaderboard?mode=journey&limit=0".to_string(),
            "invalid_limit",
        ),
    ] {
        assert_error(&path, srv.get(&path).await, 400, code);
    }

    // The OpenAPI document is served, byte for byte the generated one.
    let body = reqwest::get(srv.url("/api/v1/openapi.json"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(body, server::openapi_document());
}

/// Contract: the REST API over a SQLite file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rest_api_on_sqlite() {
    let (_dir, url) = temp_sqlite();
    let store = store::Store::connect(Some(&url)).await.unwrap();
    let writer = store::spawn_writer(store.clone());
    let mut srv = serve(quick_config(MATCH_SECONDS), store.clone(), writer).await;
    rest_suite(&srv).await;
    srv.stop().await;
    store.close().await;
}

/// Contract: the same REST API over a fresh PostgreSQL database.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rest_api_on_postgres() {
    let db = TempPg::create("ludo_rest").await;
    let store = store::Store::connect(Some(&db.url))
        .await
        .expect("connect postgres");
    let outcome = run_catching({
        let store = store.clone();
        async move {
            let writer = store::spawn_writer(store.clone());
            let mut srv = serve(quick_config(MATCH_SECONDS), store, writer).await;
            rest_suite(&srv).await;
            srv.stop().await;
        }
    })
    .await;
    store.close().await;
    db.drop_db().await;
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// Contract: `/readyz` is 503 `unavailable` when the database does not answer (here:
/// a PostgreSQL URL on a closed port) while `/healthz` (liveness) stays 200.
#[tokio::test]
async fn readyz_is_503_when_the_database_is_unreachable() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let store =
        store::Store::connect_lazy(&format!("postgres://postgres@127.0.0.1:{port}/none")).unwrap();
    let writer = store::spawn_writer(store.clone());
    let mut srv = serve(quick_config(MATCH_SECONDS), store, writer).await;
    let t0 = std::time::Instant::now();
    let (s, v) = srv.get("/readyz").await;
    assert_error("/readyz", (s, v), 503, "unavailable");
    // The server waits up to BOOTSTRAP_WAIT (2 s) for its store before serving,
    // then /readyz answers within READY_TIMEOUT (1 s).
    assert!(
        t0.elapsed() < server::BOOTSTRAP_WAIT + Duration::from_secs(2),
        "answers within about 3 s"
    );
    let (s, h) = srv.get("/healthz").await;
    assert_eq!(
        (s, &h["status"], &h["database"]),
        (200, &json!("ok"), &json!("postgres"))
    );
    srv.stop().await;
}

/// Contract: the OpenAPI document matches the router: every documented GET answers
/// with one of its documented statuses and content types (path ids filled with an
/// unknown UUID, no query parameters).
#[tokio::test]
async fn every_documented_get_answers_as_documented() {
    let (_dir, url) = temp_sqlite();
    let store = store::Store::connect(Some(&url)).await.unwrap();
    let writer = store::spawn_writer(store.clone());
    let mut srv = serve(quick_config(MATCH_SECONDS), store, writer).await;
    let doc: Value = serde_json::from_str(&server::openapi_document()).unwrap();
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        let Some(op) = item.get("get") else { continue };
        let concrete = path
            .replace("{match_id}", &Uuid::new_v4().to_string())
            .replace("{player_id}", &Uuid::new_v4().to_string());
        let r = reqwest::get(srv.url(&concrete)).await.unwrap();
        let status = r.status().as_u16().to_string();
        let response = &op["responses"][&status];
        assert!(
            response.is_object(),
            "GET {path}: {status} is not documented"
        );
        let ct = r.headers()[reqwest::header::CONTENT_TYPE].to_str().unwrap();
        assert!(
            response["content"].get(ct).is_some(),
            "GET {path}: content type {ct:?} is not documented for {status}"
        );
        checked += 1;
    }
    // 16 with `/api/v1/leaderboard/bots` (issue 32).
    assert_eq!(checked, 16, "every GET path of the document was called");
    srv.stop().await;
}
