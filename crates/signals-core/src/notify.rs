//! Alerts: which of a run's events a `[[notify]]` rule asks for, and the
//! messages a committed run leaves in the outbox (issue 19).
//!
//! Pure like the rest of the core: a run's events and snapshots in, the
//! messages out. Where a message goes (webhook, chat, email) and how it is
//! sent are not decided here; the binary's configuration holds the
//! channels, `signals-notify` speaks them, and the store keeps the
//! messages in the run's own transaction.
//!
//! One rule makes at most one message per repository run, holding its
//! matching signals ranked by importance, at most [`MAX_SIGNALS`] of them
//! and the count of the rest. A repository's first run discovers
//! everything, so it makes no per-item alerts: at most one summary (the top
//! items the rule's filters other than `events` select), or nothing with
//! `initial = "none"`.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::dataset::{SignalDoc, fmt_collected, signal_of};
use crate::diff::{Observation, TrackedField};
use crate::hostile::http_url;
use crate::importance::{Weights, score};
use crate::model::{Group, ItemDetail, ItemKind, ItemSnapshot, ItemState, TrackedRepo};
use crate::run::ItemEvent;

/// Signals one message lists; the rest are counted in [`Payload::more`].
pub const MAX_SIGNALS: usize = 20;

/// What happened to an item, as a rule's `events` name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    /// First seen (not in a repository's first run).
    Discovered,
    /// Closed without being merged.
    Closed,
    /// Opened again.
    Reopened,
    /// A pull request merged.
    Merged,
    /// A new stable (not pre-) release.
    Released,
    /// Any tracked change.
    Changed,
}

impl Trigger {
    /// Every trigger, most specific first: the order in which an event's
    /// triggers are named (`event` of a signal).
    pub const ALL: [Trigger; 6] = [
        Trigger::Released,
        Trigger::Merged,
        Trigger::Closed,
        Trigger::Reopened,
        Trigger::Discovered,
        Trigger::Changed,
    ];

    /// The name written in rules and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Discovered => "discovered",
            Trigger::Closed => "closed",
            Trigger::Reopened => "reopened",
            Trigger::Merged => "merged",
            Trigger::Released => "released",
            Trigger::Changed => "changed",
        }
    }

    /// Parses a name.
    pub fn parse(s: &str) -> Option<Trigger> {
        Trigger::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// What one observation of `item` amounts to, most specific first. A merge
/// is `merged` (and `changed`), not `closed`.
pub fn triggers(observation: &Observation, item: &ItemSnapshot) -> Vec<Trigger> {
    let merged = matches!(item.detail, ItemDetail::PullRequest { merged: true, .. });
    let mut out = Vec::new();
    match observation {
        Observation::Discovered => {
            if matches!(
                item.detail,
                ItemDetail::Release {
                    prerelease: false,
                    ..
                }
            ) {
                out.push(Trigger::Released);
            }
            out.push(Trigger::Discovered);
        }
        Observation::Changed(fields) => {
            if fields.contains(&TrackedField::Merged) && merged {
                out.push(Trigger::Merged);
            }
            if fields.contains(&TrackedField::State) {
                match item.state {
                    ItemState::Closed if !merged => out.push(Trigger::Closed),
                    ItemState::Open => out.push(Trigger::Reopened),
                    ItemState::Closed => {}
                }
            }
            out.push(Trigger::Changed);
        }
    }
    out
}

/// A rule's `keywords`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Keywords {
    /// No keyword filter.
    #[default]
    Any,
    /// Any of these words or phrases, case-insensitive, in title or text.
    Words(Vec<String>),
    /// The repository's own configured `keywords`.
    Repository,
}

/// What a rule's repository's first run sends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Initial {
    /// One summary of the top items the rule selects.
    #[default]
    Summary,
    /// Nothing.
    None,
}

