//! One repository read from the store a batch at a time, for `signals
//! export`: its memory is a few compact arrays per item, never
//! the items themselves.
//!
//! [`Streamed::read`] makes two passes over the store. The first reads the
//! latest snapshots in signal id order, [`BATCH`] at a time: each signal is
//! written to `dataset.json` at once, the trends' weeks are tallied, and
//! the item keeps its id (in one string arena), its importance at the
//! dataset's instant, its `updatedAt` and a few flags. The second reads
//! the trail's keys in store order: each event keeps the item's position,
//! its run, its kind and number. Both lists are then sorted into page
//! order (the compact ranking: importance, `updatedAt`, id; the trail's
//! own order), and a page's 50 signals or 200 events are read back by id
//! when the site asks for them ([`RepoSource`]). The trail here is the
//! items' events: the site places the few lifecycle changes among them
//! (`RepoSource::events_through`). This is the idea of
//! `serve`'s per-repository index (`serve/index.rs`), which keeps a
//! compact row per item and reads only a page's items, with the export's
//! page order instead of the API's.

use std::collections::HashMap;
use std::io::Write;
use std::ops::Range;

use jiff::Timestamp;
use signals_core::dataset::{Changed, SignalDoc, signal_of};
use signals_core::first_response::{Answer, Reply, Responses};
use signals_core::importance::{RankKey, Score, Weights, echoed, score};
use signals_core::lifecycle::contributors::{
    Author, WeeklyContributors, is_contributor, is_pending,
};
use signals_core::trends::{ItemFacts, WeekTally};
use signals_core::{EventKind, ItemDetail, ItemState, TrackedRepo, TrailEvent};
use signals_site::{
    DatasetWriter, FEED_ENTRIES, FilterEntry, Ranked, RepoSource, ShownDoc, SiteError, TrailItem,
    search_card,
};
use signals_store::{Backend, CommentStore, LatestItem, RepoKey};

use super::ids::Ids;

/// Items or events read from the store at once.
pub const BATCH: usize = 500;

/// Item flags.
const SIGNAL: u8 = 1;
const CHANGED: u8 = 2;
const NEW: u8 = 4;
const CLOSED: u8 = 8;
/// Waiting for a reply at the dataset's instant.
const WAITING: u8 = 16;
/// An open security advisory (published, not withdrawn).
const ADVISORY: u8 = 32;

/// Event flags.
const DISCOVERED: u8 = 1;
const STATE: u8 = 2;

/// One event of the trail, compact (12 bytes): its run (a position in
/// `runs`), its item (a position in `ids`, whose id gives its number), its
/// item's kind and its flags.
struct Event {
    run: u32,
    item: u32,
    kind: u8,
    flags: u8,
}

/// What the first pass found besides the compact rows.
pub struct FirstPass {
    /// The signals written.
    pub signals: usize,
    /// The trends' weeks, fed with every item.
    pub tally: WeekTally,
    /// The weeks' new and returning contributors, fed with every item and
    /// reply.
    pub contributors: WeeklyContributors,
}

/// What [`Streamed::read`] reads a repository with.
pub struct Reading<'a> {
    /// The repository.
    pub key: RepoKey,
    /// Its group's id.
    pub group: &'a str,
    /// The repository as tracked.
    pub repo: &'a TrackedRepo,
    /// The URL that stands in for an item's that is not http(s).
    pub repo_url: &'a str,
    /// Importance weights.
    pub weights: &'a Weights,
    /// What gives each item its first response besides its replies.
    pub answering: Answering,
    /// `waiting_days`.
    pub waiting_days: u32,
    /// The trends' weeks, fed with every item.
    pub tally: WeekTally,
    /// The weeks' contributors, likewise.
    pub contributors: WeeklyContributors,
    /// The dataset's instant.
    pub instant: Timestamp,
    /// The repository's previous export, whose later events make
    /// [`Streamed::histories`].
    pub since: Option<Timestamp>,
    /// How many items the store holds: room made for them at once
    /// (growing the arrays by doubling would leave the old copies in the
    /// heap).
    pub items: usize,
    /// How many trail events the store holds, likewise.
    pub events: usize,
}

