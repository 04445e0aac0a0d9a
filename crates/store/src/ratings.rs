//! Stored ratings ([`crate::rating`]): the update written in the transaction of a
//! match's result, the reads (a match's rating changes, the rated leaderboard, a
//! player's profile) and the re-computation from stored results.
//!
//! Rated matches are applied in one global order, `rated_matches.seq`, assigned in
//! the result's transaction. On PostgreSQL that transaction first takes a
//! transaction-scoped advisory lock ([`RATING_LOCK`]) so that servers sharing the
//! database apply rated matches one at a time; on SQLite the transaction already
//! holds the database's write lock (it wrote the result first).

use crate::codec::{name, parse, small};
use crate::error::StoreError;
use crate::model::{ModeStats, PlayerProfile, RatedRow, StoredRating, MAX_PAGE};
use crate::rating::{rate, rated_ranks, RatedSeat, Rating, RatingChange};
use crate::store::{with_pool, Backend, Store};
use engine::{Mode, Seat};
use std::collections::HashMap;
use uuid::Uuid;

/// Key of the PostgreSQL advisory lock that serializes rating updates (any fixed
/// 64-bit number no other code of this database uses: "ludorate" in ASCII).
pub(crate) const RATING_LOCK: i64 = 0x6c75_646f_7261_7465;

pub(crate) const LOCK_RATINGS: &str = "SELECT pg_advisory_xact_lock($1)";
pub(crate) const MATCH_MODE: &str = "SELECT mode FROM matches WHERE id = $1";
pub(crate) const RATING_SEATS: &str =
    "SELECT match_id, seat, player_id, is_bot, place, left_seq FROM match_seats WHERE match_id = $1";
pub(crate) const CURRENT_RATING: &str =
    "SELECT mu, sigma FROM player_ratings WHERE player_id = $1 AND mode = $2";
pub(crate) const UPSERT_RATING: &str = "INSERT INTO player_ratings \
    (player_id, mode, mu, sigma, conservative, matches) VALUES ($1, $2, $3, $4, $5, 1) \
    ON CONFLICT (player_id, mode) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, \
    conservative = excluded.conservative, matches = player_ratings.matches + 1";
pub(crate) const SEAT_RATING: &str = "UPDATE match_seats SET mu_before = $3, sigma_before = $4, \
    mu_after = $5, sigma_after = $6 WHERE match_id = $1 AND seat = $2";
pub(crate) const RATED_MATCH: &str = "INSERT INTO rated_matches (seq, match_id) \
    SELECT COALESCE(MAX(seq), 0) + 1, $1 FROM rated_matches";

const ENDED_IN_ORDER: &str = "SELECT m.id, m.mode FROM matches m \
    LEFT JOIN rated_matches r ON r.match_id = m.id WHERE m.status = 'ended' \
    ORDER BY CASE WHEN r.seq IS NULL THEN 0 ELSE 1 END, r.seq, m.ended_at, m.id";
const ENDED_SEATS: &str = "SELECT s.match_id, s.seat, s.player_id, s.is_bot, s.place, s.left_seq \
    FROM match_seats s JOIN matches m ON m.id = s.match_id WHERE m.status = 'ended'";
const ALL_RATINGS: &str =
    "SELECT player_id, mode, mu, sigma, CAST(matches AS BIGINT) AS matches FROM player_ratings \
     ORDER BY player_id, mode";
const BOARD: &str = "SELECT r.player_id AS player_id, p.name AS name, r.mu AS mu, \
    r.sigma AS sigma, CAST(r.matches AS BIGINT) AS rated_matches, \
    CAST((SELECT COUNT(*) FROM match_seats s JOIN matches m ON m.id = s.match_id \
      WHERE s.player_id = r.player_id AND m.mode = r.mode AND m.status = 'ended' \
      AND s.place = 1) AS BIGINT) AS wins \
    FROM player_ratings r JOIN players p ON p.id = r.player_id \
    WHERE r.mode = $1 AND r.matches >= $2 AND p.deleted_at IS NULL \
    ORDER BY r.conservative DESC, p.name ASC, r.player_id ASC LIMIT $3";
const PROFILE_COUNTS: &str = "SELECT m.mode AS mode, CAST(COUNT(*) AS BIGINT) AS matches, \
    CAST(SUM(CASE WHEN s.place = 1 THEN 1 ELSE 0 END) AS BIGINT) AS wins, \
    CAST(SUM(s.total) AS BIGINT) AS total_points \
    FROM match_seats s JOIN matches m ON m.id = s.match_id \
    WHERE s.player_id = $1 AND m.status = 'ended' GROUP BY m.mode";
