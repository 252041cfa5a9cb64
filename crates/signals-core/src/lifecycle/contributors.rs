//! Who carries a repository, from what the store already holds: its
//! active maintainers and how few of them do half their work (the
//! dependency, the "lottery factor"), and, per week, its new and
//! returning contributors ([`WeeklyContributors`]). Pure.
//!
//! A contributor is the author of an issue, a pull request, a comment, a
//! review or a review comment who is no bot and not in `ignore_users`;
//! pending reviews and discussions do not count.

use std::collections::{BTreeMap, HashMap};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::model::{CommentKind, Merge, is_bot_login};

/// The associations that make an account a maintainer.
pub const MAINTAINER: [&str; 3] = ["OWNER", "MEMBER", "COLLABORATOR"];

/// GitHub's associations of a first contribution.
pub const FIRST_TIME: [&str; 2] = ["FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER"];

/// A comment or review as the maintainers' count reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Voice {
    /// What it is.
    pub kind: CommentKind,
    /// Its author.
    pub author: String,
    /// The host's association of the author (GitHub), when given.
    pub association: Option<String>,
    /// The host says the author is a bot.
    pub bot: bool,
    /// A review's state.
    pub state: Option<String>,
    /// When it was written.
    pub at: Timestamp,
}

/// The author of a contribution, as the host tells it.
#[derive(Debug, Clone, Copy)]
pub struct Author<'a> {
    /// The login (empty for a deleted account).
    pub login: &'a str,
    /// The host says it is a bot.
    pub bot: bool,
}

/// True when `author` is a contributor: a person (no bot, by the host's
/// word or a `[bot]` login) not in `ignore_users` (case-insensitive),
/// with a login (deleted accounts have none).
pub fn is_contributor(author: Author<'_>, ignore_users: &[String]) -> bool {
    let login = author.login;
    !login.is_empty()
        && !author.bot
        && !is_bot_login(login)
        && !ignore_users.iter().any(|u| u.eq_ignore_ascii_case(login))
}

/// True when a review's state leaves it out (a pending review is not
/// published).
pub fn is_pending(state: Option<&str>) -> bool {
    state.is_some_and(|s| s.eq_ignore_ascii_case("PENDING"))
}

/// How few people did half of the maintainers' work.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dependency {
    /// How many.
    pub count: u64,
    /// Who, most work first (ties by login).
    pub logins: Vec<String>,
}

/// Who carries a repository over the last `answer_days` days.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Carriers {
    /// Maintainers (`OWNER`, `MEMBER`, `COLLABORATOR`) who commented,
    /// reviewed or merged, by login.
    pub active_maintainers: Vec<String>,
    /// The fewest of them who wrote half their comments and reviews.
    pub dependency: Dependency,
}

/// The maintainers among `voices` written at or after `since`, and the
/// dependency on them. The people of `merges` at or after `since` are
/// active too: the host names no association of a merger, but merging
/// takes write access, which is what a maintainer's association says.
/// A merge counts as activity, not as work: the dependency reads the
/// comments and reviews only.
pub fn carriers(
    voices: &[Voice],
    merges: &[Merge],
    ignore_users: &[String],
    since: Timestamp,
) -> Carriers {
    let mut work: HashMap<&str, u64> = HashMap::new();
    for v in voices {
        let maintainer = v
            .association
            .as_deref()
            .is_some_and(|a| MAINTAINER.contains(&a));
        if v.at >= since
            && maintainer
            && !is_pending(v.state.as_deref())
            && is_contributor(
                Author {
                    login: &v.author,
                    bot: v.bot,
                },
                ignore_users,
            )
        {
            *work.entry(v.author.as_str()).or_default() += 1;
        }
    }
    let mut ranked: Vec<(&str, u64)> = work.iter().map(|(a, n)| (*a, *n)).collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let total: u64 = ranked.iter().map(|r| r.1).sum();
    let mut logins = Vec::new();
    let mut done = 0u64;
    for (login, n) in &ranked {
        if done * 2 >= total {
            break;
        }
        done += n;
        logins.push(login.to_string());
    }
    let mut active: Vec<String> = work.keys().map(|s| s.to_string()).collect();
    for m in merges.iter().filter(|m| m.merged_at >= since) {
        let person = Author {
            login: &m.merged_by,
            bot: m.bot,
        };
        if is_contributor(person, ignore_users) && !active.contains(&m.merged_by) {
            active.push(m.merged_by.clone());
        }
    }
    active.sort();
    Carriers {
        active_maintainers: active,
        dependency: Dependency {
            count: logins.len() as u64,
            logins,
        },
    }
}

