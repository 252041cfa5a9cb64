//! The check after each run of a repository: the store against the
//! reference model (`model.rs`) of what the host showed. Items (their
//! latest view within what the configuration reads), replies and their
//! texts, first responses and `waiting`, and the run's record and counts.

use std::collections::{BTreeMap, HashMap};

use signals_core::first_response::{Answer, Responses, read_from};
use signals_core::{CommentKind, Group, ItemKind, ItemSnapshot, TrackedRepo};
use signals_store::suite::WholeReads;
use signals_store::{CommentStore, Reads, RepoKey};

use super::model::{self, Limit, MARGIN_SECS, Seen, Tally, Windows, excuse};
use super::world::{Change, ReplyKind, ReplyView, RepoView, World};
use crate::collect::RunOutcome;
use crate::config::Config;

/// One run of one repository, as the trial made it.
#[derive(Debug, Clone)]
pub(super) struct RepoRun {
    pub(super) at_ms: i64,
    /// How far past `at_ms` the host's data moved during the run.
    pub(super) moved_ms: i64,
    /// A fault was queued to fail the run part way.
    pub(super) killed: bool,
    pub(super) result: Result<RunOutcome, String>,
}

/// What a check reads besides the store.
pub(super) struct Input<'a> {
    pub(super) world: &'a World,
    pub(super) repo: usize,
    pub(super) config: &'a Config,
    pub(super) group: &'a Group,
    pub(super) tracked: &'a TrackedRepo,
    /// The repository's runs so far, the one just made last.
    pub(super) runs: &'a [RepoRun],
    /// The latest snapshots before the run.
    pub(super) before: &'a BTreeMap<String, ItemSnapshot>,
}

/// A difference between the store and the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Difference {
    pub(super) what: What,
    pub(super) detail: String,
}

/// What kind of difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum What {
    /// A run failed with no fault planned to fail it.
    RunFailed,
    /// A failed run changed the items.
    FailedRunCommitted,
    /// The run's record or counts are wrong.
    RunRecord,
    /// The run's events are not the changes it stored.
    Trail,
    /// An item's links are not what its texts name.
    References,
    /// An item the host showed within the windows is not stored.
    ItemMissing,
    /// An item is stored as the host never showed it.
    ItemDiffers,
    /// An item outside every window is stored.
    ItemOutsideWindows,
    /// A gone item is still open after a reconcile.
    GoneStillOpen,
    ReplyMissing,
    /// A reply is stored that the host never showed.
    ReplyUnknown,
    CommentTextMissing,
    FirstResponse,
    Waiting,
}

impl Difference {
    pub(super) fn kind(&self) -> String {
        format!("{:?}", self.what)
    }
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}: {}", self.what, self.detail)
    }
}

fn diff(out: &mut Vec<Difference>, what: What, detail: String) {
    out.push(Difference { what, detail });
}

/// The differences after the last run of `input.runs`; `tally` counts
/// the differences the documented limits excused.
pub(super) fn after_run(
    store: &signals_store_sqlite::Store,
    key: RepoKey,
    input: &Input,
    tally: &mut Tally,
) -> Vec<Difference> {
    let mut out = vec![];
    let Some(run) = input.runs.last() else {
        return out;
    };
    let after = store.latest_snapshots(key).expect("the store's snapshots");
    let outcome = match &run.result {
        Ok(outcome) => outcome,
        Err(e) if !run.killed => {
            diff(&mut out, What::RunFailed, e.clone());
            return out;
        }
        Err(_) => {
            if &after != input.before {
                diff(
                    &mut out,
                    What::FailedRunCommitted,
                    "the items changed".into(),
                );
            }
            return out;
        }
    };
    let last = store.last_successful_run(key).expect("the runs");
    if last.as_ref().map(|r| r.collected_at.as_millisecond()) != Some(run.at_ms) {
        diff(
            &mut out,
            What::RunRecord,
            format!("the last successful run is {last:?}"),
        );
    }
    let discovered = after
        .keys()
        .filter(|k| !input.before.contains_key(*k))
        .count() as u64;
    if outcome.discovered != discovered {
        diff(
            &mut out,
            What::RunRecord,
            format!(
                "{} discovered, {discovered} new in the store",
                outcome.discovered
            ),
        );
    }
    out.extend(super::trail::check(
        store,
        key,
        run.at_ms,
        input.before,
        &after,
        outcome.run.changed_count,
    ));
    let Some(first) = input.runs.iter().find(|r| r.result.is_ok()) else {
        return out;
    };
    let windows = Windows::of(input.config, first.at_ms);
    let views = [
        input.world.view(input.repo, run.at_ms),
        input.world.view(input.repo, run.at_ms + run.moved_ms),
    ];
    let reconciled = store
        .reconcile_marks(key)
        .expect("the reconcile marks")
        .last_reconcile
        .map(|t| t.as_millisecond());
    let scope = Scope {
        after: &after,
        views: &views,
        windows,
    };
    items(&mut out, tally, input, &scope, reconciled);
    replies(&mut out, tally, store, key, input, &scope, run.at_ms);
    out
}

