//! Whole owners (issue 20): which repositories of an organisation, user or
//! GitLab group a configured group tracks, from the host's listing of them.
//!
//! Pure: a listing and what the store knew go in, the owner's repositories
//! with their new states come out. The host crates list, the store keeps
//! the states, the binary glues them.
//!
//! A repository listed by an owner is tracked once it passes the group's
//! filter (archived repositories and forks are left out unless included,
//! `exclude` names others), and keeps the id it was given then for good:
//! its history is addressed by it. A tracked repository the listing no
//! longer holds is [`State::Gone`], never deleted; one that the filter now
//! leaves out (archived since) takes the filter's reason. Only
//! repositories tracked at some point are kept, so an organisation's
//! hundreds of forks cost no rows.

use std::collections::{BTreeMap, HashSet};

use jiff::Timestamp;

use crate::model::{RepoName, slugify};

/// One repository of an owner's listing, as the host described it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Its `owner/name` on the host (GitLab: the full path).
    pub full_name: RepoName,
    /// Archived (read-only) on the host.
    pub archived: bool,
    /// A fork of another repository.
    pub fork: bool,
    /// The host's numeric id of the repository, which a rename keeps
    /// (`None` when the entry had none the client could read).
    pub host_id: Option<u64>,
}

/// What a group takes from its owners' listings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Track archived repositories too.
    pub include_archived: bool,
    /// Track forks too.
    pub include_forks: bool,
    /// Repositories never tracked: `owner/name`, or a bare name matching
    /// that name under any owner (ASCII case ignored, as hosts do).
    pub exclude: Vec<String>,
}

impl Filter {
    /// True when `exclude` names `repo`.
    pub fn excludes(&self, repo: &RepoName) -> bool {
        let full = repo.to_string();
        self.exclude.iter().any(|e| {
            let e = e.trim().trim_matches('/');
            if e.contains('/') {
                e.eq_ignore_ascii_case(&full)
            } else {
                e.eq_ignore_ascii_case(repo.name())
            }
        })
    }

    /// The state a listed repository takes: tracked, or why it is left out.
    pub fn judge(&self, listed: &Listed) -> State {
        if self.excludes(&listed.full_name) {
            State::Excluded
        } else if listed.archived && !self.include_archived {
            State::Archived
        } else if listed.fork && !self.include_forks {
            State::Fork
        } else {
            State::Tracked
        }
    }
}

/// Where a repository found through an owner stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum State {
    /// Listed and collected at each run.
    Tracked,
    /// No longer listed by its owner (deleted, made private, transferred or
    /// renamed): not collected; its history stays.
    Gone,
    /// Archived on the host, and the group does not include archived ones.
    Archived,
    /// A fork, and the group does not include forks.
    Fork,
    /// Named by the group's `exclude`, or listed in its `repos` (collected
    /// as configured there).
    Excluded,
}

impl State {
    /// The name stored and shown (`tracked`, `gone`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            State::Tracked => "tracked",
            State::Gone => "gone",
            State::Archived => "archived",
            State::Fork => "fork",
            State::Excluded => "excluded",
        }
    }

    /// The state a stored name stands for.
    pub fn parse(s: &str) -> Option<State> {
        Some(match s {
            "tracked" => State::Tracked,
            "gone" => State::Gone,
            "archived" => State::Archived,
            "fork" => State::Fork,
            "excluded" => State::Excluded,
            _ => return None,
        })
    }
}

/// A repository of an owner that the group tracks or once tracked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    /// Its `owner/name` on the host, as last listed.
    pub full_name: RepoName,
    /// Its repository id in the group, given when it was first tracked.
    pub repo_id: String,
    /// Where it stands.
    pub state: State,
    /// When it took that state.
    pub since: Timestamp,
    /// When it was first tracked.
    pub first_seen: Timestamp,
    /// The host's numeric id, as last listed (`None` for a row stored
    /// before listings were read for it, until its next listing).
    pub host_id: Option<u64>,
    /// The name it was first tracked under, when the host has renamed it
    /// since (`None`: `full_name`): its signal ids keep that name, so its
    /// history goes on, while the host is asked under `full_name`.
    pub tracked_as: Option<RepoName>,
    /// When a listing last found it under a new name.
    pub renamed_at: Option<Timestamp>,
}

