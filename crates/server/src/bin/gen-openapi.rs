//! Writes the REST API's OpenAPI document (`server::openapi_document`) to
//! `proto/openapi.json`, the same bytes `GET /api/v1/openapi.json` serves.
//!
//! Usage: `cargo run -p server --bin gen-openapi [FILE]` (default: the workspace's
//! `proto/openapi.json`). The file is rewritten only when its contents change.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let path = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proto/openapi.json"));
    let doc = server::openapi_document();
    let unchanged = std::fs::read(&path).ok().as_deref() == Some(doc.as_bytes());
    if unchanged {
        println!("gen-openapi: {} is up to date", path.display());
        return ExitCode::SUCCESS;
    }
    match std::fs::write(&path, &doc) {
        Ok(()) => {
            println!(
                "gen-openapi: wrote {} ({} bytes)",
                path.display(),
                doc.len()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen-openapi: cannot write {}: {e}", path.display());
            ExitCode::FAILURE
        }
    }
}
