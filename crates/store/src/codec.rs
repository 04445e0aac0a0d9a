//! Conversions between engine values and column values: enums as their serde names
//! (`"journey"`, `"green"`, `"clock"` …), times truncated to microseconds (the
//! precision both backends keep).

use crate::error::StoreError;
use chrono::{DateTime, SubsecRound, Utc};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The serde name of a unit enum variant (`Mode::Journey` → `"journey"`).
pub(crate) fn name<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        other => unreachable!("unit enum expected, serialized as {other:?}"),
    }
}

/// Parses a serde name back into its enum; a name no variant has is
/// [`StoreError::Corrupt`].
pub(crate) fn parse<T: DeserializeOwned>(column: &str, s: &str) -> Result<T, StoreError> {
    serde_json::from_value(serde_json::Value::String(s.to_string()))
        .map_err(|_| StoreError::Corrupt(format!("{column}: unknown value {s:?}")))
}

/// `t` truncated to whole microseconds.
pub(crate) fn micros(t: DateTime<Utc>) -> DateTime<Utc> {
    t.trunc_subsecs(6)
}

/// A small non-negative column value (place, finishing place) as `u8`.
pub(crate) fn small(column: &str, v: i32) -> Result<u8, StoreError> {
    u8::try_from(v).map_err(|_| StoreError::Corrupt(format!("{column}: {v} out of range")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{EndReason, Mode, Seat, TurnKind};

    #[test]
    fn enum_names_round_trip() {
        assert_eq!(name(&Mode::Journey), "journey");
        assert_eq!(name(&Seat::Yellow), "yellow");
        assert_eq!(name(&EndReason::AllFinished), "all_finished");
        assert_eq!(name(&TurnKind::Timeout), "timeout");
        assert_eq!(parse::<Mode>("mode", "clash").unwrap(), Mode::Clash);
        assert!(matches!(
            parse::<Seat>("seat", "purple"),
            Err(StoreError::Corrupt(_))
        ));
    }

    #[test]
    fn times_keep_microseconds() {
        let t = DateTime::from_timestamp(1_700_000_000, 123_456_789).unwrap();
        assert_eq!(micros(t).timestamp_subsec_nanos(), 123_456_000);
        assert!(small("place", 300).is_err());
        assert_eq!(small("place", 4).unwrap(), 4);
    }
}
