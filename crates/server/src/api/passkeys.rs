//! Passkeys (issue 29): a signed-in account adds passkeys (WebAuthn credentials)
//! and signs in with one instead of its password, on any device.
//!
//! * Adding: `POST /api/v1/accounts/me/passkey-challenges` gives a ceremony id and
//!   the options for `navigator.credentials.create`; `POST /api/v1/accounts/me/passkeys`
//!   sends the ceremony id, a name and the browser's credential, and stores the
//!   passkey. `GET /api/v1/accounts/me/passkeys` lists them,
//!   `DELETE /api/v1/accounts/me/passkeys/{passkey_id}` removes one.
//! * Signing in: `POST /api/v1/sessions/passkey-challenges` (no token) gives a
//!   ceremony id and the options for `navigator.credentials.get` (no username: the
//!   passkey names its account); `POST /api/v1/sessions/passkey` sends the ceremony id
//!   and the browser's assertion and starts a session, as a password sign-in does.
//!   Each attempt takes one from the client address's sign-in budget (the one
//!   password sign-ins take from).
//!
//! Ceremonies, relying party and limits: [`crate::passkeys`]. A response that is
//! malformed, does not verify, or names no registered passkey is 400
//! `invalid_credential` and changes nothing (a ceremony is used up by the first
//! answer that reaches verification, though).

use super::extract::ClientIp;
use crate::api::accounts::parse_body;
use crate::api::guests::validate_name;
use crate::api::openapi::ErrorBody;
use crate::api::sessions::{client_of, start_session, SessionCreated};
use crate::auth::AuthSession;
use crate::error::{ApiError, ApiJson};
use crate::passkeys::{credential_id, MAX_PASSKEYS};
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
use webauthn_rs::prelude::{Passkey, PublicKeyCredential, RegisterPublicKeyCredential};

/// A ceremony started (201): its id and the WebAuthn options to hand to the browser.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub(crate) struct PasskeyChallenge {
    /// The ceremony's id: send it back with the browser's answer within 5 minutes,
    /// to the same server node.
    pub ceremony_id: Uuid,
    /// WebAuthn options, `{"publicKey": {…}}`, byte fields (`challenge`, `user.id`,
    /// credential ids) as base64url without padding: decode them to `ArrayBuffer`s and
    /// pass the result to `navigator.credentials.create` (adding) or
    /// `navigator.credentials.get` (signing in).
    #[schema(value_type = Object)]
    pub options: serde_json::Value,
}

/// `POST /api/v1/accounts/me/passkeys` body.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewPasskey {
    /// The id of the ceremony `POST /api/v1/accounts/me/passkey-challenges` started.
    pub ceremony_id: Uuid,
    /// A name for the passkey, shown in the list (the names policy: 1–24 characters,
    /// grapheme clusters).
    pub name: String,
    /// The `PublicKeyCredential` `navigator.credentials.create` gave, as JSON (its
    /// `toJSON()`: `id`, `rawId`, `type`, `response.attestationObject`,
    /// `response.clientDataJSON`; bytes as base64url without padding).
    #[schema(value_type = Object)]
    pub credential: serde_json::Value,
}

/// `POST /api/v1/sessions/passkey` body.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PasskeySignIn {
    /// The id of the ceremony `POST /api/v1/sessions/passkey-challenges` started.
    pub ceremony_id: Uuid,
    /// The `PublicKeyCredential` `navigator.credentials.get` gave, as JSON (`id`,
    /// `rawId`, `type`, `response.authenticatorData`, `response.clientDataJSON`,
    /// `response.signature`, `response.userHandle`; bytes as base64url without
    /// padding).
    #[schema(value_type = Object)]
    pub credential: serde_json::Value,
}

/// One passkey of the account.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub(crate) struct PasskeyInfo {
    /// Its id: the WebAuthn credential id, base64url without padding.
    pub passkey_id: String,
    /// The name it was given.
    pub name: String,
    /// When it was added (UTC).
    pub created_at: DateTime<Utc>,
    /// When it last signed in (UTC); `null` before its first sign-in.
    pub last_used_at: Option<DateTime<Utc>>,
}

/// `GET /api/v1/accounts/me/passkeys` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub(crate) struct PasskeyList {
    /// The account's passkeys (at most 10), oldest first.
    pub passkeys: Vec<PasskeyInfo>,
}

