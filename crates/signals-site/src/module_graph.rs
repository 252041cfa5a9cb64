//! The crate's module graph, checked (issue 29): six modules once imported
//! each other in a ring, and nothing said so until someone tried to move
//! one. Read from the sources at test time, it must have no cycle; the
//! leaves (`paths`, `views`, `head`, `text`) import nothing of the crate;
//! no module imports one declared in a later group of `lib.rs`; and no
//! module names an item of `lib.rs` itself (`crate::SiteError`), which
//! would hide the module it really depends on behind a re-export.
//!
//! A module is a file of `src/`, or a folder there with its files (they
//! belong to the module of the folder's name). Its imports are the
//! `crate::<module>` paths its code names, in `use` lines (grouped or not)
//! or inline. Comments, strings and test modules (`#[cfg(test)]` before a
//! `mod`) are left out: a test may reach anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The modules that must import nothing of the crate.
const LEAVES: [&str; 4] = ["paths", "views", "head", "text"];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, in a stable order.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
    out
}

/// Each module of the crate (not `lib.rs`, not this test) with the text
/// of its files but its test files.
fn modules() -> BTreeMap<String, String> {
    let src = src_dir();
    let mut modules: BTreeMap<String, String> = BTreeMap::new();
    for path in rust_files(&src) {
        let rel = path.strip_prefix(&src).expect("under src");
        let first = rel.components().next().expect("a file name");
        let name = Path::new(first.as_os_str())
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a UTF-8 name")
            .to_string();
        // A module's `tests.rs` is its test module, as a `#[cfg(test)]`
        // module at the end of a file is.
        let test_file = path.file_stem().is_some_and(|s| s == "tests");
        if name == "lib" || name == "module_graph" || test_file {
            continue;
        }
        let text = fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        modules.entry(name).or_default().push_str(&text);
    }
    modules
}

/// `text` with its test modules cut, and comments and the contents of
/// string and character literals blanked out.
fn code(text: &str) -> String {
    blank_literals(&without_tests(text))
}

/// `text` up to its test module (`#[cfg(test)]` before a `mod`).
fn without_tests(text: &str) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let next_is_mod = lines.peek().is_some_and(|l| {
            let l = l.trim_start();
            let l = l
                .strip_prefix("pub(crate) ")
                .or(l.strip_prefix("pub "))
                .unwrap_or(l);
            l.starts_with("mod ")
        });
        if line.trim() == "#[cfg(test)]" && next_is_mod {
            // A test module runs to the end of its braces; by this
            // crate's habit it is the last item of its file.
            break;
        }
        kept.push_str(line);
        kept.push('\n');
    }
    kept
}

/// `code` without comments, and with its string and character literals
/// emptied.
fn blank_literals(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '/' if next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    i += 1;
                }
                i += 2;
            }
            'r' if (next == Some('"') || next == Some('#'))
                && (i == 0 || !is_ident(chars[i - 1])) =>
            {
                let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
                if chars.get(i + 1 + hashes) != Some(&'"') {
                    out.push(c);
                    i += 1;
                    continue;
                }
                i += hashes + 2;
                loop {
                    if i >= chars.len() {
                        break;
                    }
                    if chars[i] == '"' && chars[i + 1..].iter().take(hashes).all(|&c| c == '#') {
                        i += 1 + hashes;
                        break;
                    }
                    i += 1;
                }
                out.push_str("\"\"");
            }
            '"' => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            '\'' => {
                // A character literal ('x', '\n', '\u{2028}'), else a
                // lifetime or a label, which stays.
                let end = if next == Some('\\') {
                    // The escaped character, then the closing quote.
                    chars
                        .get(i + 3..)
                        .and_then(|rest| rest.iter().position(|&c| c == '\''))
                        .map(|p| i + 3 + p)
                } else if chars.get(i + 2) == Some(&'\'') {
                    Some(i + 2)
                } else {
                    None
                };
                match end {
                    Some(end) => {
                        out.push_str("' '");
                        i = end + 1;
                    }
                    None => {
                        out.push(c);
                        i += 1;
                    }
                }
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The first name of each `crate::` path in `code`: `crate::a::b` gives
/// `a`, `crate::{a::b, c}` gives `a` and `c`.
fn crate_names(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut names = Vec::new();
    let mut i = 0;
    while let Some(at) = find(&chars, i, "crate::") {
        i = at + "crate::".len();
        if at > 0 && (is_ident(chars[at - 1]) || chars[at - 1] == '$') {
            continue;
        }
        if chars.get(i) == Some(&'{') {
            // Each member of the group at depth 1 starts with a name.
            let mut depth = 0;
            let mut expect_name = true;
            while i < chars.len() {
                match chars[i] {
                    '{' => {
                        depth += 1;
                        if depth == 1 {
                            expect_name = true;
                        }
                    }
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => expect_name = true,
                    c if expect_name && depth == 1 && is_ident(c) => {
                        names.push(ident_at(&chars, i));
                        expect_name = false;
                    }
                    _ => {}
                }
                i += 1;
            }
        } else {
            names.push(ident_at(&chars, i));
        }
    }
    names
}

fn find(chars: &[char], from: usize, needle: &str) -> Option<usize> {
    let needle: Vec<char> = needle.chars().collect();
    (from..chars.len().saturating_sub(needle.len() - 1))
        .find(|&i| chars[i..i + needle.len()] == needle[..])
}

fn ident_at(chars: &[char], i: usize) -> String {
    chars[i..].iter().take_while(|&&c| is_ident(c)).collect()
}

/// What each module imports of the crate, and the names of `lib.rs` it
/// reaches for (which are errors).
fn graph() -> (BTreeMap<String, BTreeSet<String>>, Vec<String>) {
    let modules = modules();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut errors = Vec::new();
    for (name, text) in &modules {
        let imports = edges.entry(name.clone()).or_default();
        for target in crate_names(&code(text)) {
            if modules.contains_key(&target) {
                if &target != name {
                    imports.insert(target);
                }
            } else {
                errors.push(format!(
                    "{name} names crate::{target}, a name of lib.rs: import it from the module \
                     that defines it"
                ));
            }
        }
    }
    (edges, errors)
}

/// The groups of `mod` declarations of `lib.rs`, in order (blank lines
/// part them), without the test-only ones.
fn layers() -> Vec<Vec<String>> {
    let lib = fs::read_to_string(src_dir().join("lib.rs")).expect("lib.rs");
    let mut layers: Vec<Vec<String>> = vec![Vec::new()];
    let mut test_only = false;
    for line in lib.lines() {
        let line = line.trim();
        if let Some(name) = line.strip_prefix("mod ").and_then(|l| l.strip_suffix(';')) {
            if !test_only {
                layers.last_mut().expect("a layer").push(name.to_string());
            }
        } else if line.is_empty() && !layers.last().expect("a layer").is_empty() {
            layers.push(Vec::new());
        }
        test_only = line == "#[cfg(test)]";
    }
    layers.retain(|l| !l.is_empty());
    layers
}

/// A cycle of `edges`, as the modules along it, when there is one.
fn cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut ring = path[at..].to_vec();
            ring.push(node.to_string());
            return Some(ring);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(ring) = visit(next, edges, done, path) {
                return Some(ring);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|n| visit(n, edges, &mut done, &mut Vec::new()))
}

