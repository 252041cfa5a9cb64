//! Checking v3 dataset documents: the JSON Schema shipped in
//! `schemas/dataset-v3.schema.json`, then the invariants a schema cannot
//! express (`signals_core::dataset::check_invariants`).

use std::sync::OnceLock;

use serde_json::Value;
use signals_core::dataset::{Problem, check_invariants};

/// The schema, embedded so the binary checks documents anywhere.
pub const SCHEMA: &str = include_str!("../../../schemas/dataset-v3.schema.json");

fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let schema: Value =
            serde_json::from_str(SCHEMA).expect("the embedded schema is JSON (tested)");
        jsonschema::draft202012::new(&schema).expect("the embedded schema compiles (tested)")
    })
}

/// Every problem of a document given as bytes: not JSON, not valid against
/// the schema, or breaking an invariant. Empty means valid.
pub fn check(bytes: &[u8]) -> Vec<Problem> {
    let doc: Value = match serde_json::from_slice(bytes) {
        Ok(doc) => doc,
        Err(e) => {
            return vec![Problem {
                pointer: String::new(),
                message: format!("not JSON: {e} (line {}, column {})", e.line(), e.column()),
            }];
        }
    };
    let mut problems: Vec<Problem> = validator()
        .iter_errors(&doc)
        .map(|e| Problem {
            pointer: e.instance_path().to_string(),
            message: e.to_string(),
        })
        .collect();
    problems.extend(check_invariants(&doc));
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_compiles() {
        let _ = validator();
    }

    #[test]
    fn not_json_is_one_problem() {
        let p = check(b"{\"schemaVersion\": 3,");
        assert_eq!(p.len(), 1);
        assert!(p[0].message.starts_with("not JSON"), "{}", p[0].message);
    }

    #[test]
    fn schema_problems_have_pointers() {
        let p = check(br#"{"schemaVersion": 2, "dataset": {}}"#);
        let pointers: Vec<_> = p.iter().map(|p| p.pointer.as_str()).collect();
        assert!(pointers.contains(&"/schemaVersion"), "{pointers:?}");
        assert!(pointers.contains(&"/dataset"), "{pointers:?}");
    }
}
