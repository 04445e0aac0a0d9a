//! `verify-replay FILE|URL`: re-plays a match replay with the engine and checks every
//! die, every event and the final standings (RULES.md §10: same seed + same plans ⇒
//! same match). The replay is the JSON of `GET /api/v1/matches/{id}/replay` (or a
//! file holding it; `-` reads standard input). Exits 0 when it matches, 1 on the first
//! mismatch (named by turn and field), 2 when the replay cannot be read.
//!
//! It says which dice scheme the replay uses (proto/README.md §10): `server_seed`
//! (the seed alone keys the dice; replays before issue 31) or `contributed` (the
//! seed and every seat's recorded contribution, listed), and what was checked: the
//! seed against the commitment, then every die re-derived from those inputs.

use clap::Parser;
use engine::replay::{verify, Replay};
use std::io::Read;
use std::process::ExitCode;

/// Command-line arguments.
#[derive(Parser, Debug)]
#[command(version, about = "Re-play a match replay with the engine and check it")]
struct Args {
    /// A replay JSON file, `-` for standard input, or an http:// URL of
    /// `/api/v1/matches/{id}/replay`.
    source: String,
}

async fn fetch(source: &str) -> Result<String, String> {
    if source.starts_with("http://") || source.starts_with("https://") {
        let resp = reqwest::get(source)
            .await
            .map_err(|e| format!("GET {source}: {e}"))?;
        let status = resp.status();
        let body = resp
            .text()
            .await
            .map_err(|e| format!("GET {source}: {e}"))?;
        if !status.is_success() {
            return Err(format!("GET {source}: HTTP {status}: {body}"));
        }
        Ok(body)
    } else if source == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("stdin: {e}"))?;
        Ok(s)
    } else {
        std::fs::read_to_string(source).map_err(|e| format!("{source}: {e}"))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args = Args::parse();
    let text = match fetch(&args.source).await {
        Ok(t) => t,
        Err(e) => {
            eprintln!("verify-replay: {e}");
            return ExitCode::from(2);
        }
    };
    let replay: Replay = match serde_json::from_str(&text) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("verify-replay: not a replay: {e}");
            return ExitCode::from(2);
        }
    };
    if replay.seed.is_none() {
        eprintln!("verify-replay: the match has not ended yet (its replay reveals no seed); retry once it has");
        return ExitCode::from(2);
    }
    let scheme = replay.dice_scheme.name();
    match verify(&replay) {
        Ok(m) => {
            let end = m
                .end()
                .map(|e| {
                    serde_json::to_string(&e.reason)
                        .unwrap_or_default()
                        .replace('"', "")
                })
                .unwrap_or_else(|| "running".into());
            println!(
                "ok: {} turns re-played, dice, events and standings match (end: {end})",
                replay.turns.len()
            );
            for s in m.standings() {
                println!(
                    "  {} {:<6} total {:>6} (progress {}, combat {}, bonus {})",
                    s.place,
                    s.seat.name(),
                    s.total,
                    s.progress,
                    s.combat,
                    s.bonus
                );
            }
            println!(
                "dice: scheme {scheme}; sha256(seed) = dice_commitment {}",
                replay.dice_commitment
            );
            match &replay.contributions {
                Some(cs) => {
                    println!("  keyed with HKDF-SHA256(seed, contributions in seat order):");
                    for c in cs {
                        let bytes = c.entropy.as_bytes().len();
                        if c.defaulted {
                            println!("  {:<6} default (no bytes)", c.seat.name());
                        } else {
                            println!(
                                "  {:<6} {bytes} bytes {}",
                                c.seat.name(),
                                c.entropy.to_hex()
                            );
                        }
                    }
                }
                None => println!("  keyed with the server seed alone"),
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("MISMATCH {e}");
            if e.field == "dice" && replay.contributions.is_some() {
                println!(
                    "  (dice scheme {scheme}: the recorded dice do not follow from the seed and the recorded contributions; one of them was changed)"
                );
            }
            ExitCode::from(1)
        }
    }
}
