//! The steady window of a load run: the server's CPU seconds per 1,000 turns, read
//! between two probes taken inside the play phase (after the warm-up, before the
//! stop), so that connecting, match starts and the wind-down do not count.
//!
//! Each probe reads the server's `/metrics` (`process_cpu_seconds_total` and
//! `ludo_turns_resolved_total`), the server process's `utime + stime` from
//! `/proc/<pid>/stat` (used when `/metrics` has no CPU figure), this load
//! generator's own CPU time, the machine's busy time (`/proc/stat`) and its load
//! average, so that a figure taken on a shared machine says how shared it was.

use crate::endpoint::Endpoint;
use crate::server_metrics::{self, Sample};
use procfs::process::Process;
use procfs::{Current, CurrentSI, KernelStats, LoadAverage};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;
use tokio::time::Instant;

/// One reading of the counters a window needs.
#[derive(Debug, Clone)]
pub struct Probe {
    /// When it was taken.
    pub at: Instant,
    /// The server's `/metrics` (None without one).
    pub server: Option<Sample>,
    /// The server process's user + system CPU seconds from `/proc` (None when the
    /// process is not known or not readable).
    pub server_proc_cpu: Option<f64>,
    /// The same, apart: (user, system) CPU seconds. System time is the kernel's
    /// work for the process (socket writes and reads, `epoll_wait`, `fsync`, …).
    pub server_proc_user_system: Option<(f64, f64)>,
    /// This process's user + system CPU seconds.
    pub own_cpu: Option<f64>,
    /// The machine's (total, busy) CPU ticks from `/proc/stat`.
    pub machine: Option<(u64, u64)>,
    /// One-minute load average.
    pub load_1m: Option<f32>,
    /// Turns the load generator saw resolved so far.
    pub client_turns: u64,
    /// The server's CPU seconds by thread name (`/proc/<pid>/task/*/stat`; threads
    /// of one name summed, e.g. the Tokio workers).
    pub server_threads: BTreeMap<String, f64>,
}

/// User + system CPU seconds of process `pid` (`/proc/<pid>/stat`).
pub fn process_cpu_seconds(pid: i32) -> Option<f64> {
    process_user_system_seconds(pid).map(|(user, system)| user + system)
}

/// (user, system) CPU seconds of process `pid` (`/proc/<pid>/stat`, in clock ticks
/// of `sysconf(_SC_CLK_TCK)`, usually 10 ms).
pub fn process_user_system_seconds(pid: i32) -> Option<(f64, f64)> {
    let st = Process::new(pid).ok()?.stat().ok()?;
    let tick = procfs::ticks_per_second() as f64;
    Some((st.utime as f64 / tick, st.stime as f64 / tick))
}

/// User + system CPU seconds of each thread name of process `pid` (threads with the
/// same name summed); empty when the process is not readable.
pub fn thread_cpu_seconds(pid: i32) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let Ok(tasks) = Process::new(pid).and_then(|p| p.tasks()) else {
        return out;
    };
    let tick = procfs::ticks_per_second() as f64;
    for t in tasks.flatten() {
        if let Ok(st) = t.stat() {
            *out.entry(st.comm).or_insert(0.0) += (st.utime + st.stime) as f64 / tick;
        }
    }
    out
}

fn machine_ticks() -> Option<(u64, u64)> {
    let t = KernelStats::current().ok()?.total;
    let idle = t.idle + t.iowait.unwrap_or(0);
    let total = t.user
        + t.nice
        + t.system
        + t.idle
        + t.iowait.unwrap_or(0)
        + t.irq.unwrap_or(0)
        + t.softirq.unwrap_or(0)
        + t.steal.unwrap_or(0);
    Some((total, total.saturating_sub(idle)))
}

/// The one-minute load average (what `uptime` prints first).
pub fn load_average() -> Option<f32> {
    LoadAverage::current().ok().map(|l| l.one)
}

impl Probe {
    /// Reads everything now. `client_turns` is the load generator's own count.
    pub async fn take(endpoint: &Endpoint, pid: Option<i32>, client_turns: u64) -> Probe {
        let server = server_metrics::scrape(endpoint).await;
        Probe {
            at: Instant::now(),
            server,
            server_proc_cpu: pid.and_then(process_cpu_seconds),
            server_proc_user_system: pid.and_then(process_user_system_seconds),
            own_cpu: process_cpu_seconds(std::process::id() as i32),
            machine: machine_ticks(),
            load_1m: load_average(),
            client_turns,
            server_threads: pid.map(thread_cpu_seconds).unwrap_or_default(),
        }
    }
}

