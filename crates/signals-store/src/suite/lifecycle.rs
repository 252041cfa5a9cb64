//! Checks of [`crate::LifecycleStore`]: a judgement kept after its run
//! is read back as the repository's latest with its messages in the
//! outbox, its changes in order, a run that does not judge leaves it as
//! it was, a purge takes it, and the maintainers' comments are read from
//! an instant on with their associations, as are the merges, one per
//! pull request.

use signals_core::lifecycle::contributors::Carriers;
use signals_core::lifecycle::verdict::{Asked, Commits, Record};
use signals_core::lifecycle::{Judgement, State};
use signals_core::model::{Comment, CommentKind, ItemKind, Merge};

use super::*;

/// A judgement of `state` at `at`, with commits asked then.
pub fn lifecycle_record(state: State, at: &str) -> Record {
    Record::after(
        None,
        Judgement {
            state,
            reasons: vec![],
        },
        ts(at),
        Carriers::default(),
        Some(Asked {
            at: ts(at),
            commits: Commits::Weeks {
                weeks: vec![1, 0, 2],
            },
        }),
    )
}

/// Commits a run at `at` and keeps `state` as its judgement, with
/// `messages`.
fn judged(store: &mut dyn Backend, key: RepoKey, at: &str, state: Option<State>) -> Option<Record> {
    let run = run_of(&*store, key, ts(at), vec![], 1);
    store.commit_run(key, &run).unwrap();
    let record = state.map(|s| lifecycle_record(s, at));
    if let Some(r) = &record {
        store.record_lifecycle(key, ts(at), r, &[]).unwrap();
    }
    record
}

/// The message of a rule that asks for `lifecycle`, about a change from
/// active to declining at `at`.
fn lifecycle_alert(at: &str) -> Vec<signals_core::notify::Outgoing> {
    use signals_core::notify::{LifecycleNote, Rule, RuleRef, RunInput, Trigger};
    let mut rule = Rule::any("lifecycle");
    rule.events = vec![Trigger::Lifecycle];
    let weights = signals_core::importance::Weights::default();
    let (group, repo) = (group(), tracked());
    let input = RunInput {
        group: &group,
        repo: &repo,
        repo_url: "https://github.com/o/n",
        collected_at: ts(at),
        first_run: false,
        events: &[],
        snapshots: &[],
        weights: &weights,
        link: None,
    };
    let note = LifecycleNote {
        from: State::Active,
        to: State::Declining,
        reasons: vec![],
    };
    let rules = [RuleRef {
        rule: &rule,
        held: false,
    }];
    signals_core::notify::lifecycle_messages(&rules, &input, &note, None)
}

pub fn lifecycle_is_kept_with_its_run_and_read_back(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    assert_eq!(store.lifecycle(key).unwrap(), None);
    assert!(store.lifecycle_changes(key).unwrap().is_empty());
    let first = judged(
        &mut *store,
        key,
        "2026-11-01T00:00:00Z",
        Some(State::Active),
    );
    // A run that does not judge.
    judged(&mut *store, key, "2026-11-01T06:00:00Z", None);
    assert_eq!(store.lifecycle(key).unwrap(), first);
    judged(
        &mut *store,
        key,
        "2026-11-02T00:00:00Z",
        Some(State::Active),
    );
    let at = "2026-11-03T00:00:00Z";
    let run = run_of(&*store, key, ts(at), vec![], 1);
    store.commit_run(key, &run).unwrap();
    let next = lifecycle_record(State::Declining, at);
    let messages = lifecycle_alert(at);
    store
        .record_lifecycle(key, ts(at), &next, &messages)
        .unwrap();
    assert_eq!(store.lifecycle(key).unwrap(), Some(next.clone()));
    let pending = store
        .outbox_messages(crate::MessageState::Pending, None)
        .unwrap();
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert_eq!(pending[0].delivery, messages[0].delivery);
    // A second judgement of the same run is refused, and changes nothing.
    assert!(store.record_lifecycle(key, ts(at), &next, &[]).is_err());
    // So is one of a run the store does not have.
    let nowhere = ts("2026-11-04T00:00:00Z");
    assert!(store.record_lifecycle(key, nowhere, &next, &[]).is_err());
    let changes = store.lifecycle_changes(key).unwrap();
    let seen: Vec<(Option<State>, State)> = changes.iter().map(|c| (c.from, c.to)).collect();
    assert_eq!(
        seen,
        [
            (None, State::Active),
            (Some(State::Active), State::Declining)
        ]
    );
    assert_eq!(changes[1].at, ts(at));
    store.purge_repository(key).unwrap();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    assert_eq!(store.lifecycle(key).unwrap(), None);
}