const PROFILE_RATINGS: &str =
    "SELECT mode, mu, sigma, CAST(matches AS BIGINT) AS matches FROM player_ratings \
     WHERE player_id = $1";

/// One seat as the rating reads it.
#[derive(sqlx::FromRow, Debug, Clone)]
pub(crate) struct RatingSeatRow {
    pub match_id: Uuid,
    pub seat: String,
    pub player_id: Option<Uuid>,
    pub is_bot: bool,
    pub place: Option<i32>,
    pub left_seq: Option<i64>,
}

/// What one rated match does: per rated seat, the seat, player and rank.
pub(crate) struct MatchRating {
    pub seats: Vec<(String, Uuid, u32)>,
}

/// The rated seats of a match's seat rows (see [`rated_ranks`]); empty when the
/// match rates nothing. Errors: [`StoreError::Corrupt`] for an ended seat without
/// a place.
pub(crate) fn plan(rows: &[RatingSeatRow]) -> Result<MatchRating, StoreError> {
    let mut seats = Vec::with_capacity(rows.len());
    for r in rows {
        let place = r
            .place
            .ok_or_else(|| StoreError::Corrupt("an ended match has a seat without place".into()))?;
        seats.push(RatedSeat {
            player_id: r.player_id,
            is_bot: r.is_bot,
            place: small("match_seats.place", place)?,
            left: r.left_seq.is_some(),
        });
    }
    // Seat order (green, red, blue, yellow) whatever order the rows came in, so the
    // update is the same wherever it is computed.
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&i| {
        parse::<Seat>("match_seats.seat", &rows[i].seat)
            .map(Seat::index)
            .unwrap_or(usize::MAX)
    });
    let sorted: Vec<RatedSeat> = order.iter().map(|&i| seats[i]).collect();
    Ok(MatchRating {
        seats: rated_ranks(&sorted)
            .into_iter()
            .map(|(i, p, rank)| (rows[order[i]].seat.clone(), p, rank))
            .collect(),
    })
}

/// Rates the match `$id`, whose result the transaction `$tx` has just written:
/// reads its seats, the players' current ratings, and writes the new ratings, the
/// seats' before/after and the match's place in `rated_matches`. `$pg`: take the
/// PostgreSQL advisory lock first. Used inside an async block returning
/// `Result<_, sqlx::Error>` (database errors propagate with `?`); evaluates to
/// `Option<StoreError>`: `Some` for a corrupt seat row (the batch is then rolled back).
macro_rules! rate_in_tx {
    ($tx:expr, $id:expr, $pg:expr) => {{
        use $crate::ratings::*;
        let rows: Vec<RatingSeatRow> = sqlx::query_as(RATING_SEATS)
            .bind($id)
            .fetch_all(&mut *$tx)
            .await?;
        match plan(&rows) {
            Err(e) => Some(e),
            Ok(p) if p.seats.is_empty() => None,
            Ok(p) => {
                if $pg {
                    sqlx::query(LOCK_RATINGS)
                        .bind(RATING_LOCK)
                        .execute(&mut *$tx)
                        .await?;
                }
                let (mode,): (String,) = sqlx::query_as(MATCH_MODE)
                    .bind($id)
                    .fetch_one(&mut *$tx)
                    .await?;
                let mut before = Vec::with_capacity(p.seats.len());
                for (_, player, rank) in &p.seats {
                    let cur: Option<(f64, f64)> = sqlx::query_as(CURRENT_RATING)
                        .bind(*player)
                        .bind(&mode)
                        .fetch_optional(&mut *$tx)
                        .await?;
                    let r = cur.map_or_else($crate::rating::Rating::initial, |(mu, sigma)| {
                        $crate::rating::Rating::new(mu, sigma)
                    });
                    before.push((r, *rank));
                }
                let after = $crate::rating::rate(&before);
                for (((seat, player, _), (b, _)), a) in p.seats.iter().zip(&before).zip(&after) {
                    sqlx::query(UPSERT_RATING)
                        .bind(*player)
                        .bind(&mode)
                        .bind(a.mu)
                        .bind(a.sigma)
                        .bind(a.conservative)
                        .execute(&mut *$tx)
                        .await?;
                    sqlx::query(SEAT_RATING)
                        .bind($id)
                        .bind(seat)
                        .bind(b.mu)
                        .bind(b.sigma)
                        .bind(a.mu)
                        .bind(a.sigma)
                        .execute(&mut *$tx)
                        .await?;
                }
                sqlx::query(RATED_MATCH)
                    .bind($id)
                    .execute(&mut *$tx)
                    .await?;
                None
            }
        }
    }};
}
pub(crate) use rate_in_tx;

