use super::*;

fn now() -> Timestamp {
    "2026-11-30T00:00:00Z".parse().unwrap()
}

fn days_ago(d: i64) -> Timestamp {
    now() - SignedDuration::from_hours(d * 24)
}

/// 52 weeks: `before` commits spread over weeks 27..39, `recent` over
/// the last 13.
fn weeks(before: u64, recent: u64) -> Vec<u64> {
    let mut w = vec![0; 52];
    w[26] = before;
    w[51] = recent;
    w
}

fn busy() -> Facts {
    Facts {
        commits: Some(vec![3; 52]),
        last_release: Some(days_ago(10)),
        answers: 4,
        ..Facts::default()
    }
}

fn state(facts: &Facts) -> State {
    judge(facts, &Thresholds::default(), now()).state
}

#[test]
fn archived_comes_first() {
    let facts = Facts {
        archived: true,
        ..busy()
    };
    let j = judge(&facts, &Thresholds::default(), now());
    assert_eq!(j.state, State::Archived);
    assert_eq!(j.reasons[0].rule, "archived");
}

#[test]
fn a_quiet_year_with_waiting_items_is_abandoned() {
    let facts = Facts {
        commits: Some(vec![0; 52]),
        last_release: Some(days_ago(400)),
        waiting: 3,
        ..Facts::default()
    };
    let j = judge(&facts, &Thresholds::default(), now());
    assert_eq!(j.state, State::Abandoned);
    let rules: Vec<&str> = j.reasons.iter().map(|r| r.rule.as_str()).collect();
    assert_eq!(rules, ["commitsLastYear", "daysSinceRelease", "waiting"]);
    assert_eq!(j.reasons[1].value, json!(400));
}

#[test]
fn a_quiet_year_with_nothing_waiting_is_inert() {
    let facts = Facts {
        commits: Some(vec![0; 52]),
        ..Facts::default()
    };
    assert_eq!(state(&facts), State::Inert);
    // A release within the year is not quiet.
    let released = Facts {
        last_release: Some(days_ago(100)),
        ..facts.clone()
    };
    assert_ne!(state(&released), State::Inert);
}

#[test]
fn without_commits_the_last_push_tells_quiet() {
    let facts = Facts {
        pushed_at: Some(days_ago(500)),
        ..Facts::default()
    };
    let j = judge(&facts, &Thresholds::default(), now());
    assert_eq!(j.state, State::Inert);
    assert_eq!(j.reasons[0].rule, "daysSincePush");
    // Neither commits nor a push: the quiet rules are left out.
    assert_eq!(state(&Facts::default()), State::Active);
}

#[test]
fn commits_falling_under_half_are_declining() {
    let facts = Facts {
        commits: Some(weeks(40, 19)),
        ..busy()
    };
    let j = judge(&facts, &Thresholds::default(), now());
    assert_eq!(j.state, State::Declining);
    assert_eq!(j.reasons[0].value, json!(19));
    assert_eq!(j.reasons[0].threshold, json!(20.0));
    // Exactly half is not under half.
    let half = Facts {
        commits: Some(weeks(40, 20)),
        ..busy()
    };
    assert_eq!(state(&half), State::Active);
    // Too few before to say.
    let few = Facts {
        commits: Some(weeks(3, 0)),
        last_release: Some(days_ago(10)),
        ..Facts::default()
    };
    assert_eq!(state(&few), State::Stable);
}

#[test]
fn little_activity_with_releases_and_answers_is_stable() {
    let facts = Facts {
        commits: Some(weeks(2, 2)),
        last_release: Some(days_ago(200)),
        answers: 1,
        waiting: 2,
        ..Facts::default()
    };
    assert_eq!(state(&facts), State::Stable);
    // No release within the year: still some commits, so active.
    let unreleased = Facts {
        last_release: Some(days_ago(366)),
        ..facts.clone()
    };
    assert_eq!(state(&unreleased), State::Active);
    // Items wait and no answer came.
    let unanswered = Facts {
        answers: 0,
        ..facts
    };
    assert_eq!(state(&unanswered), State::Active);
}

#[test]
fn busy_is_active_with_its_reasons() {
    let j = judge(&busy(), &Thresholds::default(), now());
    assert_eq!(j.state, State::Active);
    assert!(!j.reasons.is_empty());
    assert_eq!(j.reasons[0].rule, "commitsRecentWeeks");
}

#[test]
fn thresholds_are_read() {
    let t = Thresholds {
        active_commits: 100,
        ..Thresholds::default()
    };
    let j = judge(&busy(), &t, now());
    assert_eq!(j.state, State::Stable);
}

#[test]
fn a_declaration_overrides_all_but_archived() {
    let judged = judge(&busy(), &Thresholds::default(), now());
    let declared = declare(judged.clone(), Some(State::Stable));
    assert_eq!(declared.state, State::Stable);
    assert_eq!(declared.reasons[0].rule, "declared");
    assert_eq!(declared.reasons[0].value, json!("stable"));
    assert_eq!(declared.reasons[1].value, json!("active"));
    assert_eq!(declare(judged.clone(), None), judged);
    let archived = judge(
        &Facts {
            archived: true,
            ..busy()
        },
        &Thresholds::default(),
        now(),
    );
    assert_eq!(
        declare(archived, Some(State::Stable)).state,
        State::Archived
    );
}

#[test]
fn states_round_trip_in_rule_order() {
    for (i, s) in State::ALL.into_iter().enumerate() {
        assert_eq!(State::parse(s.as_str()), Some(s));
        assert_eq!(usize::from(s.rank()), i + 1);
    }
    assert_eq!(State::parse("alive"), None);
}

#[test]
fn recent_and_before_split_the_weeks() {
    let w: Vec<u64> = (1..=52).collect();
    let (recent, before) = recent_and_before(&w, 13);
    assert_eq!(recent, (40..=52).sum::<u64>());
    assert_eq!(before, (27..=39).sum::<u64>());
    assert_eq!(recent_and_before(&[1, 2], 13), (3, 0));
}
