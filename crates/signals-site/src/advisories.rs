//! "Open security advisories": the published advisories not withdrawn of
//! a group's repositories, first on the group page, most severe first.
//! Which advisories are open is the export's to say (its source flags
//! them as it reads the items); this module only shapes and orders them.

use serde::{Deserialize, Serialize};
use signals_core::Severity;

use crate::paths::{history_file, id_parts};
use crate::source::Ranked;
use crate::text::http_url;

/// Advisories kept per repository digest, and listed on the group page.
pub const ADVISORIES_LISTED: usize = 20;

/// One open advisory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdvisoryEntry {
    /// Its signal id.
    pub id: String,
    /// Its GHSA id.
    pub ghsa: String,
    /// Its summary.
    pub title: String,
    /// Its web page, when http(s).
    pub url: Option<String>,
    /// Its history page, relative to the group page.
    pub history: String,
    /// `critical`, `high`, `medium`, `low`, or empty when the host gave
    /// none.
    pub severity: String,
    /// Its CVE id, when one is assigned.
    pub cve: Option<String>,
    /// When it was published (`YYYY-MM-DD`).
    pub published: String,
    /// Its importance.
    pub importance: u32,
    /// Its repository's name.
    pub repo: String,
}

impl AdvisoryEntry {
    /// Most severe first: critical is 0, unrated last.
    fn rank(&self) -> usize {
        Severity::parse(&self.severity)
            .and_then(|s| Severity::ALL.iter().position(|&a| a == s))
            .unwrap_or(Severity::ALL.len())
    }
}

/// The entries of `ranked` (a repository's open advisories in page
/// order), history links under `prefix` (`<repo id>/`), of repository
/// `repo`.
pub(crate) fn entries(ranked: &[Ranked], prefix: &str, repo: &str) -> Vec<AdvisoryEntry> {
    ranked
        .iter()
        .map(|r| {
            let s = &r.signal;
            let (_, key) = id_parts(&s.id);
            AdvisoryEntry {
                id: s.id.clone(),
                ghsa: key.to_string(),
                title: s.title.clone(),
                url: http_url(&s.url).map(str::to_string),
                history: format!("{prefix}history/{}", history_file(&s.id)),
                severity: s.severity.clone().flatten().unwrap_or_default(),
                cve: s.cve_id.clone().flatten(),
                published: s
                    .published_at
                    .as_deref()
                    .unwrap_or(&s.created_at)
                    .chars()
                    .take(10)
                    .collect(),
                importance: r.score.total,
                repo: repo.to_string(),
            }
        })
        .collect()
}

/// Folds `more` into a group's list: most severe first, then most
/// important, then by id; at most [`ADVISORIES_LISTED`].
pub(crate) fn merge(list: &mut Vec<AdvisoryEntry>, more: Vec<AdvisoryEntry>) {
    list.extend(more);
    list.sort_by(|a, b| {
        a.rank()
            .cmp(&b.rank())
            .then_with(|| b.importance.cmp(&a.importance))
            .then_with(|| a.id.as_bytes().cmp(b.id.as_bytes()))
    });
    list.truncate(ADVISORIES_LISTED);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, severity: &str, importance: u32) -> AdvisoryEntry {
        AdvisoryEntry {
            id: id.into(),
            ghsa: id.into(),
            title: String::new(),
            url: None,
            history: String::new(),
            severity: severity.into(),
            cve: None,
            published: String::new(),
            importance,
            repo: "r".into(),
        }
    }

    #[test]
    fn most_severe_first_then_most_important() {
        let mut list = vec![entry("a", "low", 90), entry("b", "", 99)];
        merge(
            &mut list,
            vec![
                entry("c", "critical", 10),
                entry("d", "high", 5),
                entry("e", "high", 50),
            ],
        );
        let ids: Vec<&str> = list.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["c", "e", "d", "a", "b"]);
    }
}
