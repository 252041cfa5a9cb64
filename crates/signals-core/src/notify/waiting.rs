//! The `waiting` alert event: an open issue or pull request
//! with no first response crosses `waiting_days` between two runs of its
//! repository. It fires once per item, at the first run after the crossing
//! (a repository's first run sends its summary instead), as a message of
//! its own per rule (its delivery id names `waiting`).

use jiff::Timestamp;

use crate::first_response::{FirstResponse, is_waiting, waiting_span};
use crate::model::ItemSnapshot;

use super::one_event::{Candidate, event_messages};
use super::{Outgoing, RuleRef, RunInput, Trigger};

/// True when `item` crossed `waiting_days` in `(previous, now]`: it is
/// waiting at `now` and was created no earlier than `waiting_days` before
/// `previous`.
pub fn crossed(
    item: &ItemSnapshot,
    first: Option<&FirstResponse>,
    previous: Timestamp,
    now: Timestamp,
    waiting_days: u32,
) -> bool {
    is_waiting(item, first, now, waiting_days)
        && item.created_at + waiting_span(waiting_days) > previous
}

/// The `waiting` messages of a run: per rule that asks for `waiting` and
/// covers the repository, the `crossing` items it selects (those
/// [`crossed`] says crossed in this run), at most one message per rule.
pub fn waiting_messages(
    rules: &[RuleRef<'_>],
    run: &RunInput<'_>,
    crossing: &[ItemSnapshot],
) -> Vec<Outgoing> {
    let candidates: Vec<Candidate<'_>> = crossing
        .iter()
        .map(|item| Candidate { item, related: &[] })
        .collect();
    event_messages(rules, run, Trigger::Waiting, &candidates)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::tests::issue;
    use crate::model::ItemState;

    #[test]
    fn an_item_crosses_once_between_two_runs() {
        let mut item = issue("1");
        item.state = ItemState::Open;
        item.created_at = "2026-11-01T00:00:00Z".parse().unwrap();
        let at = |s: &str| -> Timestamp { s.parse().unwrap() };
        // Waiting days: 2, so it crosses at 2026-11-03T00:00.
        assert!(!crossed(
            &item,
            None,
            at("2026-11-02T00:00:00Z"),
            at("2026-11-02T12:00:00Z"),
            2
        ));
        assert!(crossed(
            &item,
            None,
            at("2026-11-02T12:00:00Z"),
            at("2026-11-03T06:00:00Z"),
            2
        ));
        assert!(!crossed(
            &item,
            None,
            at("2026-11-03T06:00:00Z"),
            at("2026-11-04T06:00:00Z"),
            2
        ));
        let answered = FirstResponse {
            at: at("2026-11-02T00:00:00Z"),
            by: "m".into(),
            hours: 24.0,
        };
        assert!(!crossed(
            &item,
            Some(&answered),
            at("2026-11-02T12:00:00Z"),
            at("2026-11-03T06:00:00Z"),
            2
        ));
    }
}
