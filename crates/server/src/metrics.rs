//! Prometheus metrics: the recorder (installed once per process) and `GET /metrics`
//! in the Prometheus text format.
//!
//! | metric | type | what |
//! |---|---|---|
//! | `ludo_ws_connections` | gauge | open WebSocket connections |
//! | `ludo_sessions` | gauge | authenticated connections (read at scrape time) |
//! | `ludo_rooms_active` | gauge | running matches |
//! | `ludo_lobbies` | gauge | open lobbies (read at scrape time) |
//! | `ludo_queue_waiting{mode}` | gauge | players waiting in each quick-play queue |
//! | `ludo_turns_resolved_total{kind}` | counter | turns resolved: `plan`, `pass`, `timeout` |
//! | `ludo_turn_latency_seconds` | histogram | a `submit_turn`/`pass` read from the socket → its `turn_resolved` queued to every seat, seconds |
//! | `ludo_persistence_backlog` | gauge | writes handed to the persistence writer and not yet stored |
//! | `ludo_errors_total{code}` | counter | `error` messages sent, by protocol error code |
//! | `ludo_ws_rate_limited_total`, `ludo_ws_slow_consumer_total` | counter | frames refused by the rate limit; clients dropped for a full outbound queue |
//! | `ludo_ws_lagging_total` | counter | clients reset for being more than `--max-lag-ms` behind the live stream (close code 4001) |
//! | `ludo_persistence_retries_total`, `ludo_persistence_failures_total` | counter | write attempts retried; failed attempts whose error was not transient (still retried) |
//! | `ludo_persistence_dropped_total` | counter | writes sent after the writer task stopped (shutdown; never acknowledged, so never shown) |
//! | `ludo_persistence_fenced_total` | counter | writes skipped because another node owns their match now (cluster mode) |
//! | `ludo_persistence_commit_seconds`, `ludo_persistence_batch_ops` | histogram | first write of a batch queued → its commit, seconds; writes per committed batch |
//! | `ludo_bot_search_fallbacks_total` | counter | `expert` decisions played as the greedy plan because every search slot (`--bot-searches`) was busy |
//! | `ludo_seats_unresponsive_total` | counter | seats made away because their socket did not answer the ping at the start of their turn (`--pong-timeout-ms`) |
//! | `ludo_rooms_resumed_total` | counter | running matches resumed from the store (at start, or taken over in cluster mode) |
//! | `ludo_cluster_leases` | gauge | room leases this node holds (cluster mode) |
//! | `ludo_cluster_nats_up` | gauge | 1 while this node's NATS connection is up, 0 while it is lost (cluster mode) |
//! | `ludo_cluster_takeovers_total`, `ludo_cluster_rooms_lost_total` | counter | matches claimed from another node's expired or released lease; rooms stopped because another node owns their match now |
//! | `ludo_connections_refused_total{cap}`, `ludo_accept_errors_total{kind}` | counter | connections refused over a connection cap; failed `accept` calls |
//! | `ludo_http_header_timeouts_total`, `ludo_ws_hello_timeouts_total` | counter | connections closed for slow request headers; sockets closed without a good `hello` in time |
//! | `ludo_origin_refused_total`, `ludo_guests_rate_limited_total` | counter | requests refused for their `Origin`; guest creations refused with 429 |
//! | `process_cpu_seconds_total` | gauge | the server process's user + system CPU time since it started, seconds (read from `/proc` at scrape time by `metrics-process`; a gauge because its counter form keeps whole seconds only) |
//! | `process_resident_memory_bytes`, `process_threads`, `process_open_fds`, … | gauge | the other Prometheus process metrics of `metrics-process` (read at scrape time) |
//!
//! Histogram samples are folded into buckets every [`UPKEEP_EVERY`] (and at each
//! scrape), so an unscraped server does not accumulate them.

use engine::{Mode, TurnKind};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::sync::OnceLock;
use std::time::Duration;

/// Histogram: submit → `turn_resolved` broadcast, seconds.
pub(crate) const TURN_LATENCY: &str = "ludo_turn_latency_seconds";
/// Counter: turns resolved, by `kind`.
pub(crate) const TURNS_RESOLVED: &str = "ludo_turns_resolved_total";
/// Counter: `error` messages sent, by `code`.
pub(crate) const ERRORS: &str = "ludo_errors_total";
/// Gauge: players waiting in a quick-play queue, by `mode`.
pub(crate) const QUEUE_WAITING: &str = "ludo_queue_waiting";
/// Gauge: authenticated connections.
pub(crate) const SESSIONS: &str = "ludo_sessions";
/// Gauge: open lobbies.
pub(crate) const LOBBIES: &str = "ludo_lobbies";

/// Upper bounds of the turn latency buckets, seconds (0.1 ms … 1 s).
pub(crate) const LATENCY_BUCKETS: [f64; 14] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0,
];
/// How often histogram samples are folded into buckets.
pub(crate) const UPKEEP_EVERY: Duration = Duration::from_secs(5);

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();
static PROCESS: OnceLock<metrics_process::Collector> = OnceLock::new();

