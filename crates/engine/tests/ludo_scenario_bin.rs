//! The `ludo-scenario` binary (RULES.md §11 scenario files): what it prints and its
//! exit codes — 0 when every file matched, 1 when one failed, 2 for no file, 0 for
//! `--help`; `--print` prints the resulting positions instead of checking them.

use std::path::PathBuf;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ludo-scenario"))
        .args(args)
        .output()
        .expect("ludo-scenario runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// A §11 scenario of ../shared (rule 4.3, S 001: G1 moves by 3 + 3 + 5).
const OK: &str = "../../../shared/scenarios/001_rolls_sum.json";

/// The same scenario with a wrong expectation (red is to move after green, rule
/// 4.7, not blue), written to a file of its own.
fn wrong_file() -> PathBuf {
    let text = std::fs::read_to_string(OK).unwrap();
    let mut s: serde_json::Value = serde_json::from_str(&text).unwrap();
    s["expect"]["to_move"] = "blue".into();
    let path =
        std::env::temp_dir().join(format!("ludo-scenario-wrong-{}.json", std::process::id()));
    std::fs::write(&path, s.to_string()).unwrap();
    path
}

#[test]
fn no_file_is_usage_and_exit_2_help_is_exit_0() {
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "usage: ludo-scenario [--print] FILE...\n"
    );
    for h in ["-h", "--help"] {
        let o = run(&[h, OK]);
        assert_eq!(o.status.code(), Some(0));
        assert_eq!(stdout(&o), "usage: ludo-scenario [--print] FILE...\n");
    }
}

#[test]
fn a_matching_file_is_ok_and_exit_0() {
    let o = run(&[OK]);
    assert_eq!(
        stdout(&o),
        format!("ok {OK}\nscenarios: 1 passed, 0 failed\n")
    );
    assert_eq!(o.status.code(), Some(0));
    let o = run(&[OK, OK]);
    assert_eq!(
        stdout(&o),
        format!("ok {OK}\nok {OK}\nscenarios: 2 passed, 0 failed\n")
    );
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn a_wrong_or_unreadable_file_fails_with_exit_1() {
    let wrong = wrong_file();
    let w = wrong.to_str().unwrap();
    let o = run(&[OK, w, "no/such/file.json"]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(lines[0], format!("ok {OK}"));
    assert!(
        lines[1].starts_with(&format!(
            "FAIL {w} a guardian moves by the sum of its rolls, which leave the store: "
        )),
        "{out}"
    );
    assert!(
        lines[2].starts_with("FAIL no/such/file.json: cannot read scenario: "),
        "{out}"
    );
    assert_eq!(lines[3], "scenarios: 1 passed, 2 failed");
    assert_eq!(o.status.code(), Some(1));
    std::fs::remove_file(wrong).unwrap();
}

/// `--print`: the resulting position in the full §11 output form (G1 on ring 13, red
/// to move), no `ok` line and no summary.
#[test]
fn print_prints_the_resulting_position() {
    let o = run(&["--print", OK]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON value");
    assert_eq!(v["to_move"], "red");
    assert_eq!(v["seats"]["green"]["pieces"]["G1"], "ring:13");
    assert_eq!(v["seats"]["green"]["rolls"], serde_json::json!([2]));
}
