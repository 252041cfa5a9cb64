//! Snapshot diffing: what an observation of an item amounts to, compared with
//! its previous stored snapshot.
//!
//! The tracked fields and their order are fixed by the dataset rules; the order is
//! the order of [`TrackedField`]'s variants, so a `changed` detail is always
//! written the same way for the same change.

use std::fmt;

use crate::model::{ItemDetail, ItemSnapshot};

/// A field whose change makes a `changed` event, in the fixed order of the
/// event detail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TrackedField {
    /// The title.
    Title,
    /// The body text.
    Text,
    /// Open or closed.
    State,
    /// The label set or its order.
    Labels,
    /// The assignees.
    Assignees,
    /// Reactions or comments.
    Metrics,
    /// The host's `updated_at`.
    UpdatedAt,
    /// A pull request's draft flag.
    Draft,
    /// A pull request's merged flag.
    Merged,
    /// An advisory's severity.
    Severity,
    /// An advisory's CVSS score.
    CvssScore,
    /// An advisory's CVE id (one assigned, most often).
    CveId,
}

impl TrackedField {
    /// All tracked fields, in detail order.
    pub const ALL: [TrackedField; 12] = [
        TrackedField::Title,
        TrackedField::Text,
        TrackedField::State,
        TrackedField::Labels,
        TrackedField::Assignees,
        TrackedField::Metrics,
        TrackedField::UpdatedAt,
        TrackedField::Draft,
        TrackedField::Merged,
        TrackedField::Severity,
        TrackedField::CvssScore,
        TrackedField::CveId,
    ];

    /// The name written in event details (the spec's spellings).
    pub fn as_str(self) -> &'static str {
        match self {
            TrackedField::Title => "title",
            TrackedField::Text => "text",
            TrackedField::State => "state",
            TrackedField::Labels => "labels",
            TrackedField::Assignees => "assignees",
            TrackedField::Metrics => "metrics",
            TrackedField::UpdatedAt => "updatedAt",
            TrackedField::Draft => "draft",
            TrackedField::Merged => "merged",
            TrackedField::Severity => "severity",
            TrackedField::CvssScore => "cvssScore",
            TrackedField::CveId => "cveId",
        }
    }

    /// Parses a detail name back.
    pub fn parse(s: &str) -> Option<TrackedField> {
        TrackedField::ALL.into_iter().find(|f| f.as_str() == s)
    }

    /// Whether the field differs between two snapshots of the same item.
    fn differs(self, a: &ItemSnapshot, b: &ItemSnapshot) -> bool {
        match self {
            TrackedField::Title => a.title != b.title,
            TrackedField::Text => a.text != b.text,
            TrackedField::State => a.state != b.state,
            TrackedField::Labels => a.labels != b.labels,
            TrackedField::Assignees => a.assignees != b.assignees,
            TrackedField::Metrics => a.metrics != b.metrics,
            TrackedField::UpdatedAt => a.updated_at != b.updated_at,
            TrackedField::Draft => pull_flags(a).draft != pull_flags(b).draft,
            TrackedField::Merged => pull_flags(a).merged != pull_flags(b).merged,
            TrackedField::Severity => advisory(a).severity != advisory(b).severity,
            TrackedField::CvssScore => advisory(a).cvss_score != advisory(b).cvss_score,
            TrackedField::CveId => advisory(a).cve_id != advisory(b).cve_id,
        }
    }
}

impl fmt::Display for TrackedField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The flags of a pull request; `None`s for other kinds, so an item that
/// changes kind (an issue converted, which GitHub does not do today) still
/// shows up as a change of those fields.
struct PullFlags {
    draft: Option<bool>,
    merged: Option<bool>,
}

fn pull_flags(s: &ItemSnapshot) -> PullFlags {
    match s.detail {
        ItemDetail::PullRequest { draft, merged, .. } => PullFlags {
            draft: Some(draft),
            merged: Some(merged),
        },
        _ => PullFlags {
            draft: None,
            merged: None,
        },
    }
}

/// The tracked fields of an advisory; `None`s for other kinds.
struct AdvisoryFields<'a> {
    severity: Option<crate::model::Severity>,
    cvss_score: Option<crate::model::CvssScore>,
    cve_id: Option<&'a str>,
}

