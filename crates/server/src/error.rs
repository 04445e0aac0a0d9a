//! [`ApiError`]: every way a REST call fails, rendered as
//! `{"error": {"code": "<stable code>", "message": "<text>"}}` with the HTTP status
//! of its code. The codes are the closed list [`RestErrorCode`] (published with their
//! statuses in `proto/error_codes.json`). Internal failures are logged with their
//! cause and shown to the client only as `internal` with a generic message.

use axum::extract::rejection::JsonRejection;
use axum::extract::FromRequest;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use protocol::RestErrorCode;
use serde::Serialize;

/// The error a request body past its deadline fails with (`crate::edge::body`
/// imposes the deadline; the handler then answers 408 `request_timeout`, see
/// [`protocol::RestErrorCode::RequestTimeout`]).
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive within {0:?}")]
pub(crate) struct BodyDeadlineExceeded(pub std::time::Duration);

/// A REST error: a [`RestErrorCode`] (which fixes the HTTP status) and a message.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ApiError {
    /// A request the server refuses (400, 401, 404, 405) or cannot serve now (503):
    /// `code` fixes the status, `message` says what was wrong. Build it with
    /// [`ApiError::new`]. With the code `internal` the message is logged, not shown.
    #[error("{message}")]
    Rejected {
        /// The error code.
        code: RestErrorCode,
        /// What was wrong, for humans (may change between versions).
        message: String,
    },
    /// 401 `not_authenticated`: no `Authorization: Bearer <token>` header, or an
    /// unknown token.
    #[error("missing or unknown bearer token")]
    NotAuthenticated,
    /// 429 `rate_limited`: the client address is over a budget (guest creation,
    /// open sockets); `Retry-After` says when to try again (whole seconds, rounded up).
    #[error("{message}")]
    RateLimited {
        /// What budget was exceeded.
        message: String,
        /// How long until the budget allows another request.
        retry_after: std::time::Duration,
    },
    /// 503 `unavailable`: a dependency (the database) cannot be reached.
    #[error("service unavailable")]
    Unavailable,
    /// 500 `internal`: a store failure; the cause is logged, never shown. A transient
    /// one ([`store::StoreError::is_transient`]: the database is unreachable or busy)
    /// is 503 `unavailable` instead, so clients know to retry.
    #[error("internal error")]
    Store(#[from] store::StoreError),
    /// 500 `internal`: any other server failure; the text is logged, never shown.
    #[error("internal error")]
    Internal(String),
}

#[derive(Serialize)]
struct Body<'a> {
    error: Inner<'a>,
}

#[derive(Serialize)]
struct Inner<'a> {
    code: &'a str,
    message: String,
}

impl ApiError {
    /// The error `code` with `message`: [`ApiError::Rejected`].
    pub(crate) fn new(code: RestErrorCode, message: impl Into<String>) -> ApiError {
        ApiError::Rejected {
            code,
            message: message.into(),
        }
    }

    /// The error code.
    pub(crate) fn code(&self) -> RestErrorCode {
        match self {
            ApiError::Rejected { code, .. } => *code,
            ApiError::NotAuthenticated => RestErrorCode::NotAuthenticated,
            ApiError::RateLimited { .. } => RestErrorCode::RateLimited,
            ApiError::Unavailable => RestErrorCode::Unavailable,
            ApiError::Store(e) if e.is_transient() => RestErrorCode::Unavailable,
            ApiError::Store(_) | ApiError::Internal(_) => RestErrorCode::Internal,
        }
    }

    /// The HTTP status: always the code's ([`RestErrorCode::status`]).
    pub(crate) fn status(&self) -> StatusCode {
        StatusCode::from_u16(self.code().status())
            .expect("every RestErrorCode has a valid HTTP status")
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let message = match &self {
            ApiError::Store(e) if e.is_transient() => {
                tracing::warn!(error = %e, source = ?std::error::Error::source(e), "database unavailable in REST call");
                "the database is unavailable, retry later".to_string()
            }
            ApiError::Store(e) => {
                tracing::error!(error = %e, source = ?std::error::Error::source(e), "store failure in REST call");
                "internal server error".to_string()
            }
            ApiError::Internal(why)
            | ApiError::Rejected {
                code: RestErrorCode::Internal,
                message: why,
            } => {
                tracing::error!(error = %why, "internal failure in REST call");
                "internal server error".to_string()
            }
            other => other.to_string(),
        };
        let body = Body {
            error: Inner {
                code: self.code().as_str(),
                message,
            },
        };
        let mut res = (self.status(), axum::Json(body)).into_response();
        if self.code() == RestErrorCode::UpgradeRequired {
            // RFC 9110 §15.5.22: a 426 names the protocol to upgrade to.
            res.headers_mut().insert(
                axum::http::header::UPGRADE,
                axum::http::HeaderValue::from_static("websocket"),
            );
        }
        if matches!(
            self.code(),
            RestErrorCode::TooLarge | RestErrorCode::RequestTimeout
        ) {
            // The body was not read to its end, so the connection cannot carry another
            // request: say so (RFC 9112 §9.6), and a client does not reuse it (a
            // pooled client that did got "connection reset" on its next request).
            res.headers_mut().insert(
                axum::http::header::CONNECTION,
                axum::http::HeaderValue::from_static("close"),
            );
        }
        if let ApiError::RateLimited { retry_after, .. } = &self {
            let secs = retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0);
            res.headers_mut()
                .insert(axum::http::header::RETRY_AFTER, secs.max(1).into());
        }
        res
    }
}