/// What happened between two probes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CpuWindow {
    /// Length of the window, s.
    pub secs: f64,
    /// Turns resolved in the window (the server's counter; the load generator's own
    /// count when the server has no `/metrics`).
    pub turns: u64,
    /// `turns / secs`.
    pub turns_per_sec: f64,
    /// The server's CPU seconds (user + system) in the window.
    pub server_cpu_secs: Option<f64>,
    /// The server's (user, system) CPU seconds per 1,000 turns from `/proc` (None
    /// when the process is not readable here): system is what the kernel spent on
    /// the server's behalf, its socket writes above all.
    pub server_user_system_per_1000_turns: Option<(f64, f64)>,
    /// Where the server's CPU figure came from: `metrics` or `proc`.
    pub cpu_source: Option<&'static str>,
    /// The server's CPU seconds per 1,000 turns: the efficiency figure.
    pub server_cpu_per_1000_turns: Option<f64>,
    /// The server's CPU use as a share of one core, %.
    pub server_cpu_pct: Option<f64>,
    /// This load generator's CPU seconds per 1,000 turns.
    pub loadgen_cpu_per_1000_turns: Option<f64>,
    /// The whole machine's busy share in the window, % of all cores.
    pub machine_busy_pct: Option<f64>,
    /// One-minute load average at the start and at the end of the window.
    pub load_1m: (Option<f32>, Option<f32>),
    /// The server's CPU seconds per 1,000 turns by thread name (from `/proc`): the
    /// Tokio workers, the SQLite connection's thread, …
    pub server_threads_per_1000_turns: BTreeMap<String, f64>,
    /// The server process changed during the window (a restart: its `/metrics`
    /// counters went back, or its process vanished from `/proc`). Its counters of
    /// the two probes belong to different processes, so the window gives no server
    /// CPU figure, and its turns are the load generator's own count.
    pub server_restarted: bool,
}

impl CpuWindow {
    /// The window between probes `a` and `b` (`b` taken later).
    pub fn between(a: &Probe, b: &Probe) -> CpuWindow {
        let secs = (b.at - a.at).as_secs_f64().max(f64::MIN_POSITIVE);
        let counters_went_back = match (&a.server, &b.server) {
            (Some(x), Some(y)) => {
                y.turns < x.turns
                    || x.cpu_seconds
                        .zip(y.cpu_seconds)
                        .is_some_and(|(c0, c1)| c1 < c0)
            }
            _ => false,
        };
        let process_gone = a.server_proc_cpu.is_some() && b.server_proc_cpu.is_none();
        let restarted = counters_went_back || process_gone;
        // A restarted server's two readings belong to different processes.
        let (a_server, b_server) = if restarted {
            (None, None)
        } else {
            (a.server.as_ref(), b.server.as_ref())
        };
        let turns = match (a_server, b_server) {
            (Some(x), Some(y)) => (y.turns - x.turns).max(0.0) as u64,
            _ => b.client_turns.saturating_sub(a.client_turns),
        };
        let metrics_cpu = a_server
            .and_then(|s| s.cpu_seconds)
            .zip(b_server.and_then(|s| s.cpu_seconds))
            .map(|(x, y)| y - x);
        let proc_cpu = a
            .server_proc_cpu
            .zip(b.server_proc_cpu)
            .filter(|_| !restarted)
            .map(|(x, y)| y - x);
        let (server_cpu_secs, cpu_source) = match (metrics_cpu, proc_cpu) {
            (Some(c), _) => (Some(c), Some("metrics")),
            (None, Some(c)) => (Some(c), Some("proc")),
            (None, None) => (None, None),
        };
        let per_1000 = |cpu: f64| (turns > 0).then(|| cpu * 1000.0 / turns as f64);
        CpuWindow {
            secs,
            turns,
            turns_per_sec: turns as f64 / secs,
            server_cpu_secs,
            server_user_system_per_1000_turns: a
                .server_proc_user_system
                .zip(b.server_proc_user_system)
                .filter(|_| !restarted)
                .and_then(|((u0, s0), (u1, s1))| per_1000(u1 - u0).zip(per_1000(s1 - s0))),
            cpu_source,
            server_cpu_per_1000_turns: server_cpu_secs.and_then(per_1000),
            server_cpu_pct: server_cpu_secs.map(|c| 100.0 * c / secs),
            loadgen_cpu_per_1000_turns: a.own_cpu.zip(b.own_cpu).and_then(|(x, y)| per_1000(y - x)),
            machine_busy_pct: a.machine.zip(b.machine).and_then(|((t0, b0), (t1, b1))| {
                let total = t1.saturating_sub(t0);
                (total > 0).then(|| 100.0 * b1.saturating_sub(b0) as f64 / total as f64)
            }),
            load_1m: (a.load_1m, b.load_1m),
            server_threads_per_1000_turns: b
                .server_threads
                .iter()
                .filter(|_| !restarted)
                .filter_map(|(name, y)| {
                    let x = a.server_threads.get(name).copied().unwrap_or(0.0);
                    Some((name.clone(), per_1000(y - x)?))
                })
                .filter(|(_, v)| *v > 0.0)
                .collect(),
            server_restarted: restarted,
        }
    }

