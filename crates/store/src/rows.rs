//! Row shapes read from the database and their conversion to the model.

use crate::codec::{parse, small};
use crate::error::StoreError;
use crate::model::{MatchStatus, MatchSummary, SeatEntry, SeatSummary};
use crate::rating::{Rating, RatingChange};
use chrono::{DateTime, Utc};
use engine::{Event, Plan, RuleSet, Seat, Standing, TurnRecord};
use sqlx::types::Json;
use uuid::Uuid;

/// Columns of [`MatchRow`], for `FROM matches m`.
pub(crate) const MATCH_COLUMNS: &str = "m.id, m.mode, m.rules, m.dice_commitment, m.seed, \
    m.created_at, m.started_at, m.ended_at, m.status, m.end_reason, \
    (SELECT COUNT(*) FROM turns t WHERE t.match_id = m.id) AS turn_count";

/// Columns of [`SeatRow`], for `FROM match_seats`.
pub(crate) const SEAT_COLUMNS: &str =
    "match_id, seat, player_id, is_bot, name, bot_level, place, progress, combat, bonus, total, finished, \
     left_seq, mu_before, sigma_before, mu_after, sigma_after";

/// Columns of [`TurnRow`], for `FROM turns`.
pub(crate) const TURN_COLUMNS: &str = "turn_number, seat, dice, kind, plan, events";

#[derive(sqlx::FromRow)]
pub(crate) struct MatchRow {
    pub id: Uuid,
    pub mode: String,
    pub rules: Json<RuleSet>,
    pub dice_commitment: String,
    pub seed: Option<String>,
    pub created_at: DateTime<Utc>,
    pub started_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
    pub status: String,
    pub end_reason: Option<String>,
    pub turn_count: i64,
}

#[derive(sqlx::FromRow)]
pub(crate) struct SeatRow {
    pub match_id: Uuid,
    pub seat: String,
    pub player_id: Option<Uuid>,
    pub is_bot: bool,
    pub name: String,
    pub bot_level: Option<String>,
    pub place: Option<i32>,
    pub progress: Option<i64>,
    pub combat: Option<i64>,
    pub bonus: Option<i64>,
    pub total: Option<i64>,
    pub finished: Option<i32>,
    /// `seq` of the `seat_left` message when the seat's player left; `None` stayed.
    pub left_seq: Option<i64>,
    /// The player's rating before and after the match (rated seats only).
    pub mu_before: Option<f64>,
    pub sigma_before: Option<f64>,
    pub mu_after: Option<f64>,
    pub sigma_after: Option<f64>,
}

#[derive(sqlx::FromRow)]
pub(crate) struct TurnRow {
    pub turn_number: i32,
    pub seat: String,
    pub dice: Json<Vec<u8>>,
    pub kind: String,
    pub plan: Json<Plan>,
    pub events: Json<Vec<Event>>,
}

impl SeatRow {
    pub(crate) fn seat(&self) -> Result<Seat, StoreError> {
        parse("match_seats.seat", &self.seat)
    }

    pub(crate) fn entry(&self) -> Result<SeatEntry, StoreError> {
        Ok(SeatEntry {
            seat: self.seat()?,
            player_id: self.player_id,
            is_bot: self.is_bot,
            name: self.name.clone(),
            bot_level: self.bot_level.clone(),
        })
    }

    /// The seat's final standing (rule 9.2), once written (all result columns set).
    pub(crate) fn standing(&self) -> Result<Option<Standing>, StoreError> {
        let (Some(place), Some(progress), Some(combat), Some(bonus), Some(total)) = (
            self.place,
            self.progress,
            self.combat,
            self.bonus,
            self.total,
        ) else {
            return Ok(None);
        };
        Ok(Some(Standing {
            seat: self.seat()?,
            place: small("match_seats.place", place)?,
            progress,
            combat,
            bonus,
            total,
            finished: self
                .finished
                .map(|f| small("match_seats.finished", f))
                .transpose()?,
            left: self.left_seq.is_some(),
        }))
    }

    /// The seat's rating change, when the match rated it.
    pub(crate) fn rating_change(&self) -> Option<RatingChange> {
        match (
            self.mu_before,
            self.sigma_before,
            self.mu_after,
            self.sigma_after,
        ) {
            (Some(mb), Some(sb), Some(ma), Some(sa)) => {
                Some(RatingChange::new(Rating::new(mb, sb), Rating::new(ma, sa)))
            }
            _ => None,
        }
    }

    pub(crate) fn summary(&self) -> Result<SeatSummary, StoreError> {
        let e = self.entry()?;
        Ok(SeatSummary {
            seat: e.seat,
            player_id: e.player_id,
            is_bot: e.is_bot,
            name: e.name,
            bot_level: e.bot_level,
            left: self.left_seq.is_some(),
            standing: self.standing()?,
            rating: self.rating_change(),
        })
    }
}

/// `rows` sorted into turn order (green, red, blue, yellow).
pub(crate) fn in_turn_order(rows: &mut [SeatRow]) -> Result<(), StoreError> {
    for r in rows.iter() {
        r.seat()?;
    }
    rows.sort_by_key(|r| r.seat().map(Seat::index).unwrap_or(usize::MAX));
    Ok(())
}

impl MatchRow {
    pub(crate) fn status(&self) -> Result<MatchStatus, StoreError> {
        parse("matches.status", &self.status)
    }

    /// The summary, with `seats` already in turn order.
    pub(crate) fn summary(&self, seats: &[SeatRow]) -> Result<MatchSummary, StoreError> {
        Ok(MatchSummary {
            id: self.id,
            mode: parse("matches.mode", &self.mode)?,
            status: self.status()?,
            created_at: self.created_at,
            started_at: self.started_at,
            ended_at: self.ended_at,
            end_reason: self
                .end_reason
                .as_deref()
                .map(|r| parse("matches.end_reason", r))
                .transpose()?,
            dice_commitment: self.dice_commitment.clone(),
            seats: seats
                .iter()
                .map(SeatRow::summary)
                .collect::<Result<_, _>>()?,
            turn_count: u32::try_from(self.turn_count)
                .map_err(|_| StoreError::Corrupt("turn count out of range".into()))?,
        })
    }
}

impl TurnRow {
    pub(crate) fn record(self) -> Result<TurnRecord, StoreError> {
        Ok(TurnRecord {
            turn_number: u32::try_from(self.turn_number)
                .map_err(|_| StoreError::Corrupt("turns.turn_number out of range".into()))?,
            seat: parse("turns.seat", &self.seat)?,
            dice: self.dice.0,
            kind: parse("turns.kind", &self.kind)?,
            plan: self.plan.0,
            events: self.events.0,
        })
    }
}
