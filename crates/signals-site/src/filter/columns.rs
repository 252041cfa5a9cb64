//! The repository's filter index, columnar (format 3): what the
//! first filter action downloads must stay small at 100,000 signals.
//!
//! `signals.json` holds one column per field (every signal in page order),
//! with labels, authors, id heads and URL prefixes coded by dictionaries;
//! what the script can derive (the page link and anchor, the number, the
//! history link, the URL of an item whose URL ends with its key) is not
//! written, except for the odd signal whose value differs from the
//! derivation (`odd`). The excerpts, the bulk of a signal, sit in text parts
//! of [`TEXT_PART`] signals (`signals-text-<n>.json`): the script reads the
//! first with the core (so the best signals show their excerpt), and the
//! others only when a text query needs them.
//!
//! [`IndexWriter`] is fed one signal at a time, in page order, and hands
//! back each text part as soon as it is full; what it keeps in memory is
//! the dictionaries' lookup tables, the three one-character columns, the
//! last 64 KiB of each column's JSON text (the rest waits in an unnamed
//! temporary file) and one part, never the repository nor `signals.json`,
//! which [`IndexWriter::write_core`] streams out column by column. The types
//! below describe the format for [`read_index`], the reference reader: it
//! decodes what `filter.js` decodes, for tests.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::{Read, Seek, SeekFrom, Write};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::{FILTER_INDEX_VERSION, FilterEntry, Shown, entry, fragment, push_json, to_json};
use crate::error::SiteError;
use crate::paths::{FILTER_INDEX_FILE, PAGE_SIZE, page_file};

/// Signals per text part: about 300 KB of excerpts at most.
pub const TEXT_PART: usize = 1000;

/// A file of the index: its name in the repository's folder, and its text.
pub type IndexFile = (String, String);

/// `signals.json` of a repository, as [`IndexWriter`] writes it.
#[derive(Debug, Deserialize)]
struct Core {
    version: u32,
    /// Signals in the repository.
    total: usize,
    /// Signals per page of the paged HTML, for the page links.
    page: usize,
    /// Signals per text part.
    part: usize,
    /// The text parts, in page order, beside this file.
    texts: Vec<String>,
    /// Dictionaries: an id up to and including its last `:`
    /// (`github:o/n:issue:`), labels, authors, and URL prefixes (an item's
    /// URL without its key at the end).
    heads: Vec<String>,
    labels: Vec<String>,
    authors: Vec<String>,
    urls: Vec<String>,
    columns: Columns,
    /// Values the script would derive wrongly, by position.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    odd: BTreeMap<usize, Odd>,
}

#[derive(Debug, Deserialize)]
struct Columns {
    /// Index into `heads`; the id is the head, then `key`.
    head: Vec<u32>,
    /// The id after its last `:` (a number, or a release's tag).
    key: Vec<String>,
    /// One character a signal: `i` issue, `p` pull request, `r` release,
    /// `o` another kind.
    kind: String,
    /// One character a signal: `o` open, `c` closed, `-` none (releases).
    state: String,
    /// One digit a signal: 1 new in the latest run, + 2 changed in it.
    flags: String,
    /// Indexes into `labels`.
    labels: Vec<Vec<u32>>,
    /// Index into `authors`.
    author: Vec<u32>,
    importance: Vec<u32>,
    /// Seconds since 1970 when that gives back the text exactly, else the
    /// text (`YYYY-MM-DDThh:mm:ssZ`).
    updated: Vec<Updated>,
    title: Vec<String>,
    /// `null`: no http(s) URL; a number: `urls[n]` then the key; else the
    /// URL.
    url: Vec<Option<Url>>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
enum Updated {
    Seconds(i64),
    Text(String),
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
enum Url {
    Prefix(u32),
    Whole(String),
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Odd {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    history: Option<String>,
}

/// A text part: the excerpts of signals `from..from + texts.len()`.
#[derive(Debug, Serialize, Deserialize)]
struct TextPart {
    version: u32,
    from: usize,
    texts: Vec<String>,
}

/// Bytes of a column kept in memory before they go to its temporary file.
const SPILL_AT: usize = 64 * 1024;

#[cfg(not(test))]
fn spill_at() -> usize {
    SPILL_AT
}

/// Tests set the limit per thread, to compare a writer that spills every
/// item with one that never does.
#[cfg(test)]
fn spill_at() -> usize {
    tests::SPILL_AT_HERE.with(|limit| limit.get())
}

/// A JSON array being written: its items so far, comma-separated and
/// escaped as [`to_json`] escapes. Beyond [`SPILL_AT`] bytes the text goes
/// to an unnamed temporary file (removed by the system when it is closed),
/// so a column holds a few kilobytes in memory whatever the repository's
/// size, and the export's peak memory does not grow with it.
#[derive(Debug, Default)]
struct Array {
    json: String,
    len: usize,
    spill: Option<std::fs::File>,
}

impl Array {
    /// Where the next item goes.
    fn next(&mut self, what: &str) -> Result<&mut String, SiteError> {
        if self.json.len() >= spill_at() {
            self.spill(what)?;
        }
        if self.len > 0 {
            self.json.push(',');
        }
        self.len += 1;
        Ok(&mut self.json)
    }

