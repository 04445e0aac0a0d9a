//! Accounts (issue 29): a guest claims its identity as an account
//! (`POST /api/v1/accounts`), keeping its `player_id`, ratings, history and running
//! match; the caller reads (`GET /api/v1/accounts/me`), renames (`PATCH`), changes
//! its password (`POST /api/v1/accounts/me/password`, which signs out every other
//! session) or deletes its account (`DELETE /api/v1/accounts/me`).
//!
//! Usernames and passwords follow [`crate::accounts`]: a username is a display name
//! by the names policy, unique ignoring case; a password is 8–128 characters,
//! hashed with Argon2id off the event-loop threads.

use super::extract::ClientIp;
use crate::api::guests::validate_name;
use crate::api::openapi::ErrorBody;
use crate::auth::{new_token, signed_out, token_hash, AuthSession};
use crate::error::{ApiError, ApiJson};
use crate::services::Services;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::Router;
use chrono::{DateTime, Utc};
use protocol::RestErrorCode;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// An account (or a guest, with `username` null), as its owner sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub(crate) struct Account {
    /// The player's id (a claimed guest keeps its own).
    pub player_id: Uuid,
    /// Display name.
    pub name: String,
    /// The username; `null` for a guest that has not claimed an account.
    pub username: Option<String>,
    /// When the player was created (UTC).
    pub created_at: DateTime<Utc>,
    /// The id of the session this request came with.
    pub session_id: Uuid,
}

/// `POST /api/v1/accounts` body.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Claim {
    /// 1–24 characters (grapheme clusters, at most 64 code points) by the names
    /// policy (any script), unique ignoring case.
    pub username: String,
    /// 8–128 characters (after NFC), any script, no control characters.
    pub password: String,
}

/// `PATCH /api/v1/accounts/me` body.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Rename {
    /// The new display name (the names policy of `POST /api/v1/guests`).
    pub name: String,
}

/// `POST /api/v1/accounts/me/password` body.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PasswordChange {
    /// The password now.
    pub current_password: String,
    /// The new password: 8–128 characters, no control characters.
    pub new_password: String,
}

/// `DELETE /api/v1/accounts/me` body: an account sends its password; a guest `{}`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Deletion {
    /// The account's password (required for an account, ignored for a guest).
    #[serde(default)]
    pub password: Option<String>,
}

/// How many sessions an action signed out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub(crate) struct SignedOut {
    /// Sessions signed out (their sockets were closed with 4002).
    pub signed_out: usize,
}

/// Routes of this resource.
pub(crate) fn router() -> Router<Services> {
    Router::new()
        .route("/api/v1/accounts", post(claim))
        .route(
            "/api/v1/accounts/me",
            get(me).patch(rename).delete(delete_account),
        )
        .route("/api/v1/accounts/me/password", post(change_password))
}

/// Reads a JSON object body into `T`. Errors: 400 `bad_json`.
pub(crate) fn parse_body<T: DeserializeOwned>(
    body: serde_json::Value,
    shape: &str,
) -> Result<T, ApiError> {
    let bad = |why: String| ApiError::new(RestErrorCode::BadJson, why);
    if !body.is_object() {
        return Err(bad(format!("the body must be a JSON object {shape}")));
    }
    serde_json::from_value(body).map_err(|e| bad(format!("bad body: {e}")))
}

fn account(p: store::Player, session_id: Uuid) -> Account {
    Account {
        player_id: p.id,
        name: p.name,
        username: p.username,
        created_at: p.created_at,
        session_id,
    }
}

/// The caller's account (or guest identity).
#[utoipa::path(
    get,
    path = "/api/v1/accounts/me",
    operation_id = "getAccount",
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller: id, name, username (null for a guest), session id.", body = Account),
        (status = 401, description = "`not_authenticated`: no bearer token, or an unknown, signed-out or expired one.", body = ErrorBody),
        (status = 500, description = "`internal`.", body = ErrorBody),
        (status = 503, description = "`unavailable`: the database does not answer.", body = ErrorBody),
    )
)]
async fn me(auth: AuthSession) -> ApiJson<Account> {
    ApiJson(account(auth.player, auth.session))
}

