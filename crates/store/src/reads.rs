//! Reading matches back: summaries, replay documents, the running matches of a set
//! of rooms, a player's history, the leaderboard and the matches left running.
//!
//! A list of matches costs two queries whatever its length, one for the matches and
//! one for all their seats (`Store::summaries`; one more of each per 500 ids).

use crate::codec::{micros, name, parse};
use crate::error::StoreError;
use crate::model::{
    Cursor, HistoryPage, LeaderboardRow, MatchStatus, MatchSummary, Page, ReplayDoc, MAX_PAGE,
};
use crate::rows::{
    in_turn_order, MatchRow, SeatRow, TurnRow, MATCH_COLUMNS, SEAT_COLUMNS, TURN_COLUMNS,
};
use crate::store::{with_pool, Store};
use engine::{MatchEnd, Mode, Replay, Seed};
use std::collections::HashMap;
use std::sync::LazyLock;
use uuid::Uuid;

static MATCH_BY_ID: LazyLock<String> =
    LazyLock::new(|| format!("SELECT {MATCH_COLUMNS} FROM matches m WHERE m.id = $1"));
static SEATS_OF: LazyLock<String> =
    LazyLock::new(|| format!("SELECT {SEAT_COLUMNS} FROM match_seats WHERE match_id = $1"));
static TURNS_OF: LazyLock<String> = LazyLock::new(|| {
    format!("SELECT {TURN_COLUMNS} FROM turns WHERE match_id = $1 ORDER BY turn_number")
});
/// A player's matches in history order after the cursor `($2, $3)`: `$1` player,
/// `$2` started_at or NULL (from the newest), `$3` id or NULL (plain time cursor),
/// `$4` rows.
static HISTORY: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {MATCH_COLUMNS} FROM matches m \
         WHERE m.id IN (SELECT s.match_id FROM match_seats s WHERE s.player_id = $1) \
         AND ($2 IS NULL OR m.started_at < $2 \
              OR ($3 IS NOT NULL AND m.started_at = $2 AND m.id < $3)) \
         ORDER BY m.started_at DESC, m.id DESC LIMIT $4"
    )
});
/// Most ids bound in one `IN (…)` list (both backends allow far more binds; this
/// keeps statements small).
const IN_LIST_MAX: usize = 500;
const LEADERBOARD: &str = "SELECT s.player_id AS player_id, p.name AS name, \
    CAST(COUNT(*) AS BIGINT) AS matches, \
    CAST(SUM(CASE WHEN s.place = 1 THEN 1 ELSE 0 END) AS BIGINT) AS wins, \
    CAST(SUM(s.total) AS BIGINT) AS total_points \
    FROM match_seats s \
    JOIN matches m ON m.id = s.match_id \
    JOIN players p ON p.id = s.player_id \
    WHERE m.status = 'ended' AND m.mode = $1 AND s.is_bot = FALSE AND p.deleted_at IS NULL \
    GROUP BY s.player_id, p.name \
    ORDER BY wins DESC, total_points DESC, p.name ASC, s.player_id ASC \
    LIMIT $2";
const RUNNING: &str = "SELECT id FROM matches WHERE status = 'running' ORDER BY started_at, id";

#[derive(sqlx::FromRow)]
struct LeaderRow {
    player_id: Uuid,
    name: String,
    matches: i64,
    wins: i64,
    total_points: i64,
}

fn check_limit(limit: u32) -> Result<i64, StoreError> {
    if (1..=MAX_PAGE).contains(&limit) {
        Ok(limit.into())
    } else {
        Err(StoreError::Invalid(format!(
            "limit must be 1..={MAX_PAGE}, got {limit}"
        )))
    }
}

impl Store {
    async fn match_row(&self, id: Uuid) -> Result<Option<MatchRow>, StoreError> {
        Ok(
            with_pool!(self, pool => sqlx::query_as(MATCH_BY_ID.as_str())
            .bind(id)
            .fetch_optional(pool)
            .await)?,
        )
    }

