//! The OpenAPI 3.1 document of the REST API, generated from the handlers'
//! `#[utoipa::path]` attributes and the response types ([`ApiDoc`]). Served at
//! `GET /api/v1/openapi.json` and kept in the workspace's `proto/openapi.json`
//! (`cargo run -p server --bin gen-openapi`; a test fails when the file is stale).
//!
//! The types REST shares with the WebSocket protocol (a seat, a standings line, a
//! rating) are not described twice: their JSON Schema, the one `proto/` publishes,
//! is added to the document's components ([`shared_schemas`]).

use crate::api::{
    accounts, guests, health, leaderboard, lobbies, matches, passkeys, players, sessions,
};
use crate::services::Services;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use protocol::RestErrorCode;
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::{Object, ObjectBuilder, RefOr, Schema, Type};
use utoipa::{Modify, OpenApi, ToSchema};

/// Where the document is served.
pub(crate) const OPENAPI_PATH: &str = "/api/v1/openapi.json";

/// The REST error body: every 4xx and 5xx answer of the API has this shape (it is
/// what [`crate::error::ApiError`] renders).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

/// The inside of [`ErrorBody`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ErrorDetail {
    /// The error code, one of [`RestErrorCode`] (documented as a closed `enum`).
    #[schema(schema_with = error_code_schema)]
    pub code: String,
    /// Human-readable explanation (may change between versions).
    pub message: String,
}

/// The schema of [`ErrorDetail::code`]: a string from the closed list
/// [`RestErrorCode::ALL`].
fn error_code_schema() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(RestErrorCode::ALL.iter().map(|c| c.as_str())))
        .description(Some(
            "Stable snake_case code; branch on it. Each code is always sent with the same \
             HTTP status; the list with statuses and meanings is `proto/error_codes.json` \
             (`rest`).",
        ))
        .examples([serde_json::json!(RestErrorCode::MatchNotFound.as_str())])
        .build()
}

/// The OpenAPI document. See [`document`] for its serialized form.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Game server REST API",
        description = "REST side of the four-seat board game server (the game itself is \
            played over the WebSocket at `/ws`, described in `proto/README.md`). Times are \
            RFC 3339 in UTC; points are game points (RULES.md rules 8.5-8.8). Names and shapes \
            are those of the WebSocket protocol for the same things (a seat is `SeatInfo`, a \
            standings line `FinalStanding`, as in `match_started` and `match_ended`; one \
            vocabulary, `docs/vocabulary.md`).\n\n\
            Every error answer is `{\"error\": {\"code\", \"message\"}}` (`ErrorBody`) with \
            `Content-Type: application/json`; `code` is one of a closed list, each code \
            always with the same HTTP status (`proto/error_codes.json`, `rest`). Each \
            operation lists the codes it answers with; besides those, any `/api/` path no \
            route serves answers 404 `not_found`, and a served path asked with another \
            method answers 405 `method_not_allowed`. Any request may also be refused at the \
            HTTP edge: 400 `bad_request`, 403 `origin_not_allowed` (a foreign `Origin`) or \
            `forbidden`, 408 `request_timeout` (the body came too slowly), 413 `too_large` \
            (both with `Connection: close`: the body was not read to its end), 415 `unsupported_media_type`, 429 `rate_limited` (with `Retry-After`); `/ws` \
            without a WebSocket upgrade answers 426 `upgrade_required`. Parameters are checked before the \
            database is asked, so a bad parameter is a 400 even for an unknown id."
    ),
    paths(
        guests::create,
        guests::me,
        accounts::claim,
        accounts::me,
        accounts::rename,
        accounts::change_password,
        accounts::delete_account,
        sessions::sign_in,
        sessions::list,
        sessions::sign_out,
        sessions::sign_out_others,
        passkeys::start_adding,
        passkeys::add,
        passkeys::list,
        passkeys::remove,
        passkeys::start_sign_in,
        passkeys::sign_in,
        matches::summary,
        matches::replay,
        matches::live,
        players::profile,
        players::matches,
        leaderboard::leaderboard,
        leaderboard::bot_leaderboard,
        lobbies::lobbies,
        health::health,
        health::ready,
        serve,
    ),
    components(schemas(ErrorBody, ErrorDetail)),
    modifiers(&BearerToken, &MetricsPath, &SharedSchemas),
    tags(
        (name = "guests", description = "Guest identities and their bearer tokens."),
        (name = "accounts", description = "Claiming a guest as an account (username and password), renaming, password change, deletion."),
        (name = "sessions", description = "Signing in from any device (password or passkey), listing and signing out sessions."),
        (name = "passkeys", description = "An account's passkeys (WebAuthn): adding, listing, removing."),
        (name = "matches", description = "Stored matches and their replays (RULES.md §10)."),
        (name = "players", description = "A player's profile (ratings, counts) and match history."),
        (name = "leaderboard", description = "Best rated players per mode, and the bot levels' ratings."),
        (name = "lobbies", description = "Open public lobbies."),
        (name = "probes", description = "Liveness, readiness and metrics."),
        (name = "meta", description = "This document."),
    )
)]
#[derive(Debug)]
pub(crate) struct ApiDoc;

