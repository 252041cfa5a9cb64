//! Parameters with names: a caller reads what it passes.
//!
//! In production code (not `tests/`, `benches/`, `tests.rs`, the store's
//! `suite`, `#[cfg(test)]` modules, nor the `fuzz/` workspace):
//!
//! - no function takes a parameter of tuple type (`(store, key): (A, B)`):
//!   a tuple packs arguments a named struct or separate parameters would
//!   name;
//! - no `pub`-ish function, nor any method of a trait, takes a `bool`: at
//!   the call site `open(path, true)` says nothing, an enum or a named
//!   options field does;
//! - nothing allows `clippy::too_many_arguments`: a long list becomes a
//!   struct of named fields.
//!
//! Signatures are read from `fn name(` to the matching `)`, on code with
//! comments and literals blanked. Return types are hard to judge by
//! scanning and are left to review.

use super::{blank_literals, closing_brace, line_of, production_sources, test_modules};

/// One function signature: where its `fn` is, whether it is `pub`-ish or a
/// trait method, and its parameters as written.
struct Signature {
    line: usize,
    name: String,
    public: bool,
    params: Vec<String>,
}

/// The byte index of the parenthesis closing the one at `open`.
fn closing_paren(code: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, &c) in code.iter().enumerate().skip(open) {
        match c {
            b'(' => depth += 1,
            b')' => {
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

/// The byte index of the `(` opening a parameter list, looking from `at`
/// (just after the function's name) past its generics, if any.
fn params_open(code: &str, at: usize) -> Option<usize> {
    let bytes = code.as_bytes();
    let mut k = at;
    while bytes.get(k).is_some_and(u8::is_ascii_whitespace) {
        k += 1;
    }
    if bytes.get(k) == Some(&b'<') {
        let mut depth = 0i32;
        while k < bytes.len() {
            match bytes[k] {
                b'<' => depth += 1,
                b'>' if bytes[k - 1] != b'-' => {
                    depth -= 1;
                    if depth == 0 {
                        k += 1;
                        break;
                    }
                }
                _ => {}
            }
            k += 1;
        }
    }
    while bytes.get(k).is_some_and(u8::is_ascii_whitespace) {
        k += 1;
    }
    (bytes.get(k) == Some(&b'(')).then_some(k)
}

/// `list` split at its top-level commas: those outside `()`, `[]`, `{}`
/// and `<>` (the `>` of an arrow `->` closes nothing).
fn split_params(list: &str) -> Vec<String> {
    let bytes = list.as_bytes();
    let mut params = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (k, &c) in bytes.iter().enumerate() {
        match c {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b'>' if k > 0 && bytes[k - 1] == b'-' => {}
            b')' | b']' | b'}' | b'>' => depth -= 1,
            b',' if depth == 0 => {
                params.push(list[start..k].trim().to_owned());
                start = k + 1;
            }
            _ => {}
        }
    }
    params.push(list[start..].trim().to_owned());
    params.retain(|p| !p.is_empty());
    params
}

/// The byte ranges of the bodies of `trait` declarations.
fn trait_bodies(code: &str) -> Vec<(usize, usize)> {
    let bytes = code.as_bytes();
    let mut bodies = Vec::new();
    let mut from = 0;
    while let Some(n) = code[from..].find("trait ") {
        let at = from + n;
        from = at + 6;
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let Some(open) = code[at..].find(['{', ';']).map(|k| at + k) else {
            break;
        };
        if bytes[open] == b'{' {
            bodies.push((open, closing_brace(bytes, open)));
        }
    }
    bodies
}

/// Whether the item whose `fn` keyword is at `at` is declared `pub`,
/// `pub(crate)` or `pub(super)`: the words since the previous item or
/// attribute say so.
fn declared_pub(code: &str, at: usize) -> bool {
    let head = &code[..at];
    let since = head.rfind([';', '{', '}', ']']).map_or(0, |k| k + 1);
    head[since..]
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| word == "pub")
}

/// Every function signature of `code` (comments and literals blanked).
fn signatures(code: &str) -> Vec<Signature> {
    let bytes = code.as_bytes();
    let traits = trait_bodies(code);
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(n) = code[from..].find("fn ") {
        let at = from + n;
        from = at + 3;
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let rest = code[at + 3..].trim_start();
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        let Some(open) = params_open(
            code,
            at + 3 + (code[at + 3..].len() - rest.len()) + name.len(),
        ) else {
            continue;
        };
        let close = closing_paren(bytes, open);
        let in_trait = traits.iter().any(|&(a, b)| a < at && at < b);
        found.push(Signature {
            line: line_of(code, at),
            name,
            public: in_trait || declared_pub(code, at),
            params: split_params(&code[open + 1..close.min(code.len())]),
        });
    }
    found
}

/// The type of a parameter written `pattern: Type`, or `None` for a
/// receiver (`self`, `&mut self`).
fn param_type(param: &str) -> Option<&str> {
    let bytes = param.as_bytes();
    // The first `:` that is not half of a `::` path separator.
    let colon = (0..bytes.len()).find(|&k| {
        bytes[k] == b':' && bytes.get(k + 1) != Some(&b':') && (k == 0 || bytes[k - 1] != b':')
    })?;
    Some(param[colon + 1..].trim())
}

/// Whether `ty` is a tuple or a reference to one: `(A, B)`, `&mut (A, B)`.
/// A parenthesized single type, `&(impl Trait + ?Sized)`, is not.
fn is_tuple(ty: &str) -> bool {
    let bare = ty.trim_start_matches('&').trim_start();
    let bare = bare.strip_prefix("mut ").unwrap_or(bare).trim_start();
    let Some(inner) = bare.strip_prefix('(') else {
        return false;
    };
    let close = closing_paren(bare.as_bytes(), 0);
    split_params(&inner[..close.saturating_sub(1).min(inner.len())]).len() > 1
}

/// The files that `#[cfg(test)] mod name;` lines of `path` declare, as
/// path prefixes: `dir/name.rs` and `dir/name/`.
fn test_files_declared(path: &str, code: &str) -> Vec<String> {
    let (parent, file) = path.rsplit_once('/').unwrap_or(("", path));
    let dir = match file {
        "mod.rs" | "lib.rs" | "main.rs" => parent.to_owned(),
        _ => format!("{parent}/{}", file.trim_end_matches(".rs")),
    };
    let mut declared = Vec::new();
    let mut from = 0;
    while let Some(n) = code[from..].find("#[cfg(test)]") {
        let at = from + n + "#[cfg(test)]".len();
        from = at;
        let rest = code[at..].trim_start();
        let Some(decl) = rest.strip_prefix("mod ") else {
            continue;
        };
        let name: String = decl
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if decl.trim_start()[name.len()..]
            .trim_start()
            .starts_with(';')
        {
            declared.push(format!("{dir}/{name}.rs"));
            declared.push(format!("{dir}/{name}/"));
        }
    }
    declared
}

/// What is wrong with the signatures of one file: `line: complaint`.
fn violations(code: &str) -> Vec<(usize, String)> {
    let tests = test_modules(code);
    let in_tests = |line: usize| tests.iter().any(|&(a, b)| (a..=b).contains(&line));
    let mut found = Vec::new();
    for sig in signatures(code) {
        if in_tests(sig.line) {
            continue;
        }
        for param in &sig.params {
            let Some(ty) = param_type(param) else {
                continue;
            };
            if is_tuple(ty) {
                found.push((
                    sig.line,
                    format!("fn {}: tuple parameter `{param}`", sig.name),
                ));
            } else if sig.public && ty == "bool" {
                found.push((
                    sig.line,
                    format!("fn {}: bool parameter `{param}`", sig.name),
                ));
            }
        }
    }
    let mut from = 0;
    while let Some(n) = code[from..].find("too_many_arguments") {
        let at = from + n;
        from = at + 1;
        let line = line_of(code, at);
        if !in_tests(line) {
            found.push((line, "allows clippy::too_many_arguments".to_owned()));
        }
    }
    found.sort();
    found
}

#[test]
fn the_signature_scanner_finds_tuples_bools_and_long_lists() {
    let src = "pub fn open(path: &Path, create: bool) -> R {}\n\
               fn quiet(verbose: bool) {}\n\
               pub(crate) fn read((repo, id): (RepoKey, u64), f: impl Fn(u8, u8) -> bool) {}\n\
               trait Store {\n fn search(&self, positions: bool) -> Vec<(u8, u8)>;\n}\n\
               #[allow(clippy::too_many_arguments)]\n\
               pub async fn many<T: Into<(u8, u8)>>(pairs: Vec<(u8, u8)>, s: &mut (u8, u8)) {}\n\
               // pub fn said(yes: bool) {}\n\
               pub fn show(v: &(impl Serialize + ?Sized), f: &mut (dyn Write)) {}\n\
               #[cfg(test)]\nmod tests {\n pub fn helper(on: bool, p: (u8, u8)) {}\n}\n\
               #[cfg(test)]\nmod staged_tests;\n";
    let found = violations(&blank_literals(src));
    let lines: Vec<_> = found.iter().map(|(line, _)| *line).collect();
    assert_eq!(lines, [1, 3, 5, 7, 8], "{found:?}");
    assert!(found[0].1.contains("create: bool"), "{found:?}");
    assert!(found[1].1.contains("(repo, id)"), "{found:?}");
    assert!(found[4].1.contains("s: &mut (u8, u8)"), "{found:?}");
    assert_eq!(
        test_files_declared("crates/a/src/collect/mod.rs", &blank_literals(src)),
        [
            "crates/a/src/collect/staged_tests.rs",
            "crates/a/src/collect/staged_tests/"
        ]
    );
    assert_eq!(
        test_files_declared("crates/a/src/store.rs", "#[cfg(test)]\nmod suite;"),
        ["crates/a/src/store/suite.rs", "crates/a/src/store/suite/"]
    );
}

#[test]
fn parameters_are_named_not_packed_in_tuples_or_passed_as_bare_bools() {
    let sources: Vec<(String, String)> = production_sources()
        .into_iter()
        .map(|(path, text)| (path, blank_literals(&text)))
        .collect();
    let test_files: Vec<String> = sources
        .iter()
        .flat_map(|(path, code)| test_files_declared(path, code))
        .collect();
    let mut found = Vec::new();
    for (path, code) in &sources {
        let test_code = path.contains("/benches/")
            || test_files
                .iter()
                .any(|file| path == file || (file.ends_with('/') && path.starts_with(file)));
        if test_code {
            continue;
        }
        for (line, what) in violations(code) {
            found.push(format!("{path}:{line} {what}"));
        }
    }
    assert!(
        found.is_empty(),
        "name these parameters: a struct of named fields for a tuple or a long \
         list, an enum or an options field for a bool:\n{}",
        found.join("\n")
    );
}
