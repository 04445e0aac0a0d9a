//! HTTP layers of the edge, applied to the whole application by [`layer`]:
//!
//! * security headers on every answer ([`CONTENT_SECURITY_POLICY`], `X-Content-Type-
//!   Options: nosniff`, [`REFERRER_POLICY`]), the CSP's `frame-ancestors 'none'`
//!   keeping the client out of other sites' frames;
//! * the `Origin` policy ([`origin_allowed`]): a request carrying an `Origin` that is
//!   neither the server's own (`Host`) nor one of `--allowed-origins` is refused with
//!   403 `origin_not_allowed` (REST and the WebSocket upgrade alike); allowed foreign
//!   origins get CORS headers (tower-http's `CorsLayer`). Clients that send no
//!   `Origin` (bots, `curl`) are not browsers and pass;
//! * the request-body deadline (`--body-timeout-ms`, [`super::body`]), which fails
//!   the request with 408 `request_timeout`;
//! * [`json_errors`]: every 4xx/5xx answer that is not JSON yet (axum's and
//!   tower-http's own rejections, the static files' 404 and 405) gets the API's
//!   `{"error":{"code","message"}}` body.

use crate::config::Config;
use crate::error::ApiError;
use axum::body::Body;
use axum::extract::Request;
use axum::http::header::{self, HeaderName, HeaderValue};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use protocol::RestErrorCode;
use std::sync::Arc;
use std::time::Duration;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::set_header::SetResponseHeaderLayer;

/// The Content-Security-Policy of every answer: only this origin's scripts, styles,
/// images and fonts (no inline script or style, no `eval`); fetch and WebSocket to
/// this origin only; no plugins, no `<base>`, forms post here only; no framing.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; \
object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The Referrer-Policy of every answer.
pub(crate) const REFERRER_POLICY: &str = "no-referrer";

/// The `Origin` policy: `origin` (the header's value) is allowed when it equals one
/// of `allowed` (scheme, host and port, e.g. `https://play.example.com`) or names
/// the server itself, i.e. its host and port equal the request's `Host`.
pub(crate) fn origin_allowed(origin: &str, host: Option<&str>, allowed: &[String]) -> bool {
    let origin = origin.trim_end_matches('/');
    if allowed.iter().any(|a| a.trim_end_matches('/') == origin) {
        return true;
    }
    let Some(host) = host else {
        return false;
    };
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    let default_port = match scheme {
        "http" => "80",
        "https" => "443",
        _ => return false,
    };
    with_port(authority, default_port).eq_ignore_ascii_case(&with_port(host, default_port))
}

/// `authority` with an explicit port (`default_port` when it has none).
fn with_port(authority: &str, default_port: &str) -> String {
    let has_port = match authority.rfind(':') {
        // `[::1]` has colons but no port; `[::1]:80` and `host:80` have one.
        Some(i) => !authority[i..].contains(']'),
        None => false,
    };
    if has_port {
        authority.to_string()
    } else {
        format!("{authority}:{default_port}")
    }
}

/// Middleware: refuses (403 `origin_not_allowed`) a request whose `Origin` fails
/// [`origin_allowed`].
async fn check_origin(allowed: Arc<Vec<String>>, req: Request, next: Next) -> Response {
    if let Some(origin) = req.headers().get(header::ORIGIN) {
        let host = req
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok());
        let ok = origin
            .to_str()
            .is_ok_and(|o| origin_allowed(o, host, &allowed));
        if !ok {
            metrics::counter!("ludo_origin_refused_total").increment(1);
            return ApiError::new(
                RestErrorCode::OriginNotAllowed,
                format!(
                    "origin {} is not allowed (see LUDO_ALLOWED_ORIGINS)",
                    String::from_utf8_lossy(origin.as_bytes())
                ),
            )
            .into_response();
        }
    }
    next.run(req).await
}

/// The error code for an error status without a body of its own (any other 4xx is
/// `bad_request`, any other 5xx `internal`).
pub(crate) fn code_for_status(status: StatusCode) -> RestErrorCode {
    match status {
        StatusCode::BAD_REQUEST => RestErrorCode::BadRequest,
        StatusCode::UNAUTHORIZED => RestErrorCode::NotAuthenticated,
        StatusCode::FORBIDDEN => RestErrorCode::Forbidden,
        StatusCode::NOT_FOUND => RestErrorCode::NotFound,
        StatusCode::METHOD_NOT_ALLOWED => RestErrorCode::MethodNotAllowed,
        StatusCode::REQUEST_TIMEOUT => RestErrorCode::RequestTimeout,
        StatusCode::PAYLOAD_TOO_LARGE => RestErrorCode::TooLarge,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => RestErrorCode::UnsupportedMediaType,
        StatusCode::UPGRADE_REQUIRED => RestErrorCode::UpgradeRequired,
        StatusCode::TOO_MANY_REQUESTS => RestErrorCode::RateLimited,
        StatusCode::SERVICE_UNAVAILABLE => RestErrorCode::Unavailable,
        s if s.is_server_error() => RestErrorCode::Internal,
        _ => RestErrorCode::BadRequest,
    }
}

