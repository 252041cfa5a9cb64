//! Reading the file past every key serde refuses, and saying each refusal
//! in the file's own words: which table a key is missing from and where to
//! put it, which keys a table takes, and value types as a user reads them
//! ("a whole number", "text") rather than as Rust names them (`i64`).
//!
//! A refused part is blanked and the file read again ([`deserialize_all`]).
//! A refused table header is blanked with its whole table, sub-tables
//! included: blanking the header alone would hand its keys to the table
//! above it, which would then refuse them with its own list of keys.

use std::ops::Range;

use serde::de::DeserializeOwned;

use super::SpanError;

/// The tables of the file, as a user writes their headers.
const TABLES: &[&str] = &[
    "[host]",
    "[[hosts]]",
    "[[groups]]",
    "[[groups.repos]]",
    "[importance]",
    "[[notify]]",
];

/// What is left of a file read past the keys serde refuses.
pub(super) struct ReadPast<T> {
    /// The raw file, when what is left reads.
    pub(super) raw: Option<T>,
    /// Each refused part's problem.
    pub(super) problems: Vec<SpanError>,
}

/// A file that is not TOML at all: where it breaks, when TOML says, and
/// why.
pub(super) struct NotToml {
    pub(super) span: Option<Range<usize>>,
    pub(super) message: String,
}

/// The file read past every key serde refuses: each refused part is
/// blanked with spaces ([`blanked_region`]), which keeps every offset and
/// line of the rest, and the file is read again. A problem inside a part
/// already blanked is a consequence of the blanking and is not reported
/// again. Returns the raw file when what is left reads, and the problems;
/// `Err` only when the file is not TOML at all.
pub(super) fn deserialize_all<T: DeserializeOwned>(text: &str) -> Result<ReadPast<T>, NotToml> {
    if let Err(e) = toml::from_str::<toml::Table>(text) {
        return Err(NotToml {
            span: e.span(),
            message: refused(&e, text),
        });
    }
    let original = text;
    let mut text = text.to_string();
    let mut problems: Vec<SpanError> = Vec::new();
    let mut blanked: Vec<Range<usize>> = Vec::new();
    // Each pass blanks at least one line, so the passes end.
    for _ in 0..=text.lines().count() {
        let e = match toml::from_str::<T>(&text) {
            Ok(raw) => {
                return Ok(ReadPast {
                    raw: Some(raw),
                    problems,
                });
            }
            Err(e) => e,
        };
        let Some(span) = e.span() else {
            problems.push((0..0, refused(&e, original)));
            break;
        };
        let (region, extent) = blanked_region(&text, &span);
        if !blanked
            .iter()
            .any(|b| b.start < extent.end && extent.start < b.end)
        {
            problems.push((span.clone(), refused(&e, original)));
        }
        if blanked
            .iter()
            .any(|b| b.start <= region.start && region.end <= b.end)
        {
            break; // blanked already, and still refused: stop here
        }
        let spaces: String = text[region.clone()]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        // Multi-byte characters become one space each: pad to keep offsets.
        let spaces = format!("{spaces:<width$}", width = region.len());
        text.replace_range(region.clone(), &spaces);
        blanked.push(region);
        if toml::from_str::<toml::Table>(&text).is_err() {
            break; // the blanking broke the file: report what was found
        }
    }
    Ok(ReadPast {
        raw: None,
        problems,
    })
}

