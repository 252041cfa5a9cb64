//! The module graph of every crate of the workspace, read from the sources:
//! no two modules of one build target may import each other, directly or
//! around a ring, and the site crate keeps its own layering on top.
//!
//! A target is a crate's library or binary (`src/lib.rs`, `src/main.rs`),
//! one of its integration test binaries (`tests/*.rs`, `tests/*/main.rs`)
//! or one of its benchmarks (`benches/*.rs`). Its modules are the files its
//! `mod` declarations reach (`#[path]` followed), each named by its path
//! from the root (`notify::message`). Test modules (`#[cfg(test)]` before a
//! `mod`, whether a file such as `tests.rs` or a block) are parts of the
//! module that declares them and are left out: a test may reach anywhere.
//! Inline modules are parts of their file.
//!
//! A module imports another when its code names a path into it: `crate::…`,
//! `super::…`, `self::…`, or a path that starts with the name of one of its
//! child modules, in `use` lines (groups included) or inline. A path counts
//! for the deepest module it reaches. The root (`lib.rs`, `main.rs`) is the
//! crate's front door, not a node: what it declares and re-exports is not
//! an import. A child naming its own ancestor (`super::Thing` of a
//! `mod.rs`) is not an import either: the folder is the child's own
//! namespace, as a file is the namespace of its inline modules. Comments
//! and the contents of string literals are blanked before reading.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use super::{blank_literals, root, test_modules};

/// The modules of the site crate that must import nothing of the crate.
const SITE_LEAVES: [&str; 4] = ["paths", "views", "head", "text"];

/// One module of a target: its path from the root and its code (comments
/// and literals blanked, test modules cut).
struct Module {
    path: Vec<String>,
    code: String,
}

/// A build target's modules, by their path joined with `::` (the root is
/// `""`).
struct Target {
    /// The root file, relative to the workspace (`crates/x/src/lib.rs`).
    name: String,
    modules: BTreeMap<String, Module>,
}

/// What a module imports of its target, by module path.
type Edges = BTreeMap<String, BTreeSet<String>>;

/// Every target of every crate of the workspace.
fn targets() -> Vec<Target> {
    let root = root();
    let mut crates: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .expect("list crates/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").exists())
        .collect();
    crates.sort();
    let mut roots = Vec::new();
    for krate in crates {
        for file in ["src/lib.rs", "src/main.rs"] {
            roots.push(krate.join(file));
        }
        for folder in ["tests", "benches"] {
            let Ok(entries) = fs::read_dir(krate.join(folder)) else {
                continue;
            };
            let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            entries.sort();
            for path in entries {
                if path.is_dir() {
                    roots.push(path.join("main.rs"));
                } else if path.extension().is_some_and(|x| x == "rs") {
                    roots.push(path);
                }
            }
        }
    }
    roots
        .into_iter()
        .filter(|p| p.exists())
        .map(|file| {
            let mut modules = BTreeMap::new();
            let dir = file.parent().expect("a folder").to_path_buf();
            load(&file, &dir, Vec::new(), &mut modules);
            let name = file
                .strip_prefix(&root)
                .unwrap_or(&file)
                .to_string_lossy()
                .replace('\\', "/");
            Target { name, modules }
        })
        .collect()
}

/// Reads the module at `file` (its children's files are under
/// `children_dir`) and, through its `mod` declarations, every module below.
fn load(file: &Path, children_dir: &Path, path: Vec<String>, out: &mut BTreeMap<String, Module>) {
    let text =
        fs::read_to_string(file).unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
    let blanked = blank_literals(&text);
    let tests = test_modules(&blanked);
    let mut code = String::with_capacity(blanked.len());
    for (n, line) in blanked.lines().enumerate() {
        if !tests.iter().any(|&(a, b)| (a..=b).contains(&(n + 1))) {
            code.push_str(line);
        }
        code.push('\n');
    }
    let here = file.parent().expect("a folder");
    for (name, attr_path) in declared_modules(&code, &text) {
        let child_file = match attr_path {
            Some(p) => here.join(p),
            None => {
                let flat = children_dir.join(format!("{name}.rs"));
                if flat.exists() {
                    flat
                } else {
                    children_dir.join(&name).join("mod.rs")
                }
            }
        };
        if !child_file.exists() {
            continue;
        }
        let grand_dir = if child_file.file_name().is_some_and(|n| n == "mod.rs") {
            child_file.parent().expect("a folder").to_path_buf()
        } else {
            children_dir.join(&name)
        };
        let mut child = path.clone();
        child.push(name);
        load(&child_file, &grand_dir, child, out);
    }
    out.insert(path.join("::"), Module { path, code });
}