/// The JSON Schemas of the protocol types the REST answers reuse ([`protocol::SeatInfo`],
/// [`protocol::FinalStanding`], [`protocol::Rating`], [`protocol::LobbyInfo`]) and of the types they refer
/// to, by name, with references into `#/components/schemas/`: the same schemas as
/// in `proto/server.schema.json`, except that a `const` is written as the equal
/// one-value `enum` (utoipa's schema type has no `const`).
pub(crate) fn shared_schemas() -> serde_json::Map<String, serde_json::Value> {
    let mut settings = schemars::generate::SchemaSettings::draft2020_12();
    settings.definitions_path = "/components/schemas".into();
    let mut generator = settings.into_generator();
    generator.subschema_for::<protocol::SeatInfo>();
    generator.subschema_for::<protocol::FinalStanding>();
    generator.subschema_for::<protocol::Rating>();
    generator.subschema_for::<protocol::LobbyInfo>();
    let mut defs = generator.take_definitions(true);
    defs.values_mut().for_each(const_as_enum);
    defs
}

/// Rewrites every `"const": x` of a JSON Schema as `"enum": [x]` (the same constraint).
fn const_as_enum(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            if let Some(c) = m.remove("const") {
                m.insert("enum".into(), serde_json::Value::Array(vec![c]));
            }
            m.values_mut().for_each(const_as_enum);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(const_as_enum),
        _ => {}
    }
}

/// Adds [`shared_schemas`] to the components.
struct SharedSchemas;

