//! Guest tokens: 256 random bits from the operating system's CSPRNG, given to the
//! client once and stored only as their SHA-256 (64 lowercase hex digits). A token
//! authenticates the WebSocket (`hello`) and REST calls
//! (`Authorization: Bearer <token>`, see [`AuthPlayer`]).
//!
//! SHA-256 without salt is enough here: a token is a uniformly random 256-bit value,
//! not a human password, so there is nothing to guess from a leaked hash.

use crate::error::ApiError;
use crate::state::AppState;
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

/// A REST caller authenticated by `Authorization: Bearer <token>`. Rejection:
/// [`ApiError::NotAuthenticated`] (401) when the header is missing or malformed or
/// the token is unknown.
#[derive(Debug, Clone)]
pub(crate) struct AuthPlayer(pub store::Player);

impl FromRequestParts<AppState> for AuthPlayer {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
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
        let player = state
            .store()
            .player_by_token_hash(&token_hash(token))
            .await?
            .ok_or(ApiError::NotAuthenticated)?;
        Ok(AuthPlayer(player))
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