/// Routes of this resource.
pub(crate) fn router() -> Router<Services> {
    Router::new()
        .route("/api/v1/accounts/me/passkey-challenges", post(start_adding))
        .route("/api/v1/accounts/me/passkeys", post(add).get(list))
        .route("/api/v1/accounts/me/passkeys/{passkey_id}", delete(remove))
        .route("/api/v1/sessions/passkey-challenges", post(start_sign_in))
        .route("/api/v1/sessions/passkey", post(sign_in))
}

fn info(p: store::StoredPasskey) -> PasskeyInfo {
    PasskeyInfo {
        passkey_id: p.id,
        name: p.name,
        created_at: p.created_at,
        last_used_at: p.last_used_at,
    }
}

fn too_many() -> ApiError {
    ApiError::new(
        RestErrorCode::TooManyPasskeys,
        format!("an account holds at most {MAX_PASSKEYS} passkeys: remove one first"),
    )
}

fn malformed(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(
        RestErrorCode::InvalidCredential,
        format!("the credential is not a WebAuthn response: {e}"),
    )
}

/// The stored passkeys of `player`, parsed.
///
/// Errors: 500 `internal` when a stored passkey does not parse.
async fn passkeys_of(state: &Services, player: Uuid) -> Result<Vec<Passkey>, ApiError> {
    state
        .store()
        .passkeys_of(player)
        .await?
        .iter()
        .map(|p| {
            serde_json::from_str(&p.passkey)
                .map_err(|e| ApiError::Internal(format!("stored passkey {}: {e}", p.id)))
        })
        .collect()
}

/// Starts adding a passkey to the caller's account.
#[utoipa::path(
    post,
    path = "/api/v1/accounts/me/passkey-challenges",
    operation_id = "startAddingPasskey",
    tag = "passkeys",
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The ceremony id and the options for `navigator.credentials.create` (a discoverable credential with user verification, excluding the account's passkeys).", body = PasskeyChallenge),
        (status = 401, description = "`not_authenticated`.", body = ErrorBody),
        (status = 409, description = "`not_claimed` (a guest has no account to add a passkey to) or `too_many_passkeys` (10 already).", body = ErrorBody),
        (status = 500, description = "`internal`.", body = ErrorBody),
        (status = 503, description = "`unavailable`.", body = ErrorBody),
    )
)]
async fn start_adding(
    State(state): State<Services>,
    auth: AuthSession,
) -> Result<(StatusCode, ApiJson<PasskeyChallenge>), ApiError> {
    let Some(username) = auth.player.username.as_deref() else {
        return Err(ApiError::new(
            RestErrorCode::NotClaimed,
            "a guest has no account to add a passkey to: claim one first",
        ));
    };
    let existing = passkeys_of(&state, auth.player.id).await?;
    if existing.len() >= MAX_PASSKEYS {
        return Err(too_many());
    }
    let (ceremony_id, options) = state.passkeys().start_registration(
        state.clock().now_ms(),
        auth.player.id,
        username,
        &auth.player.name,
        &existing,
    )?;
    challenge(ceremony_id, options)
}

