//! Helpers shared by the store's integration tests: throw-away databases (a SQLite
//! file, a PostgreSQL database) and a real short match played by the engine.
// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use chrono::{DateTime, Duration, TimeZone, Utc};
use engine::{legal, EndReason, Expiry, Match, Mode, RuleSet, Seat, Seed, Standing};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use std::path::PathBuf;
use store::{MatchResult, NewMatch, SeatEntry, Store};
use uuid::Uuid;

// Each test binary uses a different subset of these.
#[allow(unused_imports)]
pub(crate) use store::testing::{authority, run_catching, url_via, Gate, TempPg};

/// A SQLite file under the temp directory with a unique name; [`TempSqlite::remove`]
/// deletes it with its WAL files.
pub(crate) struct TempSqlite {
    pub path: PathBuf,
    pub url: String,
}

impl TempSqlite {
    pub(crate) fn new() -> TempSqlite {
        let path = std::env::temp_dir().join(format!("ludo_store_{}.db", Uuid::new_v4().simple()));
        let url = format!("sqlite://{}", path.display());
        TempSqlite { path, url }
    }

    pub(crate) fn remove(self) {
        for suffix in ["", "-wal", "-shm"] {
            let mut p = self.path.clone().into_os_string();
            p.push(suffix);
            let _ = std::fs::remove_file(p);
        }
    }
}

/// A real match: `turns` turns of random legal plans (engine::legal::random_plan,
/// seeded) in `mode`, then ended by the match clock (rule 9.1).
pub(crate) fn play_short_match(seed: u8, mode: Mode, turns: usize) -> Match {
    let mut m = Match::new(RuleSet::default(), mode, Seed([seed; 32]), 0).expect("default rules");
    let mut rng = ChaCha8Rng::seed_from_u64(seed as u64);
    for _ in 0..turns {
        let Some(cur) = m.current_turn().cloned() else {
            break;
        };
        let plan = legal::random_plan(m.position(), m.rules(), &mut rng);
        m.submit(cur.seat, cur.turn_number, &plan, 1_000)
            .expect("random_plan is legal");
    }
    match m.expire(m.deadline_ms()) {
        Some(Expiry::MatchEnded(end)) => assert_eq!(end.reason, EndReason::Clock),
        other => panic!("expected the clock to end the match, got {other:?}"),
    }
    m
}

/// A fixed instant plus `minutes`.
pub(crate) fn at(minutes: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap()
        + Duration::minutes(minutes)
        + Duration::microseconds(123_456)
}

/// Seats in turn order: `humans[i]` (id, name) in seat i, bots in the rest.
pub(crate) fn seats(humans: &[(Uuid, &str)]) -> Vec<SeatEntry> {
    Seat::ALL
        .iter()
        .enumerate()
        .map(|(i, &seat)| match humans.get(i) {
            Some(&(id, name)) => SeatEntry {
                seat,
                player_id: Some(id),
                is_bot: false,
                name: name.to_string(),
                bot_level: None,
            },
            None => SeatEntry {
                seat,
                player_id: None,
                is_bot: true,
                name: format!("Bot {}", i + 1),
                bot_level: Some("expert".into()),
            },
        })
        .collect()
}

/// The [`NewMatch`] of an engine match.
pub(crate) fn new_match_of(
    id: Uuid,
    m: &Match,
    started_at: DateTime<Utc>,
    seats: Vec<SeatEntry>,
) -> NewMatch {
    NewMatch {
        id,
        mode: m.position().mode(),
        rules: m.rules().clone(),
        dice_commitment: m.commitment(),
        started_at,
        seats,
        secret_seed: Some(m.seed()),
        dice_scheme: m.dice_scheme(),
    }
}

/// The [`MatchResult`] of an ended engine match.
pub(crate) fn result_of(id: Uuid, m: &Match, ended_at: DateTime<Utc>) -> MatchResult {
    let end = m.end().expect("match has ended");
    MatchResult {
        id,
        seed: m.seed(),
        ended_at,
        reason: end.reason,
        standings: end.standings.clone(),
        end_seq: None,
    }
}

/// A synthetic match with seed `[seed; 32]`, for history and leaderboard data.
pub(crate) fn synthetic_match(
    seed: u8,
    mode: Mode,
    started_at: DateTime<Utc>,
    seats: Vec<SeatEntry>,
) -> NewMatch {
    NewMatch {
        id: Uuid::new_v4(),
        mode,
        rules: RuleSet::default(),
        dice_commitment: Seed([seed; 32]).commitment(),
        started_at,
        seats,
        secret_seed: Some(Seed([seed; 32])),
        dice_scheme: engine::DiceScheme::ServerSeed,
    }
}

/// A synthetic result: `(place, total)` per seat in turn order; the total is all
/// progress.
pub(crate) fn synthetic_result(
    id: Uuid,
    seed: u8,
    ended_at: DateTime<Utc>,
    results: [(u8, i64); 4],
) -> MatchResult {
    MatchResult {
        id,
        seed: Seed([seed; 32]),
        ended_at,
        reason: EndReason::Clock,
        standings: Seat::ALL
            .iter()
            .zip(results)
            .map(|(&seat, (place, total))| Standing {
                seat,
                place,
                progress: total,
                combat: 0,
                bonus: 0,
                total,
                finished: None,
                left: false,
            })
            .collect(),
        end_seq: None,
    }
}

/// A valid token hash (64 lowercase hex digits) for test guest `n`.
pub(crate) fn token_hash(n: u64) -> String {
    format!("{n:064x}")
}

/// Creates a guest named `name` and returns its id.
pub(crate) async fn guest(store: &Store, n: u64, name: &str) -> Uuid {
    let id = Uuid::new_v4();
    store
        .create_guest(id, name, &token_hash(n))
        .await
        .expect("create_guest");
    id
}
