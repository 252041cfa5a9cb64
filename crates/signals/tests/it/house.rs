//! The shape of the house: the rules that keep the workspace livable,
//! checked on the source tree itself so they cannot drift.
//!
//! - No source file over [`MAX_FILE_LINES`] lines and no function over
//!   [`MAX_FN_LINES`] lines, outside test code (`tests/` folders,
//!   `tests.rs` files, the store's `suite`, `#[cfg(test)]` modules).
//! - In the binary crate, nothing outside `src/cmd/` imports `crate::cmd`,
//!   and no `cmd` file imports another.
//! - The PostgreSQL store builds without SQLite.
//! - No crate's modules import each other, around a ring or directly
//!   (`house/modules.rs`, which also keeps the site crate's layers).
//! - ARCHITECTURE.md names only paths and types that exist, names every
//!   crate of the workspace, and stays short.
//! - No text under `crates/` or `docs/` cites a tracker number (the word
//!   "issue" or "issues", a space, then a number): the tracker is not
//!   public, so the number tells a reader nothing. Test names such as
//!   `issue_30_...` and a `.rs` file's string literals (test data) do not
//!   count.
//! - Parameters have names: no tuple parameter, no bare `bool` in a
//!   public signature, no long lists (`house/signatures.rs`).
//! - No page under `docs/` is over [`MAX_FILE_LINES`] lines: a long page
//!   is split by topic, with an index.
//!
//! The sizes are measured on code with comments and string literals blanked,
//! so a `{` inside a string or a comment never moves a function's end.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The longest a source file may be.
const MAX_FILE_LINES: usize = 800;
/// The longest a function may be, from its `fn` line to its closing brace.
const MAX_FN_LINES: usize = 120;
/// The longest ARCHITECTURE.md may be.
const MAX_ARCHITECTURE_LINES: usize = 250;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file below `dir`, skipping build output and hidden folders.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
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

/// The workspace's source files that are not test code, relative to the
/// root, with their text.
fn production_sources() -> Vec<(String, String)> {
    let root = root();
    let mut files = Vec::new();
    rust_files(&root.join("crates"), &mut files);
    files
        .into_iter()
        .filter_map(|path| {
            let rel = path
                .strip_prefix(&root)
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            let test_code = rel.contains("/tests/")
                || rel.ends_with("/tests.rs")
                || rel.contains("/suite/")
                || rel.ends_with("/suite.rs")
                || rel.contains("/fuzz/");
            if test_code {
                return None;
            }
            Some((rel, fs::read_to_string(&path).expect("read a source file")))
        })
        .collect()
}

/// `src` with comments, string, byte-string and char literals replaced by
/// spaces (newlines kept), so braces and `fn` can be counted.
fn blank_literals(src: &str) -> String {
    blanked(src, true)
}

/// `src` with string, byte-string and char literals replaced by spaces
/// (newlines kept) and its comments left as they are: the prose of a source
/// file, without the data its code holds.
fn blank_literals_keeping_comments(src: &str) -> String {
    blanked(src, false)
}