impl Modify for SharedSchemas {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        for (name, schema) in shared_schemas() {
            let schema: RefOr<Schema> =
                serde_json::from_value(schema).expect("a protocol schema is an OpenAPI schema");
            components.schemas.insert(name, schema);
        }
    }
}

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
        use utoipa::openapi::{Content, ResponseBuilder};
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
pub(crate) fn router() -> Router<Services> {
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
pub(crate) async fn serve() -> impl IntoResponse {
    ([(CONTENT_TYPE, "application/json")], DOCUMENT.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ApiError;

    #[tokio::test]
    async fn every_api_error_renders_as_the_documented_error_body() {
        for e in [
            ApiError::new(RestErrorCode::InvalidMode, "mode must be journey or clash"),
            ApiError::NotAuthenticated,
            ApiError::new(RestErrorCode::PlayerNotFound, "no player"),
            ApiError::Unavailable,
            ApiError::Internal("secret".into()),
        ] {
            let code = e.code();
            let r = e.into_response();
            let bytes = axum::body::to_bytes(r.into_body(), 4096).await.unwrap();
            let body: ErrorBody = serde_json::from_slice(&bytes).expect("the documented shape");
            assert_eq!(body.error.code, code.as_str());
            assert!(!body.error.message.is_empty());
        }
    }

    /// The codes a description names in backticks (other backticked words, such as
    /// parameter names, are not codes and are skipped).
    fn codes_named(description: &str) -> Vec<RestErrorCode> {
        description
            .split('`')
            .skip(1)
            .step_by(2)
            .filter_map(|w| serde_json::from_value(serde_json::Value::String(w.into())).ok())
            .collect()
    }

    #[test]
    fn error_answers_name_closed_codes_with_their_own_status() {
        let doc: serde_json::Value = serde_json::from_str(&document()).unwrap();
        let mut named = std::collections::BTreeSet::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                for (status, resp) in op["responses"].as_object().unwrap() {
                    if !(status.starts_with('4') || status.starts_with('5')) {
                        continue;
                    }
                    let codes = codes_named(resp["description"].as_str().unwrap());
                    assert!(!codes.is_empty(), "{method} {path} {status} names its code");
                    for c in codes {
                        assert_eq!(
                            c.status().to_string(),
                            *status,
                            "{method} {path}: {c} is a {} code",
                            c.status()
                        );
                        named.insert(c.as_str());
                    }
                }
            }
        }
        // The two codes of no particular route are named in the document's description.
        let info = doc["info"]["description"].as_str().unwrap();
        for c in codes_named(info) {
            named.insert(c.as_str());
        }
        let all: std::collections::BTreeSet<&str> =
            RestErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(named, all, "every code is documented, and only these");
        // The error body's `code` is the closed list itself.
        let code = &doc["components"]["schemas"]["ErrorDetail"]["properties"]["code"];
        let listed: Vec<&str> = code["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let ordered: Vec<&str> = RestErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(listed, ordered);
    }

    #[test]
    fn every_rest_path_is_documented() {
        let doc = ApiDoc::openapi();
        let paths: Vec<&str> = doc.paths.paths.keys().map(String::as_str).collect();
        assert_eq!(
            paths,
            vec![
                "/api/v1/accounts",
                "/api/v1/accounts/me",
                "/api/v1/accounts/me/passkey-challenges",
                "/api/v1/accounts/me/passkeys",
                "/api/v1/accounts/me/passkeys/{passkey_id}",
                "/api/v1/accounts/me/password",
                "/api/v1/guests",
                "/api/v1/guests/me",
                "/api/v1/leaderboard",
                "/api/v1/leaderboard/bots",
                "/api/v1/lobbies",
                "/api/v1/matches/live",
                "/api/v1/matches/{match_id}",
                "/api/v1/matches/{match_id}/replay",
                "/api/v1/openapi.json",
                "/api/v1/players/{player_id}",
                "/api/v1/players/{player_id}/matches",
                "/api/v1/sessions",
                "/api/v1/sessions/others",
                "/api/v1/sessions/passkey",
                "/api/v1/sessions/passkey-challenges",
                "/api/v1/sessions/{session_id}",
                "/healthz",
                "/metrics",
                "/readyz",
            ]
        );
        let schemas = &doc.components.as_ref().unwrap().schemas;
        for name in [
            "ErrorBody",
            "MatchSummary",
            "SeatInfo",
            "FinalStanding",
            "Rating",
            "MatchHistory",
            "LiveMatches",
            "Leaderboard",
            "RatedRow",
            "BotLeaderboard",
            "BotRatedRow",
            "PlayerProfile",
            "PublicLobbies",
            "LobbyInfo",
            "Health",
            "Ready",
            "GuestCreated",
        ] {
            assert!(schemas.contains_key(name), "schema {name} is documented");
        }
    }

    /// The shared protocol schemas reach the document whole: read into utoipa's
    /// schema types and written back, each is exactly the JSON Schema `proto/`
    /// publishes, `const` spelled as a one-value `enum` (nothing utoipa cannot
    /// represent is dropped: the seat names are there).
    #[test]
    fn shared_schemas_are_kept_whole() {
        let doc: serde_json::Value = serde_json::from_str(&document()).unwrap();
        let shared = shared_schemas();
        assert!(shared.contains_key("Seat") && shared.contains_key("RatingChange"));
        let seats: Vec<&serde_json::Value> = doc["components"]["schemas"]["Seat"]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| &v["enum"][0])
            .collect();
        assert_eq!(seats, ["green", "red", "blue", "yellow"]);
        for (name, schema) in shared {
            assert_eq!(doc["components"]["schemas"][&name], schema, "{name}");
        }
    }

    /// Every object property of `v` (recursively) with its schema.
    fn properties<'a>(v: &'a serde_json::Value, out: &mut Vec<(&'a str, &'a serde_json::Value)>) {
        match v {
            serde_json::Value::Object(m) => {
                if let Some(serde_json::Value::Object(props)) = m.get("properties") {
                    out.extend(props.iter().map(|(k, s)| (k.as_str(), s)));
                }
                m.values().for_each(|x| properties(x, out));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| properties(x, out)),
            _ => {}
        }
    }

    /// docs/vocabulary.md, checked over every field of the WebSocket schemas, the replay
    /// schema and the REST document: no retired name is left, every millisecond field
    /// (a Unix-ms instant or a duration) ends in `_ms`, every RFC 3339 time in `_at`
    /// (or is the `next_before` cursor), and no REST object has a bare `id`.
    #[test]
    fn the_wire_speaks_one_vocabulary() {
        let doc: serde_json::Value = serde_json::from_str(&document()).unwrap();
        let protocol: Vec<serde_json::Value> = protocol::schema::published()
            .into_iter()
            .map(|(_, s)| serde_json::to_value(s).unwrap())
            .collect();
        let mut all = Vec::new();
        properties(&doc, &mut all);
        protocol.iter().for_each(|s| properties(s, &mut all));
        assert!(all.len() > 100, "{} fields", all.len());
        for (name, schema) in &all {
            let what = schema["description"].as_str().unwrap_or("").to_lowercase();
            for retired in [
                "is_bot",
                "turn_count",
                "scores",
                "now",
                "match_deadline",
                "turn_deadline",
            ] {
                assert_ne!(*name, retired, "{retired} was renamed (docs/vocabulary.md)");
            }
            if what.contains("unix") || what.contains("millisecond") {
                assert!(name.ends_with("_ms"), "{name}: {what}");
            }
            if schema["format"] == "date-time" {
                assert!(name.ends_with("_at") || *name == "next_before", "{name}");
            }
        }
        let mut rest = Vec::new();
        properties(&doc["components"], &mut rest);
        assert!(
            rest.iter().all(|(name, _)| *name != "id"),
            "ids are named for what they identify"
        );
    }

    /// Every `$ref` of the document names a schema it holds.
    #[test]
    fn every_reference_resolves() {
        fn refs(v: &serde_json::Value, out: &mut Vec<String>) {
            match v {
                serde_json::Value::Object(m) => {
                    if let Some(serde_json::Value::String(r)) = m.get("$ref") {
                        out.push(r.clone());
                    }
                    m.values().for_each(|x| refs(x, out));
                }
                serde_json::Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
                _ => {}
            }
        }
        let doc: serde_json::Value = serde_json::from_str(&document()).unwrap();
        let mut all = Vec::new();
        refs(&doc, &mut all);
        assert!(all
            .iter()
            .any(|r| r == "#/components/schemas/FinalStanding"));
        for r in all {
            let name = r
                .strip_prefix("#/components/schemas/")
                .unwrap_or_else(|| panic!("{r} points into the components"));
            assert!(
                doc["components"]["schemas"].get(name).is_some(),
                "{r} resolves"
            );
        }
    }
}
