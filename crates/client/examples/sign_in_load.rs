//! Sign-in load (issue 29, BENCHMARKS.md "Accounts"): password sign-ins
//! (`POST /api/v1/sessions`, the right password) at a steady rate against a running
//! server, to run beside `ludo-load` and see what they do to its turn latency.
//!
//! ```text
//! cargo run --release -p client --example sign_in_load -- \
//!     --url http://127.0.0.1:8080 --per-second 20 --duration-secs 60
//! ```
//!
//! The server must let one address sign in that often: start it with
//! `--sign-ins-per-minute 0 --account-sign-ins-per-minute 0` (no budgets). It
//! creates a guest, claims it as an account, then sends the sign-ins (each on its
//! own task, so a slow answer does not slow the rate) and prints the rate reached,
//! the answers by status and the latency percentiles (ms).

use clap::Parser;
use hdrhistogram::Histogram;
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Parser)]
struct Args {
    /// The server's base URL.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    url: String,
    /// Sign-ins started per second.
    #[arg(long, default_value_t = 10.0)]
    per_second: f64,
    /// How long to send them, s.
    #[arg(long, default_value_t = 60)]
    duration_secs: u64,
    /// Wait this long before starting, s (e.g. until `ludo-load`'s matches play).
    #[arg(long, default_value_t = 0)]
    delay_secs: u64,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    tokio::time::sleep(Duration::from_secs(args.delay_secs)).await;
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()?;
    let guest: serde_json::Value = http
        .post(format!("{}/api/v1/guests", args.url))
        .json(&json!({"name": "Load"}))
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    let token = guest["token"].as_str().ok_or("no token")?.to_string();
    let username = format!("load{}", std::process::id());
    let password = "correct horse battery".to_string();
    http.post(format!("{}/api/v1/accounts", args.url))
        .bearer_auth(&token)
        .json(&json!({"username": username, "password": password}))
        .send()
        .await?
        .error_for_status()?;

    let latencies = Arc::new(Mutex::new(Histogram::<u64>::new(3)?));
    let statuses: Arc<Mutex<BTreeMap<u16, u64>>> = Arc::default();
    let body = Arc::new(json!({"username": username, "password": password}));
    let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / args.per_second));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let t0 = Instant::now();
    let mut tasks = Vec::new();
    while t0.elapsed() < Duration::from_secs(args.duration_secs) {
        tick.tick().await;
        let (http, url, body) = (http.clone(), args.url.clone(), body.clone());
        let (latencies, statuses) = (latencies.clone(), statuses.clone());
        tasks.push(tokio::spawn(async move {
            let sent = Instant::now();
            let status = match http
                .post(format!("{url}/api/v1/sessions"))
                .json(&*body)
                .send()
                .await
            {
                Ok(r) => r.status().as_u16(),
                Err(_) => 0,
            };
            let us = sent.elapsed().as_micros() as u64;
            latencies.lock().unwrap().record(us.max(1)).ok();
            *statuses.lock().unwrap().entry(status).or_default() += 1;
        }));
    }
    let sent = tasks.len();
    for t in tasks {
        t.await?;
    }
    let secs = t0.elapsed().as_secs_f64();
    let h = latencies.lock().unwrap();
    let ms = |q: f64| h.value_at_quantile(q) as f64 / 1000.0;
    println!(
        "sign-ins: {sent} in {secs:.1} s ({:.1}/s asked {:.1}/s); statuses {:?}; latency ms p50 {:.1} p90 {:.1} p99 {:.1} max {:.1}",
        sent as f64 / secs,
        args.per_second,
        statuses.lock().unwrap(),
        ms(0.5),
        ms(0.9),
        ms(0.99),
        h.max() as f64 / 1000.0
    );
    Ok(())
}
