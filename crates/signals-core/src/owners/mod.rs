//! Whole owners: which repositories of an organisation, user or
//! GitLab group a configured group tracks, from the host's listing of them.
//!
//! Pure: a listing and what the store knew go in, the owner's repositories
//! with their new states come out. The host crates list, the store keeps
//! the states, the binary glues them.
//!
//! A repository listed by an owner is tracked once it passes the group's
//! filter (archived repositories and forks are left out unless included,
//! `exclude` names others), and keeps the id it was given then for good:
//! its history is addressed by it. A repository renamed within its owner
//! is followed through the host's numeric id, which every host's listing
//! entry carries: it keeps its id and the name its signal ids use. A
//! tracked repository the listing no longer holds is [`State::Gone`],
//! never deleted; one that the filter now leaves out (archived since)
//! takes the filter's reason. Only repositories tracked at some point are
//! kept, so an organisation's hundreds of forks cost no rows.
//!
//! Here: the listing entry, the filter, the states and what is known of a
//! repository; [`apply`] and its matching of names and host ids in
//! `apply`.

mod apply;

use jiff::Timestamp;

use crate::model::RepoName;

pub use apply::apply;

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
    /// No longer listed by its owner (deleted, made private, transferred,
    /// or renamed without a host id to follow): not collected; its history
    /// stays.
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

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

    fn with_id(name: &str, id: u64) -> Listed {
        Listed {
            host_id: Some(id),
            ..listed(name, false, false)
        }
    }

    /// (full name, id, state, host id, ids name).
    fn follow(known: &[Known]) -> Vec<(String, &str, &str, Option<u64>, String)> {
        known
            .iter()
            .map(|k| {
                (
                    k.full_name.to_string(),
                    k.repo_id.as_str(),
                    k.state.as_str(),
                    k.host_id,
                    k.ids_name().to_string(),
                )
            })
            .collect()
    }

    fn run(known: &[Known], listing: &[Listed], at: Timestamp) -> Vec<Known> {
        apply(
            known,
            listing,
            &Filter::default(),
            &|_, _| false,
            &HashSet::new(),
            at,
        )
    }

    #[test]
    fn a_rename_within_the_owner_keeps_the_repository() {
        let (t1, t2) = (t("2026-01-01T00:00:00Z"), t("2026-01-02T00:00:00Z"));
        let first = run(&[], &[with_id("org/a", 1), with_id("org/b", 2)], t1);
        let second = run(&first, &[with_id("org/a", 1), with_id("org/bee", 2)], t2);
        assert_eq!(
            follow(&second),
            vec![
                ("org/a".into(), "a", "tracked", Some(1), "org/a".into()),
                ("org/bee".into(), "b", "tracked", Some(2), "org/b".into()),
            ]
        );
        let bee = &second[1];
        assert_eq!((bee.since, bee.first_seen), (t1, t1), "not a new state");
        assert_eq!(bee.renamed_at, Some(t2));
        // Renamed again: the ids keep the first name.
        let t3 = t("2026-01-03T00:00:00Z");
        let third = run(&second, &[with_id("org/a", 1), with_id("org/c", 2)], t3);
        assert_eq!(third[1].full_name.to_string(), "org/c");
        assert_eq!(third[1].ids_name().to_string(), "org/b");
        assert_eq!(
            (third[1].repo_id.as_str(), third[1].renamed_at),
            ("b", Some(t3))
        );
        // And back to the first name: nothing is left to say.
        let fourth = run(&third, &[with_id("org/a", 1), with_id("org/b", 2)], t3);
        assert_eq!(
            (fourth[1].tracked_as.clone(), fourth[1].renamed_at),
            (None, None)
        );
        assert_eq!(fourth[1].repo_id, "b");
    }

    #[test]
    fn a_rename_that_archives_is_judged_under_the_new_name() {
        let t1 = t("2026-01-01T00:00:00Z");
        let first = run(&[], &[with_id("org/a", 1)], t1);
        let t2 = t("2026-01-02T00:00:00Z");
        let archived = Listed {
            archived: true,
            ..with_id("org/a-legacy", 1)
        };
        let second = run(&first, &[archived], t2);
        assert_eq!(
            follow(&second),
            vec![(
                "org/a-legacy".into(),
                "a",
                "archived",
                Some(1),
                "org/a".into()
            )]
        );
        assert_eq!((second[0].since, second[0].first_seen), (t2, t1));
        // The group's `exclude` names the new name: excluded, not gone.
        let f = Filter {
            exclude: vec!["a-legacy".into()],
            ..Filter::default()
        };
        let excluded = apply(
            &first,
            &[with_id("org/a-legacy", 1)],
            &f,
            &|_, _| false,
            &HashSet::new(),
            t2,
        );
        assert_eq!(excluded[0].state, State::Excluded);
        assert_eq!(excluded[0].repo_id, "a");
    }

    #[test]
    fn rows_without_a_host_id_pick_it_up_by_name() {
        let t1 = t("2026-01-01T00:00:00Z");
        // As stored before host ids were read.
        let first = run(&[], &[listed("org/a", false, false)], t1);
        assert_eq!(first[0].host_id, None);
        let second = run(&first, &[with_id("org/a", 7)], t1);
        assert_eq!(
            follow(&second),
            vec![("org/a".into(), "a", "tracked", Some(7), "org/a".into())]
        );
        // A listing without ids keeps the one known.
        let third = run(&second, &[listed("org/a", false, false)], t1);
        assert_eq!(third[0].host_id, Some(7));
        // Without an id on either side, a rename cannot be followed.
        let fourth = run(&first, &[listed("org/b", false, false)], t1);
        assert_eq!(
            states(&fourth),
            vec![
                ("org/a".into(), "a", "gone"),
                ("org/b".into(), "b", "tracked")
            ]
        );
    }

    #[test]
    fn a_host_id_under_another_name_while_the_old_name_is_listed_is_another_repository() {
        let t1 = t("2026-01-01T00:00:00Z");
        let first = run(&[], &[with_id("org/a", 5)], t1);
        // The same id under a second name (a host reusing ids, or a
        // listing that repeats one), while org/a is still listed with it.
        let second = run(&first, &[with_id("org/a", 5), with_id("org/x", 5)], t1);
        assert_eq!(
            follow(&second),
            vec![
                ("org/a".into(), "a", "tracked", Some(5), "org/a".into()),
                ("org/x".into(), "x", "tracked", Some(5), "org/x".into()),
            ]
        );
        // org/a listed without an id still holds its name.
        let third = run(
            &first,
            &[listed("org/a", false, false), with_id("org/y", 5)],
            t1,
        );
        assert_eq!(
            states(&third),
            vec![
                ("org/a".into(), "a", "tracked"),
                ("org/y".into(), "y", "tracked")
            ]
        );
        // Two new names carrying the old id: which one is it? Neither.
        let fourth = run(&first, &[with_id("org/p", 5), with_id("org/q", 5)], t1);
        assert_eq!(
            states(&fourth),
            vec![
                ("org/a".into(), "a", "gone"),
                ("org/p".into(), "p", "tracked"),
                ("org/q".into(), "q", "tracked"),
            ]
        );
    }

    #[test]
    fn two_repositories_swapping_names_keep_their_ids() {
        let t1 = t("2026-01-01T00:00:00Z");
        let first = run(&[], &[with_id("org/a", 1), with_id("org/b", 2)], t1);
        let t2 = t("2026-01-02T00:00:00Z");
        let second = run(&first, &[with_id("org/a", 2), with_id("org/b", 1)], t2);
        assert_eq!(
            follow(&second),
            vec![
                ("org/a".into(), "b", "tracked", Some(2), "org/b".into()),
                ("org/b".into(), "a", "tracked", Some(1), "org/a".into()),
            ]
        );
        assert!(
            second
                .iter()
                .all(|k| k.renamed_at == Some(t2) && k.since == t1)
        );
    }

    #[test]
    fn a_rename_onto_a_gone_repositorys_name_and_a_new_one_under_the_old_name() {
        let t1 = t("2026-01-01T00:00:00Z");
        let first = run(&[], &[with_id("org/a", 1), with_id("org/b", 2)], t1);
        // org/b deleted, then org/a renamed to org/b, and a new org/a
        // created: three repositories, each under its own id.
        let t2 = t("2026-01-02T00:00:00Z");
        let second = run(&first, &[with_id("org/b", 1), with_id("org/a", 3)], t2);
        assert_eq!(
            follow(&second),
            vec![
                ("org/a".into(), "org-a", "tracked", Some(3), "org/a".into()),
                ("org/b".into(), "a", "tracked", Some(1), "org/a".into()),
                ("org/b".into(), "b", "gone", Some(2), "org/b".into()),
            ]
        );
        // The next listing keeps them apart by host id.
        let third = run(&second, &[with_id("org/b", 1), with_id("org/a", 3)], t2);
        assert_eq!(follow(&third), follow(&second));
    }

    #[test]
    fn a_letter_case_change_keeps_the_ids_name() {
        let t1 = t("2026-01-01T00:00:00Z");
        let first = run(&[], &[with_id("org/Tool", 1)], t1);
        let second = run(&first, &[with_id("org/tool", 1)], t1);
        assert_eq!(
            follow(&second),
            vec![(
                "org/tool".into(),
                "tool",
                "tracked",
                Some(1),
                "org/Tool".into()
            )]
        );
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