pub fn voices_are_read_from_an_instant_with_associations(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let comment = |host_id: &str, author: &str, association: Option<&str>, at: &str| Comment {
        kind: CommentKind::Review,
        host_id: host_id.into(),
        item_kind: ItemKind::PullRequest,
        item_key: "1".into(),
        author: author.into(),
        association: association.map(String::from),
        bot: author.ends_with("[bot]"),
        state: Some("APPROVED".into()),
        created_at: ts(at),
        updated_at: ts(at),
        body: String::new(),
    };
    let item = "github:o/n:pull:1".to_string();
    store
        .store_comments(
            key,
            &[
                (
                    item.clone(),
                    comment("1", "old", Some("MEMBER"), "2026-01-01T00:00:00Z"),
                ),
                (
                    item.clone(),
                    comment("2", "m", Some("OWNER"), "2026-11-01T00:00:00Z"),
                ),
                (
                    item.clone(),
                    comment("3", "ci[bot]", None, "2026-11-02T00:00:00Z"),
                ),
            ],
        )
        .unwrap();
    let voices = store.voices_since(key, ts("2026-10-01T00:00:00Z")).unwrap();
    let seen: Vec<(&str, Option<&str>, bool)> = voices
        .iter()
        .map(|v| (v.author.as_str(), v.association.as_deref(), v.bot))
        .collect();
    assert_eq!(seen, [("m", Some("OWNER"), false), ("ci[bot]", None, true)]);
    assert_eq!(voices[0].kind, CommentKind::Review);
    assert_eq!(voices[0].at, ts("2026-11-01T00:00:00Z"));
}

/// After a store from before the lifecycle's migration is migrated: its
/// runs stand, the repository has no lifecycle yet, and a judging run's
/// record is kept and read back.
pub fn lifecycle_after_migration(store: &mut dyn Backend, key: RepoKey) {
    assert_eq!(store.lifecycle(key).unwrap(), None);
    assert!(store.last_successful_run(key).unwrap().is_some());
    let record = judged(store, key, "2026-12-01T00:00:00Z", Some(State::Stable));
    assert_eq!(store.lifecycle(key).unwrap(), record);
}

/// A merge of pull request `key` by `by` at `at`.
pub fn merge_of(key: &str, by: &str, at: &str) -> Merge {
    Merge {
        item_key: key.into(),
        merged_by: by.into(),
        bot: by.ends_with("[bot]"),
        merged_at: ts(at),
    }
}

pub fn merges_are_kept_once_per_pull_and_read_from_an_instant(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    store.store_merges(key, &[]).unwrap();
    assert!(
        store
            .merges_since(key, ts("2000-01-01T00:00:00Z"))
            .unwrap()
            .is_empty()
    );
    store
        .store_merges(
            key,
            &[
                merge_of("1", "old", "2026-01-01T00:00:00Z"),
                merge_of("2", "m", "2026-11-02T00:00:00Z"),
                merge_of("3", "ci[bot]", "2026-11-01T00:00:00Z"),
                // The same pull request twice in one reading: the last
                // stands.
                merge_of("4", "x", "2026-11-03T00:00:00Z"),
                merge_of("4", "y", "2026-11-03T00:00:00Z"),
            ],
        )
        .unwrap();
    // A later reading of a pull request replaces the earlier.
    store
        .store_merges(key, &[merge_of("2", "n", "2026-11-02T00:00:00Z")])
        .unwrap();
    let got = store.merges_since(key, ts("2026-10-01T00:00:00Z")).unwrap();
    assert_eq!(
        got,
        [
            merge_of("3", "ci[bot]", "2026-11-01T00:00:00Z"),
            merge_of("2", "n", "2026-11-02T00:00:00Z"),
            merge_of("4", "y", "2026-11-03T00:00:00Z"),
        ]
    );
    assert!(got[0].bot);
    // Another repository's are its own; a purge takes them.
    let other_repo = TrackedRepo {
        id: "other".into(),
        repo: signals_core::RepoName::parse("o/other").unwrap(),
        ..tracked()
    };
    let other = store.ensure_repository(&group(), &other_repo).unwrap();
    assert!(
        store
            .merges_since(other, ts("2000-01-01T00:00:00Z"))
            .unwrap()
            .is_empty()
    );
    store.purge_repository(key).unwrap();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    assert!(
        store
            .merges_since(key, ts("2000-01-01T00:00:00Z"))
            .unwrap()
            .is_empty()
    );
}

/// After a store from before the merges' migration is migrated: its runs
/// stand, it has no merges, and a run's merges are kept and read back.
pub fn merges_after_migration(store: &mut dyn Backend, key: RepoKey) {
    assert!(store.last_successful_run(key).unwrap().is_some());
    let since = ts("2000-01-01T00:00:00Z");
    assert!(store.merges_since(key, since).unwrap().is_empty());
    let merge = merge_of("1", "m", "2026-11-02T00:00:00Z");
    store
        .store_merges(key, std::slice::from_ref(&merge))
        .unwrap();
    assert_eq!(store.merges_since(key, since).unwrap(), [merge]);
}