impl Known {
    /// The name its signal ids and its stored repository use: the one it
    /// was first tracked under.
    pub fn ids_name(&self) -> &RepoName {
        self.tracked_as.as_ref().unwrap_or(&self.full_name)
    }
}

/// Applies one listing of an owner to what was known of it.
///
/// `known` are the owner's stored repositories; `configured` says whether
/// the group's `repos` already lists a repository, or uses an id (the
/// repository is then collected under that entry, or would clash with it,
/// so it is not collected through the owner); `taken` holds every
/// repository id of the group in use (its configured ids, and the ids of
/// all its owners' known repositories), so a new repository gets a free
/// one: its name's slug, else `<owner>-<name>`, else a number appended.
/// Returns every repository of the owner to keep, by full name
/// (case-insensitively ordered).
pub fn apply(
    known: &[Known],
    listed: &[Listed],
    filter: &Filter,
    configured: &dyn Fn(&RepoName, Option<&str>) -> bool,
    taken: &HashSet<String>,
    at: Timestamp,
) -> Vec<Known> {
    let key = |n: &RepoName| n.to_string().to_ascii_lowercase();
    let mut out: BTreeMap<String, Known> = known
        .iter()
        .map(|k| (key(&k.full_name), k.clone()))
        .collect();
    let mut taken = taken.clone();
    taken.extend(known.iter().map(|k| k.repo_id.clone()));
    let mut seen = HashSet::new();
    let mut listed: Vec<&Listed> = listed.iter().collect();
    listed.sort_by_key(|l| key(&l.full_name));
    for l in listed {
        let k = key(&l.full_name);
        if !seen.insert(k.clone()) {
            continue;
        }
        let id = out.get(&k).map(|e| e.repo_id.as_str());
        let state = if configured(&l.full_name, id) {
            State::Excluded
        } else {
            filter.judge(l)
        };
        match out.get_mut(&k) {
            Some(entry) => {
                entry.full_name = l.full_name.clone();
                entry.host_id = l.host_id.or(entry.host_id);
                if entry.state != state {
                    entry.state = state;
                    entry.since = at;
                }
            }
            None if state == State::Tracked => {
                let repo_id = fresh_id(&l.full_name, &taken);
                taken.insert(repo_id.clone());
                out.insert(
                    k,
                    Known {
                        full_name: l.full_name.clone(),
                        repo_id,
                        state,
                        since: at,
                        first_seen: at,
                        host_id: l.host_id,
                        tracked_as: None,
                        renamed_at: None,
                    },
                );
            }
            None => {}
        }
    }
    for (k, entry) in &mut out {
        if !seen.contains(k) && entry.state != State::Gone {
            entry.state = State::Gone;
            entry.since = at;
        }
    }
    out.into_values().collect()
}

