//! A player's profile, `GET /api/v1/players/{player_id}` (name, rating and counts
//! per mode), and match history:
//! `GET /api/v1/players/{player_id}/matches?limit=&before=&before_id=`, newest first,
//! paged by a cursor.
//!
//! History order is `started_at` descending, then match id descending. A page holds
//! at most `limit` matches (1..=100, default 20). The cursor is the pair
//! (`before`, `before_id`): the matches after it started strictly before `before`, or
//! exactly at `before` with an id below `before_id`. `next_before` and
//! `next_before_id` are the last match's start and id when more matches follow, else
//! both `null`: pass them as `before` and `before_id` for the next page, so matches
//! that started in the same microsecond are neither skipped nor repeated. `before`
//! alone is a time filter: the matches that started strictly before it.

use crate::api::extract::{parse_before, parse_before_id, parse_limit, ApiPath, ApiQuery};
use crate::api::model::{MatchSummary, PlayerProfile};
use crate::api::openapi::ErrorBody;
use crate::error::ApiError;
use crate::services::Services;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use chrono::{DateTime, Utc};
use protocol::RestErrorCode;
use serde::{Deserialize, Serialize};
use store::{Cursor, Page};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// Query parameters of the history (kept as text so that each gets its own error
/// code; see [`parse_limit`] and [`parse_before`]).
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct HistoryQuery {
    /// Matches per page, 1..=100 (default 20).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100, example = 20)]
    pub limit: Option<String>,
    /// Cursor time: only matches that started before this RFC 3339 time (or exactly
    /// at it, when `before_id` is given): the previous page's `next_before`.
    #[param(value_type = Option<String>, format = DateTime, example = "2026-01-02T03:04:05.123456Z")]
    pub before: Option<String>,
    /// Cursor tie-break, only with `before`: the previous page's `next_before_id`;
    /// matches that started exactly at `before` follow when their id is below it.
    #[param(value_type = Option<Uuid>, format = Uuid)]
    pub before_id: Option<String>,
}

/// `GET /api/v1/players/{player_id}/matches` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub(crate) struct MatchHistory {
    /// The page: matches the player sat in, running and ended, newest first (by
    /// `started_at`, then id).
    pub matches: Vec<MatchSummary>,
    /// The `before` of the next page (the last match's `started_at`), or `null` when
    /// this page is the last.
    pub next_before: Option<DateTime<Utc>>,
    /// The `before_id` of the next page (the last match's id), or `null` when this
    /// page is the last.
    pub next_before_id: Option<Uuid>,
}

/// Routes of this resource.
pub(crate) fn router() -> Router<Services> {
    Router::new()
        .route("/api/v1/players/{player_id}", get(profile))
        .route("/api/v1/players/{player_id}/matches", get(matches))
}

/// A player's profile: name, and per mode the rating and counts.
///
/// Ratings are Weng-Lin (OpenSkill) skill ratings in skill points: a new player
/// has μ 25 and σ 25/3 (conservative μ − 3σ = 0); only matches with two or more
/// human players are rated.
#[utoipa::path(
    get,
    path = "/api/v1/players/{player_id}",
    operation_id = "getPlayer",
    tag = "players",
    params(
        ("player_id" = Uuid, Path, description = "The player id (from `POST /api/v1/guests`)."),
    ),
    responses(
        (status = 200, description = "The profile: name, creation time, and for journey and \
            clash the rating, rated matches, ended matches, wins and points.", body = PlayerProfile),
        (status = 400, description = "`invalid_id` (not a UUID).", body = ErrorBody),
        (status = 404, description = "`player_not_found`: no player with this id.", body = ErrorBody),
        (status = 500, description = "`internal`: a store failure.", body = ErrorBody),
        (status = 503, description = "`unavailable`: the database does not answer.", body = ErrorBody),
    )
)]
pub(crate) async fn profile(
    State(state): State<Services>,
    ApiPath(player_id): ApiPath<Uuid>,
) -> Result<Json<PlayerProfile>, ApiError> {
    match state.store().player_profile(player_id).await? {
        Some(p) => Ok(Json(p.into())),
        None => Err(ApiError::new(
            RestErrorCode::PlayerNotFound,
            format!("no player {player_id}"),
        )),
    }
}

/// A player's matches, newest first, paged.
///
/// History order is `started_at` descending, then match id descending; running and
/// ended matches are listed. Paging: pass the previous page's `next_before` and
/// `next_before_id` as `before` and `before_id`; both are `null` on the last page
/// (also when it holds exactly `limit` matches). `before` alone lists the matches
/// that started strictly before that time.
#[utoipa::path(
    get,
    path = "/api/v1/players/{player_id}/matches",
    operation_id = "getPlayerMatches",
    tag = "players",
    params(
        ("player_id" = Uuid, Path, description = "The player id (from `POST /api/v1/guests`)."),
        HistoryQuery,
    ),
    responses(
        (status = 200, description = "One page of the history.", body = MatchHistory),
        (status = 400, description = "`invalid_id` (not a UUID), `invalid_limit` (not 1..=100), \
            `invalid_cursor` (`before` not RFC 3339, `before_id` not a UUID or without \
            `before`) or `bad_query`.", body = ErrorBody),
        (status = 404, description = "`player_not_found`: no player with this id.", body = ErrorBody),
        (status = 500, description = "`internal`: a store failure.", body = ErrorBody),
        (status = 503, description = "`unavailable`: the database does not answer.", body = ErrorBody),
    )
)]
pub(crate) async fn matches(
    State(state): State<Services>,
    ApiPath(player_id): ApiPath<Uuid>,
    ApiQuery(q): ApiQuery<HistoryQuery>,
) -> Result<Json<MatchHistory>, ApiError> {
    let limit = parse_limit(q.limit.as_deref())?;
    let before = parse_before(q.before.as_deref())?;
    let before_id = parse_before_id(q.before_id.as_deref())?;
    let before = match (before, before_id) {
        (Some(started_at), id) => Some(Cursor { started_at, id }),
        (None, None) => None,
        (None, Some(_)) => {
            return Err(ApiError::new(
                RestErrorCode::InvalidCursor,
                "before_id needs before (pass the previous page's next_before with it)",
            ))
        }
    };
    let store = state.store();
    if store.player(player_id).await?.is_none() {
        return Err(ApiError::new(
            RestErrorCode::PlayerNotFound,
            format!("no player {player_id}"),
        ));
    }
    let page = store
        .player_matches(player_id, Page { limit, before })
        .await?;
    Ok(Json(MatchHistory {
        matches: page.matches.into_iter().map(MatchSummary::from).collect(),
        next_before: page.next.map(|c| c.started_at),
        next_before_id: page.next.and_then(|c| c.id),
    }))
}