#[derive(sqlx::FromRow)]
struct BoardRow {
    player_id: Uuid,
    name: String,
    mu: f64,
    sigma: f64,
    rated_matches: i64,
    wins: i64,
}

#[derive(sqlx::FromRow)]
struct CountRow {
    mode: String,
    matches: i64,
    wins: i64,
    total_points: i64,
}

#[derive(sqlx::FromRow)]
struct StoredRow {
    player_id: Uuid,
    mode: String,
    mu: f64,
    sigma: f64,
    matches: i64,
}

/// The ratings of every player from stored results, and every rated seat's before
/// and after, by [`Store::recompute`].
struct Recomputed {
    ratings: HashMap<(Uuid, Mode), (Rating, i64)>,
    /// (match, seat name, before, after), in the order applied.
    seats: Vec<(Uuid, String, Rating, Rating)>,
}

impl Store {
    pub(crate) fn is_pg(&self) -> bool {
        matches!(self.backend, Backend::Pg(_))
    }

    /// How the match `match_id` changed its players' ratings: per rated seat, in
    /// turn order. Empty for a running match, one that rated nothing (fewer than two
    /// humans) and an unknown id.
    pub async fn rating_changes(
        &self,
        match_id: Uuid,
    ) -> Result<Vec<(Seat, RatingChange)>, StoreError> {
        let Some(summary) = self.match_summary(match_id).await? else {
            return Ok(Vec::new());
        };
        Ok(summary
            .seats
            .iter()
            .filter_map(|s| Some((s.seat, s.rating?)))
            .collect())
    }

    /// The rated leaderboard of `mode`: players with at least `min_matches` rated
    /// matches of it, best conservative rating (μ − 3σ) first, then name and id; at
    /// most `limit`. Bots are never rated, so never listed.
    ///
    /// Errors: [`StoreError::Invalid`] when `limit` is outside 1..=100.
    pub async fn rated_leaderboard(
        &self,
        mode: Mode,
        min_matches: u32,
        limit: u32,
    ) -> Result<Vec<RatedRow>, StoreError> {
        if !(1..=MAX_PAGE).contains(&limit) {
            return Err(StoreError::Invalid(format!(
                "limit must be 1..={MAX_PAGE}, got {limit}"
            )));
        }
        let rows: Vec<BoardRow> = with_pool!(self, pool => sqlx::query_as(BOARD)
            .bind(name(&mode))
            .bind(i64::from(min_matches))
            .bind(i64::from(limit))
            .fetch_all(pool)
            .await)?;
        Ok(rows
            .into_iter()
            .map(|r| RatedRow {
                player_id: r.player_id,
                name: r.name,
                rating: Rating::new(r.mu, r.sigma),
                rated_matches: r.rated_matches,
                wins: r.wins,
            })
            .collect())
    }

    /// A player's profile (name, and per mode: rating, rated and ended matches,
    /// wins, points), or `None` for an unknown id.
    pub async fn player_profile(&self, id: Uuid) -> Result<Option<PlayerProfile>, StoreError> {
        let Some(p) = self.player(id).await? else {
            return Ok(None);
        };
        let counts: Vec<CountRow> = with_pool!(self, pool => sqlx::query_as(PROFILE_COUNTS)
            .bind(id)
            .fetch_all(pool)
            .await)?;
        let ratings: Vec<(String, f64, f64, i64)> = with_pool!(self, pool => sqlx::query_as(PROFILE_RATINGS)
            .bind(id)
            .fetch_all(pool)
            .await)?;
        let modes = [Mode::Journey, Mode::Clash]
            .into_iter()
            .map(|mode| {
                let c = counts.iter().find(|c| c.mode == mode.name());
                let r = ratings.iter().find(|r| r.0 == mode.name());
                ModeStats {
                    mode,
                    rating: r.map_or_else(Rating::initial, |r| Rating::new(r.1, r.2)),
                    rated_matches: r.map_or(0, |r| r.3),
                    matches: c.map_or(0, |c| c.matches),
                    wins: c.map_or(0, |c| c.wins),
                    total_points: c.map_or(0, |c| c.total_points),
                }
            })
            .collect();
        Ok(Some(PlayerProfile {
            player_id: p.id,
            name: p.name,
            created_at: p.created_at,
            modes,
        }))
    }