/// Claims the caller's guest identity as an account with a username and password.
/// The player keeps its id, ratings, history, running match and this session.
/// Counts against the client address's guest-creation budget.
#[utoipa::path(
    post,
    path = "/api/v1/accounts",
    operation_id = "claimAccount",
    tag = "accounts",
    security(("bearer" = [])),
    request_body = Claim,
    responses(
        (status = 201, description = "The account.", body = Account),
        (status = 400, description = "`invalid_username` (the names policy), `invalid_password` (not 8–128 characters, or a control character) or `bad_json`.", body = ErrorBody),
        (status = 401, description = "`not_authenticated`.", body = ErrorBody),
        (status = 409, description = "`username_taken` (another account has it, ignoring case) or `already_claimed` (the caller is an account).", body = ErrorBody),
        (status = 429, description = "`rate_limited`: this address created too many guests or accounts; `Retry-After` gives the seconds.", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait."))),
        (status = 500, description = "`internal`.", body = ErrorBody),
        (status = 503, description = "`unavailable`: the database does not answer, or no password hashing slot freed up in 10 s.", body = ErrorBody),
    )
)]
async fn claim(
    State(state): State<Services>,
    ClientIp(ip): ClientIp,
    auth: AuthSession,
    ApiJson(body): ApiJson<serde_json::Value>,
) -> Result<(StatusCode, ApiJson<Account>), ApiError> {
    let body: Claim = parse_body(body, r#"{"username": "…", "password": "…"}"#)?;
    let (username, key) = crate::accounts::username(&body.username)?;
    let password = crate::accounts::password(&body.password)?;
    if auth.player.username.is_some() {
        return Err(ApiError::new(
            RestErrorCode::AlreadyClaimed,
            "this player is an account already",
        ));
    }
    if let Some(ip) = ip {
        if let Err(retry_after) = state.budgets().take_guest(ip) {
            return Err(ApiError::RateLimited {
                message: "too many accounts created from this address; retry later".into(),
                retry_after,
            });
        }
    }
    let hash = state.accounts().hash(password).await?;
    match state
        .store()
        .claim_account(auth.player.id, &username, &key, &hash)
        .await
    {
        Ok(()) => {}
        Err(store::StoreError::Conflict("username")) => {
            return Err(ApiError::new(
                RestErrorCode::UsernameTaken,
                "another account has this username",
            ))
        }
        Err(store::StoreError::Conflict(_)) => {
            return Err(ApiError::new(
                RestErrorCode::AlreadyClaimed,
                "this player is an account already",
            ))
        }
        Err(e) => return Err(e.into()),
    }
    tracing::info!(player = %auth.player.id, "account claimed");
    metrics::counter!("ludo_accounts_claimed_total").increment(1);
    let mut p = auth.player;
    p.username = Some(username);
    Ok((StatusCode::CREATED, ApiJson(account(p, auth.session))))
}

/// Changes the caller's display name (a guest's too). Matches already started keep
/// the name their seats had.
#[utoipa::path(
    patch,
    path = "/api/v1/accounts/me",
    operation_id = "renameAccount",
    tag = "accounts",
    security(("bearer" = [])),
    request_body = Rename,
    responses(
        (status = 200, description = "The caller with its new name.", body = Account),
        (status = 400, description = "`invalid_name` (the names policy) or `bad_json`.", body = ErrorBody),
        (status = 401, description = "`not_authenticated`.", body = ErrorBody),
        (status = 500, description = "`internal`.", body = ErrorBody),
        (status = 503, description = "`unavailable`.", body = ErrorBody),
    )
)]
async fn rename(
    State(state): State<Services>,
    auth: AuthSession,
    ApiJson(body): ApiJson<serde_json::Value>,
) -> Result<ApiJson<Account>, ApiError> {
    let body: Rename = parse_body(body, r#"{"name": "…"}"#)?;
    let name = validate_name(&body.name)?;
    if !state.store().rename_player(auth.player.id, &name).await? {
        return Err(ApiError::NotAuthenticated);
    }
    let mut p = auth.player;
    p.name = name;
    Ok(ApiJson(account(p, auth.session)))
}

/// Changes the account's password and signs out every other session of it (their
/// sockets close with 4002, on every node).
#[utoipa::path(
    post,
    path = "/api/v1/accounts/me/password",
    operation_id = "changePassword",
    tag = "accounts",
    security(("bearer" = [])),
    request_body = PasswordChange,
    responses(
        (status = 200, description = "Changed; how many other sessions were signed out.", body = SignedOut),
        (status = 400, description = "`invalid_password` (the new one) or `bad_json`.", body = ErrorBody),
        (status = 401, description = "`not_authenticated`, or `bad_credentials` (the current password is wrong).", body = ErrorBody),
        (status = 409, description = "`not_claimed`: a guest has no password.", body = ErrorBody),
        (status = 500, description = "`internal`.", body = ErrorBody),
        (status = 503, description = "`unavailable`.", body = ErrorBody),
    )
)]
async fn change_password(
    State(state): State<Services>,
    auth: AuthSession,
    ApiJson(body): ApiJson<serde_json::Value>,
) -> Result<ApiJson<SignedOut>, ApiError> {
    let body: PasswordChange =
        parse_body(body, r#"{"current_password": "…", "new_password": "…"}"#)?;
    let new = crate::accounts::password(&body.new_password)?;
    let Some(stored) = state.store().password_hash(auth.player.id).await? else {
        return Err(ApiError::new(
            RestErrorCode::NotClaimed,
            "a guest has no password: claim an account first",
        ));
    };
    check_password(&state, stored, &body.current_password).await?;
    let hash = state.accounts().hash(new).await?;
    let gone = state
        .store()
        .set_password(auth.player.id, &hash, auth.session)
        .await?;
    signed_out(&state, auth.player.id, &gone);
    tracing::info!(player = %auth.player.id, signed_out = gone.len(), "password changed");
    Ok(ApiJson(SignedOut {
        signed_out: gone.len(),
    }))
}

/// 401 `bad_credentials` unless `given` (checked as a password first: a malformed
/// one cannot match) matches the PHC string `stored`.
async fn check_password(state: &Services, stored: String, given: &str) -> Result<(), ApiError> {
    let ok = match crate::accounts::password(given) {
        Ok(p) => state.accounts().verify(Some(stored), p).await?,
        Err(_) => false,
    };
    if ok {
        Ok(())
    } else {
        Err(ApiError::new(
            RestErrorCode::BadCredentials,
            "wrong username or password",
        ))
    }
}

/// Deletes the caller's account (or guest identity): its credentials, sessions
/// (their sockets close with 4002), passkeys, ratings and name go. Its finished
/// matches keep their turns and results, with the seat's name `""` (shown as a
/// deleted player); replays still verify. Refused while the player sits in a
/// running match.
#[utoipa::path(
    delete,
    path = "/api/v1/accounts/me",
    operation_id = "deleteAccount",
    tag = "accounts",
    security(("bearer" = [])),
    request_body = Deletion,
    responses(
        (status = 204, description = "Deleted."),
        (status = 400, description = "`bad_json`, or `invalid_password` (an account sent no password).", body = ErrorBody),
        (status = 401, description = "`not_authenticated`, or `bad_credentials` (wrong password).", body = ErrorBody),
        (status = 409, description = "`in_match`: the player sits in a running match; finish or leave it first.", body = ErrorBody),
        (status = 500, description = "`internal`.", body = ErrorBody),
        (status = 503, description = "`unavailable`.", body = ErrorBody),
    )
)]
async fn delete_account(
    State(state): State<Services>,
    auth: AuthSession,
    ApiJson(body): ApiJson<serde_json::Value>,
) -> Result<StatusCode, ApiError> {
    let body: Deletion = parse_body(body, r#"{"password": "…"}"#)?;
    if let Some(stored) = state.store().password_hash(auth.player.id).await? {
        let Some(given) = body.password else {
            return Err(ApiError::new(
                RestErrorCode::InvalidPassword,
                "an account is deleted with its password",
            ));
        };
        check_password(&state, stored, &given).await?;
    }
    let in_match = || {
        ApiError::new(
            RestErrorCode::InMatch,
            "the player sits in a running match: finish or leave it first",
        )
    };
    if state.presence().active_match(auth.player.id).is_some() {
        return Err(in_match());
    }
    let gone = match state
        .store()
        .delete_account(auth.player.id, &token_hash(&new_token()?))
        .await
    {
        Ok(gone) => gone,
        Err(store::StoreError::Conflict("in_match")) => return Err(in_match()),
        Err(store::StoreError::Invalid(_)) => return Err(ApiError::NotAuthenticated),
        Err(e) => return Err(e.into()),
    };
    signed_out(&state, auth.player.id, &gone);
    tracing::info!(player = %auth.player.id, "account deleted");
    metrics::counter!("ludo_accounts_deleted_total").increment(1);
    Ok(StatusCode::NO_CONTENT)
}
