//! Tests that run the real `ludo-server` binary as a separate process on 127.0.0.1
//! (crashes, restarts, store outages). Every process is started by the test, waited
//! for with a bound, and killed on drop (`kill_on_drop`): only the test's own PIDs.

mod harness;

mod carrier_nat;
mod cluster;
mod contribution;
mod durable;
mod outage;
mod readiness;
