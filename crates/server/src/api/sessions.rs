//! Sessions (issue 29): sign in with username and password from any device
//! (`POST /api/v1/sessions`, a new session each time), list the caller's sessions
//! (`GET /api/v1/sessions`), sign one out (`DELETE /api/v1/sessions/{session_id}`,
//! `current` for the caller's own) or every other one
//! (`DELETE /api/v1/sessions/others`). A signed-out session's socket closes with
//! 4002 on whichever node holds it.
//!
//! An unknown username and a wrong password get the same answer (401
//! `bad_credentials`, same body) after the same work: the unknown one is verified
//! against a dummy hash ([`crate::accounts::Accounts::verify`]).

use super::extract::ClientIp;
use crate::api::accounts::{parse_body, SignedOut};
use crate::api::openapi::ErrorBody;
use crate::auth::{new_token, signed_out, token_hash, AuthSession};
use crate::error::{ApiError, ApiJson};
use crate::services::Services;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{delete, post};
use axum::Router;
use chrono::{DateTime, Utc};
use protocol::RestErrorCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// `POST /api/v1/sessions` body.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SignIn {
    /// The account's username (any case).
    pub username: String,
    /// Its password.
    pub password: String,
}

/// A new session (201): like `POST /api/v1/guests`'s answer.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub(crate) struct SessionCreated {
    /// The account's player id.
    pub player_id: Uuid,
    /// Bearer token (64 hex digits): shown once, stored only as its SHA-256. Send it
    /// in `hello` and as `Authorization: Bearer <token>`.
    pub token: String,
    /// The new session's id.
    pub session_id: Uuid,
}

/// One session in `GET /api/v1/sessions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub(crate) struct SessionInfo {
    /// Session id.
    pub session_id: Uuid,
    /// The `client` string of its last `hello`, or the User-Agent it signed in with
    /// (at most 64 characters; may be empty).
    pub client: String,
    /// When it was created (UTC).
    pub created_at: DateTime<Utc>,
    /// When it was last used (UTC; refreshed at most once a minute, and at every
    /// `hello`).
    pub last_used_at: DateTime<Utc>,
    /// True for the session this request came with.
    pub current: bool,
}

/// `GET /api/v1/sessions` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub(crate) struct SessionList {
    /// The caller's sessions that have not expired, most recently used first.
    pub sessions: Vec<SessionInfo>,
}

/// Routes of this resource.
pub(crate) fn router() -> Router<Services> {
    Router::new()
        .route("/api/v1/sessions", post(sign_in).get(list))
        .route("/api/v1/sessions/others", delete(sign_out_others))
        .route("/api/v1/sessions/{session_id}", delete(sign_out))
}

