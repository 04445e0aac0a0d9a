//! Measures what a sign-in costs (issue 29; figures in BENCHMARKS.md):
//!
//! 1. one Argon2id verify at the server's parameters (19 MiB, 2 passes, 1 lane) on
//!    one core, in ms (median of 50);
//! 2. the whole `POST /api/v1/sessions` answer time, for a wrong password on a real
//!    account and for an unknown username, interleaved (median, p10, p90 of 200
//!    each): the two should be the same within the noise.
//!
//! Run: `cargo run --release -p server --example sign_in_cost`
//! (an in-process server on 127.0.0.1:0 with a temporary SQLite database and the
//! sign-in budgets off).

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use std::time::{Duration, Instant};

fn percentile(v: &mut [Duration], p: f64) -> f64 {
    v.sort();
    let i = ((v.len() - 1) as f64 * p).round() as usize;
    v[i].as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() {
    // 1. One verify.
    let argon = Argon2::new(
        Algorithm::Argon2id,
        Version::V0x13,
        Params::new(19 * 1024, 2, 1, None).unwrap(),
    );
    let hash = argon
        .hash_password(b"correct horse", &SaltString::generate(&mut OsRng))
        .unwrap()
        .to_string();
    let parsed = PasswordHash::new(&hash).unwrap();
    let mut verifies: Vec<Duration> = (0..50)
        .map(|_| {
            let t = Instant::now();
            assert!(argon.verify_password(b"correct horse", &parsed).is_ok());
            t.elapsed()
        })
        .collect();
    let verify_ms = percentile(&mut verifies, 0.5);
    println!("argon2id verify (m=19456 KiB, t=2, p=1), one core: median {verify_ms:.1} ms");
    println!(
        "  so one hashing thread takes at most {:.0} sign-ins/s",
        1000.0 / verify_ms
    );

    // 2. Answer times over HTTP.
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("bench.db").display());
    let store = store::Store::connect(Some(&url)).await.unwrap();
    let writer = store::spawn_writer(store.clone());
    let config = server::Config {
        sign_ins_per_minute: 0,
        account_sign_ins_per_minute: 0,
        guests_per_minute: 0,
        ..server::Config::default()
    };
    let state = server::AppState::new(config, store, writer);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(server::run(listener, state.clone(), std::future::pending()));
    while !state.store_ready() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let http = reqwest::Client::new();
    let base = format!("http://{addr}");
    let guest: serde_json::Value = http
        .post(format!("{base}/api/v1/guests"))
        .json(&serde_json::json!({"name": "Bench"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let r = http
        .post(format!("{base}/api/v1/accounts"))
        .bearer_auth(guest["token"].as_str().unwrap())
        .json(&serde_json::json!({"username": "bench", "password": "the right one"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let attempt = |user: String| {
        let http = http.clone();
        let url = format!("{base}/api/v1/sessions");
        async move {
            let t = Instant::now();
            let r = http
                .post(url)
                .json(&serde_json::json!({"username": user, "password": "a wrong one"}))
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            let body = r.text().await.unwrap();
            (t.elapsed(), status, body)
        }
    };
    // Warm-up.
    for _ in 0..10 {
        attempt("bench".into()).await;
    }
    let (mut wrong, mut unknown) = (Vec::new(), Vec::new());
    let mut bodies = std::collections::BTreeSet::new();
    for i in 0..200 {
        let (t, s, b) = attempt("bench".into()).await;
        assert_eq!(s, 401);
        bodies.insert(b);
        wrong.push(t);
        let (t, s, b) = attempt(format!("nobody-{i}")).await;
        assert_eq!(s, 401);
        bodies.insert(b);
        unknown.push(t);
    }
    println!(
        "distinct 401 bodies over 400 failed sign-ins: {}",
        bodies.len()
    );
    for (what, v) in [
        ("wrong password", &mut wrong),
        ("unknown username", &mut unknown),
    ] {
        let (p10, p50, p90) = (percentile(v, 0.1), percentile(v, 0.5), percentile(v, 0.9));
        println!(
            "POST /api/v1/sessions, {what}: p10 {p10:.1} ms, median {p50:.1} ms, p90 {p90:.1} ms"
        );
    }
}