/// The file modules `code` declares (`mod x;`, not under `#[cfg(test)]`),
/// with their `#[path]` when they have one, read from `text` at the same
/// place (blanking keeps every byte where it was).
fn declared_modules(code: &str, text: &str) -> Vec<(String, Option<String>)> {
    let mut found = Vec::new();
    let mut test_only = false;
    let mut attr_path = None;
    let mut offset = 0;
    for line in code.split_inclusive('\n') {
        let trimmed = line.trim();
        let start = offset + (line.len() - line.trim_start().len());
        offset += line.len();
        if trimmed.starts_with("#[") {
            if trimmed.starts_with("#[cfg(test)]") {
                test_only = true;
            }
            if trimmed.starts_with("#[path") {
                let original = &text[start..start + trimmed.len()];
                attr_path = original.split('"').nth(1).map(str::to_string);
            }
            continue;
        }
        let bare = trimmed
            .strip_prefix("pub(crate) ")
            .or_else(|| trimmed.strip_prefix("pub(super) "))
            .or_else(|| trimmed.strip_prefix("pub "))
            .unwrap_or(trimmed);
        if let Some(name) = bare.strip_prefix("mod ").and_then(|l| l.strip_suffix(';'))
            && !test_only
        {
            found.push((name.trim().to_string(), attr_path.clone()));
        }
        if !trimmed.is_empty() {
            test_only = false;
            attr_path = None;
        }
    }
    found
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// A path as written: its segments, and the name a `use … as` gives it.
struct Written {
    segments: Vec<String>,
    alias: Option<String>,
}

impl Written {
    /// The name the path is known by where it is imported.
    fn name(&self) -> Option<&str> {
        self.alias
            .as_deref()
            .or(self.segments.last().map(String::as_str))
    }
}

/// Every path of `code` that has at least two segments, groups expanded:
/// `use a::{b, c::d}` gives `a::b` and `a::c::d`; `x::y(z)` gives `x::y`.
fn paths(code: &str) -> Vec<Written> {
    let b = code.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = is_ident(b[i])
            && !b[i].is_ascii_digit()
            && (i == 0 || !(is_ident(b[i - 1]) || b[i - 1] == b'$' || b[i - 1] == b':'));
        if !starts {
            i += 1;
            continue;
        }
        let mut trees = Vec::new();
        let end = use_tree(b, i, Vec::new(), &mut trees);
        found.extend(trees.into_iter().filter(|p| p.segments.len() > 1));
        i = end.max(i + 1);
    }
    found
}

/// The paths each `pub use` (of any visibility) of `code` re-exports.
fn re_exports(code: &str) -> Vec<Written> {
    let b = code.as_bytes();
    let mut found = Vec::new();
    for (at, _) in code.match_indices("pub") {
        if at > 0 && is_ident(b[at - 1]) {
            continue;
        }
        let mut i = skip_space(b, at + 3);
        if b.get(i) == Some(&b'(') {
            i = code[i..].find(')').map_or(b.len(), |n| i + n + 1);
            i = skip_space(b, i);
        }
        if code[i..].starts_with("use ") {
            use_tree(b, i + 4, Vec::new(), &mut found);
        }
    }
    found
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

fn ident_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_ident(b[i]) {
        i += 1;
    }
    i
}

