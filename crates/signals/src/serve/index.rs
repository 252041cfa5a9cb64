//! The per-repository index the signals list reads: one compact
//! row per item (id, kind, state, labels and author as dictionary codes,
//! update time, score, changed in the latest run), with the two orders the
//! API sorts by, built from the store's latest heads (bodies are never
//! read) and kept until the repository gets a new run.
//!
//! Importance depends on the dataset's instant, the repository's latest
//! run, so scores are computed here once per repository and run, not once
//! per request. A request filters the rows in the order asked for and then
//! reads only the 50 items of its page from the store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use jiff::Timestamp;
pub use signals_core::api::{Filter, KINDS};
use signals_core::dataset::FirstResponseDoc;
use signals_core::first_response::{Answer, Responses};
use signals_core::importance::{Score, Term, Weights, echoed, score};
use signals_core::{ItemDetail, ItemSnapshot};
use signals_store::{Backend, RepoSummary};

use crate::export::Conversation;
use crate::export::ids::Ids;

/// Every repository's index, by repository key.
pub struct Indexes {
    built: Mutex<HashMap<i64, Arc<RepoIndex>>>,
    /// What the configuration says of replies, as the export has it.
    pub conversation: Conversation,
}

/// How a repository's index answers for first responses: its group's
/// `ignore_users`, and the oldest instant whose comments its store read.
struct Answering<'a> {
    ignore_users: &'a [String],
    read_from: Option<Timestamp>,
}

/// One item of a repository's index (its id is at the same position in
/// [`RepoIndex::ids`]).
pub struct Row {
    /// `ItemKind` as its position in [`KINDS`].
    kind: u8,
    /// The API's state as its position in [`STATES`].
    state: u8,
    labels: Box<[u32]>,
    author: u32,
    updated_at: Timestamp,
    /// The importance at the repository's latest run.
    pub score: u32,
    /// Whether the latest run recorded a `changed` event for it.
    pub changed: bool,
    /// When it was created.
    created_at: Timestamp,
    /// Its first response, when known.
    pub first: Option<FirstResponseDoc>,
    /// What is known of its first response (`Answer::state`); `None` for
    /// releases and discussions.
    pub first_state: Option<&'static str>,
}

/// The API's states, as rows code them (a merged pull request is `merged`).
pub const STATES: [&str; 3] = ["open", "closed", "merged"];

/// A repository's index at one run.
pub struct RepoIndex {
    /// The number of runs, and the latest run's instant, it was built at.
    built_at: (u64, Timestamp),
    /// The rows, in signal id order.
    pub rows: Vec<Row>,
    /// The rows' signal ids, at the same positions.
    pub ids: Ids,
    /// The rows by importance (highest first), ties by id.
    pub by_importance: Ordered,
    /// The rows by update time (newest first), ties by id.
    pub by_updated: Ordered,
    labels: HashMap<Box<str>, u32>,
    authors: HashMap<Box<str>, u32>,
    /// The word index's documents' rows, as of the word index's
    /// `through` they were read at.
    documents: std::sync::RwLock<Documents>,
}

/// Each word index document's row (`u32::MAX`: none), by document number,
/// read at the word index's `through`.
struct Documents {
    through: i64,
    rows: Vec<DocRow>,
}

/// A word index document's row in the index ([`DocRow::NONE`]: none)
/// and that row's importance, side by side: a search reads them in
/// document order, without visiting the rows themselves (a word in every
/// one of 100,000 items visited 100,000 rows in no useful order, a cache
/// miss each).
#[derive(Debug, Clone, Copy)]
pub struct DocRow {
    /// The row's position in the index.
    pub row: u32,
    /// The row's importance.
    pub importance: u32,
}

impl DocRow {
    /// A document with no row (its item is not in the latest run's index).
    pub const NONE: DocRow = DocRow {
        row: u32::MAX,
        importance: 0,
    };
}

/// The rows in one of the orders the API sorts by.
pub struct Ordered {
    /// Row positions, in the order.
    pub positions: Vec<u32>,
    /// What a filter reads of each row, at the same positions: 16 bytes
    /// a row instead of a whole [`Row`], laid out in the order, so a
    /// filtered list, which looks at every row in the order asked, reads
    /// a few hundred kilobytes front to back at 30,000 items rather than
    /// jumping about them.
    keys: Vec<FilterKey>,
}