/// What a run is judged on: the store's latest snapshots after it, what
/// the host showed when it started and when it ended, and the first
/// run's windows.
struct Scope<'a> {
    after: &'a BTreeMap<String, ItemSnapshot>,
    views: &'a [RepoView; 2],
    windows: Windows,
}

/// What an item may be stored as.
#[derive(Default)]
struct Expected {
    /// The views the run may have stored.
    seen: Vec<Seen>,
    /// Its `updated` when the run started (`None`: it appeared during
    /// the run).
    updated: Option<i64>,
    /// Its number, when it is gone.
    gone: Option<u64>,
}

/// When item `number` was deleted or transferred, as the host shows it
/// (true ms), if it was.
fn gone_at(input: &Input, number: u64) -> Option<i64> {
    input.world.repos[input.repo]
        .events
        .iter()
        .find(|e| matches!(e.change, Change::Gone { number: n } if n == number))
        .map(|e| e.visible_ms())
}

/// What each item the host showed in either view may be stored as.
fn expected_items(input: &Input, views: &[RepoView; 2]) -> HashMap<String, Expected> {
    let t = input.tracked;
    let mut expected: HashMap<String, Expected> = HashMap::new();
    for (v, view) in views.iter().enumerate() {
        for i in view.items.values() {
            let id = model::item_id(t, model::kind_of(i), i.number);
            let entry = expected.entry(id).or_default();
            if i.gone {
                entry.gone = Some(i.number);
            } else {
                entry.seen.push(Seen::of_item(i));
            }
            if v == 0 {
                entry.updated = Some(i.updated);
            }
        }
        let discussions = input.world.repos[input.repo].discussions
            && !input
                .config
                .groups
                .iter()
                .any(|g| g.group.id == input.group.id && !g.discussions);
        for d in view.discussions.values().filter(|_| discussions) {
            let id = model::item_id(t, ItemKind::Discussion, d.number);
            let entry = expected.entry(id).or_default();
            entry.seen.push(Seen {
                title: d.title.clone(),
                text: format!("What do you think of idea {}?", d.number),
                open: true,
                merged: false,
                labels: vec![],
                author: d.author.to_string(),
                created: d.created,
                updated: d.updated,
                comments: d.replies,
            });
            if v == 0 {
                entry.updated = Some(d.updated);
            }
        }
    }
    expected
}

fn items(
    out: &mut Vec<Difference>,
    tally: &mut Tally,
    input: &Input,
    scope: &Scope,
    reconciled: Option<i64>,
) {
    let (after, views, w) = (scope.after, scope.views, scope.windows);
    let expected = expected_items(input, views);
    for (
        id,
        Expected {
            seen,
            updated,
            gone,
        },
    ) in &expected
    {
        let stored = after.get(id).map(Seen::of_snapshot);
        if let Some(number) = gone {
            let closed_by_reconcile = gone_at(input, *number)
                .zip(reconciled)
                .is_some_and(|(gone, rec)| rec >= gone);
            match stored {
                Some(s) if s.open && closed_by_reconcile => {
                    diff(
                        out,
                        What::GoneStillOpen,
                        format!("{id} is open after a reconcile"),
                    );
                }
                Some(s) if s.open => excuse(tally, Limit::GoneUntilReconcile),
                _ => {}
            }
            continue;
        }
        let updated = updated.unwrap_or(i64::MIN);
        match stored {
            None if updated >= w.items => {
                diff(
                    out,
                    What::ItemMissing,
                    format!("{id} (updated {updated}, window from {})", w.items),
                );
            }
            // It appeared, or came into the window, only during the run.
            None if seen.iter().any(|s| s.updated >= w.items) => {
                excuse(tally, Limit::ChangedDuringRun)
            }
            None => {}
            Some(s) if !seen.contains(&s) => {
                diff(
                    out,
                    What::ItemDiffers,
                    format!("{id}: stored {s:?}, the host showed {seen:?}"),
                );
            }
            Some(_) if seen.iter().all(|s| s.updated < w.items - MARGIN_SECS) => {
                diff(
                    out,
                    What::ItemOutsideWindows,
                    format!("{id} (updated {updated}, window from {})", w.items),
                );
            }
            Some(s) => {
                if s.updated < w.items {
                    excuse(tally, Limit::WindowMargin);
                }
                if seen.first() != Some(&s) {
                    excuse(tally, Limit::ChangedDuringRun);
                }
            }
        }
    }
    for id in after.keys().filter(|id| !expected.contains_key(*id)) {
        diff(
            out,
            What::ItemDiffers,
            format!("{id} is stored but the host never showed it"),
        );
    }
}