    /// Moves the text in memory to the temporary file.
    fn spill(&mut self, what: &str) -> Result<(), SiteError> {
        let fail = |source| SiteError::Spill {
            repository: what.to_string(),
            dir: std::env::temp_dir(),
            source,
        };
        let file = match &mut self.spill {
            Some(file) => file,
            None => self.spill.insert(tempfile::tempfile().map_err(fail)?),
        };
        file.write_all(self.json.as_bytes()).map_err(fail)?;
        self.json.clear();
        Ok(())
    }

    fn value(&mut self, v: &(impl Serialize + ?Sized), what: &str) -> Result<(), SiteError> {
        push_json(self.next(what)?, v, what)
    }

    fn number(&mut self, n: impl std::fmt::Display, what: &str) -> Result<(), SiteError> {
        let _ = write!(self.next(what)?, "{n}");
        Ok(())
    }

    /// Writes the items, the temporary file's first, to `out`.
    fn write_to(self, out: &mut CoreOut<'_>) -> Result<(), SiteError> {
        if let Some(mut file) = self.spill {
            let fail = |source| SiteError::Spill {
                repository: out.what.to_string(),
                dir: std::env::temp_dir(),
                source,
            };
            file.seek(SeekFrom::Start(0)).map_err(fail)?;
            let mut buf = vec![0; SPILL_AT];
            loop {
                let n = file.read(&mut buf).map_err(fail)?;
                if n == 0 {
                    break;
                }
                out.bytes(&buf[..n])?;
            }
        }
        out.bytes(self.json.as_bytes())
    }
}

/// Where `signals.json` is written: errors name it.
struct CoreOut<'a> {
    out: &'a mut dyn Write,
    what: &'a str,
}

impl CoreOut<'_> {
    fn bytes(&mut self, bytes: &[u8]) -> Result<(), SiteError> {
        self.out.write_all(bytes).map_err(|source| SiteError::Io {
            action: "write",
            path: std::path::Path::new(self.what).join(FILTER_INDEX_FILE),
            source,
        })
    }

    fn text(&mut self, text: &str) -> Result<(), SiteError> {
        self.bytes(text.as_bytes())
    }
}

/// A dictionary: each distinct value once, coded by its first position.
#[derive(Debug, Default)]
struct Dict {
    codes: HashMap<String, u32>,
    values: Array,
}

impl Dict {
    fn code(&mut self, value: &str, what: &str) -> Result<u32, SiteError> {
        if let Some(&c) = self.codes.get(value) {
            return Ok(c);
        }
        let c = self.codes.len() as u32;
        self.values.value(value, what)?;
        self.codes.insert(value.to_string(), c);
        Ok(c)
    }
}

/// Writes a repository's filter index from its signals, fed in page order.
#[derive(Debug, Default)]
pub struct IndexWriter {
    /// `<group>/<repo>`, for errors.
    what: String,
    total: usize,
    /// The names of the text parts written so far.
    parts: Array,
    heads: Dict,
    labels: Dict,
    authors: Dict,
    urls: Dict,
    head: Array,
    key: Array,
    kind: String,
    state: String,
    flags: String,
    label_sets: Array,
    author: Array,
    importance: Array,
    updated: Array,
    title: Array,
    url: Array,
    /// `"<position>":{...}` members.
    odd: Array,
    /// Excerpts of the part being filled.
    texts: Vec<String>,
}

impl IndexWriter {
    /// A writer for the repository `what` (`<group>/<repo>`, named in
    /// errors).
    pub fn new(what: &str) -> IndexWriter {
        IndexWriter {
            what: what.to_string(),
            texts: Vec::with_capacity(TEXT_PART),
            ..IndexWriter::default()
        }
    }