impl Ordered {
    /// `positions` with the keys of their rows.
    fn new(positions: Vec<u32>, rows: &[Row]) -> Ordered {
        let keys = positions
            .iter()
            .map(|&p| FilterKey::of(&rows[p as usize]))
            .collect();
        Ordered { positions, keys }
    }
}

/// The fields of a row a filter compares, packed.
#[derive(Clone, Copy)]
struct FilterKey {
    /// Label codes below [`OTHER_LABELS`] as bits; that bit itself when
    /// the row has a label of a higher code (then its [`Row::labels`] say
    /// which).
    labels: u64,
    author: u32,
    kind: u8,
    state: u8,
}

/// The bit of [`FilterKey::labels`] that stands for every higher code.
const OTHER_LABELS: u32 = 63;

impl FilterKey {
    fn of(row: &Row) -> FilterKey {
        let labels = row
            .labels
            .iter()
            .fold(0u64, |bits, &l| bits | 1 << l.min(OTHER_LABELS));
        FilterKey {
            labels,
            author: row.author,
            kind: row.kind,
            state: row.state,
        }
    }
}

/// A filter coded against one index: `None` when it cannot match anything
/// (a label or author no item has).
struct Coded {
    kind: Option<u8>,
    state: Option<u8>,
    label: Option<u32>,
    author: Option<u32>,
}

/// The state the API shows for an item.
pub fn state_of(item: &ItemSnapshot) -> &'static str {
    match item.detail {
        ItemDetail::PullRequest { merged: true, .. } => "merged",
        _ => item.state.as_str(),
    }
}

/// Adds the echo term of importance (`signals_core::importance::echoed`)
/// to the rows whose items' stories other repositories of the group tell,
/// as the export does: their lists read a page of 1,000 at a time.
fn with_echo(
    store: &dyn Backend,
    key: signals_store::RepoKey,
    ids: &Ids,
    rows: &mut [Row],
    sums: &[f64],
    weights: &Weights,
) -> signals_store::Result<()> {
    let all: Vec<String> = (0..rows.len()).map(|p| ids.get(p).to_string()).collect();
    for (page, chunk) in all.chunks(1000).enumerate() {
        let lists = store.related_of(key, chunk)?;
        for (i, id) in chunk.iter().enumerate() {
            let repos = crate::related::echo_repos(key, lists.get(id));
            if repos > 0 {
                let p = page * 1000 + i;
                let sum = Score::from_terms(vec![Term {
                    name: "sum".into(),
                    points: sums[p],
                    why: String::new(),
                }]);
                rows[p].score = echoed(sum, repos, weights).total;
            }
        }
    }
    Ok(())
}

fn position(list: &[&str], value: &str) -> Option<u8> {
    list.iter().position(|v| *v == value).map(|p| p as u8)
}

