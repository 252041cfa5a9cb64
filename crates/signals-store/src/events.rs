//! How an observation event is laid out in the store since SQLite
//! migration `0008_compact` (PostgreSQL `0007_compact`), for both backends.
//!
//! An event row is a handful of integers: its run, its place in the run
//! (`pos`: the events of a run numbered in signal id order, so the trail
//! reads in that order by the primary key alone), the item (`items.id`),
//! its kind, the changed fields as a bit set, and its snapshot. The trail's
//! detail text is derived from kind and fields; `detail` holds a text only
//! for an event an older version wrote with a detail that is not the
//! derived one, so every trail reads back exactly as it was.

use std::path::Path;

use signals_core::run::ItemEvent;
use signals_core::{EventKind, Observation};

use crate::error::{Result, StoreError};

/// `events.kind` of a `discovered` event.
pub const DISCOVERED: i64 = 0;
/// `events.kind` of a `changed` event.
pub const CHANGED: i64 = 1;

/// The bit of each changed-field name in `events.fields`, in detail order.
/// Stored values: never renumber; a new field takes the next bit.
const FIELD_BITS: [(&str, i64); 12] = [
    ("title", 1),
    ("text", 1 << 1),
    ("state", 1 << 2),
    ("labels", 1 << 3),
    ("assignees", 1 << 4),
    ("metrics", 1 << 5),
    ("updatedAt", 1 << 6),
    ("draft", 1 << 7),
    ("merged", 1 << 8),
    ("severity", 1 << 9),
    ("cvssScore", 1 << 10),
    ("cveId", 1 << 11),
];

/// The detail of a `discovered` event.
const INITIAL: &str = "initial snapshot";

/// The columns of an event row that say what happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventColumns {
    /// `events.kind`.
    pub kind: i64,
    /// `events.fields`, a bit set of the fields that changed.
    pub fields: i64,
    /// `events.detail`: `None` when it is the one `kind` and `fields`
    /// derive, as for every new event.
    pub detail: Option<String>,
}

/// The columns of an observation's event.
pub fn encode(observation: &Observation) -> EventColumns {
    let (kind, fields) = match observation {
        Observation::Discovered => (DISCOVERED, 0),
        Observation::Changed(fields) => {
            let names: Vec<&str> = fields.iter().map(|f| f.as_str()).collect();
            // Core's field names are all in the table (a test says so).
            (CHANGED, bits(&names).unwrap_or(0))
        }
    };
    EventColumns {
        kind,
        fields,
        detail: None,
    }
}

/// The bit set of field names, `None` when one is not a known field.
fn bits(names: &[&str]) -> Option<i64> {
    names.iter().try_fold(0, |acc, name| {
        FIELD_BITS
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, bit)| acc | bit)
    })
}

/// The field names of a bit set, in detail order.
fn names(fields: i64) -> Vec<&'static str> {
    FIELD_BITS
        .iter()
        .filter(|(_, bit)| fields & bit != 0)
        .map(|(n, _)| *n)
        .collect()
}

/// The detail text a kind and bit set give.
fn derived(kind: i64, fields: i64) -> Option<String> {
    match kind {
        DISCOVERED => Some(INITIAL.to_string()),
        CHANGED => Some(names(fields).join(", ")),
        _ => None,
    }
}

/// The event's kind from `events.kind`.
pub fn kind_of(path: &Path, kind: i64) -> Result<EventKind> {
    match kind {
        DISCOVERED => Ok(EventKind::Discovered),
        CHANGED => Ok(EventKind::Changed),
        other => Err(StoreError::Corrupt {
            path: path.to_path_buf(),
            what: format!("events.kind {other} is not an event kind (0 or 1)"),
        }),
    }
}

/// The trail detail of an event row: `detail` when an older version left
/// one, else what kind and fields give.
pub fn detail_of(path: &Path, kind: i64, fields: i64, detail: Option<String>) -> Result<String> {
    match detail {
        Some(d) => Ok(d),
        None => derived(kind, fields).ok_or_else(|| StoreError::Corrupt {
            path: path.to_path_buf(),
            what: format!("events.kind {kind} is not an event kind (0 or 1)"),
        }),
    }
}

