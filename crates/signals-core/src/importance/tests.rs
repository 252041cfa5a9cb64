//! The importance rules, term by term.
use super::*;
use crate::model::{Metrics, RepoName};
use proptest::prelude::*;

const NOW: i64 = 1_800_000_000;

fn item(
    labels: Vec<String>,
    reactions: u64,
    comments: u64,
    state: ItemState,
    age_s: i64,
    detail: ItemDetail,
) -> ItemSnapshot {
    ItemSnapshot {
        repo: RepoName::parse("o/n").unwrap(),
        key: "1".into(),
        title: "t".into(),
        text: String::new(),
        url: "https://github.com/o/n/issues/1".into(),
        created_at: Timestamp::from_second(NOW - age_s - 1000).unwrap(),
        updated_at: Timestamp::from_second(NOW - age_s).unwrap(),
        metrics: Metrics {
            reactions,
            comments,
        },
        labels,
        author: "a".into(),
        state,
        closed_at: None,
        assignees: vec![],
        detail,
    }
}

fn now() -> Timestamp {
    Timestamp::from_second(NOW).unwrap()
}

fn total(i: &ItemSnapshot, w: &Weights) -> u32 {
    score(i, now(), w).total
}

fn arb_detail() -> impl Strategy<Value = ItemDetail> {
    prop_oneof![
        Just(ItemDetail::issue()),
        (any::<bool>(), any::<bool>()).prop_map(|(draft, merged)| {
            ItemDetail::PullRequest {
                draft,
                merged,
                merged_at: None,
                association: None,
            }
        }),
        any::<bool>().prop_map(|prerelease| ItemDetail::Release {
            prerelease,
            published_at: Timestamp::from_second(NOW).unwrap(),
        }),
        any::<bool>().prop_map(|answered| ItemDetail::Discussion {
            category: "Q&A".to_string(),
            answered,
        }),
        (0usize..5).prop_map(|s| ItemDetail::Advisory {
            severity: Severity::ALL.get(s).copied(),
            cvss_score: None,
            cve_id: None,
            published_at: Timestamp::from_second(NOW).unwrap(),
            withdrawn_at: None,
        }),
    ]
}

fn arb_label() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("bug".to_string()),
        Just("Regression".to_string()),
        Just("high_priority".to_string()),
        Just("has repro".to_string()),
        Just("duplicate".to_string()),
        Just("invalid".to_string()),
        Just("stale".to_string()),
        Just("enhancement".to_string()),
        "[a-z:]{1,12}",
    ]
}

fn arb_state() -> impl Strategy<Value = ItemState> {
    prop_oneof![Just(ItemState::Open), Just(ItemState::Closed)]
}

prop_compose! {
    fn arb_item()(
        labels in prop::collection::vec(arb_label(), 0..5),
        reactions in 0u64..100_000,
        comments in 0u64..100_000,
        state in arb_state(),
        age_s in 0i64..400 * 86_400,
        detail in arb_detail(),
    ) -> ItemSnapshot {
        item(labels, reactions, comments, state, age_s, detail)
    }
}

// Valid weights: non-negative where the rule needs it, any sign elsewhere.
prop_compose! {
    fn arb_weights()(
        bases in prop::array::uniform8(-20.0f64..20.0),
        non_neg in prop::array::uniform4(0.0f64..20.0),
        severities in prop::array::uniform4(0.0f64..20.0),
        half_life_hours in 0.1f64..1000.0,
        labels in prop::collection::btree_map("[a-z]{1,8}", -20.0f64..20.0, 0..4),
    ) -> Weights {
        let mut w = Weights {
            issue: bases[0],
            pull_request: bases[1],
            release: bases[2],
            prerelease: bases[3],
            draft: bases[4],
            discussion: bases[5],
            answered: bases[6],
            advisory: bases[7],
            severity_critical: severities[0],
            severity_high: severities[1],
            severity_medium: severities[2],
            severity_low: severities[3],
            open: non_neg[0],
            reactions: non_neg[1],
            comments: non_neg[2],
            recency: non_neg[3],
            half_life_hours,
            echo: non_neg[0] / 2.0,
            labels,
        };
        w.labels.extend(Weights::default().labels);
        w
    }
}

proptest! {
    #[test]
    fn more_reactions_never_lower(i in arb_item(), w in arb_weights(), more in 0u64..1000) {
        let mut j = i.clone();
        j.metrics.reactions += more;
        prop_assert!(total(&j, &w) >= total(&i, &w));
    }

    #[test]
    fn more_comments_never_lower(i in arb_item(), w in arb_weights(), more in 0u64..1000) {
        let mut j = i.clone();
        j.metrics.comments += more;
        prop_assert!(total(&j, &w) >= total(&i, &w));
    }

    #[test]
    fn raising_labels_never_lower(
        i in arb_item(),
        label in prop_oneof![
            Just("regression"), Just("HIGH-PRIORITY"), Just("Bug"), Just("has-repro")
        ],
        at in 0usize..6,
    ) {
        let w = Weights::default();
        let mut j = i.clone();
        j.labels.insert(at.min(j.labels.len()), label.to_string());
        prop_assert!(total(&j, &w) >= total(&i, &w));
    }

    #[test]
    fn a_non_negative_label_weight_never_lowers(
        i in arb_item(), w in arb_weights(), extra in 0.0f64..20.0,
    ) {
        let mut w = w;
        w.labels.insert("zz-extra".to_string(), extra);
        let mut j = i.clone();
        j.labels.push("ZZ Extra".to_string());
        prop_assert!(total(&j, &w) >= total(&i, &w));
    }

    #[test]
    fn lowering_labels_never_raise(
        i in arb_item(),
        label in prop_oneof![Just("duplicate"), Just("Invalid"), Just("stale")],
    ) {
        let w = Weights::default();
        let mut j = i.clone();
        j.labels.push(label.to_string());
        prop_assert!(total(&j, &w) <= total(&i, &w));
    }

    #[test]
    fn open_ranks_at_least_closed(i in arb_item(), w in arb_weights()) {
        let mut open = i.clone();
        open.state = ItemState::Open;
        let mut closed = i;
        closed.state = ItemState::Closed;
        prop_assert!(total(&open, &w) >= total(&closed, &w));
    }

    #[test]
    fn recent_ranks_at_least_older(
        i in arb_item(), w in arb_weights(), older_by in 0i64..400 * 86_400,
    ) {
        let mut old = i.clone();
        old.updated_at = Timestamp::from_second(i.updated_at.as_second() - older_by).unwrap();
        prop_assert!(total(&i, &w) >= total(&old, &w));
    }

    #[test]
    fn total_is_round_of_clamped_sum(i in arb_item(), w in arb_weights()) {
        // The total is never negative by type; check it is exactly the
        // documented max(0, round(sum)) of the terms it reports.
        let s = score(&i, now(), &w);
        let sum: f64 = s.terms.iter().map(|t| t.points).sum();
        prop_assert_eq!(s.total as f64, sum.round().max(0.0));
    }
}