/// The filter part of a `[[notify]]` rule: which events it asks for.
/// Empty lists mean "all".
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// Its name, unique among rules; names its messages.
    pub name: String,
    /// Group ids.
    pub groups: Vec<String>,
    /// Repository ids or `owner/name`s.
    pub repos: Vec<String>,
    /// Item kinds.
    pub kinds: Vec<ItemKind>,
    /// What happened.
    pub events: Vec<Trigger>,
    /// Any of these labels (case-insensitive).
    pub labels: Vec<String>,
    /// The least importance, at the run's instant.
    pub min_importance: Option<f64>,
    /// Words or phrases in title or text.
    pub keywords: Keywords,
    /// Author handles, `*` wildcards, case-insensitive.
    pub authors: Vec<String>,
    /// Author handles left out, `*` wildcards.
    pub exclude_authors: Vec<String>,
    /// Bots (`*[bot]`, Renovate, Dependabot) are left out unless set.
    pub include_bots: bool,
    /// What a repository's first run sends.
    pub initial: Initial,
}

impl Rule {
    /// A rule named `name` that matches every event of every repository,
    /// bots excluded.
    pub fn any(name: &str) -> Rule {
        Rule {
            name: name.to_string(),
            groups: vec![],
            repos: vec![],
            kinds: vec![],
            events: vec![],
            labels: vec![],
            min_importance: None,
            keywords: Keywords::Any,
            authors: vec![],
            exclude_authors: vec![],
            include_bots: false,
            initial: Initial::Summary,
        }
    }

    /// True when the rule covers the repository at all.
    pub fn covers(&self, group: &Group, repo: &TrackedRepo) -> bool {
        (self.groups.is_empty() || self.groups.contains(&group.id))
            && (self.repos.is_empty()
                || self
                    .repos
                    .iter()
                    .any(|r| *r == repo.id || r.eq_ignore_ascii_case(&repo.repo.to_string())))
    }

    /// True when the item passes every filter but `events` (and the
    /// repository filters, see [`Rule::covers`]).
    pub fn selects(&self, repo: &TrackedRepo, item: &ItemSnapshot, importance: u32) -> bool {
        if !self.kinds.is_empty() && !self.kinds.contains(&item.kind()) {
            return false;
        }
        if !self.labels.is_empty()
            && !item
                .labels
                .iter()
                .any(|l| self.labels.iter().any(|w| w.eq_ignore_ascii_case(l)))
        {
            return false;
        }
        if self
            .min_importance
            .is_some_and(|min| f64::from(importance) < min)
        {
            return false;
        }
        let words: &[String] = match &self.keywords {
            Keywords::Any => &[],
            Keywords::Words(w) => w,
            Keywords::Repository => &repo.keywords,
        };
        if !matches!(self.keywords, Keywords::Any) {
            let title = item.title.to_lowercase();
            let text = item.text.to_lowercase();
            let found = words.iter().any(|w| {
                let w = w.trim().to_lowercase();
                !w.is_empty() && (title.contains(&w) || text.contains(&w))
            });
            if !found {
                return false;
            }
        }
        if !self.include_bots && is_bot(&item.author) {
            return false;
        }
        if !self.authors.is_empty() && !self.authors.iter().any(|p| glob(p, &item.author)) {
            return false;
        }
        !self.exclude_authors.iter().any(|p| glob(p, &item.author))
    }

    /// The trigger this rule matches an event by (the most specific of
    /// the event's triggers the rule asks for), or `None`.
    pub fn matches(
        &self,
        repo: &TrackedRepo,
        observation: &Observation,
        item: &ItemSnapshot,
        importance: u32,
    ) -> Option<Trigger> {
        if !self.selects(repo, item, importance) {
            return None;
        }
        triggers(observation, item)
            .into_iter()
            .find(|t| self.events.is_empty() || self.events.contains(t))
    }
}

/// True for an automated account: `*[bot]` (GitHub apps), Renovate and
/// Dependabot by any of their handles.
pub fn is_bot(author: &str) -> bool {
    let a = author.to_ascii_lowercase();
    a.ends_with("[bot]")
        || a.ends_with("-bot")
        || a.starts_with("renovate")
        || a.starts_with("dependabot")
}

/// Case-insensitive match of `text` against `pattern`, where `*` stands
/// for any run of characters.
pub fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.to_lowercase().chars().collect();
    let t: Vec<char> = text.to_lowercase().chars().collect();
    // Iterative wildcard match with one backtrack point: linear enough
    // for handles, and no recursion a hostile pattern could deepen.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] != '*' && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// What a message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageKind {
    /// The matching events of one repository run.
    Alert,
    /// A repository's first run: its top items, once.
    Summary,
    /// An email digest: the top signals since the last digest.
    Digest,
}