/// A run's events with their `pos`: numbered in signal id order (byte
/// order, as the trail reads them).
pub fn positioned(events: &[ItemEvent]) -> Vec<(i64, &ItemEvent)> {
    let mut sorted: Vec<&ItemEvent> = events.iter().collect();
    sorted.sort_by(|a, b| a.item_id.cmp(&b.item_id));
    sorted
        .into_iter()
        .enumerate()
        .map(|(i, e)| (i as i64, e))
        .collect()
}

/// An event row of the layout before (kind and detail as text, fields as a
/// JSON array of names) in the compact one: kind, fields, and the detail
/// when it is not the derived one. `at` names the row in errors.
pub fn from_text_row(
    path: &Path,
    at: &str,
    kind: &str,
    detail: String,
    fields: &str,
) -> Result<EventColumns> {
    let corrupt = |what: String| StoreError::Corrupt {
        path: path.to_path_buf(),
        what: format!("{what} ({at}); the store was left as it was"),
    };
    let kind = match kind {
        "discovered" => DISCOVERED,
        "changed" => CHANGED,
        other => {
            return Err(corrupt(format!(
                "events.kind {other:?} is not an event kind"
            )));
        }
    };
    let list: Vec<String> = serde_json::from_str(fields).map_err(|e| {
        corrupt(format!(
            "events.fields {fields:?} is not a list of names: {e}"
        ))
    })?;
    let list: Vec<&str> = list.iter().map(String::as_str).collect();
    let bits = bits(&list)
        .ok_or_else(|| corrupt(format!("events.fields {fields:?} names an unknown field")))?;
    // The names must come back as they were (each once, in detail order),
    // or the bit set would not say what the row said.
    if names(bits) != list {
        return Err(corrupt(format!(
            "events.fields {fields:?} repeats a field or is out of order"
        )));
    }
    let verbatim = (derived(kind, bits).as_deref() != Some(detail.as_str())).then_some(detail);
    Ok(EventColumns {
        kind,
        fields: bits,
        detail: verbatim,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use signals_core::TrackedField;

    #[test]
    fn every_tracked_field_has_its_bit_in_detail_order() {
        let all: Vec<&str> = TrackedField::ALL.iter().map(|f| f.as_str()).collect();
        assert_eq!(all, FIELD_BITS.map(|(n, _)| n));
        let obs = Observation::Changed(TrackedField::ALL.to_vec());
        let EventColumns { kind, fields, .. } = encode(&obs);
        assert_eq!(
            detail_of(Path::new("x"), kind, fields, None).unwrap(),
            obs.detail()
        );
        let EventColumns { kind, fields, .. } = encode(&Observation::Discovered);
        assert_eq!(
            detail_of(Path::new("x"), kind, fields, None).unwrap(),
            "initial snapshot"
        );
    }

    #[test]
    fn old_rows_keep_their_detail_exactly() {
        let p = Path::new("x");
        let EventColumns {
            kind: k,
            fields: f,
            detail: d,
        } = from_text_row(
            p,
            "e",
            "changed",
            "text, state".into(),
            r#"["text","state"]"#,
        )
        .unwrap();
        assert_eq!((k, f, d), (CHANGED, 6, None));
        // A detail that is not the derived one is kept as it was.
        let EventColumns {
            fields: f,
            detail: d,
            ..
        } = from_text_row(
            p,
            "e",
            "changed",
            "metrics".into(),
            r#"["metrics","updatedAt"]"#,
        )
        .unwrap();
        assert_eq!(detail_of(p, CHANGED, f, d).unwrap(), "metrics");
        for (kind, fields) in [
            ("seen", "[]"),
            ("changed", r#"["colour"]"#),
            ("changed", r#"["state","text"]"#),
            ("changed", "{"),
        ] {
            assert!(matches!(
                from_text_row(p, "e", kind, "x".into(), fields),
                Err(StoreError::Corrupt { .. })
            ));
        }
    }
}