/// Middleware: an error answer (4xx, 5xx) that is not JSON is rewritten to the JSON
/// error body, keeping its status and headers; its text (if short) becomes the
/// message, otherwise the status's reason phrase.
pub(crate) async fn json_errors(req: Request, next: Next) -> Response {
    let res = next.run(req).await;
    let status = res.status();
    let is_json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return res;
    }
    let (mut parts, body) = res.into_parts();
    let text = axum::body::to_bytes(body, 1024)
        .await
        .ok()
        .and_then(|b| String::from_utf8(b.to_vec()).ok())
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty());
    let message = text.unwrap_or_else(|| {
        status
            .canonical_reason()
            .unwrap_or("error")
            .to_ascii_lowercase()
    });
    let body = serde_json::json!({"error": {"code": code_for_status(status).as_str(), "message": message}});
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Response::from_parts(parts, Body::from(body.to_string()))
}

/// The CORS layer for `--allowed-origins`: simple and preflighted `GET`/`POST` with
/// `Authorization` and `Content-Type`, preflight cached 10 minutes.
pub(crate) fn cors(config: &Config) -> CorsLayer {
    let origins: Vec<HeaderValue> = config
        .allowed_origins
        .iter()
        .filter_map(|o| match HeaderValue::from_str(o.trim_end_matches('/')) {
            Ok(v) => Some(v),
            Err(_) => {
                tracing::warn!(origin = %o, "ignoring an allowed origin that is not a header value");
                None
            }
        })
        .collect();
    CorsLayer::new()
        .allow_origin(AllowOrigin::list(origins))
        .allow_methods([Method::GET, Method::POST])
        .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE])
        .expose_headers([header::RETRY_AFTER])
        .max_age(Duration::from_secs(600))
}

/// The application `router` wrapped in the edge's HTTP layers (outermost first):
/// security headers, the JSON error body, the `Origin` check, CORS, the body deadline.
pub(crate) fn layer<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    config: &Config,
) -> Router<S> {
    let allowed = Arc::new(config.allowed_origins.clone());
    let body_limit = config.body_timeout();
    router
        .layer(axum::middleware::from_fn(
            move |req: Request, next: Next| super::body::body_deadline(body_limit, req, next),
        ))
        .layer(cors(config))
        .layer(axum::middleware::from_fn(
            move |req: Request, next: Next| check_origin(allowed.clone(), req, next),
        ))
        .layer(axum::middleware::from_fn(json_errors))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::REFERRER_POLICY,
            HeaderValue::from_static(REFERRER_POLICY),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            HeaderName::from_static("x-frame-options"),
            HeaderValue::from_static("DENY"),
        ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_own_origin_and_listed_origins_are_allowed() {
        let listed = vec!["https://play.example.com".to_string()];
        let host = Some("127.0.0.1:8080");
        assert!(origin_allowed("http://127.0.0.1:8080", host, &[]));
        assert!(origin_allowed("https://play.example.com", host, &listed));
        assert!(origin_allowed("https://play.example.com/", host, &listed));
        assert!(!origin_allowed("https://evil.example", host, &listed));
        assert!(!origin_allowed("http://127.0.0.1:9999", host, &listed));
        assert!(!origin_allowed("null", host, &listed));
        assert!(!origin_allowed("http://127.0.0.1:8080", None, &[]));
        // Default ports are implied on either side; hosts compare case-insensitively.
        assert!(origin_allowed(
            "http://Example.com",
            Some("example.com:80"),
            &[]
        ));
        assert!(origin_allowed(
            "https://example.com:443",
            Some("example.com"),
            &[]
        ));
        assert!(origin_allowed(
            "https://example.com",
            Some("example.com"),
            &[]
        ));
        assert!(origin_allowed("http://[::1]:8080", Some("[::1]:8080"), &[]));
        assert!(!origin_allowed("http://[::1]", Some("[::1]:8080"), &[]));
        assert!(!origin_allowed(
            "ftp://example.com",
            Some("example.com"),
            &[]
        ));
    }

    #[test]
    fn statuses_map_to_the_api_codes() {
        assert_eq!(
            code_for_status(StatusCode::METHOD_NOT_ALLOWED),
            RestErrorCode::MethodNotAllowed
        );
        assert_eq!(
            code_for_status(StatusCode::NOT_FOUND),
            RestErrorCode::NotFound
        );
        assert_eq!(
            code_for_status(StatusCode::REQUEST_TIMEOUT),
            RestErrorCode::RequestTimeout
        );
        assert_eq!(
            code_for_status(StatusCode::BAD_GATEWAY),
            RestErrorCode::Internal
        );
        assert_eq!(
            code_for_status(StatusCode::CONFLICT),
            RestErrorCode::BadRequest
        );
        // Each mapped status is the code's own.
        for s in [400, 401, 403, 404, 405, 408, 413, 415, 426, 429, 503] {
            let status = StatusCode::from_u16(s).unwrap();
            assert_eq!(code_for_status(status).status(), s);
        }
    }
}
