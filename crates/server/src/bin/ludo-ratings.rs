//! Ratings maintenance over the server's database (the same `DATABASE_URL`; the
//! migrations are applied first, as the server does).
//!
//! * `ludo-ratings check`: recomputes every player's rating from the stored results
//!   alone (`Store::recompute_ratings`: matches, seats, places, who left, in the
//!   order they were rated) and compares it with the stored ratings. Exit 0 when
//!   they are equal, 1 when they differ (each difference is printed).
//! * `ludo-ratings rebuild`: replaces the stored ratings and every seat's rating
//!   before/after with the recomputed ones, in one transaction (for a database with
//!   matches that ended before ratings existed). Exit 0.
//!
//! Exit 2 when the database cannot be opened or read.

use clap::{Parser, Subcommand};
use std::collections::BTreeMap;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "ludo-ratings",
    about = "Check or rebuild the stored skill ratings"
)]
struct Args {
    /// `postgres://…` or `sqlite://…` (default: `sqlite://ludo.db`).
    #[arg(long, env = "DATABASE_URL", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    database_url: Option<String>,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug, Clone, Copy)]
enum Cmd {
    /// Recompute from the stored results and compare with the stored ratings.
    Check,
    /// Replace the stored ratings with the recomputed ones.
    Rebuild,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args = Args::parse();
    let store = match store::Store::connect(args.database_url.as_deref()).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("ludo-ratings: cannot open the database: {e}");
            return ExitCode::from(2);
        }
    };
    let code = match args.cmd {
        Cmd::Check => check(&store).await,
        Cmd::Rebuild => match store.rebuild_ratings().await {
            Ok(n) => {
                println!("ludo-ratings: rebuilt {n} ratings from the stored results");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("ludo-ratings: rebuild failed: {e}");
                ExitCode::from(2)
            }
        },
    };
    store.close().await;
    code
}

async fn check(store: &store::Store) -> ExitCode {
    let (stored, recomputed) = match (
        store.stored_ratings().await,
        store.recompute_ratings().await,
    ) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("ludo-ratings: cannot read the ratings: {e}");
            return ExitCode::from(2);
        }
    };
    let key = |r: &store::StoredRating| (r.player_id, r.mode.name());
    let stored: BTreeMap<_, _> = stored.iter().map(|r| (key(r), r)).collect();
    let recomputed: BTreeMap<_, _> = recomputed.iter().map(|r| (key(r), r)).collect();
    let mut differences = 0;
    for k in stored
        .keys()
        .chain(recomputed.keys())
        .collect::<std::collections::BTreeSet<_>>()
    {
        let (a, b) = (stored.get(k), recomputed.get(k));
        if a != b {
            differences += 1;
            println!("{} {}: stored {a:?}, recomputed {b:?}", k.0, k.1);
        }
    }
    if differences == 0 {
        println!(
            "ludo-ratings: ok: {} ratings equal their recomputation from the stored results",
            stored.len()
        );
        ExitCode::SUCCESS
    } else {
        println!("ludo-ratings: {differences} ratings differ from their recomputation");
        ExitCode::from(1)
    }
}