impl RepoIndex {
    /// Reads a repository's latest heads and scores them at `instant`.
    fn build(
        store: &dyn Backend,
        summary: &RepoSummary,
        instant: Timestamp,
        weights: &Weights,
        answering: Answering<'_>,
    ) -> signals_store::Result<RepoIndex> {
        let changed = store.changed_in_latest(summary.key)?;
        let responses = Responses::new(store.replies(summary.key)?, answering.ignore_users)
            .read_from(answering.read_from);
        let mut labels: HashMap<Box<str>, u32> = HashMap::new();
        let mut authors: HashMap<Box<str>, u32> = HashMap::new();
        let code = |dictionary: &mut HashMap<Box<str>, u32>, value: &str| {
            let next = dictionary.len() as u32;
            *dictionary.entry(value.into()).or_insert(next)
        };
        let mut rows = Vec::new();
        let mut ids = Ids::default();
        // Each row's unrounded score, for the echo term added below.
        let mut sums: Vec<f64> = Vec::new();
        store.each_latest_head(summary.key, &mut |id, item| {
            let mut item_labels: Vec<u32> =
                item.labels.iter().map(|l| code(&mut labels, l)).collect();
            item_labels.sort_unstable();
            item_labels.dedup();
            let answer = responses.answer(&id, &item);
            rows.push(Row {
                kind: position(&KINDS, item.kind().as_str()).unwrap_or(0),
                state: position(&STATES, state_of(&item)).unwrap_or(0),
                labels: item_labels.into(),
                author: code(&mut authors, &item.author),
                updated_at: item.updated_at,
                score: {
                    let scored = score(&item, instant, weights);
                    sums.push(scored.terms.iter().map(|t| t.points).sum());
                    scored.total
                },
                changed: changed.contains(&id),
                created_at: item.created_at,
                first: answer.clone().and_then(Answer::first).map(|f| f.doc()),
                first_state: answer.as_ref().map(Answer::state),
            });
            ids.push(&id);
            Ok(())
        })?;
        with_echo(store, summary.key, &ids, &mut rows, &sums, weights)?;
        let positions = || (0..rows.len() as u32).collect::<Vec<u32>>();
        // Rows are in id order, so a stable sort keeps ties by id.
        let mut by_importance = positions();
        by_importance.sort_by(|&a, &b| rows[b as usize].score.cmp(&rows[a as usize].score));
        let mut by_updated = positions();
        by_updated.sort_by(|&a, &b| {
            rows[b as usize]
                .updated_at
                .cmp(&rows[a as usize].updated_at)
        });
        let documents = std::sync::RwLock::new(document_rows(store, summary, &ids, &rows)?);
        Ok(RepoIndex {
            built_at: (summary.run_count, instant),
            by_importance: Ordered::new(by_importance, &rows),
            by_updated: Ordered::new(by_updated, &rows),
            rows,
            ids,
            labels,
            authors,
            documents,
        })
    }

    /// The rows of word index documents, by document number (`u32::MAX`:
    /// none), handed to `with`. The word index catches up after a run
    /// commits, so when its `through` (the search's own read of it) moved
    /// since they were read, they are read again first: a search pays for
    /// it, a plain list never does.
    pub fn with_document_rows<T>(
        &self,
        store: &dyn Backend,
        summary: &RepoSummary,
        through: i64,
        with: impl FnOnce(&[DocRow]) -> T,
    ) -> signals_store::Result<T> {
        let read_at = self.documents.read().map_or(i64::MIN, |d| d.through);
        if read_at != through {
            let documents = document_rows(store, summary, &self.ids, &self.rows)?;
            if let Ok(mut d) = self.documents.write() {
                *d = documents;
            }
        }
        Ok(match self.documents.read() {
            Ok(d) => with(&d.rows),
            Err(poisoned) => with(&poisoned.into_inner().rows),
        })
    }

    fn code(&self, filter: &Filter<'_>) -> Option<Coded> {
        let coded = |value: Option<&str>, find: &dyn Fn(&str) -> Option<u32>| match value {
            None => Some(None),
            Some(v) => find(v).map(Some),
        };
        Some(Coded {
            kind: coded(filter.kind, &|k| position(&KINDS, k).map(u32::from))?.map(|k| k as u8),
            state: coded(filter.state, &|s| position(&STATES, s).map(u32::from))?.map(|s| s as u8),
            label: coded(filter.label, &|l| self.labels.get(l).copied())?,
            author: coded(filter.author, &|a| self.authors.get(a).copied())?,
        })
    }

    /// The positions of the rows `filter` matches, in `order`.
    pub fn matching(&self, order: &Ordered, filter: &Filter<'_>) -> Vec<u32> {
        let Some(c) = self.code(filter) else {
            return Vec::new();
        };
        let everything = c.kind.is_none()
            && c.state.is_none()
            && c.label.is_none()
            && c.author.is_none()
            && filter.waiting_before.is_none();
        if everything {
            // No row to look at: a copy of the order.
            return order.positions.clone();
        }
        let wanted = Wanted::of(&c);
        // Every row is looked at, so the packed keys are compared without a
        // branch a row and the positions written without one: a filter
        // that keeps rows at random (an open bug among 30,000) would
        // mispredict every other row.
        let mut found = vec![0u32; order.positions.len()];
        let mut kept = 0;
        for (&p, key) in order.positions.iter().zip(&order.keys) {
            found[kept] = p;
            kept += usize::from(wanted.matches(key));
        }
        found.truncate(kept);
        // What the keys cannot tell, the rows say, for the few kept.
        if let Some(l) = c.label.filter(|&l| l >= OTHER_LABELS) {
            found.retain(|&p| self.rows[p as usize].labels.binary_search(&l).is_ok());
        }
        if let Some(cut) = filter.waiting_before {
            found.retain(|&p| {
                let row = &self.rows[p as usize];
                row.kind < 2
                    && row.state == 0
                    && row.first_state == Some("none")
                    && row.created_at < cut
            });
        }
        found
    }
}

