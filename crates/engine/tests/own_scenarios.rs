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

/// §11 checking can fail: every own scenario with a wrong expectation is refused
/// with the first difference — another error code (`error: expected …, got …`), a
/// field the result lacks, a changed value — and `compare` checks only the keys
/// `expect` gives, lists and scalars exactly.
#[test]
fn a_wrong_expectation_fails_the_check() {
    use engine::scenario::{check, compare, Scenario};
    use serde_json::json;
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let (mut errors, mut accepted) = (0, 0);
    for f in common::scenario_files(&dir) {
        let s: Scenario = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        assert_eq!(check(&s), Ok(()), "{}", f.display());
        let mut wrong = s.clone();
        if let Some(code) = s.expect.get("error") {
            errors += 1;
            wrong.expect = json!({"error": "no_such_code"});
            assert_eq!(
                check(&wrong).unwrap_err().split(" (").next().unwrap(),
                format!("error: expected \"no_such_code\", got {code}"),
                "{}",
                f.display()
            );
            // An accepted plan expected where the plan is refused.
            let mut wrong = s.clone();
            wrong.expect = json!({});
            assert!(check(&wrong)
                .unwrap_err()
                .starts_with(&format!("expected an accepted plan, got error {code}")));
        } else {
            accepted += 1;
            wrong.expect["no_such_field"] = json!(1);
            assert_eq!(
                check(&wrong),
                Err("no_such_field: expected 1, got nothing".into())
            );
            let mut wrong = s.clone();
            wrong.expect = json!({"error": "stale_turn"});
            assert_eq!(
                check(&wrong),
                Err("error: expected \"stale_turn\", got an accepted plan".into())
            );
        }
    }
    assert!(
        errors > 0 && accepted > 0,
        "{errors} refused, {accepted} accepted"
    );
    let got = json!({"a": 1, "b": [1, 2], "c": {"d": "x", "e": 2}});
    assert_eq!(compare("", &json!({"a": 1, "c": {"d": "x"}}), &got), Ok(()));
    assert_eq!(
        compare("", &json!({"c": {"d": "y"}}), &got),
        Err("c.d: expected \"y\", got \"x\"".into())
    );
    assert_eq!(
        compare("", &json!({"b": [1]}), &got),
        Err("b: expected [1], got [1,2]".into())
    );
    assert_eq!(
        compare("", &json!(2), &json!(1)),
        Err(".: expected 2, got 1".into())
    );
}