/// What gives an item its first response besides its own replies, which
/// are read with each batch of items: an item's answer depends on its
/// replies alone, so a batch's replies answer for its items as the
/// repository's would, and the export never holds every reply at once.
pub struct Answering {
    /// The group's `ignore_users`.
    pub ignore_users: Vec<String>,
    /// The oldest instant whose comments the store read.
    pub read_from: Option<Timestamp>,
}

impl Answering {
    /// The first responses of the items `ids` of repository `key`.
    fn responses(
        &self,
        store: &dyn CommentStore,
        key: RepoKey,
        ids: &[String],
    ) -> signals_store::Result<Responses> {
        Ok(self.responses_of(store.replies_of(key, ids)?))
    }

    /// The first responses `replies` give.
    fn responses_of(&self, replies: Vec<(String, Reply)>) -> Responses {
        Responses::new(replies, &self.ignore_users).read_from(self.read_from)
    }

    /// Counts a batch's contributions: the authors of its issues and pull
    /// requests (discussions and releases are none) and of its replies,
    /// bots, `ignore_users` and pending reviews left out.
    fn count(
        &self,
        contributors: &mut WeeklyContributors,
        batch: &[LatestItem],
        replies: &[(String, Reply)],
    ) {
        let ignore = &self.ignore_users;
        for latest in batch {
            let item = &latest.item;
            if !is_contributor(
                Author {
                    login: &item.author,
                    bot: false,
                },
                ignore,
            ) {
                continue;
            }
            match &item.detail {
                ItemDetail::Issue { .. } => contributors.add(&item.author, item.created_at),
                ItemDetail::PullRequest { association, .. } => {
                    contributors.add_pull(&item.author, item.created_at, association.as_deref())
                }
                ItemDetail::Release { .. }
                | ItemDetail::Discussion { .. }
                | ItemDetail::Advisory { .. } => {}
            }
        }
        for (_, r) in replies {
            if is_contributor(
                Author {
                    login: &r.author,
                    bot: r.bot,
                },
                ignore,
            ) && !is_pending(r.state.as_deref())
            {
                contributors.add(&r.author, r.at);
            }
        }
    }
}

/// A repository of the store as the site's [`RepoSource`].
pub struct Streamed<'s> {
    store: &'s dyn Backend,
    /// What gives each item its first response.
    answering: Answering,
    /// `waiting_days`.
    waiting_days: u32,
    key: RepoKey,
    group: String,
    repo: TrackedRepo,
    repo_url: String,
    instant: Timestamp,
    weights: Weights,
    ids: Ids,
    flags: Vec<u8>,
    /// Importance of each item (0 for an item that is not a signal).
    scores: Vec<u32>,
    /// `updatedAt` of each item as the dataset writes it, in seconds.
    updated: Vec<i64>,
    /// Signals' positions in page order.
    order: Vec<u32>,
    /// Run row ids and instants, in store order.
    runs: Vec<(i64, Timestamp)>,
    /// The trail, in page order.
    trail: Vec<Event>,
    /// The run (a position in `runs`) of each item's latest change of
    /// state.
    latest_state: HashMap<u32, u32>,
    /// Items with an event after the repository's previous export, by
    /// position; `None` when every item's history is written.
    changed_since: Vec<bool>,
}