#[test]
fn ordinary_issues_land_between_5_and_40() {
    let w = Weights::default();
    let label = |l: &str| vec![l.to_string()];
    // A quiet old closed issue, and a hot fresh regression.
    let quiet = item(
        vec![],
        0,
        1,
        ItemState::Closed,
        20 * 86_400,
        ItemDetail::issue(),
    );
    let hot = item(
        vec!["bug".into(), "regression".into()],
        12,
        20,
        ItemState::Open,
        3600,
        ItemDetail::issue(),
    );
    let typical = item(
        label("bug"),
        2,
        4,
        ItemState::Open,
        12 * 3600,
        ItemDetail::issue(),
    );
    assert_eq!(total(&quiet, &w), 8);
    assert_eq!(total(&typical, &w), 32);
    // Not ordinary: a hot regression stands out above the usual range.
    assert_eq!(total(&hot, &w), 53);
    let spam = item(
        label("duplicate"),
        0,
        0,
        ItemState::Closed,
        30 * 86_400,
        ItemDetail::issue(),
    );
    assert_eq!(total(&spam, &w), 0);
}

#[test]
fn terms_explain_the_score() {
    let i = item(
        vec!["Bug".into(), "bug".into(), "area:x".into()],
        1,
        3,
        ItemState::Open,
        3 * 3600,
        ItemDetail::PullRequest {
            draft: true,
            merged: false,
            merged_at: None,
            association: None,
        },
    );
    let s = score(&i, now(), &Weights::default());
    let names: Vec<_> = s.terms.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "kind",
            "open",
            "draft",
            "reactions",
            "comments",
            "label:Bug",
            "recency"
        ]
    );
    let whys: Vec<_> = s.terms.iter().map(|t| t.why.as_str()).collect();
    assert_eq!(
        whys,
        [
            "pull request",
            "open",
            "draft pull request",
            "1 reaction",
            "3 comments",
            "label Bug",
            "updated 3 hours before collection"
        ]
    );
    assert_eq!(s.terms[4].points, 5.0);
}

#[test]
fn weights_parse_with_defaults_and_reject_unknown_keys() {
    let w: Weights =
        serde_json::from_str(r#"{"comments": 1.5, "labels": {"security": 7}}"#).unwrap();
    assert_eq!(w.comments, 1.5);
    assert_eq!(w.reactions, Weights::default().reactions);
    assert_eq!(w.label_weight("Security"), Some(7.0));
    // An explicit labels table replaces the default one.
    assert_eq!(w.label_weight("bug"), None);
    assert!(serde_json::from_str::<Weights>(r#"{"comment": 1}"#).is_err());
    assert_eq!(Weights::default().validate(), Ok(()));
}

#[test]
fn validation_names_the_key() {
    let mut w = Weights {
        reactions: -1.0,
        ..Weights::default()
    };
    let e = w.validate().unwrap_err();
    assert_eq!(e.key, "reactions");
    assert!(
        e.to_string()
            .starts_with("importance.reactions = -1: must be")
    );
    w.reactions = 1.0;
    w.recency = f64::NAN;
    assert_eq!(w.validate().unwrap_err().key, "recency");
    w.recency = 1.0;
    w.half_life_hours = 0.0;
    assert_eq!(w.validate().unwrap_err().key, "half_life_hours");
    w.half_life_hours = 1.0;
    w.draft = f64::INFINITY;
    assert_eq!(w.validate().unwrap_err().key, "draft");
    w.draft = -1.0;
    w.labels.insert("High_Priority".into(), 1.0);
    let e = w.validate().unwrap_err();
    assert!(
        e.to_string().contains("High_Priority") && e.to_string().contains("high-priority"),
        "{e}"
    );
    w.labels.remove("High_Priority");
    w.labels.insert("x".into(), f64::NAN);
    assert_eq!(w.validate().unwrap_err().key, "labels.\"x\"");
}

#[test]
fn rank_orders_by_importance_then_recency_then_id() {
    let t = |s| Timestamp::from_second(s).unwrap();
    let mut v = vec![
        (5, t(10), "b"),
        (9, t(1), "z"),
        (5, t(20), "c"),
        (5, t(10), "a"),
        (5, t(10), "a0"),
    ];
    rank(&mut v, |&(importance, updated_at, id)| RankKey {
        importance,
        updated_at,
        id,
    });
    let ids: Vec<_> = v.iter().map(|x| x.2).collect();
    assert_eq!(ids, ["z", "c", "a", "a0", "b"]);
}