/// Finishes adding a passkey: verifies the browser's credential and stores it.
#[utoipa::path(
    post,
    path = "/api/v1/accounts/me/passkeys",
    operation_id = "addPasskey",
    tag = "passkeys",
    security(("bearer" = [])),
    request_body = NewPasskey,
    responses(
        (status = 201, description = "The passkey added.", body = PasskeyInfo),
        (status = 400, description = "`bad_json`, `invalid_name` (the names policy) or `invalid_credential` (not a WebAuthn registration response, or it does not verify against the ceremony: wrong challenge, origin or relying party id, no user verification).", body = ErrorBody),
        (status = 401, description = "`not_authenticated`.", body = ErrorBody),
        (status = 404, description = "`ceremony_not_found`: no ceremony of the caller has this id (unknown, used, expired, or started on another node).", body = ErrorBody),
        (status = 409, description = "`passkey_taken` (this credential is registered already, to any account), `too_many_passkeys` or `not_claimed`.", body = ErrorBody),
        (status = 500, description = "`internal`.", body = ErrorBody),
        (status = 503, description = "`unavailable`.", body = ErrorBody),
    )
)]
async fn add(
    State(state): State<Services>,
    auth: AuthSession,
    ApiJson(body): ApiJson<serde_json::Value>,
) -> Result<(StatusCode, ApiJson<PasskeyInfo>), ApiError> {
    let body: NewPasskey = parse_body(
        body,
        r#"{"ceremony_id": "…", "name": "…", "credential": {…}}"#,
    )?;
    let name = validate_name(&body.name)?;
    let response: RegisterPublicKeyCredential =
        serde_json::from_value(body.credential).map_err(malformed)?;
    let now = state.clock().now_ms();
    let passkey =
        state
            .passkeys()
            .finish_registration(now, auth.player.id, body.ceremony_id, &response)?;
    let stored = store::StoredPasskey {
        id: credential_id(passkey.cred_id()),
        player_id: auth.player.id,
        passkey: serde_json::to_string(&passkey)
            .map_err(|e| ApiError::Internal(format!("serializing a passkey: {e}")))?,
        name,
        created_at: crate::clock::datetime(now),
        last_used_at: None,
    };
    match state.store().add_passkey(&stored, MAX_PASSKEYS).await {
        Ok(()) => {}
        Err(store::StoreError::Conflict("too_many")) => return Err(too_many()),
        Err(store::StoreError::Conflict(_)) => {
            return Err(ApiError::new(
                RestErrorCode::PasskeyTaken,
                "this passkey is registered already",
            ))
        }
        Err(store::StoreError::Invalid(_)) => {
            return Err(ApiError::new(
                RestErrorCode::NotClaimed,
                "a guest has no account to add a passkey to",
            ))
        }
        Err(e) => return Err(e.into()),
    }
    tracing::info!(player = %auth.player.id, passkey = %stored.id, "passkey added");
    metrics::counter!("ludo_passkeys_added_total").increment(1);
    Ok((StatusCode::CREATED, ApiJson(info(stored))))
}

/// The caller's passkeys.
#[utoipa::path(
    get,
    path = "/api/v1/accounts/me/passkeys",
    operation_id = "listPasskeys",
    tag = "passkeys",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The account's passkeys, oldest first (a guest has none).", body = PasskeyList),
        (status = 401, description = "`not_authenticated`.", body = ErrorBody),
        (status = 500, description = "`internal`.", body = ErrorBody),
        (status = 503, description = "`unavailable`.", body = ErrorBody),
    )
)]
async fn list(
    State(state): State<Services>,
    auth: AuthSession,
) -> Result<ApiJson<PasskeyList>, ApiError> {
    let passkeys = state
        .store()
        .passkeys_of(auth.player.id)
        .await?
        .into_iter()
        .map(info)
        .collect();
    Ok(ApiJson(PasskeyList { passkeys }))
}

/// Removes one of the caller's passkeys: it signs in no more.
#[utoipa::path(
    delete,
    path = "/api/v1/accounts/me/passkeys/{passkey_id}",
    operation_id = "removePasskey",
    tag = "passkeys",
    security(("bearer" = [])),
    params(("passkey_id" = String, Path, description = "A passkey id of the caller (`passkey_id` of the list).")),
    responses(
        (status = 204, description = "Removed."),
        (status = 401, description = "`not_authenticated`.", body = ErrorBody),
        (status = 404, description = "`passkey_not_found`: the caller has no passkey with this id.", body = ErrorBody),
        (status = 500, description = "`internal`.", body = ErrorBody),
        (status = 503, description = "`unavailable`.", body = ErrorBody),
    )
)]
async fn remove(
    State(state): State<Services>,
    auth: AuthSession,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    if !state.store().delete_passkey(auth.player.id, &id).await? {
        return Err(ApiError::new(
            RestErrorCode::PasskeyNotFound,
            "no passkey of yours has this id",
        ));
    }
    tracing::info!(player = %auth.player.id, passkey = %id, "passkey removed");
    Ok(StatusCode::NO_CONTENT)
}

/// Starts a sign-in with a passkey (no username: the passkey names the account).
#[utoipa::path(
    post,
    path = "/api/v1/sessions/passkey-challenges",
    operation_id = "startPasskeySignIn",
    tag = "sessions",
    responses(
        (status = 201, description = "The ceremony id and the options for `navigator.credentials.get` (no `allowCredentials`; user verification required).", body = PasskeyChallenge),
        (status = 500, description = "`internal`.", body = ErrorBody),
    )
)]
async fn start_sign_in(
    State(state): State<Services>,
) -> Result<(StatusCode, ApiJson<PasskeyChallenge>), ApiError> {
    let (ceremony_id, options) = state.passkeys().start_sign_in(state.clock().now_ms())?;
    challenge(ceremony_id, options)
}