/// A repository id for `repo` that `taken` does not hold.
fn fresh_id(repo: &RepoName, taken: &HashSet<String>) -> String {
    let plain = slugify(repo.name());
    let plain = if plain.is_empty() {
        "repo".to_string()
    } else {
        plain
    };
    if !taken.contains(&plain) {
        return plain;
    }
    let owned = slugify(&format!("{}-{}", repo.owner(), repo.name()));
    if !owned.is_empty() && !taken.contains(&owned) {
        return owned;
    }
    (2..)
        .map(|n| format!("{plain}-{n}"))
        .find(|id| !taken.contains(id))
        .unwrap_or(plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(name: &str, archived: bool, fork: bool) -> Listed {
        Listed {
            full_name: RepoName::parse(name).unwrap(),
            archived,
            fork,
            host_id: None,
        }
    }

    fn t(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn states(known: &[Known]) -> Vec<(String, &str, &str)> {
        known
            .iter()
            .map(|k| {
                (
                    k.full_name.to_string(),
                    k.repo_id.as_str(),
                    k.state.as_str(),
                )
            })
            .collect()
    }

    #[test]
    fn new_archived_removed_and_back() {
        let f = Filter::default();
        let none = |_: &RepoName, _: Option<&str>| false;
        let t1 = t("2026-01-01T00:00:00Z");
        let first = apply(
            &[],
            &[
                listed("org/a", false, false),
                listed("org/b", false, false),
                listed("org/old", true, false),
                listed("org/copy", false, true),
            ],
            &f,
            &none,
            &HashSet::new(),
            t1,
        );
        assert_eq!(
            states(&first),
            vec![
                ("org/a".into(), "a", "tracked"),
                ("org/b".into(), "b", "tracked"),
            ]
        );
        let t2 = t("2026-01-02T00:00:00Z");
        let second = apply(
            &first,
            &[listed("org/B", true, false), listed("org/c", false, false)],
            &f,
            &none,
            &HashSet::new(),
            t2,
        );
        assert_eq!(
            states(&second),
            vec![
                ("org/a".into(), "a", "gone"),
                ("org/B".into(), "b", "archived"),
                ("org/c".into(), "c", "tracked"),
            ]
        );
        assert_eq!(second[0].since, t2);
        assert_eq!(second[0].first_seen, t1);
        // Back again: tracked under the id it had.
        let third = apply(
            &second,
            &[listed("org/a", false, false), listed("org/c", false, false)],
            &f,
            &none,
            &HashSet::new(),
            t("2026-01-03T00:00:00Z"),
        );
        assert_eq!(third[0].state, State::Tracked);
        assert_eq!(third[0].repo_id, "a");
        // Unchanged states keep their instant.
        assert_eq!((third[2].state, third[2].since), (State::Tracked, t2));
    }

    #[test]
    fn filters_exclusions_and_configured() {
        let f = Filter {
            include_archived: true,
            include_forks: true,
            exclude: vec!["org/skip".into(), "Docs".into()],
        };
        let configured = |n: &RepoName, _: Option<&str>| n.name() == "mine";
        let out = apply(
            &[],
            &[
                listed("org/skip", false, false),
                listed("org/docs", false, false),
                listed("org/mine", false, false),
                listed("org/arch", true, false),
                listed("org/fork", false, true),
            ],
            &f,
            &configured,
            &HashSet::new(),
            t("2026-01-01T00:00:00Z"),
        );
        assert_eq!(
            states(&out),
            vec![
                ("org/arch".into(), "arch", "tracked"),
                ("org/fork".into(), "fork", "tracked"),
            ]
        );
    }

    #[test]
    fn a_configured_repository_takes_over() {
        let t1 = t("2026-01-01T00:00:00Z");
        let known = apply(
            &[],
            &[listed("org/a", false, false), listed("org/b", false, false)],
            &Filter::default(),
            &|_, _| false,
            &HashSet::new(),
            t1,
        );
        // Now `repos` lists org/a itself, and uses the id `b` for another
        // repository: neither is collected through the owner any more.
        let configured = |n: &RepoName, id: Option<&str>| n.name() == "a" || id == Some("b");
        let after = apply(
            &known,
            &[listed("org/a", false, false), listed("org/b", false, false)],
            &Filter::default(),
            &configured,
            &HashSet::new(),
            t("2026-01-02T00:00:00Z"),
        );
        assert_eq!(
            states(&after),
            vec![
                ("org/a".into(), "a", "excluded"),
                ("org/b".into(), "b", "excluded"),
            ]
        );
    }

    #[test]
    fn ids_never_collide() {
        let taken: HashSet<String> = ["tool".to_string(), "a-tool".to_string()].into();
        let out = apply(
            &[],
            &[
                listed("a/tool", false, false),
                listed("b/tool", false, false),
            ],
            &Filter::default(),
            &|_, _| false,
            &taken,
            t("2026-01-01T00:00:00Z"),
        );
        assert_eq!(
            states(&out),
            vec![
                ("a/tool".into(), "tool-2", "tracked"),
                ("b/tool".into(), "b-tool", "tracked"),
            ]
        );
        let nested = apply(
            &[],
            &[listed("gnome/sub/tool", false, false)],
            &Filter::default(),
            &|_, _| false,
            &taken,
            t("2026-01-01T00:00:00Z"),
        );
        assert_eq!(nested[0].repo_id, "gnome-sub-tool");
    }

    #[test]
    fn state_names_round_trip() {
        for s in [
            State::Tracked,
            State::Gone,
            State::Archived,
            State::Fork,
            State::Excluded,
        ] {
            assert_eq!(State::parse(s.as_str()), Some(s));
        }
        assert_eq!(State::parse("nope"), None);
    }
}