    /// Adds the next signal in page order. Returns a text part when this
    /// signal completed one, for the caller to write beside
    /// `signals.json`.
    pub fn push(&mut self, shown: Shown<'_>) -> Result<Option<IndexFile>, SiteError> {
        self.push_entry(entry(shown, self.total, ""))
    }

    /// [`IndexWriter::push`] of an entry already made by `filter::entry`
    /// (position: the number of signals pushed before; prefix: `""`); its
    /// `href` and `repo` are not written, the script derives them.
    pub fn push_entry(&mut self, e: FilterEntry) -> Result<Option<IndexFile>, SiteError> {
        let what = self.what.as_str();
        let position = self.total;
        let split = e.id.rfind(':').map_or(0, |i| i + 1);
        let (head, key) = e.id.split_at(split);
        let code = self.heads.code(head, what)?;
        self.head.number(code, what)?;
        self.key.value(key, what)?;
        let kind = match e.kind.as_str() {
            "issue" => 'i',
            "pull_request" => 'p',
            "release" => 'r',
            _ => 'o',
        };
        self.kind.push(kind);
        self.state.push(match e.state.as_str() {
            "open" => 'o',
            "closed" => 'c',
            _ => '-',
        });
        self.flags
            .push(char::from(b'0' + u8::from(e.new) + 2 * u8::from(e.changed)));
        let mut set = String::from("[");
        for (i, l) in e.labels.iter().enumerate() {
            if i > 0 {
                set.push(',');
            }
            let _ = write!(set, "{}", self.labels.code(l, what)?);
        }
        set.push(']');
        self.label_sets.next(what)?.push_str(&set);
        let code = self.authors.code(&e.author, what)?;
        self.author.number(code, what)?;
        self.importance.number(e.importance, what)?;
        match updated(&e.updated) {
            Updated::Seconds(s) => self.updated.number(s, what)?,
            Updated::Text(t) => self.updated.value(&t, what)?,
        }
        self.title.value(&e.title, what)?;
        match e.url {
            None => self.url.next(what)?.push_str("null"),
            Some(u) => match u.strip_suffix(key) {
                Some(prefix) if !key.is_empty() && !prefix.is_empty() => {
                    let code = self.urls.code(prefix, what)?;
                    self.url.number(code, what)?;
                }
                _ => self.url.value(&u, what)?,
            },
        }
        let odd = Odd {
            number: (e.number != number(kind, key)).then_some(e.number),
            history: (e.history != history(head, key)).then_some(e.history),
        };
        if odd.number.is_some() || odd.history.is_some() {
            let out = self.odd.next(what)?;
            let _ = write!(out, "\"{position}\":");
            push_json(out, &odd, what)?;
        }
        self.total += 1;
        self.texts.push(e.excerpt);
        if self.texts.len() == TEXT_PART {
            return self.part().map(Some);
        }
        Ok(None)
    }

    /// The part being filled, as a file; the core names it.
    fn part(&mut self) -> Result<IndexFile, SiteError> {
        let name = format!("signals-text-{}.json", self.parts.len + 1);
        let texts = std::mem::take(&mut self.texts);
        let part = TextPart {
            version: FILTER_INDEX_VERSION,
            from: self.total - texts.len(),
            texts,
        };
        let json = to_json(&part, &self.what)?;
        self.parts.value(&name, &self.what)?;
        Ok((name, json))
    }

    /// The last text part (when signals are left over) and `signals.json`,
    /// in memory: [`IndexWriter::last_part`] then
    /// [`IndexWriter::write_core`].
    pub fn finish(mut self) -> Result<Vec<IndexFile>, SiteError> {
        let mut files = Vec::with_capacity(2);
        files.extend(self.last_part()?);
        let mut core = Vec::new();
        self.write_core(&mut core)?;
        let core = String::from_utf8(core).expect("the index is written from strings");
        files.push((FILTER_INDEX_FILE.to_string(), core));
        Ok(files)
    }