impl<'s> Streamed<'s> {
    /// Reads the repository `reading` names (writing each signal to
    /// `dataset`), then its trail, and sorts both into page order.
    pub fn read<W: Write>(
        store: &'s dyn Backend,
        reading: Reading<'_>,
        dataset: &mut DatasetWriter<W>,
    ) -> anyhow::Result<(Streamed<'s>, FirstPass)> {
        let Reading {
            key,
            group,
            repo,
            repo_url,
            weights,
            answering,
            waiting_days,
            tally,
            contributors,
            instant,
            since,
            items,
            events,
        } = reading;
        let mut s = Streamed {
            store,
            answering,
            waiting_days,
            key,
            group: group.to_string(),
            repo: repo.clone(),
            repo_url: repo_url.to_string(),
            instant,
            weights: weights.clone(),
            ids: Ids::with_capacity(items, 0),
            flags: Vec::with_capacity(items),
            scores: Vec::with_capacity(items),
            updated: Vec::with_capacity(items),
            order: Vec::with_capacity(items),
            runs: Vec::new(),
            trail: Vec::with_capacity(events),
            latest_state: HashMap::new(),
            changed_since: Vec::new(),
        };
        let mut pass = FirstPass {
            signals: 0,
            tally,
            contributors,
        };
        let mut after: Option<String> = None;
        loop {
            let batch = store.latest_items_after(key, after.as_deref(), BATCH)?;
            let Some(last) = batch.last() else { break };
            after = Some(last.id.clone());
            if s.ids.len() == 0 {
                // Ids of one repository are about as long as its first.
                s.ids.reserve_text(items * (last.id.len() + 2));
            }
            s.read_batch(batch, &mut pass, dataset)?;
        }
        s.read_trail(since)?;
        let (ids, scores, updated) = (&s.ids, &s.scores, &s.updated);
        // Ids are unique, so the order is total: no room needed to keep ties.
        s.order.sort_unstable_by(|&a, &b| {
            let key = |p: u32| RankKey {
                importance: scores[p as usize],
                updated_at: Timestamp::from_second(updated[p as usize]).unwrap_or(Timestamp::MIN),
                id: ids.get(p as usize),
            };
            key(a).cmp(&key(b))
        });
        Ok((s, pass))
    }

    /// One batch of the first pass: each signal written to `dataset`
    /// with its links, related items and first response, and counted.
    fn read_batch<W: Write>(
        &mut self,
        batch: Vec<LatestItem>,
        pass: &mut FirstPass,
        dataset: &mut DatasetWriter<W>,
    ) -> anyhow::Result<()> {
        // The batch's links: indexed reads, no text parsed.
        let batch_ids: Vec<String> = batch.iter().map(|l| l.id.clone()).collect();
        let mut links = self.store.links_of(self.key, &batch_ids)?;
        let mut related = self.store.related_of(self.key, &batch_ids)?;
        let replies = self.store.replies_of(self.key, &batch_ids)?;
        self.answering
            .count(&mut pass.contributors, &batch, &replies);
        let responses = self.answering.responses_of(replies);
        for latest in batch {
            let item = &latest.item;
            let position = self.ids.len() as u32;
            self.ids.push(&latest.id);
            pass.tally.add(&ItemFacts::of(item));
            let mut flags = 0;
            if item.state == ItemState::Closed {
                flags |= CLOSED;
            }
            if latest.latest_event == Some(EventKind::Changed) {
                flags |= CHANGED;
            }
            if signals_core::advisories::is_open_advisory(item) {
                flags |= ADVISORY;
            }
            let (mut importance, mut updated) = (0, 0);
            if !item.key.is_empty() {
                flags |= SIGNAL;
                let mut doc = signal_of(
                    &self.group,
                    &self.repo,
                    item,
                    &self.repo_url,
                    Changed::from(flags & CHANGED != 0),
                );
                let answer = responses.answer(&latest.id, item);
                if let Some(answer) = &answer {
                    if answer.waits(item, self.instant, self.waiting_days) {
                        flags |= WAITING;
                    }
                    pass.tally.add_response(item.created_at, answer);
                }
                with_answer(&mut doc, answer);
                with_links(&mut doc, links.remove(&latest.id));
                let list = related.remove(&latest.id);
                let echo = crate::related::echo_repos(self.key, list.as_ref());
                doc.related = crate::related::docs(list);
                dataset.push(&doc)?;
                pass.signals += 1;
                importance = echoed(
                    score(item, self.instant, &self.weights),
                    echo,
                    &self.weights,
                )
                .total;
                updated = doc_updated_at(&doc).as_second();
                self.order.push(position);
            }
            self.flags.push(flags);
            self.scores.push(importance);
            self.updated.push(updated);
        }
        Ok(())
    }