/// The part of `text` to blank for a refusal at `span`: the whole lines of
/// the span, and when they start at a table header, the whole table with
/// its sub-tables, but for the comments after its last key (they belong
/// to what follows). Also the extent of the refusal: with those comments
/// and blank lines, up to the next header of another table, for telling
/// a consequence of an earlier blanking inside that table.
fn blanked_region(text: &str, span: &Range<usize>) -> (Range<usize>, Range<usize>) {
    let start = text[..span.start.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let mut end = text[span.end.min(text.len())..]
        .find('\n')
        .map_or(text.len(), |i| span.end + i);
    let first_line = text[start..].lines().next().unwrap_or_default();
    let Some(name) = header_name(first_line) else {
        return (start..end, start..end);
    };
    let mut at = start + first_line.len();
    for line in text[at..].split_inclusive('\n') {
        if let Some(other) = header_name(line)
            && !other.starts_with(&format!("{name}."))
        {
            break;
        }
        at += line.len();
        if !line.trim().is_empty() && !line.trim_start().starts_with('#') {
            end = end.max(at - usize::from(line.ends_with('\n')));
        }
    }
    (start..end, start..at.max(end))
}

/// The dotted name of a table header line (`[[groups]]`: `groups`), or
/// `None` for any other line.
fn header_name(line: &str) -> Option<String> {
    let line = line.split('#').next().unwrap_or_default().trim();
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let inner = inner
        .strip_prefix('[')
        .and_then(|i| i.strip_suffix(']'))
        .unwrap_or(inner);
    let name: Vec<String> = inner
        .split('.')
        .map(|p| p.trim().trim_matches('"').to_string())
        .collect();
    Some(name.join("."))
}

/// The header, as written, of the table that holds byte `offset` of
/// `text` (`[[groups]]`), or `None` at the top level.
fn table_at(text: &str, offset: usize) -> Option<String> {
    let before = &text[..offset.min(text.len())];
    // The line of the offset counts: a refusal may point at the header.
    let line_end = text[before.len()..]
        .find('\n')
        .map_or(text.len(), |i| before.len() + i);
    text[..line_end]
        .lines()
        .rev()
        .find(|l| header_name(l).is_some())
        .map(|l| l.split('#').next().unwrap_or_default().trim().to_string())
}

/// The message of a key serde refused, in the file's words. `text` is the
/// file as written (for the table and key the refusal is in).
pub(super) fn refused(e: &toml::de::Error, text: &str) -> String {
    let message = e.message().trim();
    let span = e.span().unwrap_or(0..0);
    let table = table_at(text, span.start);
    let line = line_at(text, span.start);
    if let Some(key) = between(message, "missing field `", "`") {
        return missing(key, table.as_deref());
    }
    let header = header_name(line);
    if let Some(key) = between(message, "unknown field `", "`") {
        let expected = message.split_once(", expected ").map(|(_, e)| e);
        return match &header {
            Some(name) => unknown_table(name, line),
            None => unknown(key, expected, table.as_deref()),
        };
    }
    if let Some(rest) = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))
        && let Some((found, expected)) = rest.split_once(", expected ")
    {
        return match &header {
            Some(name) => table_form(name, line, expected),
            None => wrong_type(line, found, expected),
        };
    }
    format!("{message} (fix this key, or run `signals init` for a commented example)")
}

/// The line of `text` that holds byte `offset`.
fn line_at(text: &str, offset: usize) -> &str {
    let offset = offset.min(text.len());
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    text[start..].lines().next().unwrap_or_default()
}

/// The text between `open` and the next `close` in `s`.
fn between<'a>(s: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let rest = &s[s.find(open)? + open.len()..];
    Some(&rest[..rest.find(close)?])
}

/// A key a table needs and lacks, with a line that would do.
fn missing(key: &str, table: Option<&str>) -> String {
    let (line, note) = match (table.map(table_kind), key) {
        (Some("groups"), "id") => (
            "id = \"runtimes\"".to_string(),
            " (a slug: lowercase letters, digits and dashes; it names the group's folder on the site)",
        ),
        (Some("groups"), "name") => (
            "name = \"Runtimes\"".to_string(),
            " (the group's title on the site)",
        ),
        (_, "repo") => (
            "repo = \"owner/name\"".to_string(),
            " (or the repository's URL)",
        ),
        _ => (format!("{key} = ..."), ""),
    };
    match table {
        Some(t) => format!(
            "this {t} table has no `{key}`, which every {t} needs: add a line `{line}`{note} right below its {t} line"
        ),
        None => format!("the file has no `{key}`: add a line `{line}`{note} at its top"),
    }
}

/// `[[groups]]` → `groups`, `[[groups.repos]]` → `groups.repos`.
fn table_kind(header: &str) -> &str {
    header.trim_matches(|c| c == '[' || c == ']').trim()
}