/// `group` of a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupRef {
    /// Slug.
    pub id: String,
    /// Display name.
    pub name: String,
}

/// `repository` of a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoRef {
    /// Slug within its group.
    pub id: String,
    /// `<owner>/<name>`.
    pub repo: String,
    /// Display name.
    pub name: String,
}

/// One signal of a message: its v3 fields, with the importance at the
/// run's instant, the trigger that matched and the changed field names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageSignal {
    /// The v3 signal.
    pub signal: SignalDoc,
    /// Importance at the run's instant (docs/importance.md).
    pub importance: u32,
    /// What happened (`discovered`, `closed`, ...).
    pub event: Trigger,
    /// The tracked fields that changed (empty when discovered).
    pub fields: Vec<String>,
}

/// What a message says, kept in the outbox as JSON and rendered by each
/// channel at sending, so a retry sends the very same body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Payload {
    /// The rule's name.
    pub rule: String,
    /// Alert, summary or digest.
    pub kind: MessageKind,
    /// The repository's group (`None` in a digest, whose signals span
    /// groups).
    pub group: Option<GroupRef>,
    /// The repository (`None` in a digest).
    pub repository: Option<RepoRef>,
    /// The run's instant (a digest's: when it was made), with milliseconds.
    pub collected_at: String,
    /// The signals, most important first.
    pub signals: Vec<MessageSignal>,
    /// Matching signals left out of `signals`.
    pub more: u64,
    /// The repository's page, when the site's `base_url` is configured.
    pub link: Option<String>,
}

/// A message a run calls for, before the store numbers it.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    /// The stable delivery id, sent as `X-Signals-Delivery`.
    pub delivery: String,
    /// The rule's name.
    pub rule: String,
    /// Held for an email digest rather than sent on its own.
    pub held: bool,
    /// What it says.
    pub payload: Payload,
}

/// A delivery id: 32 hex digits of SHA-256 over what makes the message
/// unique (rule, group, repository, the run's instant). The same run and
/// rule always give the same id, in any store.
pub fn delivery_id(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0]);
    }
    h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A rule and whether its messages wait for a digest.
#[derive(Debug, Clone, Copy)]
pub struct RuleRef<'a> {
    /// The filter.
    pub rule: &'a Rule,
    /// Held for a digest (email with `digest = ...`).
    pub held: bool,
}

/// One committed run, as alerts see it.
#[derive(Debug, Clone, Copy)]
pub struct RunInput<'a> {
    /// The group.
    pub group: &'a Group,
    /// The repository as configured.
    pub repo: &'a TrackedRepo,
    /// The repository's web URL (stands in for non-http item URLs).
    pub repo_url: &'a str,
    /// The run's instant.
    pub collected_at: Timestamp,
    /// True for the repository's first successful run.
    pub first_run: bool,
    /// The run's events.
    pub events: &'a [ItemEvent],
    /// The run's new snapshots by signal id (every event's item has one).
    pub snapshots: &'a [(String, ItemSnapshot)],
    /// Importance weights.
    pub weights: &'a Weights,
    /// The repository's page, when known.
    pub link: Option<&'a str>,
}

