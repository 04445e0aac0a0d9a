//! Runs the project's own scenario files (`tests/scenarios/*.json`, RULES.md §11
//! format) against the engine, the same way as the shared ones.

mod common;

use std::path::PathBuf;

/// Every own scenario's plan gives exactly what its `expect` states (or its `error`).
#[test]
fn every_own_scenario_passes() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let n = common::run_all(&dir);
    assert!(n >= 1);
}

/// Every own scenario names the rule it checks, so a failure points at RULES.md.
#[test]
fn every_own_scenario_cites_a_rule() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    for f in common::scenario_files(&dir) {
        let text = std::fs::read_to_string(&f).unwrap();
        let s: engine::scenario::Scenario = serde_json::from_str(&text).unwrap();
        assert!(
            s.rule.chars().next().is_some_and(|c| c.is_ascii_digit()),
            "{} has no rule number in \"rule\"",
            f.display()
        );
    }
}