/// Where a week's new contributors come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ContributorsSource {
    /// Each person's first contribution in the store: the store reaches
    /// back to the repository's creation.
    History,
    /// The store does not reach back so far: new are the authors of the
    /// week's pull requests whose association is a first contribution.
    Association,
}

/// One week's counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WeekContributors {
    /// People whose first contribution falls in the week.
    pub new: u64,
    /// People who contributed in the week and in some week before.
    pub returning: u64,
}

/// New and returning contributors of `weeks` consecutive weeks from
/// `first` (a Monday), fed one contribution at a time in any order: holds
/// one entry per person, never the contributions.
#[derive(Debug, Clone)]
pub struct WeeklyContributors {
    first: Timestamp,
    weeks: usize,
    end: Timestamp,
    /// Per login: the first contribution seen, and the weeks (bits) of
    /// the span with one.
    people: BTreeMap<String, (Timestamp, u64)>,
    /// Per week: pull request authors the host called first-timers.
    first_timers: Vec<Vec<String>>,
}

const WEEK_SECS: i64 = 7 * 24 * 3600;

impl WeeklyContributors {
    /// The span of `weeks` weeks (at most 64) from `first`, contributions
    /// after `end` left out.
    pub fn new(first: Timestamp, weeks: usize, end: Timestamp) -> WeeklyContributors {
        let weeks = weeks.min(64);
        WeeklyContributors {
            first,
            weeks,
            end,
            people: BTreeMap::new(),
            first_timers: vec![Vec::new(); weeks],
        }
    }

    fn week_of(&self, at: Timestamp) -> Option<usize> {
        if at < self.first || at > self.end {
            return None;
        }
        let w = at.duration_since(self.first).as_secs() / WEEK_SECS;
        usize::try_from(w).ok().filter(|w| *w < self.weeks)
    }

    /// One contribution of `login` at `at` (the caller has checked
    /// [`is_contributor`]).
    pub fn add(&mut self, login: &str, at: Timestamp) {
        if at > self.end {
            return;
        }
        let week = self.week_of(at);
        let entry = self.people.entry(login.to_string()).or_insert((at, 0));
        entry.0 = entry.0.min(at);
        if let Some(w) = week {
            entry.1 |= 1 << w;
        }
    }

    /// A pull request opened at `at` by `login`, with the host's
    /// association of its author: a first-timer counts as new where the
    /// history does not reach back.
    pub fn add_pull(&mut self, login: &str, at: Timestamp, association: Option<&str>) {
        self.add(login, at);
        if association.is_some_and(|a| FIRST_TIME.contains(&a))
            && let Some(w) = self.week_of(at)
            && !self.first_timers[w].iter().any(|l| l == login)
        {
            self.first_timers[w].push(login.to_string());
        }
    }