    /// The second pass: the trail's keys, in store order; then sorted.
    fn read_trail(&mut self, since: Option<Timestamp>) -> anyhow::Result<()> {
        let mut after: Option<(i64, String)> = None;
        let mut run_ids: HashMap<i64, u32> = HashMap::new();
        self.changed_since = vec![false; self.ids.len()];
        loop {
            let batch = self.store.trail_keys_after(
                self.key,
                after.as_ref().map(|(r, i)| (*r, i.as_str())),
                BATCH,
            )?;
            let Some((run, last)) = batch.last() else {
                break;
            };
            after = Some((*run, last.item_id.clone()));
            for (run, e) in batch {
                let run = *run_ids.entry(run).or_insert_with(|| {
                    self.runs.push((run, e.at));
                    (self.runs.len() - 1) as u32
                });
                let item = self.ids.find(&e.item_id).ok_or_else(|| {
                    anyhow::anyhow!(
                        "the trail of {} has an event of {}, which has no latest snapshot",
                        self.repo.repo,
                        e.item_id
                    )
                })? as u32;
                let (kind, _, _) = signals_site::trail_key_parts(&e.item_id);
                let mut flags = 0;
                if e.kind == EventKind::Discovered {
                    flags |= DISCOVERED;
                }
                if signals_site::changes_state(&e) {
                    flags |= STATE;
                    self.latest_state.insert(item, run);
                }
                if since.is_none_or(|s| e.at > s) {
                    self.changed_since[item as usize] = true;
                }
                self.trail.push(Event {
                    run,
                    item,
                    kind,
                    flags,
                });
            }
        }
        // Items first seen in the latest run: `discovered` at the dataset's
        // instant, from the trail's end back while runs are that recent.
        for e in self.trail.iter().rev() {
            let at = self.runs[e.run as usize].1;
            if at < self.instant {
                break;
            }
            if e.flags & DISCOVERED != 0 && at == self.instant {
                self.flags[e.item as usize] |= NEW;
            }
        }
        let (runs, ids) = (&self.runs, &self.ids);
        // The site's order (`signals_site::trail_key_parts`), then the
        // store's: runs are numbered in store order, and a run's items in
        // id order, so `(run, item)` is the store's order and the sort
        // needs no room of its own to keep it.
        self.trail.sort_unstable_by(|a, b| {
            let key = |e: &Event| {
                let (_, number, key) = signals_site::trail_key_parts(ids.get(e.item as usize));
                (
                    runs[e.run as usize].1,
                    e.flags & DISCOVERED != 0,
                    e.kind,
                    number,
                    key,
                )
            };
            key(a)
                .cmp(&key(b))
                .then((a.run, a.item).cmp(&(b.run, b.item)))
        });
        Ok(())
    }

    /// The number of items first seen in the latest run.
    pub fn new_count(&self) -> usize {
        self.flags.iter().filter(|f| *f & NEW != 0).count()
    }

    /// The number of events in the trail.
    pub fn trail_total(&self) -> usize {
        self.trail.len()
    }

    /// The ids of the items with an event after the previous export (all
    /// of them when there was none), in id order.
    pub fn histories(&self) -> impl Iterator<Item = &str> {
        self.changed_since
            .iter()
            .enumerate()
            .filter(|(_, changed)| **changed)
            .map(|(i, _)| self.ids.get(i))
    }

