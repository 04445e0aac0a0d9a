//! The closed list of REST error codes: the `code` of every REST error body
//! `{"error": {"code", "message"}}`, each with the one HTTP status it is sent with.
//!
//! The WebSocket codes are [`crate::ErrorCode`]; a REST code has the same name as a
//! WebSocket code when it means the same thing (`bad_json`, `not_authenticated`,
//! `match_not_found`, `too_large`, `rate_limited`, `internal`). Both lists are published in
//! `proto/error_codes.json` ([`crate::schema::error_code_list`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Every error code the REST API sends, grouped by HTTP status ([`RestErrorCode::status`]).
/// Serialized in `snake_case`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RestErrorCode {
    // --- 400 Bad Request ---
    /// The request body is not JSON, or not of the expected shape (`POST /api/v1/guests` takes `{"name"}`).
    BadJson,
    /// The query string cannot be decoded (for example a parameter given twice).
    BadQuery,
    /// The request cannot be served as sent (for example a WebSocket upgrade request
    /// that announces a body); also any other 4xx without a code of its own.
    BadRequest,
    /// A guest name is not 1..=24 printable characters (grapheme clusters, at most 64
    /// code points), or starts or ends with a space.
    InvalidName,
    /// A path id (`match_id`, `player_id`) is not a UUID.
    InvalidId,
    /// `limit` is not an integer in 1..=100.
    InvalidLimit,
    /// `before` is not an RFC 3339 time, or `before_id` is not a UUID or comes without `before`.
    InvalidCursor,
    /// `mode` is missing or neither `journey` nor `clash`.
    InvalidMode,
    /// A username breaks the names policy (as `invalid_name`).
    InvalidUsername,
    /// A password is not 8..=128 characters, or holds a control character.
    InvalidPassword,
    /// A WebAuthn (passkey) response is malformed or does not verify against its
    /// ceremony, or names no registered passkey (also a passkey of a deleted account).
    InvalidCredential,
    // --- 401 Unauthorized ---
    /// No `Authorization: Bearer <token>` header, or the token is unknown.
    NotAuthenticated,
    /// Sign-in refused: no account has this username, or the password is wrong (the
    /// answer is the same for both); also a wrong current password.
    BadCredentials,
    // --- 403 Forbidden ---
    /// The request's `Origin` is not allowed (`LUDO_ALLOWED_ORIGINS`), for REST and the WebSocket upgrade alike.
    OriginNotAllowed,
    /// The request is refused for another reason.
    Forbidden,
    // --- 404 Not Found ---
    /// No match with this id is stored.
    MatchNotFound,
    /// No player with this id.
    PlayerNotFound,
    /// No API route has this path.
    NotFound,
    /// `DELETE /api/v1/sessions/{session_id}`: the caller has no session with this id.
    SessionNotFound,
    /// A passkey ceremony id is unknown, already used or expired (5 minutes).
    CeremonyNotFound,
    /// `DELETE /api/v1/accounts/me/passkeys/{id}`: the caller has no passkey with this id.
    PasskeyNotFound,
    // --- 409 Conflict ---
    /// Another account has this username (ignoring case).
    UsernameTaken,
    /// The caller is an account already (a guest claims only once).
    AlreadyClaimed,
    /// The caller is a guest: it has no password (claim an account first).
    NotClaimed,
    /// The player sits in a running match: finish or leave it first.
    InMatch,
    /// This passkey (credential id) is registered already, to this or another account.
    PasskeyTaken,
    /// The account has the most passkeys allowed (10); remove one first.
    TooManyPasskeys,
    // --- 405 Method Not Allowed ---
    /// The path exists, but not with this HTTP method.
    MethodNotAllowed,
    // --- 408 Request Timeout ---
    /// The request body did not arrive in time after its headers (`--body-timeout-ms`).
    RequestTimeout,
    // --- 413 Content Too Large ---
    /// The request body is larger than allowed.
    TooLarge,
    // --- 415 Unsupported Media Type ---
    /// The request body is not `application/json`.
    UnsupportedMediaType,
    // --- 426 Upgrade Required ---
    /// `/ws` was asked without a WebSocket upgrade.
    UpgradeRequired,
    // --- 429 Too Many Requests ---
    /// The client address is over a budget (guest creation, open sockets); `Retry-After` gives the seconds to wait.
    RateLimited,
    // --- 500 Internal Server Error ---
    /// Something failed inside the server; the cause is only in the server log.
    Internal,
    // --- 503 Service Unavailable ---
    /// The database cannot be reached or is busy; retry later.
    Unavailable,
}

