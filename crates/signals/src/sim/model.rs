//! The reference model: what the store must hold after a run, computed
//! from what the host showed and the configuration's windows alone, never
//! from the collector's code. Where the store may differ, the model names
//! the documented [`Limit`] that allows it.

use jiff::{SignedDuration, Timestamp};
use signals_core::{ItemKind, ItemSnapshot, ItemState, signal_id};

use super::world::{BOTS, ItemView, ReplyKind, ReplyView, RepoView};
use crate::config::Config;

/// The limits docs/decisions.md documents ("The simulated host"): the only
/// reasons the store may differ from what the host showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Limit {
    /// The host's state changed while the run paged through it: an item
    /// or reply changed during the run is stored as the run's earlier or
    /// later page showed it.
    ChangedDuringRun,
    /// A reply older than the comments' backfill was never read: its
    /// item's first response is not known from the store.
    BeforeCommentsBackfill,
    /// Reviews are read for the pull requests a run lists: a review older
    /// than the items' window of the first run is read only when its pull
    /// request changes again.
    ReviewsOfListedPulls,
    /// A deleted or transferred item stays as last seen until a reconcile
    /// closes it.
    GoneUntilReconcile,
    /// What was updated within the overlap margin before the first run's
    /// window may be read or not.
    WindowMargin,
    /// A `#N` naming a discussion links nothing: references resolve
    /// `#N` to issues and pull requests.
    DiscussionByNumber,
}

/// How many times each limit excused a difference.
pub(super) type Tally = std::collections::BTreeMap<Limit, u64>;

/// Counts one use of `limit`.
pub(super) fn excuse(tally: &mut Tally, limit: Limit) {
    *tally.entry(limit).or_default() += 1;
}

/// The overlap a run may read before its window (10 minutes, plus the
/// second a floor to whole seconds takes).
pub(super) const MARGIN_SECS: i64 = 10 * 60 + 1;

/// The first successful run's windows: items' and comments' starts, in
/// the host's whole seconds.
#[derive(Debug, Clone, Copy)]
pub(super) struct Windows {
    pub(super) items: i64,
    pub(super) comments: i64,
}

impl Windows {
    /// The windows of a repository's first run at `first_ms`.
    pub(super) fn of(config: &Config, first_ms: i64) -> Windows {
        let at = first_ms.div_euclid(1000);
        let window = config.window_hours * 3600;
        let backfill = config.backfill_days.map_or(0, |d| d * 86_400);
        Windows {
            items: at - window.max(backfill),
            comments: at - i64::from(config.comments_backfill_days) * 86_400,
        }
    }
}

/// An item as the store's latest snapshot holds it, or as the host showed
/// it: what the check compares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Seen {
    pub(super) title: String,
    pub(super) text: String,
    pub(super) open: bool,
    pub(super) merged: bool,
    pub(super) labels: Vec<String>,
    pub(super) author: String,
    pub(super) created: i64,
    pub(super) updated: i64,
    pub(super) comments: u64,
}

impl Seen {
    pub(super) fn of_item(i: &ItemView) -> Seen {
        Seen {
            title: i.title.clone(),
            text: i.body.clone(),
            open: i.state == super::world::State::Open,
            merged: i.merged.is_some(),
            labels: i.labels.clone(),
            author: i.author.to_string(),
            created: i.created,
            updated: i.updated,
            comments: i.comments,
        }
    }

    pub(super) fn of_snapshot(s: &ItemSnapshot) -> Seen {
        let merged = matches!(
            s.detail,
            signals_core::ItemDetail::PullRequest { merged: true, .. }
        );
        Seen {
            title: s.title.clone(),
            text: s.text.clone(),
            open: s.state == ItemState::Open,
            merged,
            labels: s.labels.clone(),
            author: s.author.clone(),
            created: s.created_at.as_second(),
            updated: s.updated_at.as_second(),
            comments: s.metrics.comments,
        }
    }
}

/// The signal id of item `number` of kind `kind`.
pub(super) fn item_id(tracked: &signals_core::TrackedRepo, kind: ItemKind, number: u64) -> String {
    signal_id(&tracked.source, &tracked.repo, kind, &number.to_string())
}

pub(super) fn kind_of(i: &ItemView) -> ItemKind {
    if i.pull {
        ItemKind::PullRequest
    } else {
        ItemKind::Issue
    }
}

/// When a reply counts as written: a review's submission, else its
/// creation.
pub(super) fn reply_at(r: &ReplyView) -> i64 {
    r.submitted.unwrap_or(r.created)
}

/// True when the collector must have read `r` by now: a comment updated
/// within the comments' window; a review (with a state) of a pull request
/// `pull_updated` last within both windows (a run asks the reviews of the
/// pull requests it lists that changed since its comments' start).
pub(super) fn must_read(r: &ReplyView, pull_updated: i64, w: Windows) -> Result<bool, Limit> {
    match r.kind {
        ReplyKind::Comment | ReplyKind::ReviewComment => Ok(r.updated >= w.comments),
        ReplyKind::Review if r.state.is_none() => Ok(false),
        ReplyKind::Review if pull_updated >= w.items.max(w.comments) => Ok(true),
        ReplyKind::Review if r.updated.max(reply_at(r)) >= w.comments => {
            Err(Limit::ReviewsOfListedPulls)
        }
        ReplyKind::Review => Ok(false),
    }
}

/// The first response the host's replies give item `item`, by the rule
/// of docs/decisions.md ("Comments and first responses"): the earliest
/// reply by someone else, no bot, not ignored, no pending review; ties by
/// login. Its (instant, login) and the reply.
pub(super) fn first_response<'a>(
    view: &'a RepoView,
    item: &ItemView,
    ignore: &[String],
) -> Option<&'a ReplyView> {
    view.replies
        .values()
        .filter(|r| r.number == item.number)
        .filter(|r| {
            let who = r.author;
            let bot = BOTS.contains(&who) || who.ends_with("[bot]");
            let pending = r.kind == ReplyKind::Review && matches!(r.state, None | Some("PENDING"));
            !bot && !pending
                && !who.eq_ignore_ascii_case(item.author)
                && !ignore.iter().any(|u| u.eq_ignore_ascii_case(who))
        })
        .min_by(|a, b| {
            reply_at(a)
                .cmp(&reply_at(b))
                .then_with(|| a.author.cmp(b.author))
        })
}

/// True when an open item waits for a reply at `now_ms`: no first
/// response, created more than `waiting_days` before.
pub(super) fn waiting(item: &ItemView, answered: bool, now_ms: i64, days: u32) -> bool {
    let now = Timestamp::from_millisecond(now_ms).unwrap_or(Timestamp::UNIX_EPOCH);
    let created = Timestamp::from_second(item.created).unwrap_or(Timestamp::UNIX_EPOCH);
    item.state == super::world::State::Open
        && !answered
        && now.duration_since(created) > SignedDuration::from_hours(24 * i64::from(days))
}