/// A table header whose table the file does not have (`[[group]]`), with
/// the tables there are and the nearest.
fn unknown_table(name: &str, line: &str) -> String {
    let kinds: Vec<&str> = TABLES.iter().map(|t| table_kind(t)).collect();
    let near = nearest(name, &kinds)
        .and_then(|n| TABLES.iter().find(|t| table_kind(t) == n))
        .map(|t| format!(" Did you mean {t}?"))
        .unwrap_or_default();
    format!(
        "there is no table {}: the tables are {}.{near} (`signals init` writes a commented example)",
        line.split('#').next().unwrap_or_default().trim(),
        TABLES.join(", ")
    )
}

/// A table written with one pair of brackets where it takes two, or the
/// other way round (`[hosts]` for `[[hosts]]`).
fn table_form(name: &str, line: &str, expected: &str) -> String {
    let written = line.split('#').next().unwrap_or_default().trim();
    let right = if expected.contains("sequence") {
        format!("[[{name}]]")
    } else {
        format!("[{name}]")
    };
    let what = if right.starts_with("[[") {
        "a list of tables, one per entry"
    } else {
        "a single table"
    };
    format!("{written} must be written {right}: it is {what}")
}

/// A key serde does not know, with the keys its table takes and the
/// nearest of them.
fn unknown(key: &str, expected: Option<&str>, table: Option<&str>) -> String {
    let known: Vec<&str> = expected
        .map(|e| {
            e.split(", ")
                .map(|k| k.trim().trim_start_matches("one of ").trim_matches('`'))
                .collect()
        })
        .unwrap_or_default();
    let near = nearest(key, &known);
    let place = match table {
        Some(t) => format!("in {t}"),
        None => "at the top of the file".to_string(),
    };
    let near = near
        .map(|n| format!(" Did you mean `{n}`?"))
        .unwrap_or_default();
    let list = known
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "unknown key `{key}` {place}: its keys are {list}.{near} (`signals init` writes a commented example)"
    )
}

/// The name in `known` nearest to `key`: one typo away, or the same but
/// for a plural `s`, or one being the start of the other.
fn nearest<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    let key = key.to_ascii_lowercase();
    known
        .iter()
        .map(|k| (distance(&key, &k.to_ascii_lowercase()), *k))
        .filter(|(d, k)| *d <= 2 || (k.len() >= 4 && (key.starts_with(*k) || k.starts_with(&key))))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance, for names of a few letters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// A value of the wrong type, named as a user reads types; `line` is the
/// file's line it is on.
fn wrong_type(line: &str, found: &str, expected: &str) -> String {
    let wanted = type_name(expected);
    let (found_name, quoted) = match found.split_once(' ') {
        Some(("string", v)) => ("text", Some(v.trim_matches('"'))),
        Some(("integer", _)) => ("a whole number", None),
        Some(("floating", _)) => ("a number with a fraction", None),
        Some(("boolean", _)) => ("true or false", None),
        _ if found == "sequence" => ("a list", None),
        _ if found == "map" => ("a table", None),
        _ => (found, None),
    };
    let key = line
        .split_once('=')
        .map(|(k, _)| k.trim())
        .filter(|k| !k.is_empty() && !k.starts_with('['));
    let what = match key {
        Some(_) => format!("`{}`", line.trim()),
        None => "this value".to_string(),
    };
    let fix = match (key, quoted) {
        (Some(k), Some(v))
            if (wanted.starts_with("a whole number") && v.trim().parse::<i64>().is_ok())
                || (wanted == "true or false" && v.trim().parse::<bool>().is_ok()) =>
        {
            format!(": write it without quotes, `{k} = {}`", v.trim())
        }
        _ => String::new(),
    };
    if found_name == wanted || (found.starts_with("integer") && wanted.starts_with("a whole")) {
        // The type is right and the value is not (a negative count).
        let value = found
            .split_once(' ')
            .map_or(found, |(_, v)| v.trim_matches('`'));
        return format!("{what}: expected {wanted}, not {value}");
    }
    format!("{what} is {found_name}, where {wanted} is expected{fix}")
}

