//! Reading back the matches left running, to resume them after a restart: the secret
//! seed, the seats and the turn log with each turn's `seq` and clock use.

use crate::codec::parse;
use crate::error::StoreError;
use crate::model::{LoggedTurn, RunningMatch};
use crate::rows::{in_turn_order, SeatRow, TurnRow, SEAT_COLUMNS, TURN_COLUMNS};
use crate::store::{with_pool, Store};
use chrono::{DateTime, Utc};
use engine::{RuleSet, Seed};
use sqlx::types::Json;
use std::sync::LazyLock;
use uuid::Uuid;

const RUNNING: &str = "SELECT id, mode, rules, secret_seed, started_at FROM matches \
    WHERE status = 'running' ORDER BY started_at, id";
const RUNNING_ONE: &str = "SELECT id, mode, rules, secret_seed, started_at FROM matches \
    WHERE status = 'running' AND id = $1";
static SEATS_OF: LazyLock<String> =
    LazyLock::new(|| format!("SELECT {SEAT_COLUMNS} FROM match_seats WHERE match_id = $1"));
static TURNS_OF: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {TURN_COLUMNS}, seq, clock_ms FROM turns WHERE match_id = $1 \
         ORDER BY turn_number"
    )
});
const LAST_CHAT: &str = "SELECT MAX(seq) FROM match_chat WHERE match_id = $1";

#[derive(sqlx::FromRow)]
struct RunningRow {
    id: Uuid,
    mode: String,
    rules: Json<RuleSet>,
    secret_seed: Option<String>,
    started_at: DateTime<Utc>,
}

#[derive(sqlx::FromRow)]
struct LoggedRow {
    #[sqlx(flatten)]
    turn: TurnRow,
    seq: Option<i64>,
    clock_ms: Option<i64>,
}

fn non_negative(column: &str, v: Option<i64>) -> Result<u64, StoreError> {
    u64::try_from(v.unwrap_or(0))
        .map_err(|_| StoreError::Corrupt(format!("{column}: negative value")))
}

const END_SEQ: &str = "SELECT end_seq FROM matches WHERE id = $1";
const DICE_OF: &str = "SELECT dice_scheme, dice_sealed_seq FROM match_dice WHERE match_id = $1";
const CONTRIBUTIONS_OF: &str =
    "SELECT seat, entropy, defaulted FROM match_contributions WHERE match_id = $1";

/// A match's dice record: its scheme, the `seq` of `dice_sealed` once sealed, and
/// the contributions stored so far in seat order.
pub(crate) type DiceRecord = (engine::DiceScheme, Option<u64>, Vec<engine::Contribution>);

impl Store {
    /// The `seq` of match `id`'s `match_ended` message; `None` while it runs, for an
    /// unknown match, or for a match that ended before it was recorded.
    ///
    /// Errors: [`StoreError::Unavailable`] when the database cannot be reached.
    pub async fn end_seq(&self, id: Uuid) -> Result<Option<u64>, StoreError> {
        let row: Option<(Option<i64>,)> = with_pool!(self, pool => sqlx::query_as(END_SEQ)
            .bind(id)
            .fetch_optional(pool)
            .await)?;
        row.and_then(|(s,)| s)
            .map(|s| non_negative("matches.end_seq", Some(s)))
            .transpose()
    }