/// A reply as the store's `replies` gives it.
type ReplyKey = (String, CommentKind, String, Option<String>, i64);

fn reply_key(input: &Input, view: &RepoView, r: &ReplyView) -> Option<ReplyKey> {
    let item = view.items.get(&r.number)?;
    let kind = match r.kind {
        ReplyKind::Comment => CommentKind::Comment,
        ReplyKind::ReviewComment => CommentKind::ReviewComment,
        ReplyKind::Review => CommentKind::Review,
    };
    Some((
        model::item_id(input.tracked, model::kind_of(item), r.number),
        kind,
        r.author.to_string(),
        r.state.map(str::to_string),
        model::reply_at(r),
    ))
}

fn replies(
    out: &mut Vec<Difference>,
    tally: &mut Tally,
    store: &signals_store_sqlite::Store,
    key: RepoKey,
    input: &Input,
    scope: &Scope,
    now_ms: i64,
) {
    let (views, w) = (scope.views, scope.windows);
    let stored = store.replies(key).expect("the store's replies");
    let texts = store.comment_texts(key).expect("the store's comment texts");
    let keys: Vec<ReplyKey> = stored
        .iter()
        .map(|(id, r)| {
            (
                id.clone(),
                r.kind,
                r.author.clone(),
                r.state.clone(),
                r.at.as_second(),
            )
        })
        .collect();
    let listed =
        |view: &RepoView, r: &ReplyView| view.items.get(&r.number).is_some_and(|i| !i.gone);
    // Every reply the host showed at any run so far (a review's state as
    // each run saw it), gone items' apart.
    let mut shown: Vec<ReplyKey> = vec![];
    let mut gone_items: Vec<String> = vec![];
    let earlier: Vec<RepoView> = input
        .runs
        .iter()
        .flat_map(|run| [run.at_ms, run.at_ms + run.moved_ms])
        .map(|at| input.world.view(input.repo, at))
        .collect();
    for view in earlier.iter().chain(views) {
        for r in view.replies.values() {
            match (listed(view, r), reply_key(input, view, r)) {
                (true, Some(k)) => shown.push(k),
                (false, Some(k)) => gone_items.push(k.0),
                _ => {}
            }
        }
    }
    for k in keys.iter().filter(|k| !gone_items.contains(&k.0)) {
        if !shown.contains(k) {
            diff(out, What::ReplyUnknown, format!("{k:?}"));
        }
    }
    let [v0, v1] = views;
    for r in v0.replies.values().filter(|r| listed(v0, r)) {
        // Deleted or transferred while the run paged: its replies left
        // the host's lists with it.
        if v1.items.get(&r.number).is_none_or(|i| i.gone) {
            excuse(tally, Limit::ChangedDuringRun);
            continue;
        }
        let pull_updated = v0.items.get(&r.number).map_or(i64::MIN, |i| i.updated);
        match model::must_read(r, pull_updated, w) {
            Ok(true) => {}
            Ok(false) => continue,
            Err(limit) => {
                excuse(tally, limit);
                continue;
            }
        }
        let Some(k) = reply_key(input, v0, r) else {
            continue;
        };
        let later = v1
            .replies
            .get(&r.id)
            .and_then(|r1| reply_key(input, v1, r1));
        if !keys.contains(&k) && later.as_ref().is_none_or(|l| !keys.contains(l)) {
            diff(
                out,
                What::ReplyMissing,
                format!("{k:?} (host id {}, updated {})", r.id, r.updated),
            );
        }
        let bodies = [Some(&r.body), v1.replies.get(&r.id).map(|r1| &r1.body)];
        let found = texts
            .iter()
            .any(|(id, body)| *id == k.0 && bodies.contains(&Some(body)));
        if r.kind != ReplyKind::Review && !found {
            diff(
                out,
                What::CommentTextMissing,
                format!("{} of {} ({:?})", r.id, k.0, r.body),
            );
        }
    }
    first_responses(out, tally, input, scope, stored, now_ms);
}

