//! Guest identity: `POST /api/v1/guests` creates a guest and returns its token once;
//! `GET /api/v1/guests/me` returns the caller (bearer token).

use super::extract::ClientIp;
use crate::auth::{new_token, token_hash, AuthPlayer};
use crate::error::{ApiError, ApiJson};
use crate::services::Services;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::Router;
use chrono::{DateTime, Utc};
use protocol::RestErrorCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// `POST /api/v1/guests` body.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewGuest {
    /// Display name: 1–24 characters after NFC normalization (grapheme clusters: a
    /// conjunct such as "ক্ষি" or an emoji sequence is one; at most 64 code points), in any script, emoji
    /// included; refused when it renders blank or holds control, bidirectional or
    /// invisible format characters (ZWJ and ZWNJ are fine between two characters),
    /// more than 4 stacked combining marks, or white space at either end.
    pub name: String,
}

/// `POST /api/v1/guests` answer (201).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub(crate) struct GuestCreated {
    /// The new player's id.
    pub player_id: Uuid,
    /// Bearer token (64 hex digits): shown once, stored only as its SHA-256. Send it
    /// in `hello` and as `Authorization: Bearer <token>`.
    pub token: String,
    /// The guest's session (`GET /api/v1/sessions`); it expires after
    /// `--session-idle-days` unused.
    pub session_id: Uuid,
}

/// `GET /api/v1/guests/me` answer.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub(crate) struct Me {
    /// The player's id.
    pub player_id: Uuid,
    /// Display name.
    pub name: String,
    /// When the guest was created (UTC).
    pub created_at: DateTime<Utc>,
}

/// Routes of this resource.
pub(crate) fn router() -> Router<Services> {
    Router::new()
        .route("/api/v1/guests", post(create))
        .route("/api/v1/guests/me", get(me))
}

/// Checks a display name by the text policy of [`protocol::text`] (the one chat
/// uses too) and returns it NFC-normalized, as it is stored and shown.
/// Errors: 400 `invalid_name`, the message saying what is wrong.
pub(crate) fn validate_name(name: &str) -> Result<String, ApiError> {
    protocol::text::name(name)
        .map_err(|e| ApiError::new(RestErrorCode::InvalidName, format!("name {e}")))
}

/// Reads a [`NewGuest`] body, which must be a JSON object: serde alone would also
/// take the array `["Ada"]`. Errors: 400 `bad_json`.
fn parse_new_guest(body: serde_json::Value) -> Result<NewGuest, ApiError> {
    let bad = |why: String| ApiError::new(RestErrorCode::BadJson, why);
    if !body.is_object() {
        return Err(bad(r#"the body must be a JSON object {"name": "…"}"#.into()));
    }
    serde_json::from_value(body).map_err(|e| bad(format!("bad guest body: {e}")))
}

/// Creates a guest. Each client address ([`ClientIp`]) has a budget of
/// `--guest-burst` guests, refilled at `--guests-per-minute`; past it: 429
/// `rate_limited` with `Retry-After`, and nothing is stored.
#[utoipa::path(
    post,
    path = "/api/v1/guests",
    operation_id = "createGuest",
    tag = "guests",
    request_body = NewGuest,
    responses(
        (status = 201, description = "The guest and its token (shown only this once).", body = GuestCreated),
        (status = 400, description = "`invalid_name` (the name breaks the text policy: not 1–24 characters (grapheme clusters, at most 64 code points) after NFC, blank, control, bidirectional or invisible format characters, stacked combining marks, white space at either end) or `bad_json`.", body = crate::api::openapi::ErrorBody),
        (status = 429, description = "`rate_limited`: this client address created too many guests (`LUDO_GUESTS_PER_MINUTE`, `LUDO_GUEST_BURST`); `Retry-After` gives the seconds to wait.", body = crate::api::openapi::ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds until the next guest may be created."))),
        (status = 500, description = "`internal`: a store failure.", body = crate::api::openapi::ErrorBody),
        (status = 503, description = "`unavailable`: the database does not answer.", body = crate::api::openapi::ErrorBody),
    )
)]
async fn create(
    State(state): State<Services>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<serde_json::Value>,
) -> Result<(StatusCode, ApiJson<GuestCreated>), ApiError> {
    let body = parse_new_guest(body)?;
    let name = validate_name(&body.name)?;
    if let Some(ip) = ip {
        if let Err(retry_after) = state.budgets().take_guest(ip) {
            metrics::counter!("ludo_guests_rate_limited_total").increment(1);
            return Err(ApiError::RateLimited {
                message: "too many guests created from this address; retry later".into(),
                retry_after,
            });
        }
    }
    let token = new_token()?;
    let player_id = Uuid::new_v4();
    let session_id = state
        .store()
        .create_guest_at(
            player_id,
            &name,
            &token_hash(&token),
            crate::clock::datetime(state.clock().now_ms()),
        )
        .await?;
    tracing::info!(player = %player_id, "guest created");
    Ok((
        StatusCode::CREATED,
        ApiJson(GuestCreated {
            player_id,
            token,
            session_id,
        }),
    ))
}

/// The caller's guest identity.
#[utoipa::path(
    get,
    path = "/api/v1/guests/me",
    operation_id = "getMe",
    tag = "guests",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The authenticated player.", body = Me),
        (status = 401, description = "`not_authenticated`: no bearer token, or an unknown one.", body = crate::api::openapi::ErrorBody),
        (status = 500, description = "`internal`: a store failure.", body = crate::api::openapi::ErrorBody),
        (status = 503, description = "`unavailable`: the database does not answer.", body = crate::api::openapi::ErrorBody),
    )
)]
async fn me(AuthPlayer(p): AuthPlayer) -> ApiJson<Me> {
    ApiJson(Me {
        player_id: p.id,
        name: p.name,
        created_at: p.created_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_any_script_pass_normalized() {
        for ok in [
            "A",
            "Ana María",
            "玩家一号",
            "x".repeat(24).as_str(),
            "Zoë-42_!",
            "👩\u{200D}💻",
            "রবি",
        ] {
            assert_eq!(validate_name(ok).unwrap(), ok);
        }
        assert_eq!(validate_name("Zoe\u{301}").unwrap(), "Zo\u{E9}");
    }

    #[test]
    fn only_a_json_object_is_a_guest_body() {
        let ok = parse_new_guest(serde_json::json!({"name": "Ada"})).unwrap();
        assert_eq!(ok.name, "Ada");
        for bad in [
            serde_json::json!(["Ada"]),
            serde_json::json!("Ada"),
            serde_json::json!({"name": 5}),
            serde_json::json!({"name": "Ada", "admin": true}),
        ] {
            let e = parse_new_guest(bad.clone()).unwrap_err();
            assert_eq!(
                (e.status(), e.code()),
                (StatusCode::BAD_REQUEST, RestErrorCode::BadJson),
                "{bad}"
            );
        }
    }

    #[test]
    fn other_names_are_invalid_name() {
        for bad in [
            "",
            " ",
            " Ana",
            "Ana ",
            "a\nb",
            "tab\there",
            "zero\u{200B}width",
            "\u{7}",
            "\u{2800}",
            "\u{301}\u{301}",
            "abc\u{2066}xyz\u{2069}",
            &"x".repeat(25),
        ] {
            let e = validate_name(bad).unwrap_err();
            assert_eq!(
                (e.status(), e.code()),
                (StatusCode::BAD_REQUEST, RestErrorCode::InvalidName),
                "{bad:?}"
            );
        }
    }
}