    /// The weeks' counts, oldest first; `source` says how new ones are
    /// told.
    pub fn finish(&self, source: ContributorsSource) -> Vec<WeekContributors> {
        let mut out = vec![WeekContributors::default(); self.weeks];
        for (first, weeks) in self.people.values() {
            let first_week = self.week_of(*first);
            for (w, week) in out.iter_mut().enumerate() {
                if weeks & (1 << w) == 0 {
                    continue;
                }
                if first_week == Some(w) {
                    if source == ContributorsSource::History {
                        week.new += 1;
                    }
                } else {
                    week.returning += 1;
                }
            }
        }
        if source == ContributorsSource::Association {
            for (w, week) in out.iter_mut().enumerate() {
                week.new = self.first_timers[w].len() as u64;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn voice(author: &str, association: &str, when: &str) -> Voice {
        Voice {
            kind: CommentKind::Comment,
            author: author.into(),
            association: Some(association.into()),
            bot: false,
            state: None,
            at: at(when),
        }
    }

    #[test]
    fn maintainers_are_owners_members_and_collaborators_who_spoke_lately() {
        let mut pending = voice("p", "MEMBER", "2026-11-01T00:00:00Z");
        pending.kind = CommentKind::Review;
        pending.state = Some("PENDING".into());
        let mut bot = voice("ci", "MEMBER", "2026-11-01T00:00:00Z");
        bot.bot = true;
        let voices = vec![
            voice("a", "OWNER", "2026-11-01T00:00:00Z"),
            voice("b", "COLLABORATOR", "2026-11-02T00:00:00Z"),
            voice("old", "MEMBER", "2026-01-01T00:00:00Z"),
            voice("c", "CONTRIBUTOR", "2026-11-02T00:00:00Z"),
            voice("ignored", "MEMBER", "2026-11-02T00:00:00Z"),
            pending,
            bot,
        ];
        let merge = |by: &str, when: &str| Merge {
            item_key: "7".into(),
            merged_by: by.into(),
            bot: false,
            merged_at: at(when),
        };
        let merges = [
            merge("merger", "2026-10-01T00:00:00Z"),
            merge("a", "2026-10-01T00:00:00Z"),
            merge("long-ago", "2026-08-01T00:00:00Z"),
            merge("ci[bot]", "2026-10-01T00:00:00Z"),
            merge("ignored", "2026-10-01T00:00:00Z"),
        ];
        let got = carriers(
            &voices,
            &merges,
            &["IGNORED".into()],
            at("2026-09-01T00:00:00Z"),
        );
        // A merger is active, once; not one who merged before `since`, a
        // bot, or someone ignored. Merges are no work: the dependency
        // reads only comments and reviews.
        assert_eq!(got.active_maintainers, ["a", "b", "merger"]);
        assert_eq!(got.dependency.logins, ["a"]);
    }

    #[test]
    fn the_dependency_is_the_fewest_who_did_half() {
        let mut voices = Vec::new();
        for (who, n) in [("a", 5), ("b", 3), ("c", 1), ("d", 1)] {
            for _ in 0..n {
                voices.push(voice(who, "MEMBER", "2026-11-01T00:00:00Z"));
            }
        }
        let got = carriers(&voices, &[], &[], at("2026-10-01T00:00:00Z"));
        // 10 in all: a alone wrote 5, half.
        assert_eq!(got.dependency.count, 1);
        assert_eq!(got.dependency.logins, ["a"]);
        voices.push(voice("b", "MEMBER", "2026-11-01T00:00:00Z"));
        let got = carriers(&voices, &[], &[], at("2026-10-01T00:00:00Z"));
        // 11 in all: a's 5 is under half; a and b.
        assert_eq!(got.dependency.logins, ["a", "b"]);
        let none = carriers(&[], &[], &[], at("2026-10-01T00:00:00Z"));
        assert_eq!(none.dependency, Dependency::default());
    }

    #[test]
    fn new_and_returning_are_counted_once_per_person_and_week() {
        let first = at("2026-10-05T00:00:00Z");
        let mut t = WeeklyContributors::new(first, 3, at("2026-10-25T00:00:00Z"));
        t.add("old", at("2026-01-01T00:00:00Z"));
        t.add("old", at("2026-10-06T00:00:00Z"));
        t.add("new", at("2026-10-06T00:00:00Z"));
        t.add("new", at("2026-10-07T00:00:00Z"));
        t.add("new", at("2026-10-13T00:00:00Z"));
        t.add("late", at("2026-10-20T00:00:00Z"));
        t.add("future", at("2026-12-20T00:00:00Z"));
        let got = t.finish(ContributorsSource::History);
        assert_eq!(
            got[0],
            WeekContributors {
                new: 1,
                returning: 1
            }
        );
        assert_eq!(
            got[1],
            WeekContributors {
                new: 0,
                returning: 1
            }
        );
        assert_eq!(
            got[2],
            WeekContributors {
                new: 1,
                returning: 0
            }
        );
    }

    #[test]
    fn without_history_first_timers_are_the_new_ones() {
        let first = at("2026-10-05T00:00:00Z");
        let mut t = WeeklyContributors::new(first, 1, at("2026-10-11T00:00:00Z"));
        t.add_pull(
            "x",
            at("2026-10-06T00:00:00Z"),
            Some("FIRST_TIME_CONTRIBUTOR"),
        );
        t.add_pull("y", at("2026-10-06T00:00:00Z"), Some("CONTRIBUTOR"));
        let got = t.finish(ContributorsSource::Association);
        assert_eq!(got[0].new, 1);
        assert_eq!(t.finish(ContributorsSource::History)[0].new, 2);
    }
}