fn advisory(s: &ItemSnapshot) -> AdvisoryFields<'_> {
    match &s.detail {
        ItemDetail::Advisory {
            severity,
            cvss_score,
            cve_id,
            ..
        } => AdvisoryFields {
            severity: *severity,
            cvss_score: *cvss_score,
            cve_id: cve_id.as_deref(),
        },
        _ => AdvisoryFields {
            severity: None,
            cvss_score: None,
            cve_id: None,
        },
    }
}

/// What observing an item amounts to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observation {
    /// Seen for the first time.
    Discovered,
    /// Tracked fields differ from the previous snapshot; never empty, in the
    /// fixed order.
    Changed(Vec<TrackedField>),
}

impl Observation {
    /// The trail detail: `initial snapshot`, or the field names joined by `, `.
    pub fn detail(&self) -> String {
        match self {
            Observation::Discovered => "initial snapshot".to_string(),
            Observation::Changed(fields) => fields
                .iter()
                .map(|f| f.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        }
    }

    /// The event kind.
    pub fn kind(&self) -> crate::model::EventKind {
        match self {
            Observation::Discovered => crate::model::EventKind::Discovered,
            Observation::Changed(_) => crate::model::EventKind::Changed,
        }
    }
}

/// The tracked fields that differ between `prev` and `next`, in the fixed
/// order. Fields that are not tracked (url, author, timestamps other than
/// `updated_at`, merge time) never appear.
pub fn changed_fields(prev: &ItemSnapshot, next: &ItemSnapshot) -> Vec<TrackedField> {
    TrackedField::ALL
        .into_iter()
        .filter(|f| f.differs(prev, next))
        .collect()
}

/// Compares an observed snapshot with the previous stored one. `None` means
/// nothing tracked changed, so no event is recorded.
pub fn observe(prev: Option<&ItemSnapshot>, next: &ItemSnapshot) -> Option<Observation> {
    match prev {
        None => Some(Observation::Discovered),
        Some(prev) => {
            let fields = changed_fields(prev, next);
            (!fields.is_empty()).then_some(Observation::Changed(fields))
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::*;
    use jiff::Timestamp;
    use proptest::prelude::*;

    pub(crate) fn issue(key: &str) -> ItemSnapshot {
        ItemSnapshot {
            repo: RepoName::parse("o/n").unwrap(),
            key: key.to_string(),
            title: "t".into(),
            text: "body".into(),
            url: format!("https://example.com/o/n/issues/{key}"),
            created_at: Timestamp::from_second(1_700_000_000).unwrap(),
            updated_at: Timestamp::from_second(1_700_000_100).unwrap(),
            metrics: Metrics {
                reactions: 1,
                comments: 2,
            },
            labels: vec!["bug".into()],
            author: "alice".into(),
            state: ItemState::Open,
            closed_at: None,
            assignees: vec![],
            detail: ItemDetail::issue(),
        }
    }

    #[test]
    fn first_sight_is_discovered() {
        assert_eq!(observe(None, &issue("1")), Some(Observation::Discovered));
        assert_eq!(Observation::Discovered.detail(), "initial snapshot");
    }

    #[test]
    fn detail_uses_fixed_order_and_spec_spellings() {
        let a = issue("1");
        let mut b = a.clone();
        b.state = ItemState::Closed;
        b.text = "edited".into();
        b.metrics.comments += 1;
        b.updated_at = Timestamp::from_second(1_700_000_200).unwrap();
        let obs = observe(Some(&a), &b).unwrap();
        assert_eq!(obs.detail(), "text, state, metrics, updatedAt");
    }

    #[test]
    fn untracked_fields_make_no_event() {
        let a = issue("1");
        let mut b = a.clone();
        b.url = "https://example.com/elsewhere".into();
        b.author = "bob".into();
        assert_eq!(observe(Some(&a), &b), None);
    }

    #[test]
    fn pull_request_flags_are_tracked() {
        let mut a = issue("2");
        a.detail = ItemDetail::PullRequest {
            draft: true,
            merged: false,
            merged_at: None,
            association: None,
        };
        let mut b = a.clone();
        b.detail = ItemDetail::PullRequest {
            draft: false,
            merged: true,
            merged_at: Some(Timestamp::from_second(1_700_000_300).unwrap()),
            association: None,
        };
        assert_eq!(
            changed_fields(&a, &b),
            vec![TrackedField::Draft, TrackedField::Merged]
        );
    }

    #[test]
    fn advisory_fields_are_tracked() {
        let mut a = issue("GHSA-1");
        a.detail = ItemDetail::Advisory {
            severity: Some(Severity::Medium),
            cvss_score: None,
            cve_id: None,
            published_at: a.created_at,
            withdrawn_at: None,
        };
        let mut b = a.clone();
        if let ItemDetail::Advisory {
            severity,
            cvss_score,
            cve_id,
            ..
        } = &mut b.detail
        {
            *severity = Some(Severity::High);
            *cvss_score = CvssScore::from_f64(7.5);
            *cve_id = Some("CVE-2026-1".into());
        }
        assert_eq!(
            changed_fields(&a, &b),
            vec![
                TrackedField::Severity,
                TrackedField::CvssScore,
                TrackedField::CveId
            ]
        );
        // A withdrawal closes it: a change of state.
        let mut c = a.clone();
        c.state = ItemState::Closed;
        if let ItemDetail::Advisory { withdrawn_at, .. } = &mut c.detail {
            *withdrawn_at = Some(a.updated_at);
        }
        assert_eq!(changed_fields(&a, &c), vec![TrackedField::State]);
        assert_eq!(CvssScore::from_f64(9.81).map(CvssScore::value), Some(9.8));
        assert_eq!(CvssScore::from_f64(11.0), None);
        assert_eq!(Severity::parse("Moderate"), Some(Severity::Medium));
    }

    #[test]
    fn names_round_trip() {
        for f in TrackedField::ALL {
            assert_eq!(TrackedField::parse(f.as_str()), Some(f));
        }
        // The enum's derived order is the detail order.
        let mut sorted = TrackedField::ALL;
        sorted.sort();
        assert_eq!(sorted, TrackedField::ALL);
    }

    /// A random mutation of each tracked field, chosen by a bit mask.
    fn mutate(base: &ItemSnapshot, mask: u16) -> (ItemSnapshot, Vec<TrackedField>) {
        let mut s = base.clone();
        let mut expected = Vec::new();
        for (i, f) in TrackedField::ALL.into_iter().enumerate() {
            if mask & (1 << i) == 0 {
                continue;
            }
            match f {
                TrackedField::Title => s.title.push('!'),
                TrackedField::Text => s.text.push('!'),
                TrackedField::State => s.state = ItemState::Closed,
                TrackedField::Labels => s.labels.push("regression".into()),
                TrackedField::Assignees => s.assignees.push("carol".into()),
                TrackedField::Metrics => s.metrics.reactions += 3,
                TrackedField::UpdatedAt => {
                    s.updated_at = Timestamp::from_second(1_800_000_000).unwrap()
                }
                // Draft and merged only exist on pull requests; the base is
                // one, so flipping them is a change.
                TrackedField::Draft | TrackedField::Merged => {
                    if let ItemDetail::PullRequest { draft, merged, .. } = &mut s.detail {
                        if f == TrackedField::Draft {
                            *draft = !*draft;
                        } else {
                            *merged = !*merged;
                        }
                    }
                }
                // An advisory's fields: the base is a pull request, which
                // has none (`advisory_fields_are_tracked` checks them).
                TrackedField::Severity | TrackedField::CvssScore | TrackedField::CveId => continue,
            }
            expected.push(f);
        }
        (s, expected)
    }

    proptest! {
        #[test]
        fn same_snapshot_twice_records_nothing(mask in 0u16..512) {
            let mut base = issue("7");
            base.detail = ItemDetail::PullRequest { draft: false, merged: false, merged_at: None, association: None };
            let (s, _) = mutate(&base, mask);
            prop_assert_eq!(observe(Some(&s), &s), None);
        }

        #[test]
        fn changed_lists_exactly_the_differing_fields_in_order(mask in 1u16..512) {
            let mut base = issue("7");
            base.detail = ItemDetail::PullRequest { draft: false, merged: false, merged_at: None, association: None };
            let (next, expected) = mutate(&base, mask);
            prop_assert_eq!(observe(Some(&base), &next), Some(Observation::Changed(expected.clone())));
            let detail = Observation::Changed(expected.clone()).detail();
            let names: Vec<&str> = detail.split(", ").collect();
            let want: Vec<&str> = expected.iter().map(|f| f.as_str()).collect();
            prop_assert_eq!(names, want);
        }
    }
}
