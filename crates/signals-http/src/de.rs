//! Lenient field decoders every host crate uses on its wire types: an odd
//! value from a host (a `null` string, a negative count, a year 10000) must
//! not make a repository impossible to collect, while a value of the wrong
//! kind is still a decode error that names its path.
//!
//! For `#[serde(deserialize_with = "...")]` in the host crates' wire types;
//! this module knows value shapes, not any host's objects.

use jiff::Timestamp;
use serde::Deserialize;

/// A count as the host sends it, made a count: `null` and negative numbers
/// become 0, fractions are cut, huge values saturate at `i64::MAX` (what
/// SQLite can hold). An odd number must not make a repository impossible to
/// collect; a value that is no number at all is still a decode error that
/// names its path.
pub fn count<'de, D: serde::Deserializer<'de>>(de: D) -> Result<u64, D::Error> {
    const MAX: u64 = i64::MAX as u64;
    let n = match serde_json::Value::deserialize(de)? {
        serde_json::Value::Number(n) => n
            .as_u64()
            .or_else(|| n.as_i64().map(|_| 0))
            .or_else(|| n.as_f64().map(|f| if f > 0.0 { f as u64 } else { 0 }))
            .unwrap_or(0),
        serde_json::Value::Null => 0,
        other => {
            return Err(serde::de::Error::custom(format!(
                "expected a count, found {other}"
            )));
        }
    };
    Ok(n.min(MAX))
}

/// A host's numeric id of an object, as it sends it: a whole number from
/// 1 to `i64::MAX` (what the stores hold), else unknown (`None`). An id
/// only helps to follow an object (a renamed repository), so an odd one,
/// or one of the wrong kind, is dropped rather than failing the answer.
pub fn host_id<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Option<u64>, D::Error> {
    Ok(match serde_json::Value::deserialize(de)? {
        serde_json::Value::Number(n) => n.as_u64().filter(|&id| id > 0 && id <= i64::MAX as u64),
        _ => None,
    })
}

/// A string the host may send as `null`: empty then.
pub fn text<'de, D: serde::Deserializer<'de>>(de: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(de)?.unwrap_or_default())
}

/// A timestamp; one beyond the range of `Timestamp` (around year ±9999,
/// such as `9999-12-31T23:59:59Z`, which is past it by two hours) is
/// clamped to the nearest end instead of failing the repository.
pub fn parse_ts(s: &str) -> Option<Timestamp> {
    s.parse().ok().or_else(|| {
        let t = s.trim();
        let year = t.get(..4).and_then(|y| y.parse::<u32>().ok());
        if t.starts_with('-') {
            Some(Timestamp::MIN)
        } else if t.starts_with('+') || year.is_some_and(|y| y >= 9999) {
            Some(Timestamp::MAX)
        } else {
            None
        }
    })
}

/// A required timestamp (see [`parse_ts`]).
pub fn timestamp<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Timestamp, D::Error> {
    let s = String::deserialize(de)?;
    parse_ts(&s)
        .ok_or_else(|| serde::de::Error::custom(format!("{s:?} is not an ISO 8601 timestamp")))
}

/// An optional timestamp (see [`parse_ts`]).
pub fn opt_timestamp<'de, D: serde::Deserializer<'de>>(
    de: D,
) -> Result<Option<Timestamp>, D::Error> {
    match Option::<String>::deserialize(de)? {
        None => Ok(None),
        Some(s) => parse_ts(&s)
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom(format!("{s:?} is not an ISO 8601 timestamp"))),
    }
}

/// An optional timestamp that is left out, not refused, when it is no
/// timestamp: for a value nothing depends on but an optimisation.
pub fn lenient_timestamp<'de, D: serde::Deserializer<'de>>(
    de: D,
) -> Result<Option<Timestamp>, D::Error> {
    let value = Option::<serde_json::Value>::deserialize(de)?;
    Ok(value.as_ref().and_then(|v| v.as_str()).and_then(parse_ts))
}

/// Whole seconds: the domain keeps second precision.
pub fn secs(ts: Timestamp) -> Timestamp {
    Timestamp::from_second(ts.as_second()).unwrap_or(ts)
}