/// A Rust or serde type name as a user reads it.
fn type_name(expected: &str) -> String {
    match expected.trim() {
        "i64" | "i32" | "i16" | "i8" => "a whole number".to_string(),
        "u64" | "u32" | "u16" | "u8" | "usize" => "a whole number (0 or more)".to_string(),
        "f64" | "f32" => "a number".to_string(),
        "a string" | "a borrowed string" => "text (in quotes)".to_string(),
        "a boolean" => "true or false".to_string(),
        "a sequence" => "a list, such as [\"a\", \"b\"]".to_string(),
        e if e.starts_with("struct ") || e == "a map" => "a table".to_string(),
        e => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_header_is_blanked_with_its_whole_table() {
        let text = "a = 1\n[[group]]\nid = \"g\"\n# note\n[[group.repos]]\nrepo = \"o/n\"\n\n[[notify]]\nname = \"n\"\n";
        let header = text.find("[[group]]").unwrap();
        let (region, extent) = blanked_region(text, &(header..header + 9));
        assert_eq!(
            &text[region],
            "[[group]]\nid = \"g\"\n# note\n[[group.repos]]\nrepo = \"o/n\""
        );
        assert!(text[extent].ends_with("repo = \"o/n\"\n\n"));
        // A key line alone is its own line only.
        let key = text.find("id =").unwrap();
        assert_eq!(&text[blanked_region(text, &(key..key + 2)).0], "id = \"g\"");
    }

    #[test]
    fn headers_and_the_table_of_an_offset() {
        assert_eq!(
            header_name("[[ groups.repos ]] # x").as_deref(),
            Some("groups.repos")
        );
        assert_eq!(header_name("[host]").as_deref(), Some("host"));
        assert_eq!(header_name("repos = [\"a/b\"]"), None);
        let text = "store = \"s\"\n[host]\nkind = \"x\"\n";
        assert_eq!(table_at(text, 2), None);
        assert_eq!(
            table_at(text, text.find("kind").unwrap()).as_deref(),
            Some("[host]")
        );
        assert_eq!(
            table_at(text, text.find("[host]").unwrap()).as_deref(),
            Some("[host]")
        );
    }

    #[test]
    fn types_are_named_as_a_user_reads_them() {
        let m = wrong_type("window_hours = \"48\"", "string \"48\"", "i64");
        assert_eq!(
            m,
            "`window_hours = \"48\"` is text, where a whole number is expected: write it without quotes, `window_hours = 48`"
        );
        let m = wrong_type("name = 3", "integer `3`", "a string");
        assert_eq!(
            m,
            "`name = 3` is a whole number, where text (in quotes) is expected"
        );
        assert_eq!(nearest("group", &["groups", "store"]), Some("groups"));
        assert_eq!(nearest("colour", &["id", "name", "repos"]), None);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    fn problems(text: &str) -> Vec<String> {
        let e = crate::Config::parse(text, std::path::Path::new("bad.toml")).unwrap_err();
        std::iter::once(format!("{}: {}", e.line.unwrap_or(0), e.message))
            .chain(e.more.iter().map(|(l, m)| format!("{l}: {m}")))
            .collect()
    }

    #[test]
    fn a_group_without_id_is_told_once_with_where_to_put_it() {
        // After the top-level keys, and after a [host] table: the group's
        // other keys are never offered another table's keys.
        for (text, line) in [
            (
                "store = \"s.db\"\n\n[[groups]]\nname = \"G\"\nrepos = [\"a/b\"]\n",
                3,
            ),
            (
                "[host]\nkind = \"github\"\n\n[[groups]]\nname = \"G\"\nrepos = [\"a/b\"]\n",
                4,
            ),
        ] {
            let p = problems(text);
            assert_eq!(p.len(), 1, "{p:#?}");
            assert_eq!(
                p[0],
                format!(
                    "{line}: this [[groups]] table has no `id`, which every [[groups]] needs: add a line \
                     `id = \"runtimes\"` (a slug: lowercase letters, digits and dashes; it names the \
                     group's folder on the site) right below its [[groups]] line"
                )
            );
        }
        // A group whose name has the wrong type lacks nothing.
        let p = problems("[[groups]]\nid = \"g\"\nname = 5\n");
        assert_eq!(
            p,
            ["3: `name = 5` is a whole number, where text (in quotes) is expected"]
        );
        let p = problems("[[groups]]\nid = \"g\"\nname = \"G\"\n[[groups.repos]]\nid = \"x\"\n");
        assert_eq!(p.len(), 1, "{p:#?}");
        assert!(
            p[0].starts_with("4: this [[groups.repos]] table has no `repo`")
                && p[0].contains("`repo = \"owner/name\"`"),
            "{p:#?}"
        );
    }

    #[test]
    fn a_misspelt_table_is_named_with_the_tables_there_are() {
        for (text, line) in [
            (
                "[[group]]\nid = \"g\"\nname = \"G\"\nrepos = [\"a/b\"]\n",
                1,
            ),
            (
                "[host]\nkind = \"github\"\n[[group]]\nid = \"g\"\nname = \"G\"\n[[group.repos]]\nrepo = \"a/b\"\n",
                3,
            ),
        ] {
            let p = problems(text);
            assert_eq!(p.len(), 1, "{p:#?}");
            assert!(
                p[0].starts_with(&format!("{line}: there is no table [[group]]: the tables are [host], [[hosts]], [[groups]]"))
                    && p[0].contains("Did you mean [[groups]]?"),
                "{p:#?}"
            );
        }
    }

    #[test]
    fn a_table_with_the_wrong_brackets_says_which_to_write() {
        let p = problems("[hosts]\nname = \"a\"\n");
        assert_eq!(
            p,
            ["1: [hosts] must be written [[hosts]]: it is a list of tables, one per entry"]
        );
        let p = problems("[[host]]\nkind = \"gitlab\"\n");
        assert_eq!(
            p,
            ["1: [[host]] must be written [host]: it is a single table"]
        );
        let p = problems("[[groups]]\nid = \"g\"\nname = \"G\"\n[[groups.repo]]\nrepo = \"o/n\"\n");
        assert_eq!(p.len(), 1, "{p:#?}");
        assert!(p[0].contains("Did you mean [[groups.repos]]?"), "{p:#?}");
    }

    #[test]
    fn an_unknown_key_lists_the_keys_of_its_own_table() {
        let p = problems(
            "[host]\nkind = \"github\"\n\n[[groups]]\nid = \"g\"\nname = \"G\"\nrepoz = [\"o/n\"]\n",
        );
        assert_eq!(p.len(), 1, "{p:#?}");
        assert!(
            p[0].starts_with(
                "7: unknown key `repoz` in [[groups]]: its keys are `id`, `name`, `host`, `repos`"
            ) && p[0].contains("Did you mean `repos`?")
                && !p[0].contains("api_url"),
            "{p:#?}"
        );
        let p = problems("[host]\napi_url = \"https://api.github.com\"\ntokn_env = \"T\"\n");
        assert!(
            p[0].starts_with("3: unknown key `tokn_env` in [host]: its keys are `name`, `kind`")
                && p[0].contains("Did you mean `token_env`?"),
            "{p:#?}"
        );
        let p = problems("windowhours = 48\n");
        assert!(
            p[0].starts_with(
                "1: unknown key `windowhours` at the top of the file: its keys are `store`"
            ) && p[0].contains("Did you mean `window_hours`?"),
            "{p:#?}"
        );
    }

    #[test]
    fn a_value_of_the_wrong_type_is_named_in_words() {
        assert_eq!(
            problems("window_hours = \"48\"\n"),
            [
                "1: `window_hours = \"48\"` is text, where a whole number is expected: write it without quotes, `window_hours = 48`"
            ]
        );
        assert_eq!(
            problems("[host]\ntimeout_secs = -3\n"),
            ["2: `timeout_secs = -3`: expected a whole number (0 or more), not -3"]
        );
        assert_eq!(
            problems("[[groups]]\nid = \"g\"\nname = \"G\"\nrepos = \"o/n\"\n"),
            ["4: `repos = \"o/n\"` is text, where a list, such as [\"a\", \"b\"] is expected"]
        );
        for text in ["window_hours = \"48\"\n", "[host]\ntimeout_secs = -3\n"] {
            let p = problems(text);
            assert!(!p[0].contains("i64") && !p[0].contains("u64"), "{p:#?}");
        }
    }
}
