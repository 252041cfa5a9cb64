//! The rule, trigger and message tests, over one repository and its items.

use jiff::Timestamp;

use super::*;
use crate::diff::{Observation, TrackedField};
use crate::importance::{Weights, score};
use crate::model::{
    Group, ItemDetail, ItemKind, ItemSnapshot, ItemState, Metrics, RepoName, Source, TrackedRepo,
};
use crate::run::ItemEvent;

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
        detail: ItemDetail::issue(),
    }
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
        association: None,
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
fn an_advisory_fires_once_per_publication_or_severity_change() {
    use crate::advisories::tests::advisory;
    use crate::model::Severity;
    let open = advisory("GHSA-1", Some(Severity::High), false);
    assert_eq!(
        triggers(&Observation::Discovered, &open),
        vec![Trigger::Advisory, Trigger::Discovered]
    );
    // Seen first withdrawn: no publication to tell.
    let withdrawn = advisory("GHSA-2", Some(Severity::Low), true);
    assert_eq!(
        triggers(&Observation::Discovered, &withdrawn),
        vec![Trigger::Discovered]
    );
    let severity = Observation::Changed(vec![TrackedField::UpdatedAt, TrackedField::Severity]);
    assert_eq!(
        triggers(&severity, &open),
        vec![Trigger::Advisory, Trigger::Changed]
    );
    // A CVE assigned, a score, a withdrawal: changes, not `advisory`.
    for fields in [
        vec![TrackedField::CveId],
        vec![TrackedField::CvssScore],
        vec![TrackedField::State],
    ] {
        let t = triggers(&Observation::Changed(fields), &withdrawn);
        assert!(!t.contains(&Trigger::Advisory), "{t:?}");
    }
    assert_eq!(Trigger::parse("advisory"), Some(Trigger::Advisory));
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
                    0 => ItemDetail::issue(),
                    1 => ItemDetail::PullRequest {
                        draft: false,
                        merged: flag && closed,
                        merged_at: None,
                        association: None,
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
                if f.contains(&TrackedField::State) && it.state == ItemState::Closed && !merged_pr {
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
            && (rule.events.is_empty() || rule.events.iter().any(|e| happened.contains(e.as_str())))
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
            /// A first run's summaries fed a chunk at a time (a staged
        /// run) are the messages of the whole run at once.
        #[test]
        fn summaries_by_chunks_are_the_whole_runs(
            items in proptest::collection::vec(arb_item(), 0..70),
            rules in proptest::collection::vec(arb_rule(), 1..4),
            chunk in 1usize..30,
        ) {
            let group = Group { id: "g".into(), name: "G".into() };
            let r = repo();
            let weights = Weights::default();
            let at: Timestamp = "2026-11-21T00:00:00Z".parse().unwrap();
            let mut snaps = Vec::new();
            let mut events = Vec::new();
            for (i, (mut it, _)) in items.into_iter().enumerate() {
                it.key = format!("{i:02}");
                let id = it.id(Source::Github);
                events.push(ItemEvent { item_id: id.clone(), observation: Observation::Discovered });
                snaps.push((id, it));
            }
            let rules: Vec<Rule> = rules
                .into_iter()
                .enumerate()
                .map(|(i, r)| Rule { name: format!("r{i}"), ..r })
                .collect();
            let refs: Vec<RuleRef<'_>> =
                rules.iter().enumerate().map(|(i, rule)| RuleRef { rule, held: i % 2 == 1 }).collect();
            let input = RunInput {
                group: &group, repo: &r, repo_url: "https://github.com/o/n",
                collected_at: at, first_run: true, events: &events,
                snapshots: &snaps, weights: &weights, link: Some("https://s.example/g/n/"),
            };
            let mut summaries = Summaries::new(&refs, &input);
            for (e, s) in events.chunks(chunk).zip(snaps.chunks(chunk)) {
                summaries.add(&RunInput { events: e, snapshots: s, ..input });
            }
            prop_assert_eq!(summaries.finish(&input), messages(&refs, &input));
        }
    }
}