    /// Every match with status `running`, oldest first, with what resuming it needs
    /// ([`RunningMatch`]). Turns stored before durable matches have no `seq` or clock
    /// use: they read as 0.
    ///
    /// Errors: [`StoreError::Unavailable`] when the database cannot be reached;
    /// [`StoreError::Corrupt`] for a stored value that cannot be read back.
    pub async fn running_matches(&self) -> Result<Vec<RunningMatch>, StoreError> {
        let rows: Vec<RunningRow> =
            with_pool!(self, pool => sqlx::query_as(RUNNING).fetch_all(pool).await)?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            out.push(self.load_running(r).await?);
        }
        Ok(out)
    }

    /// Match `id` with what resuming it needs, if it is stored as running (`None`
    /// once it has ended, or for an unknown id). See [`Store::running_matches`].
    ///
    /// Errors: as [`Store::running_matches`].
    pub async fn running_match(&self, id: Uuid) -> Result<Option<RunningMatch>, StoreError> {
        let row: Option<RunningRow> = with_pool!(self, pool => sqlx::query_as(RUNNING_ONE)
            .bind(id)
            .fetch_optional(pool)
            .await)?;
        match row {
            Some(r) => Ok(Some(self.load_running(r).await?)),
            None => Ok(None),
        }
    }

    /// The dice record of match `id` ([`DiceRecord`]); the server-seed scheme for a
    /// match stored before migration 0009 (it has no `match_dice` row) or an unknown id.
    ///
    /// Errors: [`StoreError::Unavailable`]; [`StoreError::Corrupt`] for a stored
    /// value that cannot be read back.
    pub(crate) async fn dice_record(&self, id: Uuid) -> Result<DiceRecord, StoreError> {
        let row: Option<(String, Option<i64>)> = with_pool!(self, pool => sqlx::query_as(DICE_OF)
            .bind(id)
            .fetch_optional(pool)
            .await)?;
        let Some((scheme, sealed)) = row else {
            return Ok((engine::DiceScheme::ServerSeed, None, Vec::new()));
        };
        let rows: Vec<(String, String, bool)> = with_pool!(self, pool => sqlx::query_as(CONTRIBUTIONS_OF)
            .bind(id)
            .fetch_all(pool)
            .await)?;
        let mut contributions = rows
            .into_iter()
            .map(|(seat, entropy, defaulted)| {
                Ok(engine::Contribution {
                    seat: parse("match_contributions.seat", &seat)?,
                    entropy: engine::Entropy::from_recorded_hex(&entropy)
                        .map_err(|_| StoreError::Corrupt("match_contributions.entropy".into()))?,
                    defaulted,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        contributions.sort_by_key(|c| c.seat.index());
        let sealed = sealed
            .map(|s| non_negative("match_dice.dice_sealed_seq", Some(s)))
            .transpose()?;
        Ok((
            parse("match_dice.dice_scheme", &scheme)?,
            sealed,
            contributions,
        ))
    }

    async fn load_running(&self, r: RunningRow) -> Result<RunningMatch, StoreError> {
        {
            let secret_seed = r
                .secret_seed
                .as_deref()
                .map(|s| {
                    serde_json::from_value::<Seed>(serde_json::Value::String(s.to_string()))
                        .map_err(|_| StoreError::Corrupt("matches.secret_seed".into()))
                })
                .transpose()?;
            let mut seats: Vec<SeatRow> = with_pool!(self, pool => sqlx::query_as(SEATS_OF.as_str())
                .bind(r.id)
                .fetch_all(pool)
                .await)?;
            in_turn_order(&mut seats)?;
            let mut left = Vec::new();
            for s in &seats {
                if let Some(seq) = s.left_seq {
                    left.push((s.seat()?, non_negative("match_seats.left_seq", Some(seq))?));
                }
            }
            left.sort_by_key(|&(_, seq)| seq);
            let seats = seats.iter().map(SeatRow::entry).collect::<Result<_, _>>()?;
            let logged: Vec<LoggedRow> = with_pool!(self, pool => sqlx::query_as(TURNS_OF.as_str())
                .bind(r.id)
                .fetch_all(pool)
                .await)?;
            let turns = logged
                .into_iter()
                .map(|l| {
                    Ok(LoggedTurn {
                        seq: non_negative("turns.seq", l.seq)?,
                        clock_ms: non_negative("turns.clock_ms", l.clock_ms)?,
                        record: l.turn.record()?,
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            let (last_chat,): (Option<i64>,) = with_pool!(self, pool => sqlx::query_as(LAST_CHAT)
                .bind(r.id)
                .fetch_one(pool)
                .await)?;
            let (dice_scheme, dice_sealed_seq, contributions) = self.dice_record(r.id).await?;
            Ok(RunningMatch {
                dice_scheme,
                dice_sealed_seq,
                contributions,
                id: r.id,
                mode: parse("matches.mode", &r.mode)?,
                rules: r.rules.0,
                secret_seed,
                started_at: r.started_at,
                seats,
                turns,
                last_chat_seq: non_negative("match_chat.seq", last_chat)?,
                left,
            })
        }
    }
}
