//! Shared helper of the scenario tests: runs every RULES.md §11 scenario file of a
//! folder through `engine::scenario::check` and fails, naming every failing file,
//! when any file differs, cannot be read, or when the folder is missing or empty.

// Each test crate that includes this module uses only part of it.
#![allow(dead_code)]

use engine::scenario::{self, Scenario};
use std::path::{Path, PathBuf};

/// The `*.json` files directly in `dir`, sorted by name. Panics when `dir` cannot be
/// read or holds no `*.json` file: a missing scenario set is a failure, not a skip.
pub(crate) fn scenario_files(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("scenario folder {} cannot be read: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|e| {
            e.unwrap_or_else(|e| panic!("listing {}: {e}", dir.display()))
                .path()
        })
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "scenario folder {} holds no *.json file",
        dir.display()
    );
    files
}

/// Checks one scenario file: `Ok(())` or the reason it failed.
pub(crate) fn check_file(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let s: Scenario =
        serde_json::from_str(&text).map_err(|e| format!("not a scenario file: {e}"))?;
    scenario::check(&s).map_err(|e| format!("{} (rule {}): {e}", s.name, s.rule))
}

/// Runs every scenario of `dir`; panics listing every failing file with its first
/// difference. Returns how many files passed.
pub(crate) fn run_all(dir: &Path) -> usize {
    let files = scenario_files(dir);
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| {
            check_file(f).err().map(|e| {
                format!(
                    "  {}: {e}",
                    f.file_name().map_or_else(
                        || f.display().to_string(),
                        |n| n.to_string_lossy().into_owned()
                    )
                )
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} scenario files in {} failed:\n{}",
        failures.len(),
        files.len(),
        dir.display(),
        failures.join("\n")
    );
    files.len()
}

/// `RULES.md` of the shared folder: `$LUDO_SHARED_DIR/RULES.md` (or its parent's, when
/// `LUDO_SHARED_DIR` names the scenarios folder itself), else
/// `../../../shared/RULES.md` relative to this crate. Panics when it cannot be read.
pub(crate) fn rules_md() -> String {
    let mut candidates = Vec::new();
    if let Some(d) = std::env::var_os("LUDO_SHARED_DIR") {
        let d = PathBuf::from(d);
        candidates.push(d.join("RULES.md"));
        candidates.push(d.join("../RULES.md"));
    } else {
        candidates.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/RULES.md"));
    }
    candidates
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_else(|| panic!("RULES.md not found at {candidates:?}"))
}

/// The numbers RULES.md defines: sections (`## 11. …` gives `"11"`), rules (a line
/// starting `4.5 ` gives `"4.5"`) and the numbered steps of a rule (the `1.`, `2.`, …
/// lines under `5.2` give `"5.2.1"`, `"5.2.2"`, …).
pub(crate) fn rule_numbers(rules_md: &str) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let mut rule: Option<String> = None;
    let mut next_step = 1;
    for line in rules_md.lines() {
        if let Some(rest) = line.strip_prefix("## ") {
            if let Some((n, _)) = rest.split_once(". ") {
                if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) {
                    out.insert(n.to_string());
                }
            }
            rule = None;
            continue;
        }
        let word = line.split(' ').next().unwrap_or("");
        let is_rule = word.split('.').count() == 2
            && word
                .split('.')
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
        if is_rule {
            out.insert(word.to_string());
            rule = Some(word.to_string());
            next_step = 1;
            continue;
        }
        if let (Some(r), Some(rest)) = (&rule, line.strip_prefix("    ")) {
            if rest.starts_with(&format!("{next_step}. ")) {
                out.insert(format!("{r}.{next_step}"));
                next_step += 1;
            }
        }
    }
    out
}

/// The rule numbers a scenario's `rule` field cites: the comma-separated list before
/// any `[` or `(` note, e.g. `"5.2.3, 7.4 (S 001)"` gives `["5.2.3", "7.4"]`.
pub(crate) fn cited_rules(rule: &str) -> Vec<String> {
    let head = rule.split(['[', '(']).next().unwrap_or("");
    head.split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect()
}