/// The messages `rules` call for after a run: at most one per rule.
pub fn messages(rules: &[RuleRef<'_>], run: &RunInput<'_>) -> Vec<Outgoing> {
    let snapshot = |id: &str| {
        run.snapshots
            .binary_search_by(|(i, _)| i.as_str().cmp(id))
            .ok()
            .map(|i| &run.snapshots[i].1)
            .or_else(|| run.snapshots.iter().find(|(i, _)| i == id).map(|(_, s)| s))
    };
    let scored: Vec<(&ItemEvent, &ItemSnapshot, u32)> = run
        .events
        .iter()
        .filter_map(|e| {
            let item = snapshot(&e.item_id)?;
            Some((e, item, score(item, run.collected_at, run.weights).total))
        })
        .collect();
    let collected = fmt_collected(run.collected_at);
    let mut out = Vec::new();
    for r in rules {
        let rule = r.rule;
        if !rule.covers(run.group, run.repo) {
            continue;
        }
        let (kind, mut signals) = if run.first_run {
            if rule.initial == Initial::None {
                continue;
            }
            let s: Vec<MessageSignal> = scored
                .iter()
                .filter(|(_, item, imp)| rule.selects(run.repo, item, *imp))
                .map(|(_, item, imp)| signal(run, item, *imp, Trigger::Discovered, vec![]))
                .collect();
            (MessageKind::Summary, s)
        } else {
            let s: Vec<MessageSignal> = scored
                .iter()
                .filter_map(|(e, item, imp)| {
                    let t = rule.matches(run.repo, &e.observation, item, *imp)?;
                    let fields = match &e.observation {
                        Observation::Discovered => vec![],
                        Observation::Changed(f) => {
                            f.iter().map(|f| f.as_str().to_string()).collect()
                        }
                    };
                    Some(signal(run, item, *imp, t, fields))
                })
                .collect();
            (MessageKind::Alert, s)
        };
        if signals.is_empty() {
            continue;
        }
        rank(&mut signals);
        let more = signals.len().saturating_sub(MAX_SIGNALS) as u64;
        signals.truncate(MAX_SIGNALS);
        out.push(Outgoing {
            delivery: delivery_id(&[&rule.name, &run.group.id, &run.repo.id, &collected]),
            rule: rule.name.clone(),
            held: r.held,
            payload: Payload {
                rule: rule.name.clone(),
                kind,
                group: Some(GroupRef {
                    id: run.group.id.clone(),
                    name: run.group.name.clone(),
                }),
                repository: Some(RepoRef {
                    id: run.repo.id.clone(),
                    repo: run.repo.repo.to_string(),
                    name: run.repo.name.clone(),
                }),
                collected_at: collected.clone(),
                signals,
                more,
                link: run.link.map(str::to_string),
            },
        });
    }
    out
}

fn signal(
    run: &RunInput<'_>,
    item: &ItemSnapshot,
    importance: u32,
    event: Trigger,
    fields: Vec<String>,
) -> MessageSignal {
    let repo_url = http_url(run.repo_url, "");
    MessageSignal {
        signal: signal_of(
            &run.group.id,
            run.repo,
            item,
            &repo_url,
            event != Trigger::Discovered && event != Trigger::Released,
        ),
        importance,
        event,
        fields,
    }
}

/// Most important first, then by signal id (byte order), so equal scores
/// always list the same way.
pub fn rank(signals: &mut [MessageSignal]) {
    signals.sort_by(|a, b| {
        b.importance
            .cmp(&a.importance)
            .then_with(|| a.signal.id.as_bytes().cmp(b.signal.id.as_bytes()))
    });
}

/// An email digest of the messages held for `rule` since the last one: the
/// `top` most important signals across them (an item seen in several runs
/// counts once, as last seen), ordered by group, repository, then
/// importance. `at` is the digest's instant. `None` when nothing is held.
pub fn digest(rule: &str, held: &[Payload], top: usize, at: Timestamp) -> Option<Outgoing> {
    let mut latest: std::collections::BTreeMap<&str, (&str, &MessageSignal)> =
        std::collections::BTreeMap::new();
    for p in held {
        for s in &p.signals {
            let seen = latest.get(s.signal.id.as_str());
            if seen.is_none_or(|(at, _)| *at <= p.collected_at.as_str()) {
                latest.insert(&s.signal.id, (&p.collected_at, s));
            }
        }
    }
    if latest.is_empty() {
        return None;
    }
    let mut all: Vec<MessageSignal> = latest.into_values().map(|(_, s)| s.clone()).collect();
    rank(&mut all);
    let more = all.len().saturating_sub(top) as u64;
    all.truncate(top);
    all.sort_by(|a, b| {
        (a.signal.group.as_str(), a.signal.project.as_str())
            .cmp(&(b.signal.group.as_str(), b.signal.project.as_str()))
            .then_with(|| b.importance.cmp(&a.importance))
            .then_with(|| a.signal.id.as_bytes().cmp(b.signal.id.as_bytes()))
    });
    let collected = fmt_collected(at);
    let first = held.iter().map(|p| p.collected_at.as_str()).min()?;
    Some(Outgoing {
        delivery: delivery_id(&["digest", rule, first, &collected]),
        rule: rule.to_string(),
        held: false,
        payload: Payload {
            rule: rule.to_string(),
            kind: MessageKind::Digest,
            group: None,
            repository: None,
            collected_at: collected,
            signals: all,
            more,
            link: None,
        },
    })
}

/// When an email digest is due: `daily 08:00` or `weekly mon 08:00`, in
/// the rule's time zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// Every day at this time.
    Daily {
        /// Hour, 0-23.
        hour: i8,
        /// Minute, 0-59.
        minute: i8,
    },
    /// Every week on this day at this time.
    Weekly {
        /// The day.
        weekday: jiff::civil::Weekday,
        /// Hour, 0-23.
        hour: i8,
        /// Minute, 0-59.
        minute: i8,
    },
}

