//! Tests that run the real `ludo-server` binary as a separate process on 127.0.0.1
//! (crashes, restarts, store outages). Every process is started by the test, waited
//! for with a bound, and killed on drop (`kill_on_drop`): only the test's own PIDs.
//!
//! Which harness for what: `harness::server_command` builds a `ludo-server` command
//! on a free 127.0.0.1 port (`free_addr`), `ServerProc` is a started binary that is
//! ready (`/readyz`) with `kill9` and `sigterm`, and `harness::Player` is a scripted
//! player over a real socket that keeps every frame it saw (`seen_turns`) so a test
//! can check them against the stored replay (`durable::check_replay`). Single-node
//! tests use SQLite files in a temp dir, and a PostgreSQL database of their own in
//! `outage`, `readiness` and the `*_on_postgres` tests of `durable` and
//! `contribution`; `cluster` runs three nodes on a PostgreSQL
//! database of its own and NATS (`LUDO_TEST_NATS_URL`, or a `nats-server` it starts
//! on its own port), each test under its own subject prefix. Time is real here:
//! every wait is bounded.

mod harness;

mod carrier_nat;
mod cluster;
mod contribution;
mod durable;
mod outage;
mod readiness;
