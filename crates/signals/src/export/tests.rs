//! The streamed export against the reference: the export as it
//! was before, which read each repository whole (`repository_view`) and
//! rendered it from the whole document, kept here. Both export the same
//! store; every file of the two sites must be the same, byte for byte: on
//! the demo, and on generated repositories with several pages of signals
//! and of trail, changes of state, releases, ties of importance, URLs that
//! are not http(s), and an incremental export after a new run.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use jiff::{SignedDuration, Timestamp};
use signals_core::dataset::{DatasetInput, build};
use signals_core::first_response::{
    Answer, DEFAULT_COMMENTS_BACKFILL_DAYS, DEFAULT_WAITING_DAYS, Responses, read_from,
};
use signals_core::importance::{Score, Weights, echoed, score};
use signals_core::lifecycle::State;
use signals_core::lifecycle::contributors::{
    Author, ContributorsSource, WeeklyContributors, is_contributor, is_pending,
};
use signals_core::lifecycle::verdict::{About, verdict as verdict_of};
use signals_core::run::account;
use signals_core::trends::{
    Contributors, ItemFacts, RISING_WINDOW, WEEKS, WeekTally, build_from, first_week,
};
use signals_core::{ItemDetail, ItemSnapshot, ItemState, News, RequestStats, RunRecord, Source};
use signals_site::{HealthNote, Publisher, Render, RepoPage, SiteOptions, SiteReport};
use signals_store::suite::WholeReads;
use signals_store::{Backend, LifecycleStore, Owners, Reads, RepoKey, RunCommit, RunWrites};
use signals_store_sqlite::Store;

use super::{
    Conversation, Histories, Judge, Recipe, data_key, export_with, history_page, settings,
};

#[path = "../../tests/it/synth.rs"]
mod synth;

