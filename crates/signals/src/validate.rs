//! Checking v3 dataset documents: the JSON Schema shipped in
//! `schemas/dataset-v3.schema.json`, then the invariants a schema cannot
//! express (`signals_core::dataset::check_invariants`). A trends document
//! (`trends.json`, known by its `weeks`) is checked against
//! `schemas/trends-v1.schema.json`, a verdict (`verdict.json`, known by its
//! `reasons`) against `schemas/verdict-v1.schema.json`.

use std::sync::OnceLock;

use serde_json::Value;
use signals_core::dataset::{Problem, check_invariants};

/// The schema, embedded so the binary checks documents anywhere.
pub const SCHEMA: &str = include_str!("../../../schemas/dataset-v3.schema.json");

/// The trends document's schema, embedded likewise.
pub const TRENDS_SCHEMA: &str = include_str!("../../../schemas/trends-v1.schema.json");

fn compile(text: &str) -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(text).expect("the embedded schema is JSON (tested)");
    jsonschema::draft202012::new(&schema).expect("the embedded schema compiles (tested)")
}

fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| compile(SCHEMA))
}

fn trends_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| compile(TRENDS_SCHEMA))
}

/// The verdict document's schema, embedded likewise.
pub const VERDICT_SCHEMA: &str = include_str!("../../../schemas/verdict-v1.schema.json");

fn verdict_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| compile(VERDICT_SCHEMA))
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
    let trends = doc.get("weeks").is_some();
    let verdict = doc.get("reasons").is_some();
    let schema = if trends {
        trends_validator()
    } else if verdict {
        verdict_validator()
    } else {
        validator()
    };
    let mut problems: Vec<Problem> = schema
        .iter_errors(&doc)
        .map(|e| Problem {
            pointer: e.instance_path().to_string(),
            message: e.to_string(),
        })
        .collect();
    if !trends && !verdict {
        problems.extend(check_invariants(&doc));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_compiles() {
        let _ = validator();
        let _ = trends_validator();
        let _ = verdict_validator();
    }

    #[test]
    fn a_verdict_is_checked_against_its_own_schema() {
        let p = check(br#"{"schemaVersion": 1, "state": "alive", "reasons": []}"#);
        let text: Vec<_> = p.iter().map(|p| p.to_string()).collect();
        assert!(text.iter().any(|t| t.contains("alive")), "{text:?}");
        assert!(text.iter().any(|t| t.contains("group")), "{text:?}");
    }

    #[test]
    fn a_trends_document_is_checked_against_its_own_schema() {
        let p = check(br#"{"schemaVersion": 1, "weeks": []}"#);
        let text: Vec<_> = p.iter().map(|p| p.to_string()).collect();
        assert!(!p.is_empty());
        assert!(text.iter().any(|t| t.contains("repository")), "{text:?}");
    }

    /// A document written by hand from the spec alone, with only the
    /// fields it names (its neutral host `codehost` spelled `github`): a
    /// dataset exported by an earlier version, or by another tool, is
    /// valid.
    #[test]
    fn a_document_with_only_the_fields_of_the_spec_is_valid() {
        let doc = include_bytes!("../tests/it/data/spec-v3.json");
        let problems = check(doc);
        assert!(problems.is_empty(), "{problems:?}");
        // Each field the spec marks required stays required.
        let mut value: serde_json::Value = serde_json::from_slice(doc).unwrap();
        let signal = value["dataset"]["signals"][0].as_object_mut().unwrap();
        signal.remove("timestamp");
        let problems = check(&serde_json::to_vec(&value).unwrap());
        assert!(!problems.is_empty());
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