impl RestErrorCode {
    /// Every REST error code, in declaration order (by HTTP status).
    pub const ALL: [RestErrorCode; 35] = {
        use RestErrorCode::*;
        [
            BadJson,
            BadQuery,
            BadRequest,
            InvalidName,
            InvalidId,
            InvalidLimit,
            InvalidCursor,
            InvalidMode,
            InvalidUsername,
            InvalidPassword,
            InvalidCredential,
            NotAuthenticated,
            BadCredentials,
            OriginNotAllowed,
            Forbidden,
            MatchNotFound,
            PlayerNotFound,
            NotFound,
            SessionNotFound,
            CeremonyNotFound,
            PasskeyNotFound,
            UsernameTaken,
            AlreadyClaimed,
            NotClaimed,
            InMatch,
            PasskeyTaken,
            TooManyPasskeys,
            MethodNotAllowed,
            RequestTimeout,
            TooLarge,
            UnsupportedMediaType,
            UpgradeRequired,
            RateLimited,
            Internal,
            Unavailable,
        ]
    };

    /// The code's stable string (`"invalid_limit"` …), as serialized.
    pub fn as_str(self) -> &'static str {
        use RestErrorCode::*;
        match self {
            BadJson => "bad_json",
            BadQuery => "bad_query",
            BadRequest => "bad_request",
            InvalidName => "invalid_name",
            InvalidId => "invalid_id",
            InvalidLimit => "invalid_limit",
            InvalidCursor => "invalid_cursor",
            InvalidMode => "invalid_mode",
            InvalidUsername => "invalid_username",
            InvalidPassword => "invalid_password",
            InvalidCredential => "invalid_credential",
            NotAuthenticated => "not_authenticated",
            BadCredentials => "bad_credentials",
            OriginNotAllowed => "origin_not_allowed",
            Forbidden => "forbidden",
            MatchNotFound => "match_not_found",
            PlayerNotFound => "player_not_found",
            NotFound => "not_found",
            SessionNotFound => "session_not_found",
            CeremonyNotFound => "ceremony_not_found",
            PasskeyNotFound => "passkey_not_found",
            UsernameTaken => "username_taken",
            AlreadyClaimed => "already_claimed",
            NotClaimed => "not_claimed",
            InMatch => "in_match",
            PasskeyTaken => "passkey_taken",
            TooManyPasskeys => "too_many_passkeys",
            MethodNotAllowed => "method_not_allowed",
            RequestTimeout => "request_timeout",
            TooLarge => "too_large",
            UnsupportedMediaType => "unsupported_media_type",
            UpgradeRequired => "upgrade_required",
            RateLimited => "rate_limited",
            Internal => "internal",
            Unavailable => "unavailable",
        }
    }

    /// The HTTP status code this error is always sent with (400, 401, 403, 404, 405,
    /// 408, 409, 413, 415, 426, 429, 500 or 503).
    pub fn status(self) -> u16 {
        use RestErrorCode::*;
        match self {
            BadJson | BadQuery | BadRequest | InvalidName | InvalidId | InvalidLimit
            | InvalidCursor | InvalidMode | InvalidUsername | InvalidPassword
            | InvalidCredential => 400,
            NotAuthenticated | BadCredentials => 401,
            OriginNotAllowed | Forbidden => 403,
            MatchNotFound | PlayerNotFound | NotFound | SessionNotFound | CeremonyNotFound
            | PasskeyNotFound => 404,
            UsernameTaken | AlreadyClaimed | NotClaimed | InMatch | PasskeyTaken
            | TooManyPasskeys => 409,
            MethodNotAllowed => 405,
            RequestTimeout => 408,
            TooLarge => 413,
            UnsupportedMediaType => 415,
            UpgradeRequired => 426,
            RateLimited => 429,
            Internal => 500,
            Unavailable => 503,
        }
    }
}

impl std::fmt::Display for RestErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