/// Reads the path (or use tree) at `i` after `prefix`, pushing each full
/// path to `out`; returns where it ends.
fn use_tree(b: &[u8], mut i: usize, mut prefix: Vec<String>, out: &mut Vec<Written>) -> usize {
    loop {
        i = skip_space(b, i);
        if b.get(i) == Some(&b'{') {
            i += 1;
            loop {
                i = skip_space(b, i);
                match b.get(i) {
                    None => return i,
                    Some(b'}') => return i + 1,
                    Some(b',') => i += 1,
                    Some(_) => {
                        let end = use_tree(b, i, prefix.clone(), out);
                        i = if end == i { i + 1 } else { end };
                    }
                }
            }
        }
        let start = i;
        i = ident_end(b, i);
        let segment = String::from_utf8_lossy(&b[start..i]).into_owned();
        let glob = b.get(start) == Some(&b'*');
        if glob {
            i += 1;
        } else if !segment.is_empty() && (segment != "self" || prefix.is_empty()) {
            prefix.push(segment);
        }
        let after = skip_space(b, i);
        if i > start && b[after..].starts_with(b"::") {
            i = after + 2;
            continue;
        }
        let mut alias = glob.then(|| "*".to_string());
        if b[after..].starts_with(b"as ") {
            let from = skip_space(b, after + 3);
            i = ident_end(b, from);
            alias = Some(String::from_utf8_lossy(&b[from..i]).into_owned());
        }
        out.push(Written {
            segments: prefix,
            alias,
        });
        return i;
    }
}

/// Where a path leads: the deepest known module along it, and the name it
/// goes on with there (`None` when it ends at the module).
struct Reach<'a> {
    module: &'a Module,
    name: Option<String>,
}

/// Where a path of `from` leads, or `None` for a path out of the target
/// (another crate, `std`, a type).
fn reached<'a>(
    from: &[String],
    path: &[String],
    known: &'a BTreeMap<String, Module>,
) -> Option<Reach<'a>> {
    let mut base: Vec<String> = match path[0].as_str() {
        "crate" => Vec::new(),
        "super" | "self" => from.to_vec(),
        _ => {
            let mut child = from.to_vec();
            child.push(path[0].clone());
            known.get(&child.join("::"))?;
            from.to_vec()
        }
    };
    let mut rest = path;
    if path[0] == "crate" || path[0] == "self" {
        rest = &path[1..];
    }
    while rest.first().is_some_and(|s| s == "super") {
        base.pop()?;
        rest = &rest[1..];
    }
    let mut module = known.get(&base.join("::"))?;
    let mut name = None;
    for segment in rest {
        base.push(segment.clone());
        match known.get(&base.join("::")) {
            Some(m) => module = m,
            None => {
                name = Some(segment.clone());
                break;
            }
        }
    }
    Some(Reach { module, name })
}

/// Each module's re-exports (`pub use`), by the name they give, as written
/// there.
type Exports = BTreeMap<String, BTreeMap<String, Vec<String>>>;

fn exports(target: &Target) -> Exports {
    let mut all = Exports::new();
    for (name, module) in &target.modules {
        let named = all.entry(name.clone()).or_default();
        for written in re_exports(&module.code) {
            if let Some(as_name) = written.name().filter(|n| *n != "*") {
                named.insert(as_name.to_string(), written.segments.clone());
            }
        }
    }
    all
}

/// The module a path of `from` imports from: where it leads, through the
/// re-exports of the module it stops at (`crate::HostConfig`, re-exported
/// by `lib.rs`, is `hosts`'s).
fn imported<'a>(
    from: &[String],
    path: &[String],
    known: &'a BTreeMap<String, Module>,
    exports: &Exports,
) -> Option<&'a Module> {
    let mut reach = reached(from, path, known)?;
    // A re-export of a re-export is followed too, a few steps at most.
    for _ in 0..4 {
        let Some(name) = &reach.name else { break };
        let key = reach.module.path.join("::");
        let Some(written) = exports.get(&key).and_then(|e| e.get(name)) else {
            break;
        };
        match reached(&reach.module.path, written, known) {
            Some(next) => reach = next,
            None => break,
        }
    }
    Some(reach.module)
}