/// The export as it was before it streamed: each repository read whole, its document
/// built whole, rendered from it.
fn reference_export(
    store: &dyn Backend,
    out: &Path,
    weights: &Weights,
    render: Render,
    judge: Judge,
) -> SiteReport {
    let options = SiteOptions::default();
    let conversation = Conversation::default();
    let settings = settings(&options, &conversation, weights);
    let mut publisher = Publisher::begin(out, &options, &settings, render).unwrap();
    let owners = store.owners_status().unwrap();
    let owned = crate::health::Owned::new(&owners);
    for status in store.status().unwrap().repositories {
        let summary = &status.summary;
        if summary.run_count == 0 {
            continue;
        }
        let health = HealthNote::of(&crate::health::of(
            &status,
            &owned,
            judge.interval,
            judge.now,
        ));
        let key = data_key(
            summary,
            &health,
            store.references_mark(summary.key).unwrap(),
            store.related_mark(summary.key).unwrap(),
        );
        let (group, repo) = (&summary.group.id, &summary.repo.id);
        if publisher.is_current(group, repo, &key) {
            publisher.keep(group, repo).unwrap();
            continue;
        }
        let Some(view) = store.repository_view(summary.key).unwrap() else {
            continue;
        };
        let items: Vec<_> = view.items.values().cloned().collect();
        let mut document = build(&DatasetInput {
            group: &view.summary.group,
            repo: &view.summary.repo,
            context: &view.context,
            news: &view.news,
            runs: &view.runs,
            items: &items,
            changed_in_latest: &view.changed_in_latest,
        })
        .unwrap();
        // Links between items, as the store resolves them.
        let ids: Vec<String> = document
            .dataset
            .signals
            .iter()
            .map(|s| s.id.clone())
            .collect();
        let mut links = store.links_of(summary.key, &ids).unwrap();
        let mut related = store.related_of(summary.key, &ids).unwrap();
        let mut echoes: HashMap<String, usize> = HashMap::new();
        for s in &mut document.dataset.signals {
            super::source::with_links(s, links.remove(&s.id));
            let list = related.remove(&s.id);
            echoes.insert(
                s.id.clone(),
                crate::related::echo_repos(summary.key, list.as_ref()),
            );
            s.related = crate::related::docs(list);
        }
        let instant = view.runs.last().unwrap().collected_at;
        let first = view.runs.first().unwrap();
        // First responses, waiting and the weeks' response times (issue
        // 26), from the whole view and every reply of the repository.
        let read_from = read_from(Some(first.collected_at), DEFAULT_COMMENTS_BACKFILL_DAYS);
        let responses =
            Responses::new(store.replies(summary.key).unwrap(), &[]).read_from(read_from);
        let mut tally = WeekTally::new(instant, first.since);
        for item in view.items.values() {
            tally.add(&ItemFacts::of(item));
        }
        let mut waiting = Vec::new();
        for s in &mut document.dataset.signals {
            let item = &view.items[&s.id];
            let answer = responses.answer(&s.id, item);
            if let Some(answer) = &answer {
                if answer.waits(item, instant, DEFAULT_WAITING_DAYS) {
                    waiting.push(s.id.clone());
                }
                tally.add_response(item.created_at, answer);
            }
            s.first_response_state = answer.as_ref().map(|a| a.state().to_string());
            s.first_response = answer.and_then(Answer::first).map(|f| f.doc());
        }
        let scores: HashMap<String, Score> = view
            .items
            .iter()
            .map(|(id, item)| {
                let echo = echoes.get(id).copied().unwrap_or(0);
                (
                    id.clone(),
                    echoed(score(item, instant, weights), echo, weights),
                )
            })
            .collect();
        let since = publisher.previous_instant(group, repo);
        let changed: BTreeSet<&str> = view
            .trail
            .iter()
            .filter(|e| since.is_none_or(|s| e.at > s))
            .map(|e| e.item_id.as_str())
            .collect();
        let contexts = store
            .run_contexts(view.summary.key, first_week(instant))
            .unwrap();
        let growth = store
            .growth_since(view.summary.key, instant - RISING_WINDOW)
            .unwrap();
        // Contributors: every item's author and every reply's, as
        // `lifecycle::contributors` defines them, counted whole.
        let mut counted = WeeklyContributors::new(first_week(instant), WEEKS, instant);
        for item in view.items.values() {
            match &item.detail {
                ItemDetail::Issue { .. } => counted.add(&item.author, item.created_at),
                ItemDetail::PullRequest { association, .. } => {
                    counted.add_pull(&item.author, item.created_at, association.as_deref())
                }
                _ => {}
            }
        }
        for (_, r) in store.replies(summary.key).unwrap() {
            if is_contributor(
                Author {
                    login: &r.author,
                    bot: r.bot,
                },
                &[],
            ) && !is_pending(r.state.as_deref())
            {
                counted.add(&r.author, r.at);
            }
        }
        let reached = read_from.unwrap_or(first.since).max(first.since);
        let source = match view.context.created_at {
            Some(created) if reached <= created => ContributorsSource::History,
            _ => ContributorsSource::Association,
        };
        let contributors = Contributors {
            weeks: counted.finish(source),
            source,
        };
        let sightings = store
            .asset_sightings(view.summary.key, first_week(instant))
            .unwrap();
        for increase in signals_core::downloads::increases(&sightings) {
            tally.add_downloads(&increase);
        }
        let trends = build_from(
            view.summary.repo.repo.to_string(),
            tally,
            &contributors,
            &contexts,
            growth,
        );
        let changes = store.lifecycle_changes(summary.key).unwrap();
        let verdict = store.lifecycle(summary.key).unwrap().map(|record| {
            verdict_of(
                &record,
                About {
                    group,
                    repository: &view.summary.repo.repo.to_string(),
                    declared: None,
                    changes: &changes,
                    // Held whole: the advisories among the items, the
                    // downloads of every sighting.
                    advisories: signals_core::advisories::open_advisories(view.items.values()),
                    downloads_last_4_weeks: signals_core::downloads::last_4_weeks(
                        &store
                            .asset_sightings(summary.key, jiff::Timestamp::MIN)
                            .unwrap(),
                        instant,
                    ),
                },
            )
        });
        let page = RepoPage {
            document: &document,
            trends: &trends,
            news: &view.news,
            license: view.license.as_deref(),
            trail: &view.trail,
            scores: &scores,
            event_count: view.event_count,
            collected_at: instant,
            health: &health,
            waiting: &waiting,
            verdict: verdict.as_ref(),
            lifecycle: &changes,
        };
        publisher.publish(&page, &key).unwrap();
        for id in changed {
            if let Some(html) = history_page(store, &view.summary, id).unwrap() {
                publisher
                    .write_history(group, repo, &signals_site::history_file(id), &html)
                    .unwrap();
            }
        }
    }
    super::links::set_shared(store, &mut publisher).unwrap();
    super::links::set_stories(store, &mut publisher).unwrap();
    publisher.finish().unwrap()
}