/// `src` with its literals, and its comments when `comments` is set,
/// replaced by spaces of the same byte length, newlines kept.
fn blanked(src: &str, comments: bool) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        let prev_ident = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if b[i..].starts_with(b"//") {
            let end = memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
            if comments {
                blank(&mut out, i, end);
            }
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            let mut j = i;
            while j < b.len() {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            if comments {
                blank(&mut out, i, j);
            }
            i = j;
        } else if !prev_ident && let Some(end) = raw_string_end(b, i) {
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if b[i] == b'\'' {
            // A char literal ('x', '\n', '\u{..}', '{'); otherwise a lifetime.
            let end = if b.get(i + 1) == Some(&b'\\') {
                memchr(b'\'', &b[i + 2..]).map(|n| i + 2 + n + 1)
            } else {
                let ch_len = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                (b.get(i + 1 + ch_len) == Some(&b'\'')).then_some(i + 2 + ch_len)
            };
            match end {
                Some(end) => {
                    blank(&mut out, i, end);
                    i = end;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&c| c == needle)
}

/// Where a raw (byte) string starting at `i` ends: `r"…"`, `r#"…"#`,
/// `br"…"`.
fn raw_string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    if b.get(j) == Some(&b'b') {
        j += 1;
    }
    if b.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = b[j..].iter().take_while(|&&c| c == b'#').count();
    j += hashes;
    if b.get(j) != Some(&b'"') {
        return None;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    let from = j + 1;
    (from..b.len())
        .find(|&k| b[k..].starts_with(&close))
        .map(|k| k + close.len())
}

/// The byte index of the brace closing the one at `open`.
fn closing_brace(code: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, &c) in code.iter().enumerate().skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    code.len()
}

fn line_of(code: &str, at: usize) -> usize {
    code[..at].bytes().filter(|&c| c == b'\n').count() + 1
}

/// The line ranges (inclusive) of `#[cfg(test)]` modules.
fn test_modules(code: &str) -> Vec<(usize, usize)> {
    let mut ranges = Vec::new();
    let mut from = 0;
    while let Some(n) = code[from..].find("#[cfg(test)]") {
        let at = from + n;
        let rest = &code[at..];
        let Some(brace) = rest.find(['{', ';']) else {
            break;
        };
        if rest[..brace].contains("mod ") && rest.as_bytes()[brace] == b'{' {
            let end = closing_brace(code.as_bytes(), at + brace);
            ranges.push((line_of(code, at), line_of(code, end)));
        }
        from = at + 1;
    }
    ranges
}

/// Every function with a body: (name, first line, length in lines).
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(n) = code[from..].find("fn ") {
        let at = from + n;
        from = at + 3;
        let word_start =
            at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        let name: String = code[at + 3..]
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !word_start || name.is_empty() {
            continue;
        }
        let Some(end_of_sig) = code[at..].find(['{', ';']).map(|k| at + k) else {
            continue;
        };
        if bytes[end_of_sig] == b';' {
            continue;
        }
        let close = closing_brace(bytes, end_of_sig);
        let first = line_of(code, at);
        found.push((name, first, line_of(code, close) - first + 1));
    }
    found
}

#[test]
fn issue_29_no_source_file_is_over_800_lines() {
    let long: Vec<String> = production_sources()
        .iter()
        .filter_map(|(path, text)| {
            let lines = text.lines().count();
            (lines > MAX_FILE_LINES).then(|| format!("{path}: {lines} lines"))
        })
        .collect();
    assert!(
        long.is_empty(),
        "split these files by concern (at most {MAX_FILE_LINES} lines):\n{}",
        long.join("\n")
    );
}

#[test]
fn issue_29_no_function_outside_tests_is_over_120_lines() {
    let mut long = Vec::new();
    for (path, text) in production_sources() {
        let code = blank_literals(&text);
        let tests = test_modules(&code);
        for (name, line, len) in functions(&code) {
            let in_tests = tests.iter().any(|&(a, b)| (a..=b).contains(&line));
            if len > MAX_FN_LINES && !in_tests {
                long.push(format!("{path}:{line} fn {name}: {len} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "make these functions named steps (at most {MAX_FN_LINES} lines):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_size_scanner_sees_through_strings_comments_and_test_modules() {
    let src = "fn a() {\n let s = \"}}\"; // }\n let c = '}'; let r = r#\"}\"#;\n}\n\
               /* fn b() { */\nfn c<'x>(v: &'x str) -> &'x str {\n v\n}\n\
               #[cfg(test)]\nmod tests {\n fn d() {\n }\n}\n";
    let code = blank_literals(src);
    let fns = functions(&code);
    let names: Vec<_> = fns
        .iter()
        .map(|(n, l, len)| (n.as_str(), *l, *len))
        .collect();
    assert_eq!(names, [("a", 1, 4), ("c", 6, 3), ("d", 11, 2)]);
    assert_eq!(test_modules(&code), [(9, 13)]);
}

/// The `crate::…` modules a file of the binary names, first segment only.
fn crate_modules(text: &str) -> Vec<String> {
    let code = blank_literals(text);
    let mut found = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        let module: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if module == "cmd" {
            let sub: String = rest["cmd::".len().min(rest.len())..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            found.push(format!("cmd::{sub}"));
        } else {
            found.push(module);
        }
    }
    // `use crate::{cmd, …}` groups.
    for (at, _) in code.match_indices("crate::{") {
        let group = &code[at..];
        let end = group.find('}').unwrap_or(group.len());
        if group[..end]
            .split([',', '{', ' ', '\n'])
            .any(|w| w == "cmd")
        {
            found.push("cmd::".into());
        }
    }
    found
}

#[test]
fn issue_29_nothing_outside_cmd_imports_cmd_and_no_cmd_file_imports_another() {
    let src = root().join("crates/signals/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    for path in files {
        let rel = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = fs::read_to_string(&path).unwrap();
        let in_cmd = rel.starts_with("cmd/");
        // The dispatcher (cmd/mod.rs) names each subcommand's module and is
        // named by main.rs; both are the only joints.
        if rel == "cmd/mod.rs" || rel == "main.rs" {
            continue;
        }
        let own = rel
            .trim_start_matches("cmd/")
            .split(['/', '.'])
            .next()
            .unwrap_or("")
            .to_string();
        for module in crate_modules(&text) {
            let Some(sub) = module.strip_prefix("cmd::") else {
                continue;
            };
            if !in_cmd {
                wrong.push(format!("{rel} imports crate::{module} (outside cmd/)"));
            } else if sub != own {
                wrong.push(format!("{rel} imports crate::{module} (another cmd file)"));
            }
        }
        if in_cmd && !rel.trim_start_matches("cmd/").contains('/') {
            let code = blank_literals(&text);
            let tests = test_modules(&code);
            let outside = code.match_indices("super::").any(|(at, _)| {
                !tests
                    .iter()
                    .any(|&(a, b)| (a..=b).contains(&line_of(&code, at)))
            });
            if outside {
                wrong.push(format!("{rel} reaches the cmd module through super::"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn issue_29_the_postgresql_store_builds_without_sqlite() {
    let out = Command::new(env!("CARGO"))
        .current_dir(root())
        .args([
            "tree",
            "--offline",
            "-p",
            "signals-store-pg",
            "-e",
            "normal,build",
        ])
        .args(["--prefix", "none", "--format", "{p}"])
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout);
    assert!(
        tree.contains("signals-store "),
        "cargo tree lists the store's traits:\n{tree}"
    );
    let sqlite: Vec<&str> = tree
        .lines()
        .filter(|l| l.to_lowercase().contains("sqlite"))
        .collect();
    assert!(
        sqlite.is_empty(),
        "signals-store-pg pulls in SQLite: {sqlite:?}"
    );
}

/// The crate a codemap line falls under: the latest `crates/<name>` heading.
fn heading_crate(line: &str) -> Option<String> {
    let line = line.trim_start_matches('#').trim();
    let start = line.find("`crates/")?;
    let name: String = line[start + 1..]
        .chars()
        .take_while(|&c| c != '`')
        .collect();
    Some(name.trim_end_matches('/').to_string())
}

/// The backticked words of a line that read as paths: with a `/`, or ending
/// in a source or document extension.
fn named_paths(line: &str) -> Vec<String> {
    line.split('`')
        .skip(1)
        .step_by(2)
        .filter(|w| !w.contains(' ') && !w.contains("::") && !w.starts_with('/'))
        .filter(|w| !w.contains('<') && !w.contains('*') && !w.contains('=') && !w.contains("://"))
        .filter(|w| {
            w.contains('/')
                || [".rs", ".md", ".sql", ".toml", ".html", ".js", ".css", ".py"]
                    .iter()
                    .any(|ext| w.ends_with(ext))
        })
        .map(|w| w.trim_end_matches(['.', ',', ':']).to_string())
        .collect()
}

#[test]
fn issue_29_architecture_names_only_paths_that_exist_and_every_crate() {
    let root = root();
    let text = fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let lines = text.lines().count();
    assert!(
        lines <= MAX_ARCHITECTURE_LINES,
        "ARCHITECTURE.md has {lines} lines; keep it a short map (at most {MAX_ARCHITECTURE_LINES})"
    );
    let mut current: Option<String> = None;
    let mut missing = Vec::new();
    let mut checked = 0;
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') {
            current = heading_crate(line);
            if let Some(krate) = &current {
                checked += 1;
                if !root.join(krate).is_dir() {
                    missing.push(format!("line {}: heading names {krate}", n + 1));
                }
            }
            continue;
        }
        for path in named_paths(line) {
            checked += 1;
            let candidates = [
                current.as_ref().map(|c| root.join(c).join(&path)),
                current
                    .as_ref()
                    .map(|c| root.join(c).join("src").join(&path)),
                Some(root.join(&path)),
            ];
            if !candidates.iter().flatten().any(|p| p.exists()) {
                let under = current.as_deref().unwrap_or("the root");
                missing.push(format!("line {}: `{path}` (under {under})", n + 1));
            }
        }
    }
    assert!(
        checked > 40,
        "ARCHITECTURE.md names only {checked} paths: is it a codemap?"
    );
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist:\n{}",
        missing.join("\n")
    );
    let mut crates: Vec<_> = fs::read_dir(root.join("crates"))
        .unwrap()
        .flatten()
        .collect();
    crates.sort_by_key(|e| e.file_name());
    let absent: Vec<String> = crates
        .iter()
        .filter(|e| e.path().join("Cargo.toml").exists())
        .map(|e| format!("crates/{}", e.file_name().to_string_lossy()))
        .filter(|c| {
            !text
                .lines()
                .any(|l| l.starts_with('#') && heading_crate(l).as_deref() == Some(c))
        })
        .collect();
    assert!(
        absent.is_empty(),
        "ARCHITECTURE.md has no codemap heading for: {absent:?}"
    );
}

/// The text files below `dir` a reader opens (sources, documents, SQL,
/// templates, manifests), skipping build output, hidden folders, recorded
/// test data and snapshots, whose words are a host's, not ours, and the
/// stores' migrations, which are never edited once merged, their comments
/// included.
fn text_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let skipped = ["target", "data", "snapshots", "node_modules", "migrations"];
        if name.starts_with('.') || skipped.contains(&name) {
            continue;
        }
        if path.is_dir() {
            text_files(&path, out);
        } else if [
            ".rs", ".md", ".sql", ".toml", ".html", ".js", ".css", ".py", ".sh",
        ]
        .iter()
        .any(|ext| name.ends_with(ext))
        {
            out.push(path);
        }
    }
}

/// Where `text` cites a tracker number: the word `issue` or `issues` (any
/// case, not inside a longer word), one space, then a digit. Returns the
/// byte offsets of the citations.
fn issue_citations(text: &str) -> Vec<usize> {
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = lower[from..].find("issue") {
        let start = from + at;
        from = start + "issue".len();
        let glued_before =
            start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
        let mut end = start + "issue".len();
        if bytes.get(end) == Some(&b's') {
            end += 1;
        }
        let spaced_number =
            bytes.get(end) == Some(&b' ') && bytes.get(end + 1).is_some_and(|b| b.is_ascii_digit());
        if !glued_before && spaced_number {
            found.push(start);
        }
    }
    found
}

#[test]
fn the_issue_scanner_finds_citations_and_leaves_names_alone() {
    // The inputs are built in parts, so this file cites no number itself.
    assert_eq!(issue_citations(concat!("see issue", " 26, then")), vec![4]);
    assert_eq!(issue_citations(concat!("Issues", " 12 and 13")), vec![0]);
    assert_eq!(
        issue_citations("fn issue_30_the_readme() {}"),
        Vec::<usize>::new()
    );
    assert_eq!(
        issue_citations("an issue #151 or issue: 5"),
        Vec::<usize>::new()
    );
    assert_eq!(issue_citations("reissue 3"), Vec::<usize>::new());
    let rust = concat!(
        "// see issue",
        " 26\nlet t = format!(\"issue {n}\"); let u = \"issue",
        " 7\";\n"
    );
    let prose = blank_literals_keeping_comments(rust);
    assert_eq!(issue_citations(&prose), vec![7]);
    assert_eq!(prose.len(), rust.len());
}

#[test]
fn no_text_under_crates_or_docs_cites_a_tracker_number() {
    let root = root();
    let mut files = Vec::new();
    text_files(&root.join("crates"), &mut files);
    text_files(&root.join("docs"), &mut files);
    assert!(
        files.len() > 100,
        "found only {} files: is the walk right?",
        files.len()
    );
    let mut offending = Vec::new();
    for path in &files {
        let Ok(text) = fs::read_to_string(path) else {
            continue;
        };
        // A `.rs` file's string literals are data (test titles, the
        // scanner's own inputs), not citations: only its code and comments
        // are read. Other files are read whole.
        let is_rust = path.extension().is_some_and(|e| e == "rs");
        let text = if is_rust {
            blank_literals_keeping_comments(&text)
        } else {
            text
        };
        let lines: Vec<usize> = issue_citations(&text)
            .into_iter()
            .map(|at| text[..at].lines().count().max(1))
            .collect();
        if !lines.is_empty() {
            let name = path
                .strip_prefix(&root)
                .unwrap_or(path)
                .display()
                .to_string();
            offending.push(format!("{name}: lines {lines:?}"));
        }
    }
    assert!(
        offending.is_empty(),
        "{} files cite a tracker number (say why instead; the tracker is not public):\n{}",
        offending.len(),
        offending.join("\n")
    );
}

#[test]
fn no_page_under_docs_is_over_800_lines() {
    let root = root();
    let mut files = Vec::new();
    text_files(&root.join("docs"), &mut files);
    let long: Vec<String> = files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .filter_map(|p| {
            let lines = fs::read_to_string(p).ok()?.lines().count();
            (lines > MAX_FILE_LINES).then(|| format!("{} ({lines} lines)", p.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these pages by topic: {long:?}");
}

/// The type names of a line of ARCHITECTURE.md: its backticked CamelCase
/// words, a path's first segment (`Config::parse`) and a generic's name
/// (`HostClient<H>`) included.
fn named_types(line: &str) -> Vec<String> {
    line.split('`')
        .skip(1)
        .step_by(2)
        .map(|w| {
            let w = w.split(['<', ':', '(']).next().unwrap_or(w);
            w.to_string()
        })
        .filter(|w| {
            w.starts_with(|c: char| c.is_ascii_uppercase())
                && w.chars().any(|c| c.is_ascii_lowercase())
                && w.chars().all(|c| c.is_ascii_alphanumeric())
        })
        .collect()
}

/// Every type, trait and alias the workspace's sources declare.
fn declared_types() -> std::collections::BTreeSet<String> {
    let mut files = Vec::new();
    rust_files(&root().join("crates"), &mut files);
    let mut names = std::collections::BTreeSet::new();
    for path in files {
        let code = blank_literals(&fs::read_to_string(&path).expect("read a source file"));
        let words: Vec<&str> = code
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        for pair in words.windows(2) {
            if ["struct", "enum", "trait", "type", "union"].contains(&pair[0]) {
                names.insert(pair[1].to_string());
            }
        }
    }
    names
}

#[test]
fn architecture_names_only_types_that_exist() {
    let text = fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let declared = declared_types();
    let mut named = 0;
    let mut missing = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for name in named_types(line) {
            named += 1;
            if !declared.contains(&name) {
                missing.push(format!("line {}: `{name}`", n + 1));
            }
        }
    }
    assert!(named > 30, "ARCHITECTURE.md names only {named} types");
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names types no source declares:\n{}",
        missing.join("\n")
    );
    assert_eq!(
        named_types("`Config::parse` and `HostClient<H>`, `API_URL`, `a.rs`"),
        ["Config", "HostClient"]
    );
}

mod modules;
mod signatures;