/// What each module of `target` imports, and the paths that stop at the
/// root without naming a module (`crate::SiteError`), as `module: path`.
fn graph(target: &Target) -> (Edges, Vec<String>) {
    let exports = exports(target);
    let mut edges = Edges::new();
    let mut to_root = Vec::new();
    for (name, module) in &target.modules {
        if name.is_empty() {
            continue;
        }
        let imports = edges.entry(name.clone()).or_default();
        for path in paths(&module.code) {
            let stops_at_root = reached(&module.path, &path.segments, &target.modules)
                .is_some_and(|r| r.module.path.is_empty() && r.name.is_some());
            if stops_at_root {
                to_root.push(format!("{name}: {}", path.segments.join("::")));
            }
            let Some(to) = imported(&module.path, &path.segments, &target.modules, &exports) else {
                continue;
            };
            let own_ancestor = module.path.starts_with(&to.path);
            if !own_ancestor {
                imports.insert(to.path.join("::"));
            }
        }
    }
    (edges, to_root)
}

/// Modules that import each other: a ring through some of them, and all
/// the modules of its strongly connected component.
#[derive(Debug, PartialEq)]
struct Cycle {
    ring: Vec<String>,
    members: BTreeSet<String>,
}

/// The strongly connected components of `edges` with more than one module.
fn cycles(edges: &Edges) -> Vec<Cycle> {
    let nodes: Vec<&String> = edges.keys().collect();
    let reach = |from: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(n) = todo.pop() {
            for next in edges.get(&n).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&str, BTreeSet<String>> =
        nodes.iter().map(|n| (n.as_str(), reach(n))).collect();
    let mut done = BTreeSet::new();
    let mut found = Vec::new();
    for n in &nodes {
        if done.contains(n.as_str()) || !reaches[n.as_str()].contains(n.as_str()) {
            continue;
        }
        let component: BTreeSet<String> = reaches[n.as_str()]
            .iter()
            .filter(|m| {
                reaches
                    .get(m.as_str())
                    .is_some_and(|r| r.contains(n.as_str()))
            })
            .cloned()
            .collect();
        done.extend(component.iter().cloned());
        if component.len() > 1 {
            found.push(Cycle {
                ring: ring(n, &component, edges),
                members: component,
            });
        }
    }
    found
}

/// A shortest way from `start` back to itself inside `component`.
fn ring(start: &str, component: &BTreeSet<String>, edges: &Edges) -> Vec<String> {
    let mut before: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start.to_string()]);
    while let Some(n) = queue.pop_front() {
        for next in edges.get(&n).into_iter().flatten() {
            if !component.contains(next) {
                continue;
            }
            if next == start {
                let mut ring = vec![start.to_string(), n.clone()];
                let mut at = n;
                while let Some(prev) = before.get(&at) {
                    ring.push(prev.clone());
                    at = prev.clone();
                }
                ring.reverse();
                return ring;
            }
            if !before.contains_key(next) && next != start {
                before.insert(next.clone(), n.clone());
                queue.push_back(next.clone());
            }
        }
    }
    component.iter().cloned().collect()
}