    /// The window as one line of the text report.
    pub fn render(&self) -> String {
        let f3 = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.3}"));
        let f0 = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.0}%"));
        let la = |x: Option<f32>| x.map_or("-".into(), |x| format!("{x:.2}"));
        let mut parts: Vec<String> = Vec::new();
        if let Some((user, system)) = self.server_user_system_per_1000_turns {
            parts.push(format!("user {user:.3}, system {system:.3}"));
        }
        if !self.server_threads_per_1000_turns.is_empty() {
            let t: Vec<String> = self
                .server_threads_per_1000_turns
                .iter()
                .map(|(k, v)| format!("{k} {v:.3}"))
                .collect();
            parts.push(format!("by thread: {}", t.join(", ")));
        }
        if self.server_restarted {
            parts.push(
                "the server restarted in the window: no CPU figure, turns counted by the load generator"
                    .into(),
            );
        }
        let threads = if parts.is_empty() {
            String::new()
        } else {
            format!(" ({})", parts.join("; "))
        };
        format!(
            "steady window: {:.1} s, {} turns ({:.1}/s); server CPU {} s ({}, {} of a core) = {} CPU-s per 1,000 turns{threads}; load generator {} CPU-s per 1,000 turns; machine busy {}, load average {} -> {}",
            self.secs,
            self.turns,
            self.turns_per_sec,
            f3(self.server_cpu_secs),
            self.cpu_source.unwrap_or("no source"),
            f0(self.server_cpu_pct),
            f3(self.server_cpu_per_1000_turns),
            f3(self.loadgen_cpu_per_1000_turns),
            f0(self.machine_busy_pct),
            la(self.load_1m.0),
            la(self.load_1m.1),
        )
    }
}

