//! Shared helper of the scenario tests: runs every RULES.md §11 scenario file of a
//! folder through `engine::scenario::check` and fails, naming every failing file,
//! when any file differs, cannot be read, or when the folder is missing or empty.

// Each test crate that includes this module uses only part of it.
#![allow(dead_code)]

use engine::scenario::{self, Scenario};
use std::path::{Path, PathBuf};

/// The `*.json` files directly in `dir`, sorted by name. Panics when `dir` cannot be
/// read or holds no `*.json` file: a missing scenario set is a failure, not a skip.
pub fn scenario_files(dir: &Path) -> Vec<PathBuf> {
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
pub fn check_file(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let s: Scenario =
        serde_json::from_str(&text).map_err(|e| format!("not a scenario file: {e}"))?;
    scenario::check(&s).map_err(|e| format!("{} (rule {}): {e}", s.name, s.rule))
}

/// Runs every scenario of `dir`; panics listing every failing file with its first
/// difference. Returns how many files passed.
pub fn run_all(dir: &Path) -> usize {
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