impl From<JsonRejection> for ApiError {
    /// `bad_json`; `request_timeout` when reading the body timed out; 415
    /// `unsupported_media_type` without `Content-Type: application/json`; 413
    /// `too_large` for a body over the limit.
    fn from(r: JsonRejection) -> Self {
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&r);
        while let Some(e) = cause {
            if e.is::<BodyDeadlineExceeded>() {
                return ApiError::new(
                    RestErrorCode::RequestTimeout,
                    "the request body did not arrive in time",
                );
            }
            cause = e.source();
        }
        let code = match r.status() {
            StatusCode::UNSUPPORTED_MEDIA_TYPE => RestErrorCode::UnsupportedMediaType,
            StatusCode::PAYLOAD_TOO_LARGE => RestErrorCode::TooLarge,
            _ => RestErrorCode::BadJson,
        };
        ApiError::new(code, r.body_text())
    }
}

/// `axum::Json` whose rejection is an [`ApiError`] (400 `bad_json`) so that a bad
/// body gets the same error body as every other failure.
#[derive(Debug, Clone, Copy, Default, FromRequest)]
#[from_request(via(axum::Json), rejection(ApiError))]
pub(crate) struct ApiJson<T>(pub T);

impl<T: Serialize> IntoResponse for ApiJson<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn body_of(e: ApiError) -> (StatusCode, serde_json::Value) {
        let r = e.into_response();
        let status = r.status();
        let bytes = axum::body::to_bytes(r.into_body(), 4096).await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    #[tokio::test]
    async fn bad_request_shows_code_and_message() {
        let (s, v) = body_of(ApiError::new(RestErrorCode::InvalidName, "name is empty")).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            v,
            serde_json::json!({"error": {"code": "invalid_name", "message": "name is empty"}})
        );
    }

    #[tokio::test]
    async fn an_unreachable_database_is_503_unavailable_without_details() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "db.internal:5432");
        let e = ApiError::from(store::StoreError::from(sqlx::Error::Io(io)));
        let (s, v) = body_of(e).await;
        assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            v,
            serde_json::json!({"error": {"code": "unavailable", "message": "the database is unavailable, retry later"}})
        );
        // A permanent store failure stays a 500.
        let e = ApiError::from(store::StoreError::from(sqlx::Error::RowNotFound));
        assert_eq!(
            (e.status(), e.code()),
            (StatusCode::INTERNAL_SERVER_ERROR, RestErrorCode::Internal)
        );
    }

    #[tokio::test]
    async fn every_code_is_sent_with_its_status() {
        for code in RestErrorCode::ALL {
            let (s, v) = body_of(ApiError::new(code, "no such row")).await;
            assert_eq!(s.as_u16(), code.status(), "{code}");
            // An internal failure's text is logged, never shown.
            let message = match code {
                RestErrorCode::Internal => "internal server error",
                _ => "no such row",
            };
            assert_eq!(
                v,
                serde_json::json!({"error": {"code": code.as_str(), "message": message}})
            );
        }
        assert_eq!(
            ApiError::NotAuthenticated.status(),
            StatusCode::UNAUTHORIZED
        );
        assert_eq!(
            ApiError::Unavailable.status(),
            StatusCode::SERVICE_UNAVAILABLE
        );
    }

    #[tokio::test]
    async fn rate_limited_says_when_to_retry_in_whole_seconds() {
        let e = ApiError::RateLimited {
            message: "too many guests from this address".into(),
            retry_after: std::time::Duration::from_millis(5_200),
        };
        let r = e.into_response();
        assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(r.headers()["retry-after"], "6");
        let bytes = axum::body::to_bytes(r.into_body(), 4096).await.unwrap();
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["error"]["code"], "rate_limited");
    }

    #[tokio::test]
    async fn internal_errors_hide_their_cause() {
        let (s, v) = body_of(ApiError::Internal(
            "pool exhausted at db.example:5432".into(),
        ))
        .await;
        assert_eq!(s, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(
            v,
            serde_json::json!({"error": {"code": "internal", "message": "internal server error"}})
        );
    }
}
