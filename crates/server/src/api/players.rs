//! A player's match history: `GET /api/v1/players/{player_id}/matches?limit=&before=`,
//! newest first, paged by a time cursor.
//!
//! Paging: a page holds at most `limit` matches (1..=100, default 20) that started
//! strictly before `before` (RFC 3339; absent: the newest). `next_before` is the
//! `started_at` of the page's last match when more matches follow, else `null`: pass
//! it as `before` for the next page. (A player sits in one match at a time, so two of
//! its matches never share a start instant and the cursor skips none.)

use crate::api::extract::{parse_before, parse_limit, ApiPath, ApiQuery};
use crate::api::openapi::ErrorBody;
use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use store::{MatchSummary, Page};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// Query parameters of the history (kept as text so that each gets its own error
/// code; see [`parse_limit`] and [`parse_before`]).
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HistoryQuery {
    /// Matches per page, 1..=100 (default 20).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100, example = 20)]
    pub limit: Option<String>,
    /// Cursor: only matches that started strictly before this RFC 3339 time (the
    /// previous page's `next_before`).
    #[param(value_type = Option<String>, format = DateTime, example = "2026-01-02T03:04:05.123456Z")]
    pub before: Option<String>,
}

/// `GET /api/v1/players/{player_id}/matches` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct MatchHistory {
    /// The page: matches the player sat in, newest first (by `started_at`), running
    /// and ended.
    pub matches: Vec<MatchSummary>,
    /// The `before` of the next page (the last match's `started_at`), or `null` when
    /// this page is the last.
    pub next_before: Option<DateTime<Utc>>,
}

/// Routes of this resource.
pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/players/{player_id}/matches", get(matches))
}

/// A player's matches, newest first, paged.
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
            `invalid_cursor` (`before` not RFC 3339) or `bad_query`.", body = ErrorBody),
        (status = 404, description = "`player_not_found`: no player with this id.", body = ErrorBody),
        (status = 500, description = "`internal`: a store failure.", body = ErrorBody),
    )
)]
pub async fn matches(
    State(state): State<AppState>,
    ApiPath(player_id): ApiPath<Uuid>,
    ApiQuery(q): ApiQuery<HistoryQuery>,
) -> Result<Json<MatchHistory>, ApiError> {
    let limit = parse_limit(q.limit.as_deref())?;
    let before = parse_before(q.before.as_deref())?;
    let store = state.store();
    if store.player(player_id).await?.is_none() {
        return Err(ApiError::NotFound {
            code: "player_not_found",
            message: format!("no player {player_id}"),
        });
    }
    let matches = store
        .player_matches(player_id, Page { limit, before })
        .await?;
    // A full page may be the last one: look one match further to know.
    let next_before = match matches.last() {
        Some(last) if matches.len() == limit as usize => {
            let cursor = Some(last.started_at);
            let more = store
                .player_matches(
                    player_id,
                    Page {
                        limit: 1,
                        before: cursor,
                    },
                )
                .await?;
            cursor.filter(|_| !more.is_empty())
        }
        _ => None,
    };
    Ok(Json(MatchHistory {
        matches,
        next_before,
    }))
}
