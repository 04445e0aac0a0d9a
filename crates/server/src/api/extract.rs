//! Request inputs of the read-only REST resources: path and query extractors whose
//! rejections are [`ApiError`]s (so a bad id gets the JSON error body, not axum's
//! plain text), and the parsers of the shared query parameters.
//!
//! Error codes (all 400): `invalid_id` (a path id that is not a UUID), `bad_query`
//! (a query string that cannot be decoded at all), `invalid_limit`, `invalid_cursor`
//! (`before` or `before_id`), `invalid_mode`.

use crate::error::ApiError;
use crate::services::Services;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::HeaderMap;
use chrono::{DateTime, Utc};
use engine::Mode;
use protocol::RestErrorCode;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use uuid::Uuid;

/// Default number of rows of a history or leaderboard page.
pub(crate) const DEFAULT_LIMIT: u32 = 20;

/// `axum::extract::Path` whose rejection is an [`ApiError`]: 400 `invalid_id` when a
/// path parameter does not parse (every path parameter of this API is a UUID).
#[derive(Debug, Clone, Copy, Default, FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(ApiError))]
pub(crate) struct ApiPath<T>(pub T);

/// `axum::extract::Query` whose rejection is an [`ApiError`]: 400 `bad_query` when
/// the query string cannot be decoded into the parameters' shape.
#[derive(Debug, Clone, Copy, Default, FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(ApiError))]
pub(crate) struct ApiQuery<T>(pub T);

/// Most characters of a rejection's text kept in an `invalid_id` message (the text
/// quotes the path parameter, which may be as long as the request line).
const MAX_ERROR_TEXT: usize = 200;

impl From<PathRejection> for ApiError {
    fn from(r: PathRejection) -> Self {
        match r {
            PathRejection::FailedToDeserializePathParams(e) => {
                // The text quotes the parameter; a long one is cut (the answer stays small).
                let mut text = e.body_text();
                if let Some((cut, _)) = text.char_indices().nth(MAX_ERROR_TEXT) {
                    text.truncate(cut);
                    text.push('…');
                }
                ApiError::new(RestErrorCode::InvalidId, text)
            }
            // A route whose handler asks for a parameter it does not declare: a bug.
            other => ApiError::Internal(other.body_text()),
        }
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> Self {
        ApiError::new(RestErrorCode::BadQuery, r.body_text())
    }
}

/// `limit`: rows per page, 1..=[`store::MAX_PAGE`] (100); absent: [`DEFAULT_LIMIT`].
///
/// Errors: 400 `invalid_limit` for anything else (not a number, 0, over 100).
pub(crate) fn parse_limit(raw: Option<&str>) -> Result<u32, ApiError> {
    let Some(raw) = raw else {
        return Ok(DEFAULT_LIMIT);
    };
    match raw.parse::<u32>() {
        Ok(n) if (1..=store::MAX_PAGE).contains(&n) => Ok(n),
        _ => Err(ApiError::new(
            RestErrorCode::InvalidLimit,
            format!(
                "limit must be an integer in 1..={}, got {raw:?}",
                store::MAX_PAGE
            ),
        )),
    }
}

/// `before`: an RFC 3339 time (e.g. `2026-01-02T03:04:05.123456Z`, the `next_before`
/// of a previous page); absent: no cursor.
///
/// Errors: 400 `invalid_cursor` when it is not RFC 3339.
pub(crate) fn parse_before(raw: Option<&str>) -> Result<Option<DateTime<Utc>>, ApiError> {
    raw.map(|s| {
        DateTime::parse_from_rfc3339(s)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| {
                ApiError::new(
                    RestErrorCode::InvalidCursor,
                    format!("before must be an RFC 3339 time, got {s:?}: {e}"),
                )
            })
    })
    .transpose()
}

/// `before_id`: a match id (the `next_before_id` of a previous page); absent: none.
///
/// Errors: 400 `invalid_cursor` when it is not a UUID.
pub(crate) fn parse_before_id(raw: Option<&str>) -> Result<Option<Uuid>, ApiError> {
    raw.map(|s| {
        Uuid::parse_str(s).map_err(|e| {
            ApiError::new(
                RestErrorCode::InvalidCursor,
                format!("before_id must be a match id (UUID), got {s:?}: {e}"),
            )
        })
    })
    .transpose()
}

/// `mode`: `journey` or `clash` (rule 1.4), required.
///
/// Errors: 400 `invalid_mode` when it is missing or anything else.
pub(crate) fn parse_mode(raw: Option<&str>) -> Result<Mode, ApiError> {
    match raw {
        Some("journey") => Ok(Mode::Journey),
        Some("clash") => Ok(Mode::Clash),
        Some(other) => Err(ApiError::new(
            RestErrorCode::InvalidMode,
            format!("mode must be journey or clash, got {other:?}"),
        )),
        None => Err(ApiError::new(
            RestErrorCode::InvalidMode,
            "the mode parameter is required: journey or clash",
        )),
    }
}