    /// Every stored rating (table `player_ratings`), by player id then mode: what
    /// the incremental updates made.
    pub async fn stored_ratings(&self) -> Result<Vec<StoredRating>, StoreError> {
        let rows: Vec<StoredRow> = with_pool!(self, pool => sqlx::query_as(ALL_RATINGS)
            .fetch_all(pool)
            .await)?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            out.push(StoredRating {
                player_id: r.player_id,
                mode: parse("player_ratings.mode", &r.mode)?,
                mu: r.mu,
                sigma: r.sigma,
                matches: r.matches,
            });
        }
        out.sort_by_key(|r| (r.player_id, r.mode.name()));
        Ok(out)
    }

    async fn recompute(&self) -> Result<Recomputed, StoreError> {
        let matches: Vec<(Uuid, String)> = with_pool!(self, pool => sqlx::query_as(ENDED_IN_ORDER)
            .fetch_all(pool)
            .await)?;
        let seat_rows: Vec<RatingSeatRow> = with_pool!(self, pool => sqlx::query_as(ENDED_SEATS)
            .fetch_all(pool)
            .await)?;
        let mut by_match: HashMap<Uuid, Vec<RatingSeatRow>> = HashMap::new();
        for r in seat_rows {
            by_match.entry(r.match_id).or_default().push(r);
        }
        let mut out = Recomputed {
            ratings: HashMap::new(),
            seats: Vec::new(),
        };
        for (id, mode) in matches {
            let mode: Mode = parse("matches.mode", &mode)?;
            let rows = by_match.remove(&id).unwrap_or_default();
            let p = plan(&rows)?;
            if p.seats.is_empty() {
                continue;
            }
            let before: Vec<(Rating, u32)> = p
                .seats
                .iter()
                .map(|(_, player, rank)| {
                    let r = out
                        .ratings
                        .get(&(*player, mode))
                        .map_or_else(Rating::initial, |x| x.0);
                    (r, *rank)
                })
                .collect();
            let after = rate(&before);
            for (((seat, player, _), (b, _)), a) in p.seats.iter().zip(&before).zip(&after) {
                let e = out
                    .ratings
                    .entry((*player, mode))
                    .or_insert((Rating::initial(), 0));
                *e = (*a, e.1 + 1);
                out.seats.push((id, seat.clone(), *b, *a));
            }
        }
        Ok(out)
    }

    /// Re-computes every rating from the stored results alone (`matches`,
    /// `match_seats`: seats, places, who left), applying the rated matches in the
    /// order they were rated (`rated_matches.seq`; matches ended before ratings
    /// existed first, by end time). Writes nothing. Equal to
    /// [`Store::stored_ratings`] when every rated match was rated as it ended.
    pub async fn recompute_ratings(&self) -> Result<Vec<StoredRating>, StoreError> {
        let r = self.recompute().await?;
        let mut out: Vec<StoredRating> = r
            .ratings
            .into_iter()
            .map(|((player_id, mode), (rating, matches))| StoredRating {
                player_id,
                mode,
                mu: rating.mu,
                sigma: rating.sigma,
                matches,
            })
            .collect();
        out.sort_by_key(|r| (r.player_id, r.mode.name()));
        Ok(out)
    }

    /// Replaces the stored ratings and every seat's before/after with
    /// [`Store::recompute_ratings`], in one transaction (for a database with matches
    /// that ended before ratings existed, or after a change of the rating model).
    /// Returns the number of ratings written.
    pub async fn rebuild_ratings(&self) -> Result<usize, StoreError> {
        let pg = self.is_pg();
        let r = self.recompute().await?;
        let n = r.ratings.len();
        with_pool!(self, pool => async {
            let mut tx = crate::store::begin_write(pool).await?;
            if pg {
                sqlx::query(LOCK_RATINGS).bind(RATING_LOCK).execute(&mut *tx).await?;
            }
            sqlx::query("DELETE FROM player_ratings").execute(&mut *tx).await?;
            sqlx::query("UPDATE match_seats SET mu_before = NULL, sigma_before = NULL, \
                mu_after = NULL, sigma_after = NULL WHERE mu_before IS NOT NULL")
                .execute(&mut *tx)
                .await?;
            for ((player, mode), (rating, matches)) in &r.ratings {
                sqlx::query("INSERT INTO player_ratings \
                    (player_id, mode, mu, sigma, conservative, matches) \
                    VALUES ($1, $2, $3, $4, $5, $6)")
                    .bind(*player)
                    .bind(name(mode))
                    .bind(rating.mu)
                    .bind(rating.sigma)
                    .bind(rating.conservative)
                    .bind(*matches as i32)
                    .execute(&mut *tx)
                    .await?;
            }
            for (id, seat, b, a) in &r.seats {
                sqlx::query(SEAT_RATING)
                    .bind(*id)
                    .bind(seat)
                    .bind(b.mu)
                    .bind(b.sigma)
                    .bind(a.mu)
                    .bind(a.sigma)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await
        }
        .await)?;
        Ok(n)
    }
}
