//! `GET /api/v1/leaderboard?mode=journey|clash&limit=`: the rated players of a mode
//! by conservative skill rating μ − 3σ (Weng-Lin / OpenSkill, skill points: a new
//! player has μ 25, σ 25/3, so 0), best first, then name; only players with at least
//! `--rating-min-matches` rated matches of the mode are listed. Bots are never rated.

use crate::api::extract::{parse_limit, parse_mode, ApiQuery};
use crate::api::model::RatedRow;
use crate::api::openapi::ErrorBody;
use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use engine::Mode;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// Query parameters (kept as text so that each gets its own error code).
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct LeaderboardQuery {
    /// `journey` or `clash` (rule 1.4); required.
    #[param(value_type = String, example = "journey")]
    pub mode: Option<String>,
    /// Rows, 1..=100 (default 20).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100, example = 20)]
    pub limit: Option<String>,
}

/// `GET /api/v1/leaderboard` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub(crate) struct Leaderboard {
    /// The mode asked for.
    #[schema(value_type = String, example = "journey")]
    pub mode: Mode,
    /// Rated matches a player needs to be listed (the server's
    /// `--rating-min-matches`).
    pub min_matches: u32,
    /// Best first: highest `rating.conservative` (μ − 3σ), then name, then id.
    pub players: Vec<RatedRow>,
}

/// Routes of this resource.
pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/api/v1/leaderboard", get(leaderboard))
}

/// The best rated players of a mode, by conservative rating μ − 3σ.
#[utoipa::path(
    get,
    path = "/api/v1/leaderboard",
    operation_id = "getLeaderboard",
    tag = "leaderboard",
    params(LeaderboardQuery),
    responses(
        (status = 200, description = "The leaderboard (empty when no match of the mode has ended).", body = Leaderboard),
        (status = 400, description = "`invalid_mode` (missing, or not journey/clash), \
            `invalid_limit` (not 1..=100) or `bad_query`.", body = ErrorBody),
        (status = 500, description = "`internal`: a store failure.", body = ErrorBody),
        (status = 503, description = "`unavailable`: the database does not answer.", body = ErrorBody),
    )
)]
pub(crate) async fn leaderboard(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<LeaderboardQuery>,
) -> Result<Json<Leaderboard>, ApiError> {
    let mode = parse_mode(q.mode.as_deref())?;
    let limit = parse_limit(q.limit.as_deref())?;
    let min_matches = state.config().rating_min_matches;
    let players = state
        .store()
        .rated_leaderboard(mode, min_matches, limit)
        .await?;
    Ok(Json(Leaderboard {
        mode,
        min_matches,
        players: players.into_iter().map(RatedRow::from).collect(),
    }))
}