    /// The last text part, when signals are left over since the last full
    /// one; to be written before `signals.json`, which names it.
    pub fn last_part(&mut self) -> Result<Option<IndexFile>, SiteError> {
        if self.texts.is_empty() {
            return Ok(None);
        }
        self.part().map(Some)
    }

    /// Writes `signals.json` to `out` (after [`IndexWriter::last_part`]),
    /// a column at a time from its temporary file: what is held is never
    /// the whole file.
    pub fn write_core(self, out: &mut dyn Write) -> Result<(), SiteError> {
        let mut out = CoreOut {
            out,
            what: &self.what,
        };
        out.text(&format!(
            "{{\"version\":{FILTER_INDEX_VERSION},\"total\":{},\"page\":{PAGE_SIZE},\"part\":{TEXT_PART}",
            self.total
        ))?;
        let arrays = [
            ("texts", self.parts),
            ("heads", self.heads.values),
            ("labels", self.labels.values),
            ("authors", self.authors.values),
            ("urls", self.urls.values),
        ];
        for (name, a) in arrays {
            out.text(&format!(",\"{name}\":["))?;
            a.write_to(&mut out)?;
            out.text("]")?;
        }
        out.text(&format!(
            ",\"columns\":{{\"kind\":\"{}\",\"state\":\"{}\",\"flags\":\"{}\"",
            self.kind, self.state, self.flags
        ))?;
        let columns = [
            ("head", self.head),
            ("key", self.key),
            ("labels", self.label_sets),
            ("author", self.author),
            ("importance", self.importance),
            ("updated", self.updated),
            ("title", self.title),
            ("url", self.url),
        ];
        for (name, a) in columns {
            out.text(&format!(",\"{name}\":["))?;
            a.write_to(&mut out)?;
            out.text("]")?;
        }
        out.text("},\"odd\":{")?;
        self.odd.write_to(&mut out)?;
        out.text("}}\n")
    }
}

/// An update time as seconds when the script gives the very text back
/// from them (`YYYY-MM-DDThh:mm:ssZ` from 1970 on), else as the text.
fn updated(text: &str) -> Updated {
    match text.parse::<Timestamp>() {
        Ok(t) if t.as_second() >= 0 && seconds_text(t.as_second()).as_deref() == Some(text) => {
            Updated::Seconds(t.as_second())
        }
        _ => Updated::Text(text.to_string()),
    }
}

fn seconds_text(seconds: i64) -> Option<String> {
    Some(
        Timestamp::from_second(seconds)
            .ok()?
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string(),
    )
}

/// The number the script derives: a release's tag, else `#<key>`.
fn number(kind: char, key: &str) -> String {
    if kind == 'r' {
        key.to_string()
    } else {
        format!("#{key}")
    }
}

/// The history link the script derives: `history/<kind>-<key>.html`.
fn history(head: &str, key: &str) -> String {
    let head = head.strip_suffix(':').unwrap_or(head);
    let kind = head.rsplit(':').next().unwrap_or("");
    format!("history/{kind}-{key}.html")
}

/// The entries of a repository's index from `signals.json` and its text
/// parts in order (`None` for a part not read: its excerpts are empty),
/// decoded as `filter.js` decodes them; `None` if `core` is not an index of
/// this format.
pub fn read_index(core: &str, texts: &[Option<&str>]) -> Option<Vec<FilterEntry>> {
    let core: Core = serde_json::from_str(core).ok()?;
    let c = &core.columns;
    let n = core.total;
    let kinds: Vec<char> = c.kind.chars().collect();
    let states: Vec<char> = c.state.chars().collect();
    let flags: Vec<char> = c.flags.chars().collect();
    if core.version != FILTER_INDEX_VERSION
        || [
            c.head.len(),
            c.key.len(),
            kinds.len(),
            states.len(),
            flags.len(),
            c.labels.len(),
            c.author.len(),
            c.importance.len(),
            c.updated.len(),
            c.title.len(),
            c.url.len(),
        ]
        .iter()
        .any(|&l| l != n)
        || core.page == 0
        || core.part == 0
        || core.texts.len() != n.div_ceil(core.part)
    {
        return None;
    }
    let mut excerpts = vec![String::new(); n];
    for text in texts.iter().flatten() {
        let part: TextPart = serde_json::from_str(text).ok()?;
        for (i, t) in part.texts.into_iter().enumerate() {
            *excerpts.get_mut(part.from + i)? = t;
        }
    }
    let mut out = Vec::with_capacity(n);
    for (i, excerpt) in excerpts.into_iter().enumerate() {
        let head = core.heads.get(c.head[i] as usize)?;
        let key = &c.key[i];
        let id = format!("{head}{key}");
        let odd = core.odd.get(&i);
        let flag = flags[i].to_digit(10)?;
        out.push(FilterEntry {
            kind: match kinds[i] {
                'i' => "issue",
                'p' => "pull_request",
                'r' => "release",
                _ => "other",
            }
            .to_string(),
            number: odd
                .and_then(|o| o.number.clone())
                .unwrap_or_else(|| number(kinds[i], key)),
            state: match states[i] {
                'o' => "open",
                'c' => "closed",
                _ => "",
            }
            .to_string(),
            labels: c.labels[i]
                .iter()
                .map(|&l| core.labels.get(l as usize).cloned())
                .collect::<Option<_>>()?,
            author: core.authors.get(c.author[i] as usize)?.clone(),
            title: c.title[i].clone(),
            excerpt,
            importance: c.importance[i],
            updated: match &c.updated[i] {
                Updated::Seconds(s) => seconds_text(*s)?,
                Updated::Text(t) => t.clone(),
            },
            url: match &c.url[i] {
                None => None,
                Some(Url::Prefix(p)) => Some(format!("{}{key}", core.urls.get(*p as usize)?)),
                Some(Url::Whole(u)) => Some(u.clone()),
            },
            href: format!("{}#{}", page_file(i / core.page + 1), fragment(&id)),
            history: odd
                .and_then(|o| o.history.clone())
                .unwrap_or_else(|| history(head, key)),
            new: flag & 1 == 1,
            changed: flag & 2 == 2,
            repo: None,
            id,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        pub(super) static SPILL_AT_HERE: std::cell::Cell<usize> = const { std::cell::Cell::new(SPILL_AT) };
    }

    fn sample(i: usize) -> FilterEntry {
        let release = i % 7 == 3;
        let (kind, key) = if release {
            ("release", format!("v1.{i} \"<b>\"é"))
        } else if i.is_multiple_of(3) {
            ("pull_request", i.to_string())
        } else {
            ("issue", i.to_string())
        };
        let id = format!("github:o/n:{kind}:{key}");
        FilterEntry {
            number: if release {
                key.clone()
            } else {
                format!("#{key}")
            },
            kind: kind.into(),
            state: match (release, i % 5) {
                (true, _) => "",
                (_, 0) => "closed",
                _ => "open",
            }
            .into(),
            labels: match i % 4 {
                0 => vec!["bug".into()],
                1 => vec!["area:api".into(), "</script>".into()],
                _ => vec![],
            },
            author: format!("user{}", i % 9),
            title: format!("Title {i} & more\u{2028}"),
            excerpt: format!("Text of {i} <img src=x>"),
            importance: 20_000u32.saturating_sub(i as u32),
            updated: match i % 3 {
                0 => format!("2026-11-{:02}T10:00:{:02}Z", 1 + i % 28, i % 60),
                1 => "1969-12-31T23:59:59Z".into(),
                _ => "2026-11-20T10:00:00.5Z".into(),
            },
            url: match i % 4 {
                0 => None,
                1 => Some(format!("https://example.com/o/n/x/{key}")),
                _ => Some("https://example.com/other".into()),
            },
            href: format!("{}#{}", page_file(i / PAGE_SIZE + 1), fragment(&id)),
            history: format!("history/{}", crate::paths::history_file(&id)),
            new: i.is_multiple_of(2),
            changed: i % 3 == 1,
            repo: None,
            id,
        }
    }

    fn write(n: usize) -> Vec<IndexFile> {
        let mut w = IndexWriter::new("g/n");
        let mut files = Vec::new();
        for i in 0..n {
            files.extend(w.push_entry(sample(i)).unwrap());
        }
        files.extend(w.finish().unwrap());
        files
    }

    #[test]
    fn the_reader_gets_back_every_entry() {
        let n = 2 * TEXT_PART + 7;
        let files = write(n);
        let names: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(
            names,
            [
                "signals-text-1.json",
                "signals-text-2.json",
                "signals-text-3.json",
                "signals.json"
            ]
        );
        let texts: Vec<Option<&str>> = files[..3].iter().map(|f| Some(f.1.as_str())).collect();
        let back = read_index(&files[3].1, &texts).unwrap();
        let want: Vec<FilterEntry> = (0..n).map(sample).collect();
        assert_eq!(back.len(), want.len());
        for (b, w) in back.iter().zip(&want) {
            assert_eq!(b, w);
        }
        // Without the text parts, everything but the excerpts.
        let bare = read_index(&files[3].1, &[]).unwrap();
        assert!(bare.iter().all(|e| e.excerpt.is_empty()));
        assert_eq!(bare[5].title, want[5].title);
    }

    #[test]
    fn columns_past_the_memory_limit_go_to_a_temporary_file_and_come_back_whole() {
        let n = 10 * TEXT_PART + 3;
        let mut w = IndexWriter::new("g/n");
        let mut files = Vec::new();
        for i in 0..n {
            files.extend(w.push_entry(sample(i)).unwrap());
        }
        // The long columns went out; what stays in memory is one chunk.
        for column in [&w.key, &w.title, &w.updated] {
            assert!(column.spill.is_some());
            assert!(column.json.len() < SPILL_AT + 200, "{}", column.json.len());
        }
        files.extend(w.last_part().unwrap());
        let mut core = Vec::new();
        w.write_core(&mut core).unwrap();
        let core = String::from_utf8(core).unwrap();
        let texts: Vec<Option<&str>> = files.iter().map(|f| Some(f.1.as_str())).collect();
        assert_eq!(texts.len(), 11);
        let back = read_index(&core, &texts).unwrap();
        let want: Vec<FilterEntry> = (0..n).map(sample).collect();
        assert_eq!(back.len(), want.len());
        for (b, w) in back.iter().zip(&want) {
            assert_eq!(b, w);
        }
    }

    /// The core, all in memory (`spill_at` bytes a column at most).
    fn core_with_limit(n: usize, spill_at: usize) -> Vec<u8> {
        SPILL_AT_HERE.with(|limit| limit.set(spill_at));
        let mut w = IndexWriter::new("g/n");
        for i in 0..n {
            w.push_entry(sample(i)).unwrap();
        }
        w.last_part().unwrap();
        let mut core = Vec::new();
        w.write_core(&mut core).unwrap();
        SPILL_AT_HERE.with(|limit| limit.set(SPILL_AT));
        core
    }

    #[test]
    fn spilling_never_changes_a_byte() {
        let n = TEXT_PART + 11;
        let kept = core_with_limit(n, usize::MAX);
        assert_eq!(core_with_limit(n, 0), kept);
        assert_eq!(core_with_limit(n, 100), kept);
        assert_eq!(core_with_limit(n, SPILL_AT), kept);
    }

    #[test]
    fn every_file_is_inert_outside_a_json_parser() {
        for (name, json) in write(TEXT_PART + 1) {
            for bad in ['<', '>', '&', '\u{2028}', '\u{2029}'] {
                assert!(!json.contains(bad), "{bad:?} in {name}");
            }
        }
    }

    #[test]
    fn derivable_values_are_not_written() {
        let files = write(10);
        let core: serde_json::Value = serde_json::from_str(&files[1].1).unwrap();
        // Only the releases with tags that need escaping in file names
        // have their history link written; numbers all follow the rule.
        let odd = core["odd"].as_object().unwrap();
        assert_eq!(odd.keys().collect::<Vec<_>>(), ["3"]);
        assert!(odd["3"].get("number").is_none());
        assert_eq!(core["columns"]["kind"], "piiriipiip");
        assert_eq!(core["heads"].as_array().unwrap().len(), 3);
        assert_eq!(core["columns"]["updated"][0], 1_793_527_200);
        assert_eq!(core["columns"]["updated"][1], "1969-12-31T23:59:59Z");
        assert!(!files[1].1.contains("page-"));
    }

    #[test]
    fn an_empty_repository_has_an_empty_index() {
        let files = write(0);
        assert_eq!(files.len(), 1);
        assert_eq!(read_index(&files[0].1, &[]).unwrap(), vec![]);
        assert!(read_index("{\"version\":2,\"signals\":[]}", &[]).is_none());
    }
}
