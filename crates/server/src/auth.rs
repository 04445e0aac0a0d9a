//! Session tokens: 256 random bits from the operating system's CSPRNG, given to the
//! client once (at guest creation or sign-in) and stored only as their SHA-256 (64
//! lowercase hex digits) in the session's row. A token authenticates the WebSocket
//! (`hello`) and REST calls (`Authorization: Bearer <token>`, see [`AuthPlayer`]).
//!
//! A session unused for `--session-idle-days` has expired: the first use after that
//! deletes it and is refused like an unknown token ([`session_of_token`]). Each use
//! refreshes `last_used_at` (at most once a minute; every `hello`).
//!
//! SHA-256 without salt is enough here: a token is a uniformly random 256-bit value,
//! not a human password, so there is nothing to guess from a leaked hash.

use crate::error::ApiError;
use crate::services::Services;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use rand::TryRngCore;
use sha2::{Digest, Sha256};

/// Random bytes in a token (256 bits).
pub(crate) const TOKEN_BYTES: usize = 32;

/// A new token: [`TOKEN_BYTES`] bytes from the OS CSPRNG as 64 lowercase hex digits.
///
/// Errors: the OS generator failed (reported as `internal`).
pub(crate) fn new_token() -> Result<String, ApiError> {
    let mut b = [0u8; TOKEN_BYTES];
    rand::rngs::OsRng
        .try_fill_bytes(&mut b)
        .map_err(|e| ApiError::Internal(format!("OS random generator failed: {e}")))?;
    Ok(hex::encode(b))
}

/// The stored form of a token: SHA-256 of its UTF-8 bytes, 64 lowercase hex digits.
pub(crate) fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// How often at most a session's `last_used_at` is refreshed by REST calls (ms).
const TOUCH_EVERY_MS: u64 = 60_000;

/// The session and player of bearer token `token`, on `state`'s clock: `None` when
/// the token is unknown, its account deleted, or the session expired (then it is
/// deleted). Refreshes the session's `last_used_at` when older than a minute, or
/// always when `client` is given (a `hello`, whose client string it records); a
/// failure to record that is logged, not returned.
///
/// Errors: the store failed to read the session (or to delete an expired one).
pub(crate) async fn session_of_token(
    state: &Services,
    token: &str,
    client: Option<&str>,
) -> Result<Option<(store::Session, store::Player)>, store::StoreError> {
    let Some((session, player)) = state
        .store()
        .session_by_token_hash(&token_hash(token))
        .await?
    else {
        return Ok(None);
    };
    let now = state.clock().now_ms();
    let last = u64::try_from(session.last_used_at.timestamp_millis()).unwrap_or(0);
    if now.saturating_sub(last) > state.accounts().idle_ms() {
        state.store().expire_session(session.id).await?;
        signed_out(state, player.id, &[session.id]);
        tracing::info!(player = %player.id, session = %session.id, "session expired");
        return Ok(None);
    }
    if client.is_some() || now.saturating_sub(last) >= TOUCH_EVERY_MS {
        // Only bookkeeping: a store that can read but not write now still lets the
        // player in.
        if let Err(e) = state
            .store()
            .touch_session(session.id, crate::clock::datetime(now), client)
            .await
        {
            tracing::warn!(error = %e, session = %session.id, "session use not recorded");
        }
    }
    Ok(Some((session, player)))
}

/// After `sessions` of `player` were deleted from the store (signed out, a password
/// change, a deleted account): closes the player's socket that signed in with one
/// of them (4002) here, and (cluster) tells the other nodes to do the same.
pub(crate) fn signed_out(state: &Services, player: uuid::Uuid, sessions: &[uuid::Uuid]) {
    if sessions.is_empty() {
        return;
    }
    state.sessions().signed_out(player, sessions);
}

/// A REST caller authenticated by `Authorization: Bearer <token>`: the player and
/// the session the token belongs to. Rejection: [`ApiError::NotAuthenticated`]
/// (401) when the header is missing or malformed, or the token is unknown, signed
/// out or expired.
#[derive(Debug, Clone)]
pub(crate) struct AuthSession {
    /// The player.
    pub player: store::Player,
    /// The session's id.
    pub session: uuid::Uuid,
}

impl FromRequestParts<Services> for AuthSession {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &Services) -> Result<Self, ApiError> {
        let header = parts
            .headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .ok_or(ApiError::NotAuthenticated)?;
        let token = header
            .strip_prefix("Bearer ")
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or(ApiError::NotAuthenticated)?;
        let (session, player) = session_of_token(state, token, None)
            .await?
            .ok_or(ApiError::NotAuthenticated)?;
        Ok(AuthSession {
            player,
            session: session.id,
        })
    }
}

/// A REST caller authenticated by `Authorization: Bearer <token>` (see
/// [`AuthSession`]), when only the player matters.
#[derive(Debug, Clone)]
pub(crate) struct AuthPlayer(pub store::Player);

impl FromRequestParts<Services> for AuthPlayer {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &Services) -> Result<Self, ApiError> {
        AuthSession::from_request_parts(parts, state)
            .await
            .map(|a| AuthPlayer(a.player))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_256_random_bits_in_hex() {
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_eq!(a.len(), 64);
        assert!(a
            .bytes()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        assert_ne!(a, b, "two draws of 256 bits never collide in practice");
    }

    #[test]
    fn hash_is_sha256_hex() {
        // SHA-256("abc") from FIPS 180-2.
        assert_eq!(
            token_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
