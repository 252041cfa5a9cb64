//! A newcomer's first hour (issue 30, part 4): each step a new user takes
//! from a fresh clone, checked so that none fails or misleads again.

use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file below `dir`, skipping build output and hidden folders.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for path in entries.flatten().map(|e| e.path()) {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') || name == "target" {
            continue;
        }
        if path.is_dir() {
            rust_files(&path, out);
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// The `eprintln!` calls of `text` that write a skip notice: the test
/// harness captures `eprintln!`, so such a notice never shows when the
/// test passes. Returns the 1-based line of each.
fn skip_notices_by_eprintln(text: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let macro_call = format!("{}!(", "eprintln");
    for (at, _) in text.match_indices(&macro_call) {
        let call = &text[at..];
        let end = call.find(");").unwrap_or(call.len());
        let call = call[..end].to_lowercase();
        if call.contains("skip") || call.contains("not installed") || call.contains("not found") {
            found.push(text[..at].lines().count().max(1));
        }
    }
    found
}

#[test]
fn issue_30_skip_notices_are_written_to_stderr_not_through_eprintln() {
    let mut files = Vec::new();
    for dir in ["crates", "fuzz"] {
        rust_files(&root().join(dir), &mut files);
    }
    assert!(files.len() > 50, "{} files", files.len());
    let mut offenders = Vec::new();
    for path in files {
        let text = fs::read_to_string(&path).unwrap();
        for line in skip_notices_by_eprintln(&text) {
            offenders.push(format!("{}:{line}", path.display()));
        }
    }
    assert!(
        offenders.is_empty(),
        "skip notices through eprintln! (captured by the test harness; write them with \
         `writeln!(std::io::stderr(), ...)`): {offenders:#?}"
    );
    // The scanner sees a notice, and only a notice (the macro's name is
    // built here, so this file is not one of its finds).
    let call = format!("{}!(", "eprintln");
    assert_eq!(
        skip_notices_by_eprintln(&format!(
            "x\n    {call}\n  \"skipping: no PostgreSQL\"\n);\n"
        )),
        vec![2]
    );
    assert!(skip_notices_by_eprintln(&format!("{call}\"{{kills}} kills\");")).is_empty());
}
