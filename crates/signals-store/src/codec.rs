//! Conversions between domain values and column values.
//!
//! Writing never loses information (timestamps keep their full precision,
//! JSON is serde's), and reading checks what it gets: a value that does not
//! parse becomes [`StoreError::Corrupt`] naming the column, never a panic.

use std::path::Path;

use jiff::Timestamp;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Result, StoreError};

/// A timestamp as stored: RFC 3339 in UTC with exactly the fractional digits
/// it carries, so reading it back gives the same instant.
pub fn ts_text(ts: Timestamp) -> String {
    ts.to_string()
}

/// Parses a stored timestamp.
pub fn ts_parse(path: &Path, column: &str, text: &str) -> Result<Timestamp> {
    text.parse().map_err(|e| StoreError::Corrupt {
        path: path.to_path_buf(),
        what: format!("{column} {text:?} is not a timestamp: {e}"),
    })
}

/// A snapshot's timestamp as stored since SQLite migration 0008
/// (PostgreSQL 0007): whole seconds since the Unix epoch and the
/// nanoseconds within (signed like the seconds, 0 for whole seconds), two
/// integers of a few bytes each where the text took 20, and exact at any
/// precision and across jiff's whole range.
pub fn stamp(ts: Timestamp) -> (i64, i64) {
    (ts.as_second(), i64::from(ts.subsec_nanosecond()))
}

/// Reads back a [`stamp`].
pub fn stamp_parse(path: &Path, column: &str, second: i64, nano: i64) -> Result<Timestamp> {
    let corrupt = |e: String| StoreError::Corrupt {
        path: path.to_path_buf(),
        what: format!("{column} ({second} s, {nano} ns) is not a timestamp: {e}"),
    };
    let nano = i32::try_from(nano).map_err(|e| corrupt(e.to_string()))?;
    Timestamp::new(second, nano).map_err(|e| corrupt(e.to_string()))
}

/// A rate limit's reset as stored: its timestamp, or the empty text when
/// the host did not say (the column predates unknown resets and is `NOT
/// NULL`; empty text never parses as a timestamp, so it cannot be taken for
/// one).
pub fn reset_text(reset: Option<Timestamp>) -> String {
    reset.map(ts_text).unwrap_or_default()
}

/// Parses a stored reset (see [`reset_text`]).
pub fn reset_parse(path: &Path, column: &str, text: &str) -> Result<Option<Timestamp>> {
    if text.is_empty() {
        return Ok(None);
    }
    ts_parse(path, column, text).map(Some)
}

/// A counter as stored (SQLite integers are signed 64-bit).
pub fn int(what: &'static str, value: u64) -> Result<i64> {
    i64::try_from(value).map_err(|_| StoreError::OutOfRange { what, value })
}

/// Reads back a counter; the schema's CHECKs keep them non-negative, so a
/// negative one means the file was edited.
pub fn uint(path: &Path, column: &str, value: i64) -> Result<u64> {
    u64::try_from(value).map_err(|_| StoreError::Corrupt {
        path: path.to_path_buf(),
        what: format!("{column} is negative ({value})"),
    })
}

/// JSON text of a domain value. Serializing these types cannot fail (they
/// have string keys only); should it ever, the error is reported, not
/// unwrapped.
pub fn to_json<T: Serialize>(path: &Path, what: &str, value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| StoreError::Corrupt {
        path: path.to_path_buf(),
        what: format!("{what} cannot be written as JSON: {e}"),
    })
}

/// Parses a JSON column into a domain value.
pub fn from_json<T: DeserializeOwned>(path: &Path, column: &str, text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt {
        path: path.to_path_buf(),
        what: format!("{column} is not valid JSON for its type: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_round_trip_at_any_precision() {
        for text in [
            "2026-11-21T10:00:00Z",
            "2026-11-21T10:00:00.123Z",
            "2026-11-21T10:00:00.000000001Z",
            "-009999-01-02T01:59:59Z",
            "9999-12-30T22:00:00.999999999Z",
        ] {
            let ts: Timestamp = text.parse().unwrap();
            let back = ts_parse(Path::new("x"), "at", &ts_text(ts)).unwrap();
            assert_eq!(back, ts, "{text}");
        }
        assert_eq!(ts_text(Timestamp::MIN), ts_text(Timestamp::MIN));
        let min = ts_parse(Path::new("x"), "at", &ts_text(Timestamp::MIN)).unwrap();
        assert_eq!(min, Timestamp::MIN);
    }

    #[test]
    fn stamps_round_trip_at_any_precision() {
        for text in [
            "2026-11-21T10:00:00Z",
            "2026-11-21T10:00:00.123456789Z",
            "1969-12-31T23:59:59.5Z",
            "-009999-01-02T01:59:59.000000001Z",
            "9999-12-30T22:00:00.999999999Z",
        ] {
            let ts: Timestamp = text.parse().unwrap();
            let (s, ns) = stamp(ts);
            assert_eq!(
                stamp_parse(Path::new("x"), "at", s, ns).unwrap(),
                ts,
                "{text}"
            );
        }
        for (s, ns) in [(i64::MAX, 0), (0, 1_000_000_000), (0, i64::MAX)] {
            assert!(matches!(
                stamp_parse(Path::new("x"), "snapshots.updated_s", s, ns),
                Err(StoreError::Corrupt { .. })
            ));
        }
    }

    #[test]
    fn bad_values_are_corrupt_not_panics() {
        let p = Path::new("s.db");
        assert!(matches!(
            ts_parse(p, "runs.since", "yesterday"),
            Err(StoreError::Corrupt { .. })
        ));
        assert!(matches!(
            uint(p, "runs.requests", -1),
            Err(StoreError::Corrupt { .. })
        ));
        assert!(matches!(
            int("requests", u64::MAX),
            Err(StoreError::OutOfRange { .. })
        ));
        let r: Result<Vec<String>> = from_json(p, "repositories.keywords", "{");
        assert!(matches!(r, Err(StoreError::Corrupt { .. })));
    }
}