impl Schedule {
    /// Parses `daily HH:MM` or `weekly <mon|tue|...> HH:MM`.
    pub fn parse(text: &str) -> Result<Schedule, String> {
        use jiff::civil::Weekday;
        let bad = || {
            format!(
                "digest = {text:?} is not a schedule: write \"daily 08:00\" or \"weekly mon 08:00\""
            )
        };
        let words: Vec<&str> = text.split_whitespace().collect();
        let time = |t: &str| -> Result<(i8, i8), String> {
            let (h, m) = t.split_once(':').ok_or_else(bad)?;
            let h: i8 = h.parse().map_err(|_| bad())?;
            let m: i8 = m.parse().map_err(|_| bad())?;
            if !(0..24).contains(&h) || !(0..60).contains(&m) {
                return Err(bad());
            }
            Ok((h, m))
        };
        match words.as_slice() {
            [d, t] if d.eq_ignore_ascii_case("daily") => {
                let (hour, minute) = time(t)?;
                Ok(Schedule::Daily { hour, minute })
            }
            [w, day, t] if w.eq_ignore_ascii_case("weekly") => {
                let weekday = match day.to_ascii_lowercase().get(..3) {
                    Some("mon") => Weekday::Monday,
                    Some("tue") => Weekday::Tuesday,
                    Some("wed") => Weekday::Wednesday,
                    Some("thu") => Weekday::Thursday,
                    Some("fri") => Weekday::Friday,
                    Some("sat") => Weekday::Saturday,
                    Some("sun") => Weekday::Sunday,
                    _ => return Err(bad()),
                };
                let (hour, minute) = time(t)?;
                Ok(Schedule::Weekly {
                    weekday,
                    hour,
                    minute,
                })
            }
            _ => Err(bad()),
        }
    }

    /// The first scheduled instant strictly after `after`, in `tz`. A
    /// time a clock change skips is taken as the instant after the gap.
    pub fn next_after(&self, after: Timestamp, tz: &jiff::tz::TimeZone) -> Timestamp {
        let (weekday, hour, minute) = match *self {
            Schedule::Daily { hour, minute } => (None, hour, minute),
            Schedule::Weekly {
                weekday,
                hour,
                minute,
            } => (Some(weekday), hour, minute),
        };
        let mut day = after.to_zoned(tz.clone()).date();
        // At most 8 days ahead: a week plus the day itself.
        for _ in 0..9 {
            if weekday.is_none_or(|w| day.weekday() == w)
                && let Ok(at) = day.at(hour, minute, 0, 0).to_zoned(tz.clone())
                && at.timestamp() > after
            {
                return at.timestamp();
            }
            day = day.tomorrow().unwrap_or(day);
        }
        after
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Metrics, RepoName, Source};

    fn repo() -> TrackedRepo {
        TrackedRepo {
            id: "n".into(),
            source: Source::Github.into(),
            repo: RepoName::parse("o/n").unwrap(),
            name: "N".into(),
            keywords: vec!["cuda".into()],
        }
    }

    fn item(key: &str, author: &str) -> ItemSnapshot {
        ItemSnapshot {
            repo: RepoName::parse("o/n").unwrap(),
            key: key.into(),
            title: format!("Regression in {key}"),
            text: "Slow on CUDA 12".into(),
            url: format!("https://github.com/o/n/issues/{key}"),
            created_at: "2026-11-01T00:00:00Z".parse().unwrap(),
            updated_at: "2026-11-20T00:00:00Z".parse().unwrap(),
            metrics: Metrics::default(),
            labels: vec!["Bug".into()],
            author: author.into(),
            state: ItemState::Open,
            closed_at: None,
            assignees: vec![],
            detail: ItemDetail::Issue,
        }
    }