/// The process collector (CPU seconds, resident memory, threads, descriptors),
/// described to the recorder on first use.
pub(crate) fn process() -> &'static metrics_process::Collector {
    PROCESS.get_or_init(|| {
        let c = metrics_process::Collector::default();
        c.describe();
        c
    })
}

/// The node id every series carries in cluster mode (set once, before [`install`]).
static NODE_LABEL: OnceLock<String> = OnceLock::new();

/// Labels every metric with `node="<node_id>"` (cluster mode). Call before the
/// recorder is installed (the first `install` or `/metrics` request); false when
/// a label was set already or the recorder is installed (the label is then not added).
pub fn set_node_label(node_id: &str) -> bool {
    HANDLE.get().is_none() && NODE_LABEL.set(node_id.to_string()).is_ok()
}

/// Installs the Prometheus recorder as the process's global `metrics` recorder (once;
/// later calls return the same handle) and starts its upkeep thread. `None` when
/// another recorder was installed first: metrics are then not exported.
pub(crate) fn install() -> Option<&'static PrometheusHandle> {
    HANDLE
        .get_or_init(|| {
            let mut builder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Full(TURN_LATENCY.into()), &LATENCY_BUCKETS)
                .expect("non-empty bucket list");
            // Cluster mode: every series carries the node id (`node="…"`).
            if let Some(node) = NODE_LABEL.get() {
                builder = builder.add_global_label("node", node.clone());
            }
            match builder.install_recorder() {
                Ok(handle) => {
                    let h = handle.clone();
                    let spawned = std::thread::Builder::new()
                        .name("metrics-upkeep".into())
                        .spawn(move || loop {
                            std::thread::sleep(UPKEEP_EVERY);
                            h.run_upkeep();
                        });
                    if let Err(e) = spawned {
                        tracing::warn!(error = %e, "no metrics upkeep thread; histograms fold at scrape time only");
                    }
                    Some(handle)
                }
                Err(e) => {
                    tracing::warn!(error = %e, "another metrics recorder is installed; /metrics stays empty");
                    None
                }
            }
        })
        .as_ref()
}

/// A turn of `kind` was resolved (by a client, a bot, or the turn timer).
pub(crate) fn turn_resolved(kind: TurnKind) {
    let kind = match kind {
        TurnKind::Plan => "plan",
        TurnKind::Pass => "pass",
        TurnKind::Timeout => "timeout",
    };
    metrics::counter!(TURNS_RESOLVED, "kind" => kind).increment(1);
}

/// A client's submission was resolved and broadcast `latency` after its frame was read.
pub(crate) fn turn_latency(latency: Duration) {
    metrics::histogram!(TURN_LATENCY).record(latency.as_secs_f64());
}

/// An `error` message with `code` was sent.
pub(crate) fn error_sent(code: protocol::ErrorCode) {
    metrics::counter!(ERRORS, "code" => code.as_str()).increment(1);
}

/// The quick-play queue of `mode` now holds `waiting` players.
pub(crate) fn queue_waiting(mode: Mode, waiting: usize) {
    metrics::gauge!(QUEUE_WAITING, "mode" => mode.name()).set(waiting as f64);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Contract: once installed, recorded turns show up in the text exposition as a
    /// counter by kind and a histogram with the configured buckets; installing twice
    /// gives the same handle.
    #[test]
    fn recorded_turns_are_rendered_with_buckets() {
        let h = install().expect("no other recorder in this test binary");
        assert!(std::ptr::eq(h, install().unwrap()));
        turn_resolved(TurnKind::Timeout);
        turn_latency(Duration::from_micros(1500));
        error_sent(protocol::ErrorCode::StaleTurn);
        queue_waiting(Mode::Journey, 3);
        // Spin 50 ms so the process has used CPU past the clock-tick resolution.
        let spin = std::time::Instant::now();
        while spin.elapsed() < Duration::from_millis(50) {
            std::hint::black_box(spin.elapsed());
        }
        process().collect();
        h.run_upkeep();
        let text = h.render();
        assert!(
            text.contains("ludo_turns_resolved_total{kind=\"timeout\"}"),
            "{text}"
        );
        assert!(
            text.contains("ludo_turn_latency_seconds_bucket{le=\"0.002\"}"),
            "{text}"
        );
        assert!(
            text.contains("ludo_errors_total{code=\"stale_turn\"}"),
            "{text}"
        );
        assert!(
            text.contains("ludo_queue_waiting{mode=\"journey\"} 3"),
            "{text}"
        );
        let cpu = text
            .lines()
            .find_map(|l| l.strip_prefix("process_cpu_seconds_total "))
            .unwrap_or_else(|| panic!("no process CPU counter in {text}"));
        let cpu: f64 = cpu.trim().parse().expect("a number");
        assert!(cpu > 0.0, "this test process has used CPU: {cpu}");
    }
}
