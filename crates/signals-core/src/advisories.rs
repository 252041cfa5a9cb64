//! A repository's security advisories as a verdict counts them: the open
//! ones (published, not withdrawn) by severity.

use serde::Serialize;

use crate::model::{ItemDetail, ItemSnapshot, ItemState, Severity};

/// Open advisories by severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenAdvisories {
    /// Critical.
    pub critical: u64,
    /// High.
    pub high: u64,
    /// Medium.
    pub medium: u64,
    /// Low.
    pub low: u64,
    /// Open advisories to which the host gave no severity: in none of the
    /// four counts, and left out of the JSON when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub unrated: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl OpenAdvisories {
    /// All open advisories, rated or not.
    pub fn total(&self) -> u64 {
        self.critical + self.high + self.medium + self.low + self.unrated
    }

    /// The count of one severity.
    pub fn of(&self, severity: Severity) -> u64 {
        match severity {
            Severity::Critical => self.critical,
            Severity::High => self.high,
            Severity::Medium => self.medium,
            Severity::Low => self.low,
        }
    }
}

/// The open advisories among `items` (a repository's latest snapshots;
/// items of other kinds are passed over), counted by severity. A withdrawn
/// advisory is closed, so it is not counted.
pub fn open_advisories<'a>(items: impl IntoIterator<Item = &'a ItemSnapshot>) -> OpenAdvisories {
    let mut open = OpenAdvisories::default();
    for item in items {
        let ItemDetail::Advisory {
            severity,
            withdrawn_at,
            ..
        } = item.detail
        else {
            continue;
        };
        if item.state != ItemState::Open || withdrawn_at.is_some() {
            continue;
        }
        let slot = match severity {
            Some(Severity::Critical) => &mut open.critical,
            Some(Severity::High) => &mut open.high,
            Some(Severity::Medium) => &mut open.medium,
            Some(Severity::Low) => &mut open.low,
            None => &mut open.unrated,
        };
        *slot += 1;
    }
    open
}

/// True for an advisory in force: published and not withdrawn.
pub fn is_open_advisory(item: &ItemSnapshot) -> bool {
    matches!(
        item.detail,
        ItemDetail::Advisory {
            withdrawn_at: None,
            ..
        }
    ) && item.state == ItemState::Open
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::diff::tests::issue;
    use jiff::Timestamp;

    pub(crate) fn advisory(key: &str, severity: Option<Severity>, withdrawn: bool) -> ItemSnapshot {
        let mut s = issue(key);
        let at = Timestamp::from_second(1_700_000_000).unwrap();
        s.state = if withdrawn {
            ItemState::Closed
        } else {
            ItemState::Open
        };
        s.detail = ItemDetail::Advisory {
            severity,
            cvss_score: None,
            cve_id: None,
            published_at: at,
            withdrawn_at: withdrawn.then_some(at),
        };
        s
    }

    /// The importance promise of docs/importance.md: with the default
    /// weights, critical > high > medium > low > none.
    #[test]
    fn a_more_severe_advisory_never_ranks_lower() {
        use crate::importance::{Weights, score};
        let w = Weights::default();
        let now = Timestamp::from_second(1_800_000_000).unwrap();
        let total = |s: Option<Severity>| score(&advisory("GHSA-1", s, false), now, &w).total;
        let mut ranked: Vec<Option<Severity>> = Severity::ALL.into_iter().map(Some).collect();
        ranked.push(None);
        for pair in ranked.windows(2) {
            assert!(total(pair[0]) > total(pair[1]), "{pair:?}");
        }
    }

    #[test]
    fn open_advisories_are_counted_by_severity() {
        let items = [
            advisory("GHSA-1", Some(Severity::High), false),
            advisory("GHSA-2", Some(Severity::High), false),
            advisory("GHSA-3", Some(Severity::Critical), false),
            advisory("GHSA-4", Some(Severity::Low), true),
            advisory("GHSA-5", None, false),
            issue("7"),
        ];
        let open = open_advisories(&items);
        assert_eq!(
            open,
            OpenAdvisories {
                critical: 1,
                high: 2,
                medium: 0,
                low: 0,
                unrated: 1,
            }
        );
        assert_eq!(open.total(), 4);
        assert_eq!(open.of(Severity::High), 2);
        assert!(is_open_advisory(&items[0]) && !is_open_advisory(&items[3]));
        assert!(!is_open_advisory(&items[5]));
        let json = serde_json::to_value(OpenAdvisories::default()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"critical": 0, "high": 0, "medium": 0, "low": 0})
        );
    }
}
