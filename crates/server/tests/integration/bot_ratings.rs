//! The bots' leaderboard, `GET /api/v1/leaderboard/bots`: the bot levels' Weng-Lin
//! ratings from bot-vs-bot matches, served from `crates/bot/ratings.json` (written
//! by `bot-duel --ratings-out`, see `BENCHMARKS.md`, *Bot ratings*). The expected
//! values are that file's; regenerating it means updating them here.

use crate::common::*;
use serde_json::Value;

async fn get(s: &TestServer, path: &str) -> (u16, Value) {
    let r = reqwest::get(s.url(path)).await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap())
}

/// `(mode, level, mu, sigma, matches)` of every line of `crates/bot/ratings.json`,
/// in the order the endpoint gives them: journey then clash, best μ − 3σ first.
const EXPECTED: [(&str, &str, f64, f64, u64); 8] = [
    (
        "journey",
        "expert",
        34.408952107310455,
        0.9095406016742635,
        500,
    ),
    (
        "journey",
        "greedy",
        34.31486650462465,
        0.8982962649289895,
        500,
    ),
    (
        "journey",
        "casual",
        27.528521063017994,
        0.932527329698768,
        500,
    ),
    (
        "journey",
        "beginner",
        4.764332484624524,
        1.8068028609264162,
        500,
    ),
    (
        "clash",
        "expert",
        33.38471086805205,
        0.8815760220098496,
        500,
    ),
    ("clash", "greedy", 30.8348020344246, 0.8571100946045571, 500),
    (
        "clash",
        "casual",
        29.04644206273689,
        0.8642651398860092,
        500,
    ),
    (
        "clash",
        "beginner",
        11.873429441732055,
        1.4080359798709257,
        500,
    ),
];

/// The `(mode, level, mu, sigma, matches)` of each row of an answer.
fn lines(v: &Value) -> Vec<(String, String, f64, f64, u64)> {
    v["bots"]
        .as_array()
        .expect("bots is an array")
        .iter()
        .map(|r| {
            let rating = &r["rating"];
            let (mu, sigma) = (
                rating["mu"].as_f64().unwrap(),
                rating["sigma"].as_f64().unwrap(),
            );
            let conservative = rating["conservative"].as_f64().unwrap();
            assert!(close(conservative, mu - 3.0 * sigma), "{r}");
            assert_eq!(r["seed"], 32, "{r}");
            assert_eq!(r["date"], "2026-12-07", "{r}");
            (
                r["mode"].as_str().unwrap().to_string(),
                r["level"].as_str().unwrap().to_string(),
                mu,
                sigma,
                r["matches"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Equal up to float parsing (serde_json's float parsing may be 1 ulp off).
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// Whether two lists of lines are the same, values up to [`close`].
fn same(got: &[(String, String, f64, f64, u64)], want: &[(String, String, f64, f64, u64)]) -> bool {
    got.len() == want.len()
        && got.iter().zip(want).all(|(g, w)| {
            g.0 == w.0 && g.1 == w.1 && close(g.2, w.2) && close(g.3, w.3) && g.4 == w.4
        })
}

fn expected(mode: Option<&str>) -> Vec<(String, String, f64, f64, u64)> {
    EXPECTED
        .iter()
        .filter(|e| mode.is_none_or(|m| m == e.0))
        .map(|&(m, l, mu, s, n)| (m.to_string(), l.to_string(), mu, s, n))
        .collect()
}

#[tokio::test]
async fn the_bot_levels_ratings_are_served_from_the_checked_in_file() {
    let mut s = start(test_config()).await;
    let (status, all) = get(&s, "/api/v1/leaderboard/bots").await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(all.as_object().unwrap().len(), 1, "{all}");
    let got = lines(&all);
    assert!(same(&got, &expected(None)), "{got:?}");
    // Every row has exactly these fields.
    for r in all["bots"].as_array().unwrap() {
        let mut keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(keys, ["date", "level", "matches", "mode", "rating", "seed"]);
    }

    // The file on disk says the same (the expected values above are its values).
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../bot/ratings.json");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut on_disk: Vec<(String, String, f64, f64, u64)> = file["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["mode"].as_str().unwrap().to_string(),
                r["level"].as_str().unwrap().to_string(),
                r["mu"].as_f64().unwrap(),
                r["sigma"].as_f64().unwrap(),
                r["matches"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut want = expected(None);
    on_disk.sort_by(|a, b| a.partial_cmp(b).unwrap());
    want.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert!(same(&on_disk, &want), "{on_disk:?}");

    for mode in ["journey", "clash"] {
        let (status, one) = get(&s, &format!("/api/v1/leaderboard/bots?mode={mode}")).await;
        assert_eq!(status, 200, "{one}");
        let got = lines(&one);
        assert!(same(&got, &expected(Some(mode))), "{mode}: {got:?}");
    }
    let (status, bad) = get(&s, "/api/v1/leaderboard/bots?mode=chess").await;
    assert_eq!(status, 400, "{bad}");
    assert_eq!(bad["error"]["code"], "invalid_mode", "{bad}");
    s.stop().await.unwrap();
}
