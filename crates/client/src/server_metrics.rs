//! The server's own view of a load run, from its Prometheus `/metrics` before and
//! after: turns it resolved, its submit→broadcast latency histogram, the errors it
//! sent, and the persistence backlog left at the end.

use crate::endpoint::Endpoint;
use prometheus_parse::{Scrape, Value};
use serde::Serialize;
use std::collections::BTreeMap;

/// One scrape of `/metrics`, reduced to what a load report needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sample {
    /// `ludo_turns_resolved_total`, all kinds.
    pub turns: f64,
    /// `ludo_turn_latency_seconds` cumulative buckets: (upper bound s, count).
    pub latency_buckets: Vec<(f64, f64)>,
    /// `ludo_errors_total` by code.
    pub errors: BTreeMap<String, f64>,
    /// `ludo_persistence_backlog`.
    pub backlog: f64,
    /// `process_cpu_seconds_total`: the server's user + system CPU seconds since it
    /// started (None when the server does not export it).
    pub cpu_seconds: Option<f64>,
}

/// The difference between two scrapes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerView {
    /// Turns the server resolved during the run (including bot moves and timeouts).
    pub turns: u64,
    /// Submissions whose latency the server measured.
    pub latency_count: u64,
    /// Upper bound of the histogram bucket holding the median, ms.
    pub latency_p50_le_ms: Option<f64>,
    /// Upper bound of the histogram bucket holding the 99th percentile, ms.
    pub latency_p99_le_ms: Option<f64>,
    /// `error` messages the server sent during the run, by code.
    pub errors: BTreeMap<String, u64>,
    /// Writes not yet stored when the run ended.
    pub persistence_backlog: u64,
}

/// Parses the Prometheus text exposition.
pub fn parse(text: &str) -> Sample {
    let lines = text.lines().map(|l| Ok(l.to_string()));
    let Ok(scrape) = Scrape::parse(lines) else {
        return Sample::default();
    };
    let mut s = Sample::default();
    for m in scrape.samples {
        match (m.metric.as_str(), &m.value) {
            ("ludo_turns_resolved_total", Value::Counter(v) | Value::Untyped(v)) => s.turns += v,
            ("ludo_turn_latency_seconds", Value::Histogram(h)) => {
                s.latency_buckets = h.iter().map(|b| (b.less_than, b.count)).collect();
            }
            ("ludo_errors_total", Value::Counter(v) | Value::Untyped(v)) => {
                *s.errors
                    .entry(m.labels.get("code").unwrap_or("?").to_string())
                    .or_default() += v;
            }
            ("ludo_persistence_backlog", Value::Gauge(v) | Value::Untyped(v)) => s.backlog = *v,
            (
                "process_cpu_seconds_total",
                Value::Gauge(v) | Value::Counter(v) | Value::Untyped(v),
            ) => s.cpu_seconds = Some(*v),
            _ => {}
        }
    }
    s
}

/// `GET /metrics`; `None` when the server has no metrics endpoint or is unreachable.
pub async fn scrape(endpoint: &Endpoint) -> Option<Sample> {
    let resp = reqwest::get(endpoint.http("/metrics")).await.ok()?;
    if !resp.status().is_success() {
        return None;
    }
    Some(parse(&resp.text().await.ok()?))
}

/// The smallest bucket bound holding quantile `q` of the counts in `buckets`.
fn quantile_le(buckets: &[(f64, f64)], q: f64) -> Option<f64> {
    let total = buckets.iter().map(|b| b.1).fold(0.0, f64::max);
    if total <= 0.0 {
        return None;
    }
    buckets
        .iter()
        .find(|(_, c)| *c >= q * total)
        .map(|(le, _)| *le)
}

impl ServerView {
    /// What happened between `before` and `after`.
    pub fn between(before: &Sample, after: &Sample) -> ServerView {
        let buckets: Vec<(f64, f64)> = after
            .latency_buckets
            .iter()
            .map(|&(le, c)| {
                let was = before
                    .latency_buckets
                    .iter()
                    .find(|b| b.0 == le)
                    .map_or(0.0, |b| b.1);
                (le, c - was)
            })
            .collect();
        let ms = |s: f64| {
            if s.is_finite() {
                s * 1000.0
            } else {
                f64::INFINITY
            }
        };
        ServerView {
            turns: (after.turns - before.turns).max(0.0) as u64,
            latency_count: buckets.iter().map(|b| b.1).fold(0.0, f64::max) as u64,
            latency_p50_le_ms: quantile_le(&buckets, 0.50).map(ms),
            latency_p99_le_ms: quantile_le(&buckets, 0.99).map(ms),
            errors: after
                .errors
                .iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        (v - before.errors.get(k).copied().unwrap_or(0.0)).max(0.0) as u64,
                    )
                })
                .filter(|(_, v)| *v > 0)
                .collect(),
            persistence_backlog: after.backlog.max(0.0) as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str = "# TYPE ludo_turns_resolved_total counter
ludo_turns_resolved_total{kind=\"plan\"} 10
# TYPE ludo_turn_latency_seconds histogram
ludo_turn_latency_seconds_bucket{le=\"0.001\"} 5
ludo_turn_latency_seconds_bucket{le=\"0.01\"} 10
ludo_turn_latency_seconds_bucket{le=\"+Inf\"} 10
ludo_turn_latency_seconds_sum 0.02
ludo_turn_latency_seconds_count 10
";
    const AFTER: &str = "# TYPE ludo_turns_resolved_total counter
ludo_turns_resolved_total{kind=\"plan\"} 100
ludo_turns_resolved_total{kind=\"timeout\"} 10
# TYPE ludo_turn_latency_seconds histogram
ludo_turn_latency_seconds_bucket{le=\"0.001\"} 95
ludo_turn_latency_seconds_bucket{le=\"0.01\"} 109
ludo_turn_latency_seconds_bucket{le=\"+Inf\"} 110
ludo_turn_latency_seconds_sum 0.2
ludo_turn_latency_seconds_count 110
# TYPE ludo_errors_total counter
ludo_errors_total{code=\"stale_turn\"} 3
# TYPE ludo_persistence_backlog gauge
ludo_persistence_backlog 7
# TYPE process_cpu_seconds_total gauge
process_cpu_seconds_total 12.34
";

    /// The run's share: 100 turns (110 − 10), 100 latencies of which 90 under 1 ms
    /// (p50 ≤ 1 ms) and 99 under 10 ms (p99 ≤ 10 ms), 3 errors, backlog 7.
    #[test]
    fn difference_of_two_scrapes() {
        let v = ServerView::between(&parse(BEFORE), &parse(AFTER));
        assert_eq!(v.turns, 100);
        assert_eq!(v.latency_count, 100);
        assert_eq!(v.latency_p50_le_ms, Some(1.0));
        assert_eq!(v.latency_p99_le_ms, Some(10.0));
        assert_eq!(v.errors, BTreeMap::from([("stale_turn".to_string(), 3)]));
        assert_eq!(v.persistence_backlog, 7);
        assert_eq!(parse(AFTER).cpu_seconds, Some(12.34));
        assert_eq!(parse(BEFORE).cpu_seconds, None);
    }

    #[test]
    fn empty_text_gives_nothing() {
        let v = ServerView::between(&parse(""), &parse(""));
        assert_eq!(
            (v.turns, v.latency_count, v.latency_p99_le_ms),
            (0, 0, None)
        );
    }
}
