//! `ludo-scenario [--print] FILE...`: runs RULES.md §11 scenario files against the
//! engine. Prints `ok <file>` or `FAIL <file> <name>: <first difference>` per file and
//! exits 0 only when every file matched. With `--print`, prints each resulting
//! position (full §11 output form) or `{"error":{"code","message"}}` instead.

use engine::scenario::{self, Scenario};
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut print = false;
    let mut files = Vec::new();
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "--print" => print = true,
            "-h" | "--help" => {
                println!("usage: ludo-scenario [--print] FILE...");
                return ExitCode::SUCCESS;
            }
            _ => files.push(a),
        }
    }
    if files.is_empty() {
        eprintln!("usage: ludo-scenario [--print] FILE...");
        return ExitCode::from(2);
    }
    let (mut ok, mut failed) = (0, 0);
    for f in &files {
        let s: Scenario = match std::fs::read_to_string(f)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        {
            Ok(s) => s,
            Err(e) => {
                println!("FAIL {f}: cannot read scenario: {e}");
                failed += 1;
                continue;
            }
        };
        if print {
            println!(
                "{}",
                serde_json::to_string_pretty(&scenario::run(&s)).expect("json")
            );
            continue;
        }
        match scenario::check(&s) {
            Ok(()) => {
                println!("ok {f}");
                ok += 1;
            }
            Err(e) => {
                println!("FAIL {f} {}: {e}", s.name);
                failed += 1;
            }
        }
    }
    if !print {
        println!("scenarios: {ok} passed, {failed} failed");
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
