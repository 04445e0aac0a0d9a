//! Scenario files (RULES.md §11): one position, one plan, and a partial `expect`.

use crate::plan::ErrorCode;
use crate::plan::Plan;
use crate::position::{Position, Setup};
use crate::rules::RuleSet;
use serde::Deserialize;
use serde_json::{json, Value};

/// A scenario file: `{"name", "rule", "position", "plan", "expect"}`.
#[derive(Debug, Clone, Deserialize)]
pub struct Scenario {
    /// What it shows.
    pub name: String,
    /// The rule(s) it checks, e.g. `"7.4"`.
    #[serde(default)]
    pub rule: String,
    /// The starting position (§11 input form), kept raw so a bad one is reported as
    /// `invalid_position`.
    pub position: Value,
    /// The plan (§11), kept raw so a bad one is reported as `invalid_plan`.
    pub plan: Value,
    /// Partial expectation: fields of the resulting position, or `{"error": code}`.
    pub expect: Value,
}

/// Resolves a scenario's plan on its position with the default rule set: the full
/// §11 output form of the result, or `{"error": {"code", "message"}}`.
pub fn run(s: &Scenario) -> Value {
    let err =
        |code: &str, message: String| json!({ "error": { "code": code, "message": message } });
    let setup: Setup = match serde_json::from_value(s.position.clone()) {
        Ok(x) => x,
        Err(e) => return err(ErrorCode::InvalidPosition.as_str(), e.to_string()),
    };
    let pos = match Position::from_setup(&setup) {
        Ok(p) => p,
        Err(e) => return err(e.code().as_str(), e.to_string()),
    };
    let plan = match Plan::from_value(s.plan.clone()) {
        Ok(p) => p,
        Err(e) => return err(e.code().as_str(), e.to_string()),
    };
    match pos.play(&RuleSet::default(), &plan) {
        Ok((next, _)) => next.to_json(),
        Err(e) => err(e.code().as_str(), e.to_string()),
    }
}

/// Compares a scenario's result with its `expect`: `Ok(())` or the first differing
/// field as `path: expected X, got Y`.
pub fn check(s: &Scenario) -> Result<(), String> {
    let got = run(s);
    if let Some(code) = s.expect.get("error") {
        return match got.pointer("/error/code") {
            Some(c) if c == code => Ok(()),
            Some(c) => Err(format!(
                "error: expected {code}, got {c} ({})",
                got["error"]["message"]
            )),
            None => Err(format!("error: expected {code}, got an accepted plan")),
        };
    }
    if let Some(e) = got.get("error") {
        return Err(format!(
            "expected an accepted plan, got error {} ({})",
            e["code"], e["message"]
        ));
    }
    compare("", &s.expect, &got)
}

/// §11: objects are compared key by key (only the keys `expect` gives), lists and
/// scalars exactly.
pub fn compare(path: &str, expect: &Value, got: &Value) -> Result<(), String> {
    match (expect, got) {
        (Value::Object(e), Value::Object(g)) => {
            for (k, ev) in e {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match g.get(k) {
                    Some(gv) => compare(&p, ev, gv)?,
                    None => return Err(format!("{p}: expected {ev}, got nothing")),
                }
            }
            Ok(())
        }
        _ if expect == got => Ok(()),
        _ => Err(format!(
            "{}: expected {expect}, got {got}",
            if path.is_empty() { "." } else { path }
        )),
    }
}