    async fn seat_rows(&self, id: Uuid) -> Result<Vec<SeatRow>, StoreError> {
        let mut rows: Vec<SeatRow> = with_pool!(self, pool => sqlx::query_as(SEATS_OF.as_str())
            .bind(id)
            .fetch_all(pool)
            .await)?;
        in_turn_order(&mut rows)?;
        Ok(rows)
    }

    /// The summary of a match (seats in turn order, results once ended, number of
    /// turns stored), or `None` for an unknown id.
    pub async fn match_summary(&self, id: Uuid) -> Result<Option<MatchSummary>, StoreError> {
        let Some(m) = self.match_row(id).await? else {
            return Ok(None);
        };
        let seats = self.seat_rows(id).await?;
        Ok(Some(m.summary(&seats)?))
    }

    /// The replay document of a match, or `None` for an unknown id: rule set, mode,
    /// commitment, every stored turn ordered by turn number, the seats, and — only
    /// once the match has ended — the seed and the end (reason and standings, best
    /// first, rule 9.2). An ended match's document passes `engine::replay::verify`.
    pub async fn replay(&self, id: Uuid) -> Result<Option<ReplayDoc>, StoreError> {
        let Some(m) = self.match_row(id).await? else {
            return Ok(None);
        };
        let seats = self.seat_rows(id).await?;
        let turns: Vec<TurnRow> = with_pool!(self, pool => sqlx::query_as(TURNS_OF.as_str())
            .bind(id)
            .fetch_all(pool)
            .await)?;
        let ended = m.status()? == MatchStatus::Ended;
        let (seed, end) = if ended {
            let seed: Seed = m
                .seed
                .as_deref()
                .unwrap_or_default()
                .parse()
                .map_err(|_| StoreError::Corrupt("matches.seed".into()))?;
            let mut standings = Vec::with_capacity(seats.len());
            for s in &seats {
                standings.push(s.standing()?.ok_or_else(|| {
                    StoreError::Corrupt("an ended match has a seat without result".into())
                })?);
            }
            // Rule 9.2 order: best first; equal places keep seat order (stable sort).
            standings.sort_by_key(|s| s.place);
            let reason = parse("matches.end_reason", m.end_reason.as_deref().unwrap_or(""))?;
            (Some(seed), Some(MatchEnd { reason, standings }))
        } else {
            (None, None)
        };
        let mut left: Vec<(i64, engine::Seat)> = Vec::new();
        for s in &seats {
            if let Some(seq) = s.left_seq {
                left.push((seq, s.seat()?));
            }
        }
        left.sort_unstable();
        let (dice_scheme, sealed, contributions) = self.dice_record(id).await?;
        Ok(Some(ReplayDoc {
            match_id: m.id,
            seats: seats.iter().map(SeatRow::entry).collect::<Result<_, _>>()?,
            replay: Replay {
                rules: m.rules.0.clone(),
                mode: parse("matches.mode", &m.mode)?,
                dice_commitment: m.dice_commitment.clone(),
                seed,
                dice_scheme,
                contributions: sealed.map(|_| contributions),
                turns: turns
                    .into_iter()
                    .map(TurnRow::record)
                    .collect::<Result<_, _>>()?,
                left: left.into_iter().map(|(_, seat)| seat).collect(),
                end,
            },
        }))
    }

    /// The summaries of `matches` (in their order), with the seats of all of them
    /// read in one query.
    async fn summaries(&self, matches: Vec<MatchRow>) -> Result<Vec<MatchSummary>, StoreError> {
        let mut by_match: HashMap<Uuid, Vec<SeatRow>> = HashMap::new();
        for ids in matches.chunks(IN_LIST_MAX) {
            let rows: Vec<SeatRow> = with_pool!(self, pool => {
                let mut qb = sqlx::QueryBuilder::new(format!(
                    "SELECT {SEAT_COLUMNS} FROM match_seats WHERE match_id IN ("
                ));
                let mut list = qb.separated(", ");
                for m in ids {
                    list.push_bind(m.id);
                }
                qb.push(")");
                qb.build_query_as().fetch_all(pool).await
            })?;
            for r in rows {
                by_match.entry(r.match_id).or_default().push(r);
            }
        }
        matches
            .iter()
            .map(|m| {
                let mut seats = by_match.remove(&m.id).unwrap_or_default();
                in_turn_order(&mut seats)?;
                m.summary(&seats)
            })
            .collect()
    }

