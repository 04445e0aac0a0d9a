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

/// Every own scenario names the rule it checks, so a failure points at RULES.md:
/// `rule` cites at least one number, every cited number is a section, rule or rule
/// step that RULES.md defines, and the file name starts with a cited rule (or the
/// rule whose step is cited, e.g. `5.2_…` for `5.2.3`).
#[test]
fn every_own_scenario_cites_a_rule() {
    let known = common::rule_numbers(&common::rules_md());
    for must in ["4.5", "5.2.3", "11", "9.2"] {
        assert!(
            known.contains(must),
            "RULES.md parsing lost {must}: {known:?}"
        );
    }
    assert!(!known.contains("5.2.5") && !known.contains("4.8") && !known.contains("12"));
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    for f in common::scenario_files(&dir) {
        let text = std::fs::read_to_string(&f).unwrap();
        let s: engine::scenario::Scenario = serde_json::from_str(&text).unwrap();
        let cited = common::cited_rules(&s.rule);
        assert!(!cited.is_empty(), "{} cites no rule", f.display());
        for c in &cited {
            assert!(
                known.contains(c),
                "{} cites rule {c:?}, which RULES.md does not define",
                f.display()
            );
        }
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let prefix = name.split('_').next().unwrap();
        assert!(
            cited
                .iter()
                .any(|c| c == prefix || c.starts_with(&format!("{prefix}."))),
            "{name}: the file name's rule {prefix} is not among the cited {cited:?}"
        );
    }
}
