//! Writes the generated files of `proto/` (JSON Schemas, error codes, example frames
//! and the example session; see `protocol::artifacts`).
//!
//! Usage: `cargo run -p protocol --bin gen-proto [PROTO_DIR]` (default: the
//! workspace's `proto/`). Generated files that no longer exist are removed from
//! `PROTO_DIR/examples/`; hand-written files (`README.md`) are never touched.

use protocol::artifacts::{files, HAND_WRITTEN};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proto"));
    match run(&dir) {
        Ok((written, removed)) => {
            println!(
                "gen-proto: {written} files written, {removed} stale files removed in {}",
                dir.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen-proto: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(dir: &Path) -> std::io::Result<(usize, usize)> {
    let generated = files();
    let wanted: BTreeSet<PathBuf> = generated.iter().map(|f| dir.join(&f.path)).collect();
    for f in &generated {
        let path = dir.join(&f.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        if std::fs::read(&path).ok().as_deref() != Some(f.contents.as_bytes()) {
            std::fs::write(&path, &f.contents)?;
        }
    }
    let mut removed = 0;
    for path in list_files(&dir.join("examples"))? {
        let hand_written = HAND_WRITTEN.iter().any(|h| path.ends_with(h));
        if !wanted.contains(&path) && !hand_written {
            std::fs::remove_file(&path)?;
            removed += 1;
        }
    }
    Ok((generated.len(), removed))
}

/// Every file under `dir`, recursively (none when `dir` does not exist).
fn list_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    if !dir.is_dir() {
        return Ok(out);
    }
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            out.extend(list_files(&path)?);
        } else {
            out.push(path);
        }
    }
    Ok(out)
}
