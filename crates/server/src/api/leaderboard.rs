//! `GET /api/v1/leaderboard?mode=journey|clash&limit=`: the rated players of a mode
//! by conservative skill rating μ − 3σ (Weng-Lin / OpenSkill, skill points: a new
//! player has μ 25, σ 25/3, so 0), best first, then name; only players with at least
//! `--rating-min-matches` rated matches of the mode are listed. Bots are never rated
//! in players' matches.
//!
//! `GET /api/v1/leaderboard/bots?mode=`: the bot levels' ratings, shown apart from
//! the players': the same Weng-Lin system over bot-vs-bot matches played by
//! `bot-duel` (`crates/bot/ratings.json`, compiled into the `bot` crate as
//! [`bot::RATINGS_JSON`]).

use crate::api::extract::{parse_limit, parse_mode, ApiQuery};
use crate::api::model::{bot_level_ref, RatedRow};
use crate::api::openapi::ErrorBody;
use crate::error::ApiError;
use crate::services::Services;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use engine::Mode;
use protocol::{BotLevel, Rating, RestErrorCode};
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;
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
pub(crate) fn router() -> Router<Services> {
    Router::new()
        .route("/api/v1/leaderboard", get(leaderboard))
        .route("/api/v1/leaderboard/bots", get(bot_leaderboard))
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
    State(state): State<Services>,
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

/// Query parameters of the bots' leaderboard.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct BotLeaderboardQuery {
    /// `journey` or `clash` (rule 1.4); both modes when absent.
    #[param(value_type = Option<String>, example = "clash")]
    pub mode: Option<String>,
}

/// One bot level's rating in one mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub(crate) struct BotRatedRow {
    /// `journey` or `clash` (rule 1.4).
    #[schema(value_type = String, example = "clash")]
    pub mode: Mode,
    /// The bot level.
    #[schema(schema_with = bot_level_ref)]
    pub level: BotLevel,
    /// The level's rating after the bot-vs-bot matches (skill points; ranked by
    /// `rating.conservative` = μ − 3σ).
    #[schema(schema_with = crate::api::model::rating_ref)]
    pub rating: Rating,
    /// Bot-vs-bot matches the rating comes from (one bot of each level at every
    /// table, seats rotating).
    pub matches: u32,
    /// Seed of those matches (`bot-duel --seed`): the run can be repeated.
    pub seed: u64,
    /// UTC date of the run, `YYYY-MM-DD`.
    #[schema(example = "2026-12-06")]
    pub date: String,
}

/// `GET /api/v1/leaderboard/bots` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub(crate) struct BotLeaderboard {
    /// Journey first, then clash; in each mode the best `rating.conservative` first.
    pub bots: Vec<BotRatedRow>,
}

/// The bot levels' rows of `mode` (both modes when `None`), as
/// [`BotLeaderboard::bots`] orders them; a line of the file that is not a level
/// players choose (`random`) is left out.
///
/// Errors: the compiled-in ratings file does not parse (the `bot` crate tests it).
pub(crate) fn bot_rows(mode: Option<Mode>) -> Result<Vec<BotRatedRow>, ApiError> {
    static FILE: LazyLock<Result<bot::PublishedRatings, String>> =
        LazyLock::new(|| bot::PublishedRatings::checked_in().map_err(|e| e.to_string()));
    let file = FILE.as_ref().map_err(|e| {
        ApiError::new(
            RestErrorCode::Internal,
            format!("the bot ratings do not parse: {e}"),
        )
    })?;
    let modes = match mode {
        Some(m) => vec![m],
        None => vec![Mode::Journey, Mode::Clash],
    };
    Ok(modes
        .into_iter()
        .flat_map(|m| file.ranked(m))
        .filter_map(|r| {
            Some(BotRatedRow {
                mode: r.mode,
                level: BotLevel::parse(r.level.name())?,
                rating: Rating {
                    mu: r.mu,
                    sigma: r.sigma,
                    conservative: r.conservative(),
                },
                matches: r.matches,
                seed: r.seed,
                date: r.date.clone(),
            })
        })
        .collect())
}

/// The bot levels' ratings from bot-vs-bot matches (Weng-Lin, as players are rated),
/// shown apart from the players' leaderboard.
#[utoipa::path(
    get,
    path = "/api/v1/leaderboard/bots",
    operation_id = "getBotLeaderboard",
    tag = "leaderboard",
    params(BotLeaderboardQuery),
    responses(
        (status = 200, description = "Every bot level's rating per mode.", body = BotLeaderboard),
        (status = 400, description = "`invalid_mode` (not journey/clash) or `bad_query`.", body = ErrorBody),
        (status = 500, description = "`internal`: the server's bot ratings do not parse.", body = ErrorBody),
    )
)]
pub(crate) async fn bot_leaderboard(
    ApiQuery(q): ApiQuery<BotLeaderboardQuery>,
) -> Result<Json<BotLeaderboard>, ApiError> {
    let mode = match q.mode.as_deref() {
        None => None,
        some => Some(parse_mode(some)?),
    };
    Ok(Json(BotLeaderboard {
        bots: bot_rows(mode)?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_is_listed_once_per_mode_best_first() {
        let rows = bot_rows(None).unwrap();
        assert_eq!(rows.len(), 8);
        for (half, mode) in rows.chunks(4).zip([Mode::Journey, Mode::Clash]) {
            assert!(half.iter().all(|r| r.mode == mode), "{half:?}");
            let mut levels: Vec<BotLevel> = half.iter().map(|r| r.level).collect();
            levels.sort();
            assert_eq!(levels, BotLevel::ALL.to_vec());
            assert!(half
                .windows(2)
                .all(|w| w[0].rating.conservative >= w[1].rating.conservative));
        }
        assert_eq!(bot_rows(Some(Mode::Clash)).unwrap(), rows[4..].to_vec());
    }
}