/// Each stored issue's and pull request's first response as the API and
/// the dataset compute it (`Responses::answer`, read from the first run
/// less the comments' backfill) against the host's replies: a first
/// response is the true first, "none yet" only when no reply counts, and
/// "unknown" only where a limit allows it; `waiting` follows.
fn first_responses(
    out: &mut Vec<Difference>,
    tally: &mut Tally,
    input: &Input,
    scope: &Scope,
    stored: Vec<(String, signals_core::first_response::Reply)>,
    now_ms: i64,
) {
    let (after, views, w) = (scope.after, scope.views, scope.windows);
    let ignore = input
        .config
        .groups
        .iter()
        .find(|g| g.group.id == input.group.id)
        .map(|g| g.ignore_users.clone())
        .unwrap_or_default();
    let first_run = input
        .runs
        .iter()
        .find(|r| r.result.is_ok())
        .and_then(|r| jiff::Timestamp::from_millisecond(r.at_ms).ok());
    let responses = Responses::new(stored, &ignore)
        .read_from(read_from(first_run, input.config.comments_backfill_days));
    let now = jiff::Timestamp::from_millisecond(now_ms).expect("a run's instant");
    let [v0, v1] = views;
    for item in v0.items.values().filter(|i| !i.gone) {
        let id = model::item_id(input.tracked, model::kind_of(item), item.number);
        let Some(snapshot) = after.get(&id) else {
            continue;
        };
        let Some(answer) = responses.answer(&id, snapshot) else {
            diff(out, What::FirstResponse, format!("{id}: no answer at all"));
            continue;
        };
        // The true first response in each view the run may have read.
        let truth: Vec<Option<(i64, String)>> = [v0, v1]
            .iter()
            .filter_map(|view| Some((view, view.items.get(&item.number)?)))
            .map(|(view, i)| {
                model::first_response(view, i, &ignore)
                    .map(|r| (model::reply_at(r), r.author.to_string()))
            })
            .collect();
        let settled = Seen::of_snapshot(snapshot) == Seen::of_item(item)
            && v0
                .replies
                .values()
                .filter(|r| r.number == item.number)
                .eq(v1.replies.values().filter(|r| r.number == item.number));
        match &answer {
            Answer::First(f) if !truth.contains(&Some((f.at.as_second(), f.by.clone()))) => {
                diff(
                    out,
                    What::FirstResponse,
                    format!(
                        "{id}: answered by {} at {}, the host's replies give {truth:?}",
                        f.by,
                        f.at.as_second()
                    ),
                );
            }
            Answer::NotYet if !truth.contains(&None) => {
                diff(
                    out,
                    What::FirstResponse,
                    format!("{id}: none yet, the host's replies give {truth:?}"),
                );
            }
            Answer::Unknown if settled && item.created >= w.comments => {
                diff(
                    out,
                    What::FirstResponse,
                    format!("{id}: unknown, though opened within the comments read ({truth:?})"),
                );
            }
            Answer::Unknown if settled => excuse(tally, Limit::BeforeCommentsBackfill),
            Answer::Unknown => excuse(tally, Limit::ChangedDuringRun),
            _ => {}
        }
        let model_waiting = matches!(answer, Answer::NotYet)
            && model::waiting(item, false, now_ms, input.config.waiting_days);
        if answer.waits(snapshot, now, input.config.waiting_days) != model_waiting && settled {
            diff(
                out,
                What::Waiting,
                format!("{id}: waiting should be {model_waiting}"),
            );
        }
    }
}
