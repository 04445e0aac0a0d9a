//! Request inputs of the read-only REST resources: path and query extractors whose
//! rejections are [`ApiError`]s (so a bad id gets the JSON error body, not axum's
//! plain text), and the parsers of the shared query parameters.
//!
//! Error codes (all 400): `invalid_id` (a path id that is not a UUID), `bad_query`
//! (a query string that cannot be decoded at all), `invalid_limit`, `invalid_cursor`
//! (`before` or `before_id`), `invalid_mode`.

use crate::error::ApiError;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::FromRequestParts;
use chrono::{DateTime, Utc};
use engine::Mode;
use protocol::RestErrorCode;
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

impl From<PathRejection> for ApiError {
    fn from(r: PathRejection) -> Self {
        match r {
            PathRejection::FailedToDeserializePathParams(e) => {
                ApiError::new(RestErrorCode::InvalidId, e.body_text())
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

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

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