    /// The shown signals in page order, as the search index's document
    /// files need them (`documents`: each item's document number in the
    /// word index by position, `u32::MAX` for none): the signals without
    /// a document are left out, their places counted.
    pub fn shown_docs(&self, documents: &[u32]) -> Vec<ShownDoc<'_>> {
        self.order
            .iter()
            .enumerate()
            .filter_map(|(place, &p)| {
                let doc = *documents.get(p as usize)?;
                (doc != u32::MAX).then(|| ShownDoc {
                    doc,
                    importance: self.scores[p as usize],
                    id: self.ids.get(p as usize),
                    place,
                })
            })
            .collect()
    }

    /// Each item's document number in the word index (`u32::MAX`: none),
    /// by position, from the store's list of `(signal id, document)`.
    pub fn documents(&self, docs: Vec<(String, u32)>) -> Vec<u32> {
        let mut by_position = vec![u32::MAX; self.ids.len()];
        for (id, doc) in docs {
            if let Some(p) = self.ids.find(&id) {
                by_position[p] = doc;
            }
        }
        by_position
    }

    /// The search cards of the signals at `places` of page order.
    pub fn cards(&self, places: &[usize]) -> Result<Vec<FilterEntry>, SiteError> {
        Ok(self
            .ranked_at(places)?
            .iter()
            .zip(places)
            .map(|(r, &place)| search_card(r, place))
            .collect())
    }

    /// The first `limit` signals with `flag`, in page order.
    fn flagged(&self, flag: u8, limit: usize) -> Result<Vec<Ranked>, SiteError> {
        let places: Vec<usize> = (0..self.order.len())
            .filter(|&i| self.flags[self.order[i] as usize] & flag != 0)
            .take(limit)
            .collect();
        self.ranked_at(&places)
    }

    /// The signals at `places` of page order, with their standing.
    fn ranked_at(&self, places: &[usize]) -> Result<Vec<Ranked>, SiteError> {
        let positions: Vec<u32> = places.iter().map(|&i| self.order[i]).collect();
        let signals = self.signals(&positions)?;
        Ok(signals
            .into_iter()
            .zip(places)
            .map(|((signal, score, flags), &i)| {
                // Competition ranking: 1 + the number of signals with a
                // strictly higher importance (page order is by importance).
                let total = score.total;
                let place =
                    1 + self.order[..i].partition_point(|&p| self.scores[p as usize] > total);
                Ranked {
                    signal,
                    score,
                    new: flags & NEW != 0,
                    place,
                }
            })
            .collect())
    }

    /// The latest snapshots of the items at `positions`, as signals.
    fn signals(&self, positions: &[u32]) -> Result<Vec<(SignalDoc, Score, u8)>, SiteError> {
        let ids: Vec<String> = positions
            .iter()
            .map(|&p| self.ids.get(p as usize).to_string())
            .collect();
        let mut items = self
            .store
            .latest_snapshots_for(self.key, &ids)
            .map_err(source_error)?;
        let mut links = self.store.links_of(self.key, &ids).map_err(source_error)?;
        let mut related = self
            .store
            .related_of(self.key, &ids)
            .map_err(source_error)?;
        let responses = self
            .answering
            .responses(self.store, self.key, &ids)
            .map_err(source_error)?;
        ids.iter()
            .zip(positions)
            .map(|(id, &p)| {
                let item = items.remove(id).ok_or_else(|| {
                    source_error(format!(
                        "{id} vanished from the store while it was exported"
                    ))
                })?;
                let flags = self.flags[p as usize];
                let mut doc = signal_of(
                    &self.group,
                    &self.repo,
                    &item,
                    &self.repo_url,
                    Changed::from(flags & CHANGED != 0),
                );
                with_answer(&mut doc, responses.answer(id, &item));
                with_links(&mut doc, links.remove(id));
                let list = related.remove(id);
                let echo = crate::related::echo_repos(self.key, list.as_ref());
                doc.related = crate::related::docs(list);
                let importance = score(&item, self.instant, &self.weights);
                Ok((doc, echoed(importance, echo, &self.weights), flags))
            })
            .collect()
    }
}

