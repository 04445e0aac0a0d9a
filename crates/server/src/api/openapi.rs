//! The OpenAPI 3.1 document of the REST API, generated from the handlers'
//! `#[utoipa::path]` attributes and the response types ([`ApiDoc`]). Served at
//! `GET /api/v1/openapi.json` and kept in the workspace's `proto/openapi.json`
//! (`cargo run -p server --bin gen-openapi`; a test fails when the file is stale).

use crate::api::{guests, health, leaderboard, matches, players};
use crate::state::AppState;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};

/// Where the document is served.
pub const OPENAPI_PATH: &str = "/api/v1/openapi.json";

/// The REST error body: every 4xx and 5xx answer of the API has this shape (it is
/// what [`crate::error::ApiError`] renders).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

/// The inside of [`ErrorBody`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorDetail {
    /// Stable snake_case code: `bad_json`, `bad_query`, `invalid_name`, `invalid_id`,
    /// `invalid_limit`, `invalid_cursor`, `invalid_mode` (400), `not_authenticated`
    /// (401), `match_not_found`, `player_not_found` (404), `internal` (500),
    /// `unavailable` (503).
    #[schema(example = "match_not_found")]
    pub code: String,
    /// Human-readable explanation (may change between versions).
    pub message: String,
}

/// The OpenAPI document. See [`document`] for its serialized form.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Game server REST API",
        description = "REST side of the four-seat board game server (the game itself is \
            played over the WebSocket at `/ws`, described in `proto/README.md`). Every error \
            answer is `{\"error\": {\"code\", \"message\"}}` (`ErrorBody`)."
    ),
    paths(
        guests::create,
        guests::me,
        matches::summary,
        matches::replay,
        matches::live,
        players::matches,
        leaderboard::leaderboard,
        health::health,
        health::ready,
        serve,
    ),
    components(schemas(ErrorBody, ErrorDetail)),
    modifiers(&BearerToken, &MetricsPath),
    tags(
        (name = "guests", description = "Guest identities and their bearer tokens."),
        (name = "matches", description = "Stored matches and their replays (RULES.md §10)."),
        (name = "players", description = "A player's match history."),
        (name = "leaderboard", description = "Best players per mode."),
        (name = "probes", description = "Liveness, readiness and metrics."),
        (name = "meta", description = "This document."),
    )
)]
pub struct ApiDoc;

/// Adds the `bearer` security scheme (`Authorization: Bearer <token>`, the token of
/// `POST /api/v1/guests`).
struct BearerToken;

impl Modify for BearerToken {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
    }
}

/// Documents `GET /metrics`, which [`crate::metrics`] serves (its handler is not an
/// API handler, so its description is added here).
struct MetricsPath;

/// The content type of the Prometheus text exposition format.
const PROMETHEUS_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";

impl Modify for MetricsPath {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::path::{HttpMethod, OperationBuilder};
        use utoipa::openapi::{Content, ObjectBuilder, ResponseBuilder, Type};
        let text = Content::new(Some(ObjectBuilder::new().schema_type(Type::String)));
        let op = OperationBuilder::new()
            .tag("probes")
            .operation_id(Some("metrics"))
            .summary(Some("Prometheus metrics."))
            .description(Some(
                "Connections, rooms, queues, turns resolved, turn latency histogram, \
                 persistence backlog, retries and errors (list in `crate::metrics`).",
            ))
            .response(
                "200",
                ResponseBuilder::new()
                    .description("The Prometheus text exposition format 0.0.4.")
                    .content(PROMETHEUS_TEXT, text),
            );
        openapi
            .paths
            .add_path_operation("/metrics", vec![HttpMethod::Get], op);
    }
}

/// The document as pretty-printed JSON ending in a newline: exactly the bytes of
/// `proto/openapi.json` and of the `GET /api/v1/openapi.json` body.
pub fn document() -> String {
    let mut s = ApiDoc::openapi()
        .to_pretty_json()
        .expect("an OpenAPI document always serializes");
    s.push('\n');
    s
}

static DOCUMENT: LazyLock<String> = LazyLock::new(document);

/// Routes of this resource.
pub fn router() -> Router<AppState> {
    Router::new().route(OPENAPI_PATH, get(serve))
}

/// This OpenAPI document.
#[utoipa::path(
    get,
    path = "/api/v1/openapi.json",
    operation_id = "getOpenApi",
    tag = "meta",
    responses((status = 200, description = "The OpenAPI 3.1 document of this API.", content_type = "application/json", body = Object))
)]
pub async fn serve() -> impl IntoResponse {
    ([(CONTENT_TYPE, "application/json")], DOCUMENT.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ApiError;

    #[tokio::test]
    async fn every_api_error_renders_as_the_documented_error_body() {
        for e in [
            ApiError::bad_request("invalid_mode", "mode must be journey or clash"),
            ApiError::NotAuthenticated,
            ApiError::NotFound {
                code: "player_not_found",
                message: "no player".into(),
            },
            ApiError::Unavailable,
            ApiError::Internal("secret".into()),
        ] {
            let code = e.code();
            let r = e.into_response();
            let bytes = axum::body::to_bytes(r.into_body(), 4096).await.unwrap();
            let body: ErrorBody = serde_json::from_slice(&bytes).expect("the documented shape");
            assert_eq!(body.error.code, code);
            assert!(!body.error.message.is_empty());
        }
    }

    #[test]
    fn every_rest_path_is_documented() {
        let doc = ApiDoc::openapi();
        let paths: Vec<&str> = doc.paths.paths.keys().map(String::as_str).collect();
        assert_eq!(
            paths,
            vec![
                "/api/v1/guests",
                "/api/v1/guests/me",
                "/api/v1/leaderboard",
                "/api/v1/matches/live",
                "/api/v1/matches/{match_id}",
                "/api/v1/matches/{match_id}/replay",
                "/api/v1/openapi.json",
                "/api/v1/players/{player_id}/matches",
                "/healthz",
                "/metrics",
                "/readyz",
            ]
        );
        let schemas = &doc.components.as_ref().unwrap().schemas;
        for name in [
            "ErrorBody",
            "MatchDetail",
            "MatchSummary",
            "MatchHistory",
            "LiveMatches",
            "Leaderboard",
            "LeaderboardRow",
            "Health",
            "Ready",
            "GuestCreated",
        ] {
            assert!(schemas.contains_key(name), "schema {name} is documented");
        }
    }
}