#[test]
fn the_module_graph_has_no_cycle_and_its_leaves_import_nothing() {
    let (edges, errors) = graph();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    // The reader sees what it should: the ring this test guards against
    // was `render` → `pages` → `render`.
    assert!(edges.len() > 10, "{edges:?}");
    assert!(edges["pages"].contains("digest"), "{edges:?}");
    assert!(edges["filter"].contains("paths"), "{edges:?}");

    if let Some(ring) = cycle(&edges) {
        panic!("the modules import each other: {}", ring.join(" → "));
    }
    for leaf in LEAVES {
        assert!(
            edges[leaf].is_empty(),
            "{leaf} is a leaf, yet imports {:?}",
            edges[leaf]
        );
    }

    let layers = layers();
    let layer_of: BTreeMap<&str, usize> = layers
        .iter()
        .enumerate()
        .flat_map(|(i, l)| l.iter().map(move |m| (m.as_str(), i)))
        .collect();
    let declared: BTreeSet<&str> = layer_of.keys().copied().collect();
    let found: BTreeSet<&str> = edges.keys().map(String::as_str).collect();
    assert_eq!(declared, found, "lib.rs declares every module, in a group");
    for leaf in LEAVES {
        assert_eq!(layer_of[leaf], 0, "{leaf} is in lib.rs's first group");
    }
    for (module, imports) in &edges {
        for import in imports {
            assert!(
                layer_of[import.as_str()] <= layer_of[module.as_str()],
                "{module} (group {}) imports {import} of a later group ({})",
                layer_of[module.as_str()] + 1,
                layer_of[import.as_str()] + 1
            );
        }
    }
}

#[test]
fn the_reader_finds_paths_in_use_lines_and_code_but_not_in_comments_or_strings() {
    let text = r#"
use crate::a::X;
use crate::{b::Y, c, d::{e, f}};
use signals_crate::z;
// use crate::comment;
/* crate::block */
fn f<'a>(x: &'a str) -> char {
    let _ = "crate::string";
    let _ = r"crate::raw";
    crate::g::h(x);
    '"'
}
const Q: char = '\'';
const P: &str = "crate::after";
fn i() { crate::j::k() }

#[cfg(test)]
mod tests {
    use crate::test_only;
}
"#;
    let names = crate_names(&code(text));
    assert_eq!(names, ["a", "b", "c", "d", "g", "j"]);
}

#[test]
fn a_ring_of_modules_is_found() {
    let edges: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(cycle(&edges).unwrap(), ["a", "b", "c", "a"]);
    let mut acyclic = edges.clone();
    acyclic.get_mut("c").unwrap().clear();
    assert_eq!(cycle(&acyclic), None);
}