impl RepoSource for Streamed<'_> {
    fn waiting(&mut self, limit: usize) -> Result<Vec<Ranked>, SiteError> {
        self.flagged(WAITING, limit)
    }

    fn advisories(&mut self, limit: usize) -> Result<Vec<Ranked>, SiteError> {
        self.flagged(ADVISORY, limit)
    }

    fn ranked(&mut self, range: Range<usize>) -> Result<Vec<Ranked>, SiteError> {
        let places: Vec<usize> = range.collect();
        self.ranked_at(&places)
    }

    fn trail(&mut self, range: Range<usize>) -> Result<Vec<TrailItem>, SiteError> {
        let events = &self.trail[range];
        let keys: Vec<(i64, String)> = events
            .iter()
            .map(|e| {
                (
                    self.runs[e.run as usize].0,
                    self.ids.get(e.item as usize).to_string(),
                )
            })
            .collect();
        let read = self
            .store
            .trail_events(self.key, &keys)
            .map_err(source_error)?;
        Ok(read
            .into_iter()
            .zip(events)
            .map(|(event, e)| {
                let flags = self.flags[e.item as usize];
                let latest = e.flags & STATE != 0
                    && flags & SIGNAL != 0
                    && self.latest_state.get(&e.item) == Some(&e.run);
                TrailItem {
                    event,
                    latest_state: latest.then(|| {
                        if flags & CLOSED != 0 {
                            "closed"
                        } else {
                            "open"
                        }
                        .to_string()
                    }),
                }
            })
            .collect())
    }

    fn events_through(&mut self, at: Timestamp) -> usize {
        // The trail is in page order, runs chronologically first.
        self.trail
            .partition_point(|e| self.runs[e.run as usize].1 <= at)
    }

    fn latest_run(&mut self, limit: usize) -> Result<(Vec<TrailEvent>, usize), SiteError> {
        let mut total = 0;
        let mut first = Vec::with_capacity(limit);
        for (i, e) in self.trail.iter().enumerate() {
            if self.runs[e.run as usize].1 == self.instant {
                if first.len() < limit {
                    first.push(i);
                }
                total += 1;
            }
        }
        let mut events = Vec::with_capacity(first.len());
        for i in first {
            events.extend(self.trail(i..i + 1)?.into_iter().map(|t| t.event));
        }
        Ok((events, total))
    }

    fn newest(&mut self) -> Result<Vec<(SignalDoc, u32)>, SiteError> {
        // Newest first, ties by id (positions are in id order).
        let mut newest: Vec<u32> = self.order.clone();
        let by = |a: &u32, b: &u32| {
            self.updated[*b as usize]
                .cmp(&self.updated[*a as usize])
                .then(a.cmp(b))
        };
        if newest.len() > FEED_ENTRIES {
            newest.select_nth_unstable_by(FEED_ENTRIES, by);
            newest.truncate(FEED_ENTRIES);
        }
        newest.sort_by(by);
        Ok(self
            .signals(&newest)?
            .into_iter()
            .map(|(doc, score, _)| (doc, score.total))
            .collect())
    }
}

/// A signal's `updatedAt` as the site orders by it: the dataset's text
/// read back (an unparsable one sorts as the oldest).
/// Sets a signal's `references` and `referencedBy` from its links.
pub(crate) fn with_links(doc: &mut SignalDoc, links: Option<signals_store::Links>) {
    if let Some(links) = links {
        doc.references = links.references.into_iter().map(|l| l.id).collect();
        doc.referenced_by = links.referenced_by.into_iter().map(|l| l.id).collect();
    }
}

fn doc_updated_at(doc: &SignalDoc) -> Timestamp {
    doc.updated_at.parse().unwrap_or(Timestamp::MIN)
}

fn source_error(e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> SiteError {
    SiteError::Source(e.into())
}

/// Sets a signal's first response and what is known of it.
fn with_answer(doc: &mut signals_core::dataset::SignalDoc, answer: Option<Answer>) {
    doc.first_response_state = answer.as_ref().map(|a| a.state().to_string());
    doc.first_response = answer.and_then(Answer::first).map(|f| f.doc());
}