    #[test]
    fn schedules_fall_on_their_local_time() {
        let tz = jiff::tz::TimeZone::fixed(jiff::tz::offset(2));
        let daily = Schedule::parse("daily 08:00").unwrap();
        let t: Timestamp = "2026-11-24T05:59:00Z".parse().unwrap();
        assert_eq!(daily.next_after(t, &tz).to_string(), "2026-11-24T06:00:00Z");
        let t: Timestamp = "2026-11-24T06:00:00Z".parse().unwrap();
        assert_eq!(daily.next_after(t, &tz).to_string(), "2026-11-25T06:00:00Z");
        // 2026-11-24 is a Tuesday.
        let weekly = Schedule::parse("weekly MON 08:30").unwrap();
        assert_eq!(
            weekly.next_after(t, &tz).to_string(),
            "2026-11-30T06:30:00Z"
        );
        for bad in [
            "daily",
            "daily 24:00",
            "weekly 08:00",
            "weekly xyz 08:00",
            "hourly 1:00",
        ] {
            assert!(Schedule::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn glob_matches_wildcards_case_insensitively() {
        assert!(glob("*[bot]", "Renovate[BOT]"));
        assert!(glob("al*ce", "ALICE"));
        assert!(glob("*", ""));
        assert!(!glob("al*ce", "alicex"));
        assert!(glob("a*b*c", "axxbyyc"));
        assert!(!glob("a*b*c", "axxbyy"));
    }

    #[test]
    fn bots_are_left_out_unless_included() {
        let r = repo();
        let mut rule = Rule::any("r");
        for bot in [
            "dependabot[bot]",
            "renovate-bot",
            "Renovate",
            "github-actions[bot]",
        ] {
            assert!(!rule.selects(&r, &item("1", bot), 0), "{bot}");
        }
        assert!(rule.selects(&r, &item("1", "alice"), 0));
        rule.include_bots = true;
        assert!(rule.selects(&r, &item("1", "dependabot[bot]"), 0));
    }

    #[test]
    fn keywords_labels_and_importance_filter() {
        let r = repo();
        let mut rule = Rule::any("r");
        rule.keywords = Keywords::Words(vec!["regression".into()]);
        rule.labels = vec!["bug".into()];
        rule.min_importance = Some(2.5);
        assert!(rule.selects(&r, &item("1", "a"), 3));
        assert!(!rule.selects(&r, &item("1", "a"), 2));
        rule.keywords = Keywords::Words(vec!["rocm".into()]);
        assert!(!rule.selects(&r, &item("1", "a"), 3));
        rule.keywords = Keywords::Repository;
        assert!(rule.selects(&r, &item("1", "a"), 3));
    }

    #[test]
    fn a_merge_is_merged_not_closed() {
        let mut pr = item("2", "a");
        pr.state = ItemState::Closed;
        pr.detail = ItemDetail::PullRequest {
            draft: false,
            merged: true,
            merged_at: None,
        };
        let obs = Observation::Changed(vec![TrackedField::State, TrackedField::Merged]);
        assert_eq!(triggers(&obs, &pr), vec![Trigger::Merged, Trigger::Changed]);
        let mut issue = item("3", "a");
        issue.state = ItemState::Closed;
        let obs = Observation::Changed(vec![TrackedField::State]);
        assert_eq!(
            triggers(&obs, &issue),
            vec![Trigger::Closed, Trigger::Changed]
        );
    }

    #[test]
    fn one_message_per_rule_with_at_most_twenty_signals() {
        let group = Group {
            id: "g".into(),
            name: "G".into(),
        };
        let r = repo();
        let snaps: Vec<(String, ItemSnapshot)> = (0..25)
            .map(|i| {
                let it = item(&format!("{i}"), "alice");
                (it.id(Source::Github), it)
            })
            .collect();
        let mut snaps = snaps;
        snaps.sort_by(|a, b| a.0.cmp(&b.0));
        let events: Vec<ItemEvent> = snaps
            .iter()
            .map(|(id, _)| ItemEvent {
                item_id: id.clone(),
                observation: Observation::Discovered,
            })
            .collect();
        let rule = Rule::any("all");
        let weights = Weights::default();
        let mut input = RunInput {
            group: &group,
            repo: &r,
            repo_url: "https://github.com/o/n",
            collected_at: "2026-11-21T00:00:00Z".parse().unwrap(),
            first_run: false,
            events: &events,
            snapshots: &snaps,
            weights: &weights,
            link: Some("https://s.example/g/n/"),
        };
        let rules = [RuleRef {
            rule: &rule,
            held: false,
        }];
        let out = messages(&rules, &input);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].payload.signals.len(), MAX_SIGNALS);
        assert_eq!(out[0].payload.more, 5);
        assert_eq!(out[0].payload.kind, MessageKind::Alert);
        assert_eq!(out[0].delivery, messages(&rules, &input)[0].delivery);
        input.first_run = true;
        assert_eq!(
            messages(&rules, &input)[0].payload.kind,
            MessageKind::Summary
        );
        let mut none = Rule::any("none");
        none.initial = Initial::None;
        let rules = [RuleRef {
            rule: &none,
            held: false,
        }];
        assert!(messages(&rules, &input).is_empty());
    }

    mod property {
        use super::*;
        use proptest::prelude::*;
        use std::collections::BTreeSet;

        const AUTHORS: [&str; 5] = ["alice", "Bob", "dependabot[bot]", "renovate-bot", "carol"];
        const WORDS: [&str; 4] = ["regression", "cuda", "crash", "docs"];
        const LABELS: [&str; 3] = ["bug", "perf", "docs"];

        fn arb_item() -> impl Strategy<Value = (ItemSnapshot, Observation)> {
            (
                0u8..3,
                any::<bool>(),
                any::<bool>(),
                0usize..5,
                proptest::sample::subsequence(WORDS.to_vec(), 0..3),
                proptest::sample::subsequence(LABELS.to_vec(), 0..3),
                0u64..50,
                proptest::option::of(proptest::sample::subsequence(
                    TrackedField::ALL.to_vec(),
                    1..4,
                )),
            )
                .prop_map(|(k, closed, flag, a, words, labels, reactions, fields)| {
                    let mut it = item("0", AUTHORS[a]);
                    it.title = words.join(" ").to_uppercase();
                    it.text = String::new();
                    it.labels = labels.iter().map(|l| l.to_string()).collect();
                    it.metrics.reactions = reactions;
                    it.state = if closed {
                        ItemState::Closed
                    } else {
                        ItemState::Open
                    };
                    it.detail = match k {
                        0 => ItemDetail::Issue,
                        1 => ItemDetail::PullRequest {
                            draft: false,
                            merged: flag && closed,
                            merged_at: None,
                        },
                        _ => ItemDetail::Release {
                            prerelease: flag,
                            published_at: it.updated_at,
                        },
                    };
                    let obs = match fields {
                        None => Observation::Discovered,
                        Some(f) => Observation::Changed(f),
                    };
                    (it, obs)
                })
        }

        fn arb_rule() -> impl Strategy<Value = Rule> {
            (
                proptest::sample::subsequence(
                    vec![ItemKind::Issue, ItemKind::PullRequest, ItemKind::Release],
                    0..3,
                ),
                proptest::sample::subsequence(Trigger::ALL.to_vec(), 0..3),
                proptest::sample::subsequence(LABELS.to_vec(), 0..2),
                proptest::option::of(0u32..40),
                proptest::option::of(proptest::sample::subsequence(WORDS.to_vec(), 1..3)),
                proptest::sample::subsequence(vec!["al*", "*b", "carol"], 0..2),
                proptest::sample::subsequence(vec!["c*", "bob"], 0..2),
                any::<bool>(),
            )
                .prop_map(
                    |(kinds, events, labels, min, words, authors, exclude, bots)| Rule {
                        kinds,
                        events,
                        labels: labels.iter().map(|l| l.to_uppercase()).collect(),
                        min_importance: min.map(f64::from),
                        keywords: words.map_or(Keywords::Any, |w| {
                            Keywords::Words(w.iter().map(|s| s.to_string()).collect())
                        }),
                        authors: authors.iter().map(|s| s.to_string()).collect(),
                        exclude_authors: exclude.iter().map(|s| s.to_string()).collect(),
                        include_bots: bots,
                        ..Rule::any("r")
                    },
                )
        }

        /// The reference: each condition of docs/notify.md written out
        /// on its own, over sets.
        fn reference(rule: &Rule, it: &ItemSnapshot, obs: &Observation, imp: u32) -> bool {
            let mut happened = BTreeSet::new();
            let merged_pr = matches!(it.detail, ItemDetail::PullRequest { merged: true, .. });
            match obs {
                Observation::Discovered => {
                    happened.insert("discovered");
                    if let ItemDetail::Release {
                        prerelease: false, ..
                    } = it.detail
                    {
                        happened.insert("released");
                    }
                }
                Observation::Changed(f) => {
                    happened.insert("changed");
                    if f.contains(&TrackedField::State) && it.state == ItemState::Open {
                        happened.insert("reopened");
                    }
                    if f.contains(&TrackedField::State)
                        && it.state == ItemState::Closed
                        && !merged_pr
                    {
                        happened.insert("closed");
                    }
                    if f.contains(&TrackedField::Merged) && merged_pr {
                        happened.insert("merged");
                    }
                }
            }
            let author = it.author.to_lowercase();
            let like = |p: &str| {
                let p = p.to_lowercase();
                match p.split_once('*') {
                    None => author == p,
                    Some((a, b)) => {
                        author.len() >= a.len() + b.len()
                            && author.starts_with(a)
                            && author.ends_with(b)
                    }
                }
            };
            let bot = author.contains("[bot]")
                || author.contains("bot") && author.contains('-')
                || author.starts_with("dependabot")
                || author.starts_with("renovate");
            let text = format!("{} {}", it.title, it.text).to_lowercase();
            (rule.kinds.is_empty() || rule.kinds.contains(&it.kind()))
                && (rule.events.is_empty()
                    || rule.events.iter().any(|e| happened.contains(e.as_str())))
                && (rule.labels.is_empty()
                    || rule
                        .labels
                        .iter()
                        .any(|l| it.labels.contains(&l.to_lowercase())))
                && rule.min_importance.is_none_or(|m| f64::from(imp) >= m)
                && match &rule.keywords {
                    Keywords::Any => true,
                    Keywords::Words(w) => w.iter().any(|w| text.contains(w.as_str())),
                    Keywords::Repository => unreachable!(),
                }
                && (rule.include_bots || !bot)
                && (rule.authors.is_empty() || rule.authors.iter().any(|p| like(p)))
                && !rule.exclude_authors.iter().any(|p| like(p))
        }

        proptest! {
            #[test]
            fn messages_hold_exactly_what_the_reference_selects(
                items in proptest::collection::vec(arb_item(), 0..12),
                rules in proptest::collection::vec(arb_rule(), 1..4),
            ) {
                let group = Group { id: "g".into(), name: "G".into() };
                let r = repo();
                let weights = Weights::default();
                let at: Timestamp = "2026-11-21T00:00:00Z".parse().unwrap();
                let mut snaps = Vec::new();
                let mut events = Vec::new();
                for (i, (mut it, obs)) in items.into_iter().enumerate() {
                    it.key = format!("{i:02}");
                    let id = it.id(Source::Github);
                    events.push(ItemEvent { item_id: id.clone(), observation: obs });
                    snaps.push((id, it));
                }
                let rules: Vec<Rule> = rules
                    .into_iter()
                    .enumerate()
                    .map(|(i, r)| Rule { name: format!("r{i}"), ..r })
                    .collect();
                let refs: Vec<RuleRef<'_>> =
                    rules.iter().map(|rule| RuleRef { rule, held: false }).collect();
                let input = RunInput {
                    group: &group, repo: &r, repo_url: "https://github.com/o/n",
                    collected_at: at, first_run: false, events: &events,
                    snapshots: &snaps, weights: &weights, link: None,
                };
                let out = messages(&refs, &input);
                for rule in &rules {
                    let want: BTreeSet<String> = events
                        .iter()
                        .zip(&snaps)
                        .filter(|(e, (_, it))| {
                            reference(rule, it, &e.observation, score(it, at, &weights).total)
                        })
                        .map(|(e, _)| e.item_id.clone())
                        .collect();
                    let got: Vec<&Outgoing> = out.iter().filter(|o| o.rule == rule.name).collect();
                    if want.is_empty() {
                        prop_assert!(got.is_empty());
                    } else {
                        prop_assert_eq!(got.len(), 1);
                        let ids: BTreeSet<String> = got[0]
                            .payload
                            .signals
                            .iter()
                            .map(|s| s.signal.id.clone())
                            .collect();
                        prop_assert_eq!(ids, want);
                    }
                }
            }
        }
    }
}