/// Where the steady window lies in a play phase of `duration`: it starts `warmup`
/// after the start (at most a quarter of the phase) and ends one second before the
/// stop (at most a tenth of the phase). Returns (offset of the start, offset of the
/// end) from the start of the play phase.
pub fn bounds(duration: Duration, warmup: Duration) -> (Duration, Duration) {
    let start = warmup.min(duration / 4);
    let end = duration - Duration::from_secs(1).min(duration / 10);
    (start, end.max(start))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(at: Instant, turns: f64, cpu: Option<f64>, proc_cpu: Option<f64>) -> Probe {
        Probe {
            at,
            server: Some(Sample {
                turns,
                cpu_seconds: cpu,
                ..Sample::default()
            }),
            server_proc_cpu: proc_cpu,
            server_proc_user_system: proc_cpu.map(|c| (c * 0.6, c * 0.4)),
            own_cpu: Some(1.0),
            machine: Some((1000, 100)),
            load_1m: Some(1.5),
            client_turns: 0,
            server_threads: BTreeMap::from([("tokio-rt-worker".to_string(), turns / 10_000.0)]),
        }
    }

    /// 2,000 turns in 2 s for 0.3 CPU-s: 0.15 CPU-s per 1,000 turns, 15% of a core;
    /// the /metrics figure wins over /proc.
    #[test]
    fn cpu_per_thousand_turns_between_two_probes() {
        let t0 = Instant::now();
        let a = probe(t0, 500.0, Some(10.0), Some(9.0));
        let mut b = probe(t0 + Duration::from_secs(2), 2500.0, Some(10.3), Some(9.9));
        b.own_cpu = Some(1.2);
        b.machine = Some((1400, 300));
        let w = CpuWindow::between(&a, &b);
        assert_eq!(w.turns, 2000);
        assert!((w.turns_per_sec - 1000.0).abs() < 1e-9);
        assert_eq!(w.cpu_source, Some("metrics"));
        assert!((w.server_cpu_per_1000_turns.unwrap() - 0.15).abs() < 1e-9);
        assert!((w.server_cpu_pct.unwrap() - 15.0).abs() < 1e-9);
        assert!((w.loadgen_cpu_per_1000_turns.unwrap() - 0.1).abs() < 1e-9);
        assert!((w.machine_busy_pct.unwrap() - 50.0).abs() < 1e-9);
        assert!(
            w.render().contains("0.150 CPU-s per 1,000 turns"),
            "{}",
            w.render()
        );
        // /proc's 0.9 CPU-s, 0.54 user and 0.36 system, over 2,000 turns.
        let (user, system) = w.server_user_system_per_1000_turns.unwrap();
        assert!((user - 0.27).abs() < 1e-9 && (system - 0.18).abs() < 1e-9);
        assert!(
            w.render()
                .contains("(user 0.270, system 0.180; by thread: "),
            "{}",
            w.render()
        );

        // Without the /metrics figure, /proc is used.
        let a = probe(t0, 500.0, None, Some(9.0));
        let b = probe(t0 + Duration::from_secs(2), 2500.0, None, Some(9.9));
        let w = CpuWindow::between(&a, &b);
        assert_eq!(w.cpu_source, Some("proc"));
        assert!((w.server_cpu_per_1000_turns.unwrap() - 0.45).abs() < 1e-9);

        // No turns: no per-turn figure.
        let w = CpuWindow::between(&a, &a.clone());
        assert_eq!(w.server_cpu_per_1000_turns, None);
    }

    /// A server restarted between the probes (its counters start again from zero, or
    /// its process is gone): no CPU figure, never a negative one, and the turns are
    /// the load generator's own count (1,500 here).
    #[test]
    fn a_restart_in_the_window_gives_no_cpu_figure() {
        let t0 = Instant::now();
        let mut a = probe(t0, 5000.0, Some(10.0), Some(9.0));
        a.client_turns = 4000;
        let mut b = probe(t0 + Duration::from_secs(2), 700.0, Some(0.4), None);
        b.client_turns = 5500;
        let w = CpuWindow::between(&a, &b);
        assert!(w.server_restarted);
        assert_eq!(w.turns, 1500);
        assert_eq!(w.server_cpu_secs, None);
        assert_eq!(w.server_cpu_per_1000_turns, None);
        assert_eq!(w.server_user_system_per_1000_turns, None);
        assert!(w.server_threads_per_1000_turns.is_empty());
        assert!(
            w.render()
                .contains("(the server restarted in the window: no CPU figure"),
            "{}",
            w.render()
        );

        // Counters gone back while /proc still reads a process by that pid: the
        // same.
        let b = probe(t0 + Duration::from_secs(2), 5200.0, Some(0.4), Some(9.5));
        let w = CpuWindow::between(&a, &b);
        assert!(w.server_restarted);
        assert_eq!(w.server_cpu_per_1000_turns, None);

        // An ordinary window is not a restart.
        let b = probe(t0 + Duration::from_secs(2), 5200.0, Some(10.1), Some(9.1));
        assert!(!CpuWindow::between(&a, &b).server_restarted);
    }

    #[test]
    fn the_window_skips_warm_up_and_stop() {
        let s = Duration::from_secs;
        assert_eq!(bounds(s(40), s(5)), (s(5), s(39)));
        assert_eq!(bounds(s(8), s(5)), (s(2), Duration::from_millis(7200)));
        assert_eq!(
            bounds(s(1), s(5)),
            (Duration::from_millis(250), Duration::from_millis(900))
        );
    }

    #[test]
    fn proc_readings_are_available() {
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        assert!(process_cpu_seconds(std::process::id() as i32).is_some());
        assert!(load_average().is_some());
        let (total, busy) = machine_ticks().expect("/proc/stat is readable");
        assert!(total >= busy && total > 0);
        let own = thread_cpu_seconds(std::process::id() as i32);
        assert!(!own.is_empty(), "this process has threads");
    }
}