#[test]
fn no_crate_has_an_import_cycle() {
    let targets = targets();
    assert!(targets.len() > 20, "{} targets", targets.len());
    let mut rings = BTreeSet::new();
    for target in &targets {
        let (edges, _) = graph(target);
        for cycle in cycles(&edges) {
            let members: Vec<&str> = cycle.members.iter().map(String::as_str).collect();
            rings.insert(format!(
                "{}: {} (all of {})",
                target.name,
                cycle.ring.join(" → "),
                members.join(", ")
            ));
        }
    }
    assert!(
        rings.is_empty(),
        "these modules import each other; move what they share to a leaf module or to \
         the module that owns it:\n{}",
        rings.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// The site's modules by their first segment, and what each imports.
fn site_edges() -> (Edges, Vec<String>) {
    let target = targets()
        .into_iter()
        .find(|t| t.name == "crates/signals-site/src/lib.rs")
        .expect("the site crate");
    let (edges, to_root) = graph(&target);
    let mut top = Edges::new();
    for (module, imports) in edges {
        let first = module.split("::").next().expect("a name").to_string();
        let entry = top.entry(first.clone()).or_default();
        for import in imports {
            let to = import.split("::").next().expect("a name").to_string();
            if to != first {
                entry.insert(to);
            }
        }
    }
    (top, to_root)
}

/// The groups of `mod` declarations of the site's `lib.rs`, in order
/// (blank lines part them), without the test-only ones.
fn site_layers() -> Vec<Vec<String>> {
    let lib = fs::read_to_string(root().join("crates/signals-site/src/lib.rs")).expect("lib.rs");
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

#[test]
fn the_sites_leaves_import_nothing_and_its_groups_import_only_earlier_ones() {
    let (edges, to_root) = site_edges();
    // A name of lib.rs hides the module that defines it.
    assert!(
        to_root.is_empty(),
        "import these from the module that defines them, not from lib.rs:\n{}",
        to_root.join("\n")
    );
    assert!(edges["pages"].contains("digest"), "{edges:?}");
    assert!(edges["filter"].contains("paths"), "{edges:?}");
    for leaf in SITE_LEAVES {
        assert!(
            edges[leaf].is_empty(),
            "{leaf} is a leaf, yet imports {:?}",
            edges[leaf]
        );
    }
    let layers = site_layers();
    let layer_of: BTreeMap<&str, usize> = layers
        .iter()
        .enumerate()
        .flat_map(|(i, l)| l.iter().map(move |m| (m.as_str(), i)))
        .collect();
    let declared: BTreeSet<&str> = layer_of.keys().copied().collect();
    let found: BTreeSet<&str> = edges.keys().map(String::as_str).collect();
    assert_eq!(declared, found, "lib.rs declares every module, in a group");
    for leaf in SITE_LEAVES {
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
fn the_reader_expands_groups_and_resolves_paths_to_the_deepest_module() {
    let code = blank_literals(
        "use crate::a::X;\nuse crate::{b::Y, c, d::{e, f::{self, G}}};\nuse std::fmt;\n\
         // use crate::comment;\nfn f() { let _ = \"crate::string\"; super::s::t(); kid::go(); }\n\
         fn g() { $crate::m::n(); x.y::<u8>(); }\n",
    );
    let found: Vec<String> = paths(&code)
        .into_iter()
        .map(|p| p.segments.join("::"))
        .collect();
    assert_eq!(
        found,
        [
            "crate::a::X",
            "crate::b::Y",
            "crate::c",
            "crate::d::e",
            "crate::d::f",
            "crate::d::f::G",
            "std::fmt",
            "super::s::t",
            "kid::go",
        ]
    );
    let module = |path: &str| {
        let path: Vec<String> = path
            .split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        (
            path.join("::"),
            Module {
                path,
                code: String::new(),
            },
        )
    };
    let known: BTreeMap<String, Module> = ["", "a", "d", "d::f", "p", "p::kid", "s"]
        .into_iter()
        .map(module)
        .collect();
    let from = ["p".to_string()];
    let to = |path: &str| {
        let path: Vec<String> = path.split("::").map(String::from).collect();
        imported(&from, &path, &known, &Exports::new()).map(|m| m.path.join("::"))
    };
    assert_eq!(to("crate::d::f::G").as_deref(), Some("d::f"));
    assert_eq!(to("crate::d::e").as_deref(), Some("d"));
    assert_eq!(to("super::s::t").as_deref(), Some("s"));
    assert_eq!(to("kid::go").as_deref(), Some("p::kid"));
    assert_eq!(to("self::kid").as_deref(), Some("p::kid"));
    assert_eq!(to("std::fmt"), None);
    assert_eq!(to("crate::Error").as_deref(), Some(""));
}

#[test]
fn a_ring_of_modules_is_found() {
    let edges: Edges = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a", "d"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    let found = cycles(&edges);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].ring, ["a", "b", "c", "a"]);
    let mut acyclic = edges.clone();
    acyclic.get_mut("c").unwrap().remove("a");
    assert!(cycles(&acyclic).is_empty());
}