/// The client string of a sign-in: its User-Agent, at most 64 characters.
pub(crate) fn client_of(headers: &HeaderMap) -> String {
    headers
        .get(axum::http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .chars()
        .take(64)
        .collect()
}

/// Starts a session of `player` (a successful sign-in): a new token, stored as its
/// hash, at the server clock's now.
pub(crate) async fn start_session(
    state: &Services,
    player: Uuid,
    client: String,
) -> Result<SessionCreated, ApiError> {
    let token = new_token()?;
    let session_id = Uuid::new_v4();
    state
        .store()
        .create_session(
            player,
            &store::NewSession {
                id: session_id,
                token_hash: token_hash(&token),
                client,
                at: crate::clock::datetime(state.clock().now_ms()),
            },
        )
        .await?;
    metrics::counter!("ludo_sign_ins_total").increment(1);
    Ok(SessionCreated {
        player_id: player,
        token,
        session_id,
    })
}

/// Signs in with username and password: a new session of the account.
#[utoipa::path(
    post,
    path = "/api/v1/sessions",
    operation_id = "signIn",
    tag = "sessions",
    request_body = SignIn,
    responses(
        (status = 201, description = "Signed in: the player id, the new session's token (shown once) and id.", body = SessionCreated),
        (status = 400, description = "`bad_json`.", body = ErrorBody),
        (status = 401, description = "`bad_credentials`: no account has this username, or the password is wrong (the same answer for both).", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many sign-in attempts from this address (`LUDO_SIGN_INS_PER_MINUTE`, `LUDO_SIGN_IN_BURST`) or on this username (`LUDO_ACCOUNT_SIGN_INS_PER_MINUTE`, `LUDO_ACCOUNT_SIGN_IN_BURST`); `Retry-After` gives the seconds.", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds until the next attempt may be made."))),
        (status = 500, description = "`internal`.", body = ErrorBody),
        (status = 503, description = "`unavailable`: the database does not answer, or no password hashing slot freed up in 10 s.", body = ErrorBody),
    )
)]
async fn sign_in(
    State(state): State<Services>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    ApiJson(body): ApiJson<serde_json::Value>,
) -> Result<(StatusCode, ApiJson<SessionCreated>), ApiError> {
    let body: SignIn = parse_body(body, r#"{"username": "…", "password": "…"}"#)?;
    let bad = || ApiError::new(RestErrorCode::BadCredentials, "wrong username or password");
    // A username or password no account can have is a wrong one (same answer), but
    // still takes from the budgets and costs a verify.
    let key = crate::accounts::username(&body.username)
        .map(|(_, k)| k)
        .unwrap_or_else(|_| {
            crate::accounts::username_key(&body.username.chars().take(64).collect::<String>())
        });
    if let Err(retry_after) = state.accounts().take_sign_in(ip, &key) {
        metrics::counter!("ludo_sign_ins_rate_limited_total").increment(1);
        return Err(ApiError::RateLimited {
            message: "too many sign-in attempts; retry later".into(),
            retry_after,
        });
    }
    let password = crate::accounts::password(&body.password).unwrap_or_default();
    let found = state.store().credentials(&key).await?;
    let (player, stored) = match found {
        Some((p, h)) => (Some(p), Some(h)),
        None => (None, None),
    };
    let ok = state.accounts().verify(stored, password.clone()).await?;
    let (Some(player), true, false) = (player, ok, password.is_empty()) else {
        metrics::counter!("ludo_sign_ins_failed_total").increment(1);
        return Err(bad());
    };
    let created = start_session(&state, player, client_of(&headers)).await?;
    tracing::info!(player = %player, session = %created.session_id, "signed in");
    Ok((StatusCode::CREATED, ApiJson(created)))
}

/// The caller's sessions.
#[utoipa::path(
    get,
    path = "/api/v1/sessions",
    operation_id = "listSessions",
    tag = "sessions",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's live sessions, most recently used first; `current` marks this one.", body = SessionList),
        (status = 401, description = "`not_authenticated`.", body = ErrorBody),
        (status = 500, description = "`internal`.", body = ErrorBody),
        (status = 503, description = "`unavailable`.", body = ErrorBody),
    )
)]
async fn list(
    State(state): State<Services>,
    auth: AuthSession,
) -> Result<ApiJson<SessionList>, ApiError> {
    let now = state.clock().now_ms();
    let idle = state.accounts().idle_ms();
    let sessions = state
        .store()
        .sessions_of(auth.player.id)
        .await?
        .into_iter()
        .filter(|s| {
            let last = u64::try_from(s.last_used_at.timestamp_millis()).unwrap_or(0);
            now.saturating_sub(last) <= idle
        })
        .map(|s| SessionInfo {
            current: s.id == auth.session,
            session_id: s.id,
            client: s.client,
            created_at: s.created_at,
            last_used_at: s.last_used_at,
        })
        .collect();
    Ok(ApiJson(SessionList { sessions }))
}

/// Signs out one of the caller's sessions (`current`: this one). Its token is
/// refused from now on, and its socket closes with 4002 on whichever node holds it.
#[utoipa::path(
    delete,
    path = "/api/v1/sessions/{session_id}",
    operation_id = "signOut",
    tag = "sessions",
    security(("bearer" = [])),
    params(("session_id" = String, Path, description = "A session id of the caller, or `current`.")),
    responses(
        (status = 204, description = "Signed out."),
        (status = 400, description = "`invalid_id`: neither a UUID nor `current`.", body = ErrorBody),
        (status = 401, description = "`not_authenticated`.", body = ErrorBody),
        (status = 404, description = "`session_not_found`: the caller has no session with this id.", body = ErrorBody),
        (status = 500, description = "`internal`.", body = ErrorBody),
        (status = 503, description = "`unavailable`.", body = ErrorBody),
    )
)]
async fn sign_out(
    State(state): State<Services>,
    auth: AuthSession,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id = if id == "current" {
        auth.session
    } else {
        id.parse::<Uuid>().map_err(|_| {
            ApiError::new(
                RestErrorCode::InvalidId,
                "session_id must be a UUID or `current`",
            )
        })?
    };
    if !state.store().delete_session(auth.player.id, id).await? {
        return Err(ApiError::new(
            RestErrorCode::SessionNotFound,
            "no session of yours has this id",
        ));
    }
    signed_out(&state, auth.player.id, &[id]);
    tracing::info!(player = %auth.player.id, session = %id, "signed out");
    Ok(StatusCode::NO_CONTENT)
}

/// Signs out every session of the caller but this one.
#[utoipa::path(
    delete,
    path = "/api/v1/sessions/others",
    operation_id = "signOutOthers",
    tag = "sessions",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "How many sessions were signed out.", body = SignedOut),
        (status = 401, description = "`not_authenticated`.", body = ErrorBody),
        (status = 500, description = "`internal`.", body = ErrorBody),
        (status = 503, description = "`unavailable`.", body = ErrorBody),
    )
)]
async fn sign_out_others(
    State(state): State<Services>,
    auth: AuthSession,
) -> Result<ApiJson<SignedOut>, ApiError> {
    let gone = state
        .store()
        .delete_other_sessions(auth.player.id, auth.session)
        .await?;
    signed_out(&state, auth.player.id, &gone);
    Ok(ApiJson(SignedOut {
        signed_out: gone.len(),
    }))
}
