//! Runs every shared scenario file (RULES.md §11) against the engine.
//!
//! The folder is `$LUDO_SHARED_DIR/scenarios` when `LUDO_SHARED_DIR` (the shared
//! folder) is set — or `$LUDO_SHARED_DIR` itself when it has no `scenarios`
//! sub-folder — else `../../../shared/scenarios` relative to this crate (the `shared`
//! folder beside the repository). A missing folder or one without `*.json` files
//! fails the test.

mod common;

use std::path::PathBuf;

fn shared_scenarios_dir() -> PathBuf {
    match std::env::var_os("LUDO_SHARED_DIR") {
        Some(d) => {
            let d = PathBuf::from(d);
            let sub = d.join("scenarios");
            if sub.is_dir() {
                sub
            } else {
                d
            }
        }
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/scenarios"),
    }
}

/// Every shared scenario's plan, resolved on its position with the default rule set,
/// gives exactly what its `expect` states (or its `error` code).
#[test]
fn every_shared_scenario_passes() {
    let n = common::run_all(&shared_scenarios_dir());
    assert!(n >= 1);
}