/// The client address of `peer`'s request with `headers`: `peer` itself unless it
/// is one of `trusted`; then the right-most `X-Forwarded-For` entry (over all such
/// headers) that is not itself a trusted proxy. A malformed entry ends the walk:
/// the last trusted hop's address is used, since anything left of it could be forged.
pub(crate) fn client_ip(peer: IpAddr, headers: &HeaderMap, trusted: &[IpAddr]) -> IpAddr {
    if !trusted.contains(&peer) {
        return peer;
    }
    let hops: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .collect();
    let mut client = peer;
    for hop in hops.iter().rev() {
        match hop.parse::<IpAddr>() {
            Ok(ip) if trusted.contains(&ip) => client = ip,
            Ok(ip) => return ip,
            Err(_) => return client,
        }
    }
    client
}

/// Extractor: the request's client address ([`client_ip`]); `None` when the request
/// did not come through the edge's listener (no peer address known).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClientIp(pub Option<IpAddr>);

impl FromRequestParts<Services> for ClientIp {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &Services) -> Result<Self, Infallible> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        Ok(ClientIp(peer.map(|p| {
            client_ip(p, &parts.headers, &state.config().trusted_proxies)
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;
    use chrono::TimeZone;

    fn xff(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append("x-forwarded-for", HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn forwarded_for_counts_only_from_a_trusted_proxy() {
        let proxy = ip("10.0.0.1");
        let trusted = [proxy, ip("10.0.0.2")];
        let h = xff(&["203.0.113.9, 198.51.100.7"]);
        // An untrusted peer: the header is ignored.
        assert_eq!(client_ip(ip("192.0.2.5"), &h, &trusted), ip("192.0.2.5"));
        // A trusted peer: the right-most entry (the one the proxy itself added).
        assert_eq!(client_ip(proxy, &h, &trusted), ip("198.51.100.7"));
        // Trusted hops are skipped; several headers are one list.
        let h = xff(&["203.0.113.9", "198.51.100.7, 10.0.0.2"]);
        assert_eq!(client_ip(proxy, &h, &trusted), ip("198.51.100.7"));
        // No header, or only proxies: the last proxy.
        assert_eq!(client_ip(proxy, &HeaderMap::new(), &trusted), proxy);
        assert_eq!(
            client_ip(proxy, &xff(&["10.0.0.2"]), &trusted),
            ip("10.0.0.2")
        );
        // A malformed entry stops the walk at the last trusted hop.
        assert_eq!(client_ip(proxy, &xff(&["1.2.3.4, junk"]), &trusted), proxy);
    }

    fn code(e: ApiError) -> (u16, &'static str) {
        (e.status().as_u16(), e.code().as_str())
    }

    #[test]
    fn limit_defaults_to_20_and_accepts_1_to_100() {
        assert_eq!(parse_limit(None).unwrap(), 20);
        assert_eq!(parse_limit(Some("1")).unwrap(), 1);
        assert_eq!(parse_limit(Some("100")).unwrap(), 100);
        for bad in ["0", "101", "-1", "ten", "", "1.5", "99999999999"] {
            assert_eq!(
                code(parse_limit(Some(bad)).unwrap_err()),
                (400, "invalid_limit"),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn before_is_rfc3339_in_any_offset() {
        assert_eq!(parse_before(None).unwrap(), None);
        let t = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap()
            + chrono::Duration::microseconds(123_456);
        assert_eq!(
            parse_before(Some("2026-01-02T03:04:05.123456Z")).unwrap(),
            Some(t)
        );
        assert_eq!(
            parse_before(Some("2026-01-02T05:04:05.123456+02:00")).unwrap(),
            Some(t)
        );
        for bad in ["yesterday", "2026-01-02", "1700000000", ""] {
            assert_eq!(
                code(parse_before(Some(bad)).unwrap_err()),
                (400, "invalid_cursor"),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn before_id_is_a_uuid() {
        assert_eq!(parse_before_id(None).unwrap(), None);
        let id = Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef);
        assert_eq!(
            parse_before_id(Some("01234567-89ab-cdef-0123-456789abcdef")).unwrap(),
            Some(id)
        );
        for bad in ["x", "", "01234567-89ab-cdef-0123-456789abcde"] {
            assert_eq!(
                code(parse_before_id(Some(bad)).unwrap_err()),
                (400, "invalid_cursor"),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn mode_is_journey_or_clash_and_required() {
        assert_eq!(parse_mode(Some("journey")).unwrap(), Mode::Journey);
        assert_eq!(parse_mode(Some("clash")).unwrap(), Mode::Clash);
        for bad in [Some("Journey"), Some("chess"), Some(""), None] {
            assert_eq!(
                code(parse_mode(bad).unwrap_err()),
                (400, "invalid_mode"),
                "{bad:?}"
            );
        }
    }
}