    /// The matches among `ids` that are stored as running, newest start first (then
    /// highest id), at most `limit`: what the rooms `ids` of a server play now. Ids
    /// not stored (yet) or ended are left out. Two queries for up to 500 ids (one
    /// more per further 500).
    ///
    /// Errors: [`StoreError::Invalid`] when `limit` is outside 1..=100.
    pub async fn running_summaries(
        &self,
        ids: &[Uuid],
        limit: u32,
    ) -> Result<Vec<MatchSummary>, StoreError> {
        let limit = check_limit(limit)?;
        let mut matches: Vec<MatchRow> = Vec::new();
        for chunk in ids.chunks(IN_LIST_MAX) {
            let rows: Vec<MatchRow> = with_pool!(self, pool => {
                let mut qb = sqlx::QueryBuilder::new(format!(
                    "SELECT {MATCH_COLUMNS} FROM matches m \
                     WHERE m.status = 'running' AND m.id IN ("
                ));
                let mut list = qb.separated(", ");
                for id in chunk {
                    list.push_bind(*id);
                }
                qb.push(") ORDER BY m.started_at DESC, m.id DESC LIMIT ");
                qb.push_bind(limit);
                qb.build_query_as().fetch_all(pool).await
            })?;
            matches.extend(rows);
        }
        matches.sort_by_key(|m| std::cmp::Reverse((m.started_at, m.id)));
        matches.truncate(limit as usize);
        self.summaries(matches).await
    }

    /// One page of the matches `player_id` sat in, running and ended, in history
    /// order (newest `started_at` first, then highest id; see [`Page`] and
    /// [`Cursor`]). One query for the page — `limit + 1` rows, the extra one only
    /// telling whether another page follows — and one for its seats. An unknown
    /// player has no matches.
    ///
    /// Errors: [`StoreError::Invalid`] when `page.limit` is outside 1..=100.
    pub async fn player_matches(
        &self,
        player_id: Uuid,
        page: Page,
    ) -> Result<HistoryPage, StoreError> {
        let limit = check_limit(page.limit)?;
        let before = page.before.map(|c| micros(c.started_at));
        let before_id = page.before.and_then(|c| c.id);
        let mut rows: Vec<MatchRow> = with_pool!(self, pool => sqlx::query_as(HISTORY.as_str())
            .bind(player_id)
            .bind(before)
            .bind(before_id)
            .bind(limit + 1)
            .fetch_all(pool)
            .await)?;
        let more = rows.len() > page.limit as usize;
        rows.truncate(page.limit as usize);
        let matches = self.summaries(rows).await?;
        let next = matches.last().filter(|_| more).map(Cursor::after);
        Ok(HistoryPage { matches, next })
    }

    /// The best human players of `mode` over ended matches: matches played, wins
    /// (place 1, shared first places count) and total points; ordered by wins, then
    /// total points (both descending), then name and id. Bots are never listed.
    ///
    /// Errors: [`StoreError::Invalid`] when `limit` is outside 1..=100.
    pub async fn leaderboard(
        &self,
        mode: Mode,
        limit: u32,
    ) -> Result<Vec<LeaderboardRow>, StoreError> {
        let limit = check_limit(limit)?;
        let rows: Vec<LeaderRow> = with_pool!(self, pool => sqlx::query_as(LEADERBOARD)
            .bind(name(&mode))
            .bind(limit)
            .fetch_all(pool)
            .await)?;
        Ok(rows
            .into_iter()
            .map(|r| LeaderboardRow {
                player_id: r.player_id,
                name: r.name,
                matches: r.matches,
                wins: r.wins,
                total_points: r.total_points,
            })
            .collect())
    }

    /// Ids of the matches stored as running (e.g. left over by a crash), oldest
    /// start first.
    pub async fn unfinished_matches(&self) -> Result<Vec<Uuid>, StoreError> {
        let ids: Vec<(Uuid,)> = with_pool!(self, pool => sqlx::query_as(RUNNING)
            .fetch_all(pool)
            .await)?;
        Ok(ids.into_iter().map(|(id,)| id).collect())
    }
}