/// Every file of the site served at `out` (links followed), by path.
fn files(out: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, into: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if std::fs::metadata(&path).unwrap().is_dir() {
                walk(root, &path, into);
            } else {
                let rel = path.strip_prefix(root).unwrap().to_path_buf();
                into.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out_files = BTreeMap::new();
    walk(out, out, &mut out_files);
    out_files
}

/// Exports `store` both ways into `dir/new` and `dir/reference` and checks
/// that the sites are the same, file for file.
fn both_ways(store: &dyn Backend, dir: &Path, render: Render, judge: Judge) {
    let weights = Weights::default();
    let new = dir.join("new");
    let reference = dir.join("reference");
    let recipe = Recipe {
        site: &SiteOptions::default(),
        conversation: &Conversation::default(),
        weights: &weights,
        render,
        histories: Histories::Written,
        judge,
    };
    let mut a = export_with(store, &new, &recipe).unwrap();
    let b = reference_export(store, &reference, &weights, render, judge);
    let (mut new, reference) = (files(&new), files(&reference));
    // The static word index is written by the streamed export
    // only, from the store's index, and checked by its own tests
    // (`tests/it/site_search.rs`): it is left out here.
    let search: Vec<PathBuf> = new
        .keys()
        .filter(|p| crate::migrate::word_index_file(p))
        .cloned()
        .collect();
    for path in search {
        new.remove(&path);
        a.files -= 1;
    }
    // The report counts the bytes written, and an incremental export links
    // the search shards it keeps instead of writing them: the bytes of the
    // rest are compared file by file below.
    assert!(a.bytes >= b.bytes, "{a:?} against {b:?}");
    a.bytes = b.bytes;
    assert_eq!(a, b, "the reports differ");
    assert_eq!(
        new.keys().collect::<Vec<_>>(),
        reference.keys().collect::<Vec<_>>(),
        "the sites hold different files"
    );
    for (path, bytes) in &reference {
        if new[path] != *bytes {
            let (n, r) = (
                String::from_utf8_lossy(&new[path]),
                String::from_utf8_lossy(bytes),
            );
            let at = n
                .bytes()
                .zip(r.bytes())
                .position(|(x, y)| x != y)
                .unwrap_or(n.len().min(r.len()));
            panic!(
                "{} differs at byte {at}:\nnew: {:?}\nreference: {:?}",
                path.display(),
                &n[at.saturating_sub(200)..(at + 200).min(n.len())],
                &r[at.saturating_sub(200)..(at + 200).min(r.len())],
            );
        }
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "signals-export-streamed-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_streamed_export_equals_the_whole_view_export_on_the_demo() {
    let dir = scratch("demo");
    crate::demo::demo(&dir, crate::hosts::Requests::Unlogged).unwrap();
    let store = Store::open(dir.join("signals.db")).unwrap();
    let judge = Judge {
        interval: std::time::Duration::from_secs(3600),
        now: crate::demo::INSTANTS[1].parse().unwrap(),
    };
    both_ways(&store, &dir, Render::All, judge);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A release of repository `n` with tag `tag`.
fn release(n: usize, tag: &str, at: Timestamp, prerelease: bool) -> ItemSnapshot {
    let mut r = synth::item(n, 1, 40, at);
    r.key = tag.to_string();
    r.url = format!("https://github.com/o/r{n}/releases/tag/{tag}");
    r.title = format!("Release {tag}");
    r.state = ItemState::Closed;
    r.closed_at = None;
    r.labels = vec![];
    r.detail = ItemDetail::Release {
        prerelease,
        published_at: at - SignedDuration::from_hours(5),
    };
    r
}

/// Commits a run of repository `n` (context URL `url`) observing
/// `observed`.
fn commit(
    store: &mut Store,
    key: RepoKey,
    n: usize,
    url: &str,
    at: Timestamp,
    observed: Vec<ItemSnapshot>,
) {
    let ids: Vec<String> = observed.iter().map(|i| i.id(Source::Github)).collect();
    let previous = store.latest_snapshots_for(key, &ids).unwrap();
    let delta = account(Source::Github, observed, &previous);
    let mut context = synth::context(n);
    context.url = url.to_string();
    store
        .commit_run(
            key,
            &RunCommit {
                record: RunRecord {
                    collected_at: at,
                    since: at - SignedDuration::from_hours(24),
                    observed_count: delta.observed_count,
                    changed_count: delta.changed_count(),
                },
                context,
                news: News::default(),
                snapshots: delta.snapshots,
                events: delta.events,
                references: vec![],
                stats: RequestStats::default(),
                renamed_to: None,
                messages: vec![],
                reconciled: false,
                open_pulls: Default::default(),
                downloads: Vec::new(),
                gone: Vec::new(),
            },
        )
        .unwrap();
}

/// Repository 0: 270 items and 5 releases over three runs (6 pages of
/// signals, 2 of trail), with items closed and reopened; repository 1: a
/// host URL that is not http(s) and items whose first URLs are not
/// either.
fn generated(store: &mut Store, t: &[Timestamp; 4]) -> (RepoKey, RepoKey) {
    let k0 = store
        .ensure_repository(&synth::group(), &synth::tracked(0))
        .unwrap();
    let url = "https://github.com/o/r0";
    let mut first: Vec<ItemSnapshot> = (1..=260).map(|k| synth::item(0, k, 300, t[0])).collect();
    for (tag, pre) in [
        ("v1.0", false),
        ("10", false),
        ("2", false),
        ("v2.0-rc.1", true),
        ("007", false),
    ] {
        first.push(release(0, tag, t[0], pre));
    }
    commit(store, k0, 0, url, t[0], first);
    let mut second: Vec<ItemSnapshot> = (1..=30)
        .map(|k| {
            let mut i = synth::item(0, k, 300, t[0]);
            i.metrics.reactions += 2;
            i.updated_at = t[1] - SignedDuration::from_secs(k as i64);
            i
        })
        .collect();
    for k in [5, 7, 10] {
        let mut i = synth::item(0, k, 300, t[0]);
        i.state = if i.state == ItemState::Closed {
            ItemState::Open
        } else {
            ItemState::Closed
        };
        i.closed_at = (i.state == ItemState::Closed).then_some(t[1]);
        i.updated_at = t[1];
        second.retain(|s| s.key != k.to_string());
        second.push(i);
    }
    commit(store, k0, 0, url, t[1], second);
    let mut third: Vec<ItemSnapshot> = (261..=270).map(|k| synth::item(0, k, 300, t[2])).collect();
    let mut seven = synth::item(0, 7, 300, t[0]);
    seven.updated_at = t[2];
    third.push(seven);
    for k in 40..46 {
        let mut i = synth::item(0, k, 300, t[0]);
        i.labels.push("needs-triage".into());
        i.updated_at = t[2];
        third.push(i);
    }
    commit(store, k0, 0, url, t[2], third);

    let mut tracked = synth::tracked(1);
    tracked.keywords = vec!["odd".into()];
    let k1 = store.ensure_repository(&synth::group(), &tracked).unwrap();
    let items: Vec<ItemSnapshot> = (1..=60)
        .map(|k| {
            let mut i = synth::item(1, k, 100, t[0]);
            if k < 4 {
                i.url = format!("javascript:alert({k})");
            } else if k < 6 {
                i.url = String::new();
            } else {
                i.url = format!("https://git.example.org/o/r1/issues/{k}");
            }
            i
        })
        .collect();
    commit(store, k1, 1, "", t[0], items);
    (k0, k1)
}

/// Keeps `state` as the lifecycle judged after `key`'s run at `at`.
fn judged(store: &mut Store, key: RepoKey, at: Timestamp, state: State) {
    let record = signals_store::suite::lifecycle_record(state, &at.to_string());
    store.record_lifecycle(key, at, &record, &[]).unwrap();
}

/// Four instants six hours apart, the runs of [`generated`] and after.
fn six_hours_apart() -> [Timestamp; 4] {
    let t0: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    [0, 6, 12, 18].map(|h| t0 + SignedDuration::from_hours(h))
}

#[test]
fn the_streamed_export_equals_the_whole_view_export_on_generated_repositories() {
    let dir = scratch("generated");
    let mut store = Store::open(dir.join("signals.db")).unwrap();
    let t = six_hours_apart();
    let (k0, _) = generated(&mut store, &t);
    // The lifecycle judged after the first run (its place on the trail's
    // second page, after the first run's 265 events) and changed after
    // the second.
    judged(&mut store, k0, t[0], State::Stable);
    judged(&mut store, k0, t[1], State::Declining);
    let judge = Judge {
        interval: std::time::Duration::from_secs(6 * 3600),
        now: t[2] + SignedDuration::from_hours(1),
    };
    both_ways(&store, &dir, Render::All, judge);
    let trail = |page: &str| std::fs::read_to_string(dir.join("new/g/r0").join(page)).unwrap();
    assert!(!trail("trail.html").contains("Lifecycle"));
    let second = trail("trail-2.html");
    let first_judged = second.find("Lifecycle judged: stable").unwrap();
    let change = second.find("Lifecycle: stable → declining").unwrap();
    assert!(first_judged < change);
    // After every event of the first run, before the second run's.
    assert!(second[..first_judged].contains(r#"value="265" data-event-kind="discovered""#));
    assert!(second.contains(
        r#"<li value="266" data-event-kind="lifecycle"><span class="ev-kind ev-lifecycle">lifecycle</span> <span class="ev-words">Lifecycle judged: stable</span>"#
    ));
    assert!(!second[first_judged..change].contains("discovered"));

    // A new run: only what changed since is rendered again, and only the
    // histories of the items it saw.
    let mut fourth: Vec<ItemSnapshot> = (100..110).map(|k| synth::item(0, k, 300, t[0])).collect();
    for i in &mut fourth {
        i.state = ItemState::Closed;
        i.closed_at = Some(t[3]);
        i.updated_at = t[3];
    }
    commit(&mut store, k0, 0, "https://github.com/o/r0", t[3], fourth);
    // And a run that observed nothing but changed the lifecycle: its
    // change is the trail's last entry.
    let fifth = t[3] + SignedDuration::from_hours(1);
    commit(&mut store, k0, 0, "https://github.com/o/r0", fifth, vec![]);
    judged(&mut store, k0, fifth, State::Archived);
    let judge = Judge {
        interval: std::time::Duration::from_secs(6 * 3600),
        now: fifth + SignedDuration::from_hours(1),
    };
    both_ways(&store, &dir, Render::Changed, judge);
    let second = std::fs::read_to_string(dir.join("new/g/r0/trail-2.html")).unwrap();
    let last = second.rfind("<li value=").unwrap();
    assert!(second[last..].contains("Lifecycle: declining → archived"));
    assert_eq!(second.matches("Lifecycle").count(), 3);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A repository its owner's listing leaves out is rendered again
/// once (without a new run), as gone, then kept at every later export,
/// however many intervals pass: it is never judged stale, while a
/// repository merely not collected is.
#[test]
fn a_repository_its_owner_no_longer_lists_is_rendered_once_as_gone_then_kept() {
    let dir = scratch("gone");
    let mut store = Store::open(dir.join("signals.db")).unwrap();
    let t = six_hours_apart();
    generated(&mut store, &t);
    let at = |now: Timestamp| Judge {
        interval: std::time::Duration::from_secs(6 * 3600),
        now,
    };
    let out = dir.join("site");
    let export = |store: &Store, now: Timestamp| {
        let recipe = Recipe {
            site: &SiteOptions::default(),
            conversation: &Conversation::default(),
            weights: &Weights::default(),
            render: Render::Changed,
            histories: Histories::Written,
            judge: at(now),
        };
        export_with(store, &out, &recipe).unwrap()
    };
    assert_eq!(
        export(&store, t[2] + SignedDuration::from_hours(1)).repositories,
        2
    );

    // The owner `o` lists r0 no more.
    let group = synth::group();
    let owner = signals_store::OwnerRef {
        group: &group,
        host: "github",
        owner: "o",
    };
    let gone_at = t[2] + SignedDuration::from_hours(2);
    store
        .owner_claim(owner, gone_at, SignedDuration::from_hours(6))
        .unwrap();
    let row = signals_core::owners::Known {
        full_name: signals_core::RepoName::parse("o/r0").unwrap(),
        repo_id: "r0".into(),
        state: signals_core::owners::State::Gone,
        since: gone_at,
        first_seen: t[0],
        host_id: None,
        tracked_as: None,
        renamed_at: None,
    };
    store
        .owner_listed(owner, gone_at, &[row], &RequestStats::default())
        .unwrap();
    let report = export(&store, t[2] + SignedDuration::from_hours(3));
    assert_eq!(report.repositories, 1, "r0 again, for what it now says");
    let page = || std::fs::read_to_string(out.join("g/r0/index.html")).unwrap();
    let gone = "<strong>Gone:</strong> no longer listed by its owner o (deleted, made \
                private, transferred or renamed) since \
                <time datetime=\"2026-11-21T00:00:00Z\">2026-11-21 00:00 UTC</time>; \
                no longer collected, its history is kept.";
    assert!(page().contains(gone), "{}", page());

    // A month on: r1 (not collected since t[0]) turns stale and is rendered
    // again; r0 is kept as it was, gone, not stale.
    let report = export(&store, t[0] + SignedDuration::from_hours(24 * 30));
    assert_eq!(report.repositories, 1);
    assert!(
        std::fs::read_to_string(out.join("g/r1/index.html"))
            .unwrap()
            .contains("Stale data:")
    );
    assert!(!page().contains("Stale data") && page().contains("Gone:"));
    let report = export(&store, t[0] + SignedDuration::from_hours(24 * 60));
    assert!(report.unchanged, "{report:?}");
    // The reference export judges the same way.
    both_ways(
        &store,
        &dir,
        Render::All,
        at(t[0] + SignedDuration::from_hours(24 * 60)),
    );
    let _ = std::fs::remove_dir_all(&dir);
}