/// The 201 answer that starts a ceremony: its id and the WebAuthn options for the
/// browser (`navigator.credentials.create` or `.get`), as JSON.
///
/// Errors: [`ApiError::Internal`] when the options do not serialize.
fn challenge(
    ceremony_id: Uuid,
    options: impl serde::Serialize,
) -> Result<(StatusCode, ApiJson<PasskeyChallenge>), ApiError> {
    let options = serde_json::to_value(options)
        .map_err(|e| ApiError::Internal(format!("passkey options: {e}")))?;
    Ok((
        StatusCode::CREATED,
        ApiJson(PasskeyChallenge {
            ceremony_id,
            options,
        }),
    ))
}

/// Signs in with a passkey: a new session of the account it belongs to.
#[utoipa::path(
    post,
    path = "/api/v1/sessions/passkey",
    operation_id = "signInWithPasskey",
    tag = "sessions",
    request_body = PasskeySignIn,
    responses(
        (status = 201, description = "Signed in: the player id, the new session's token (shown once) and id — as `POST /api/v1/sessions`.", body = SessionCreated),
        (status = 400, description = "`bad_json`, or `invalid_credential`: not a WebAuthn assertion, no passkey registered with its credential id and user handle (removed, or its account deleted), or it does not verify (wrong challenge, origin, signature, no user verification).", body = ErrorBody),
        (status = 404, description = "`ceremony_not_found`: unknown, used or expired ceremony id, or one started on another node.", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many sign-in attempts from this address (password and passkey together: `LUDO_SIGN_INS_PER_MINUTE`, `LUDO_SIGN_IN_BURST`); `Retry-After` gives the seconds.", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds until the next attempt may be made."))),
        (status = 500, description = "`internal`.", body = ErrorBody),
        (status = 503, description = "`unavailable`.", body = ErrorBody),
    )
)]
async fn sign_in(
    State(state): State<Services>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    ApiJson(body): ApiJson<serde_json::Value>,
) -> Result<(StatusCode, ApiJson<SessionCreated>), ApiError> {
    let body: PasskeySignIn = parse_body(body, r#"{"ceremony_id": "…", "credential": {…}}"#)?;
    if let Err(retry_after) = state.accounts().take_address_sign_in(ip) {
        metrics::counter!("ludo_sign_ins_rate_limited_total").increment(1);
        return Err(ApiError::RateLimited {
            message: "too many sign-in attempts; retry later".into(),
            retry_after,
        });
    }
    let failed = |e: ApiError| {
        metrics::counter!("ludo_sign_ins_failed_total").increment(1);
        e
    };
    let response: PublicKeyCredential = serde_json::from_value(body.credential)
        .map_err(malformed)
        .map_err(failed)?;
    let (player, id) = state.passkeys().identify(&response).map_err(failed)?;
    let unknown = || {
        failed(ApiError::new(
            RestErrorCode::InvalidCredential,
            "no passkey is registered with this credential",
        ))
    };
    let Some(stored) = state.store().passkey(&id).await? else {
        return Err(unknown());
    };
    if stored.player_id != player {
        return Err(unknown());
    }
    let now = state.clock().now_ms();
    let ceremony = state
        .passkeys()
        .take_sign_in(now, body.ceremony_id)
        .map_err(failed)?;
    let mut passkey: Passkey = serde_json::from_str(&stored.passkey)
        .map_err(|e| ApiError::Internal(format!("stored passkey {id}: {e}")))?;
    state
        .passkeys()
        .finish_sign_in(&response, *ceremony, &mut passkey)
        .map_err(failed)?;
    let serialized = serde_json::to_string(&passkey)
        .map_err(|e| ApiError::Internal(format!("serializing a passkey: {e}")))?;
    state
        .store()
        .passkey_used(&id, &serialized, crate::clock::datetime(now))
        .await?;
    let created = start_session(&state, player, client_of(&headers)).await?;
    tracing::info!(player = %player, session = %created.session_id, passkey = %id, "signed in with a passkey");
    Ok((StatusCode::CREATED, ApiJson(created)))
}