/// A coded filter as the values a [`FilterKey`] is compared with; a field
/// the filter leaves out matches whatever the key holds.
struct Wanted {
    kind: u8,
    any_kind: bool,
    state: u8,
    any_state: bool,
    author: u32,
    any_author: bool,
    labels: u64,
}

impl Wanted {
    fn of(c: &Coded) -> Wanted {
        Wanted {
            kind: c.kind.unwrap_or(0),
            any_kind: c.kind.is_none(),
            state: c.state.unwrap_or(0),
            any_state: c.state.is_none(),
            author: c.author.unwrap_or(0),
            any_author: c.author.is_none(),
            // A high code's bit is shared: the rows say which it is.
            labels: c.label.map_or(u64::MAX, |l| 1u64 << l.min(OTHER_LABELS)),
        }
    }

    /// Whether `key` matches, with `&` rather than `&&`: no branch.
    fn matches(&self, key: &FilterKey) -> bool {
        (self.any_kind | (key.kind == self.kind))
            & (self.any_state | (key.state == self.state))
            & (self.any_author | (key.author == self.author))
            & ((self.labels == u64::MAX) | (key.labels & self.labels != 0))
    }
}

/// The word index's `through` and each of its documents' row in `ids`
/// (and that row's importance, from `rows`).
fn document_rows(
    store: &dyn signals_store::SearchIndex,
    summary: &RepoSummary,
    ids: &Ids,
    rows: &[Row],
) -> signals_store::Result<Documents> {
    let through = store.search_state(summary.key)?.through;
    let mut docs: Vec<DocRow> = Vec::new();
    for (id, doc) in store.search_docs(summary.key)? {
        if let Some(row) = ids.find(&id) {
            let doc = doc as usize;
            if docs.len() <= doc {
                docs.resize(doc + 1, DocRow::NONE);
            }
            docs[doc] = DocRow {
                row: row as u32,
                importance: rows.get(row).map_or(0, |r| r.score),
            };
        }
    }
    Ok(Documents {
        through,
        rows: docs,
    })
}

impl Indexes {
    /// The oldest instant whose comments the store read for `summary`'s
    /// repository (`first_response::read_from`).
    pub fn read_from(
        &self,
        store: &dyn signals_store::Reads,
        summary: &RepoSummary,
    ) -> signals_store::Result<Option<Timestamp>> {
        let first_run = store.reconcile_marks(summary.key)?.first_run;
        Ok(signals_core::first_response::read_from(
            first_run,
            self.conversation.comments_backfill_days,
        ))
    }

    /// No index yet, with the configuration's rules of conversation.
    pub fn new(conversation: Conversation) -> Indexes {
        Indexes {
            built: Mutex::default(),
            conversation,
        }
    }

    /// The repository's index at its latest run, built now if it has none
    /// yet or a new run came; `None` before its first successful run.
    pub fn get(
        &self,
        store: &dyn Backend,
        summary: &RepoSummary,
        weights: &Weights,
    ) -> signals_store::Result<Option<Arc<RepoIndex>>> {
        let Some(instant) = summary.last_collected_at else {
            return Ok(None);
        };
        let key = summary.key.raw();
        if let Some(index) = self.lookup(key)
            && index.built_at == (summary.run_count, instant)
        {
            return Ok(Some(index));
        }
        // Two requests may build the same index at once after a new run;
        // both are right, and the later one stays.
        let answering = Answering {
            ignore_users: self.conversation.ignored_in(&summary.group.id),
            read_from: self.read_from(store, summary)?,
        };
        let index = Arc::new(RepoIndex::build(
            store, summary, instant, weights, answering,
        )?);
        if let Ok(mut built) = self.built.lock() {
            built.insert(key, Arc::clone(&index));
        }
        Ok(Some(index))
    }

    fn lookup(&self, key: i64) -> Option<Arc<RepoIndex>> {
        self.built.lock().ok()?.get(&key).cloned()
    }
}
