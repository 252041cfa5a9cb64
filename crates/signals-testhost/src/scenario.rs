//! The data a [`crate::TestHost`] serves: repositories with their releases,
//! milestones and issue-list entries, as raw GitHub JSON.
//!
//! Objects stay `serde_json::Value` on purpose: the host must serve exactly
//! what GitHub returned (unknown fields, nulls, odd types), so that the
//! client's decoding is tested against real shapes and not against our own
//! idea of them.

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};
use serde::Deserialize;
use serde_json::{Value, json};

/// Everything the fake host knows.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Scenario {
    /// Repositories by full name `owner/name` (matched case-insensitively,
    /// as GitHub does).
    #[serde(default)]
    pub repos: BTreeMap<String, RepoData>,
    /// Renamed repositories: old full name to new full name. Requests for the
    /// old name get a 301 to `/repositories/{id}` of the new one.
    #[serde(default)]
    pub renamed: BTreeMap<String, String>,
}

/// One repository's data.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct RepoData {
    /// The repository object (`GET /repos/{o}/{n}`); its `id` is used for
    /// `/repositories/{id}` routes.
    pub repo: Value,
    /// Release objects, in the order the host lists them (newest first on
    /// GitHub).
    #[serde(default)]
    pub releases: Vec<Value>,
    /// Milestone objects (all states; the host filters by `state`).
    #[serde(default)]
    pub milestones: Vec<Value>,
    /// Issue-list entries; pull requests carry a `pull_request` key.
    #[serde(default)]
    pub issues: Vec<Value>,
}

impl Scenario {
    /// Parses a scenario from JSON bytes.
    pub fn parse(json: &[u8]) -> Result<Scenario, serde_json::Error> {
        serde_json::from_slice(json)
    }

    /// Finds a repository by full name, ignoring ASCII case; returns the
    /// canonical key and its data.
    pub fn repo(&self, full_name: &str) -> Option<(&str, &RepoData)> {
        self.repos
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(full_name))
            .map(|(k, v)| (k.as_str(), v))
    }

    /// Finds a repository by its numeric `id`.
    pub fn repo_by_id(&self, id: u64) -> Option<(&str, &RepoData)> {
        self.repos
            .iter()
            .find(|(_, v)| v.repo.get("id").and_then(Value::as_u64) == Some(id))
            .map(|(k, v)| (k.as_str(), v))
    }

    /// The new full name of a renamed repository, ignoring ASCII case.
    pub fn renamed_to(&self, full_name: &str) -> Option<&str> {
        self.renamed
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(full_name))
            .map(|(_, v)| v.as_str())
    }
}

/// Generates a plausible repository `full_name` with `items` issue-list
/// entries (every third one a pull request, some of those merged), two
/// releases (one of them a draft) and two milestones (one closed).
///
/// Entry `i` (numbered `i + 1`) was created at `start + i minutes` and
/// updated at `start + i minutes + 30 s`, so `updated_at` strictly increases
/// with the number. Used by benchmarks and by tests that need many pages.
pub fn synthetic(full_name: &str, items: usize, start: Timestamp) -> Scenario {
    let web = format!("https://github.com/{full_name}");
    let api = format!("https://api.github.com/repos/{full_name}");
    let owner = full_name.split('/').next().unwrap_or(full_name);
    let at = |secs: i64| fmt_ts(start + SignedDuration::from_secs(secs));
    let labels = [
        "bug",
        "enhancement",
        "documentation",
        "regression",
        "question",
    ];
    let issues = (0..items)
        .map(|i| {
            let number = i as u64 + 1;
            let is_pr = i % 3 == 2;
            let open = i % 4 != 0;
            let merged = is_pr && !open && i % 2 == 0;
            let created = i as i64 * 60;
            let mut entry = json!({
                "url": format!("{api}/issues/{number}"),
                "html_url": format!("{web}/{}/{number}", if is_pr { "pull" } else { "issues" }),
                "id": 1_000_000 + number,
                "number": number,
                "title": format!("Synthetic item {number}"),
                "user": { "login": format!("user{}", i % 17), "id": 100 + i % 17 },
                "labels": [{ "name": labels[i % labels.len()] }],
                "state": if open { "open" } else { "closed" },
                "locked": false,
                "assignees": if i % 5 == 0 { json!([{ "login": "maintainer" }]) } else { json!([]) },
                "comments": (i % 11) as u64,
                "created_at": at(created),
                "updated_at": at(created + 30),
                "closed_at": if open { Value::Null } else { json!(at(created + 30)) },
                "author_association": "CONTRIBUTOR",
                "body": format!("Body of synthetic item {number}.\n\n- detail one\n- detail two"),
                "reactions": { "total_count": (i % 7) as u64, "+1": (i % 7) as u64 },
            });
            if is_pr {
                entry["draft"] = json!(open && i % 2 == 1);
                entry["pull_request"] = json!({
                    "url": format!("{api}/pulls/{number}"),
                    "html_url": format!("{web}/pull/{number}"),
                    "merged_at": if merged { json!(at(created + 30)) } else { Value::Null },
                });
            }
            entry
        })
        .collect();
    let release = |tag: &str, draft: bool, secs: i64| {
        json!({
            "url": format!("{api}/releases/{tag}"),
            "html_url": format!("{web}/releases/tag/{tag}"),
            "id": 5000 + secs,
            "tag_name": tag,
            "name": format!("Release {tag}"),
            "draft": draft,
            "prerelease": false,
            "created_at": at(secs),
            "published_at": if draft { Value::Null } else { json!(at(secs)) },
            "author": { "login": "maintainer" },
            "body": "## Changes\n\n- Faster\n- Smaller",
        })
    };
    let milestone = |number: u64, state: &str| {
        json!({
            "url": format!("{api}/milestones/{number}"),
            "html_url": format!("{web}/milestone/{number}"),
            "id": 7000 + number,
            "number": number,
            "title": format!("v{number}.0"),
            "description": "Planned work",
            "state": state,
            "open_issues": 3,
            "closed_issues": 5,
            "created_at": at(0),
            "updated_at": at(0),
            "due_on": Value::Null,
        })
    };
    let data = RepoData {
        repo: json!({
            "id": 424_242,
            "name": full_name.split('/').nth(1).unwrap_or(full_name),
            "full_name": full_name,
            "owner": { "login": owner },
            "html_url": web,
            "description": "A synthetic repository",
            "homepage": "",
            "language": "Rust",
            "topics": ["synthetic"],
            "default_branch": "main",
            "stargazers_count": 1234,
            "forks_count": 56,
            "open_issues_count": items as u64,
            "archived": false,
            "license": { "key": "mit", "spdx_id": "MIT", "name": "MIT License" },
            "updated_at": at(items as i64 * 60),
        }),
        releases: vec![
            release("v2.0.0", true, 7200),
            release("v1.0.0", false, 3600),
        ],
        milestones: vec![milestone(2, "open"), milestone(1, "closed")],
        issues,
    };
    let mut scenario = Scenario::default();
    scenario.repos.insert(full_name.to_string(), data);
    scenario
}

/// Formats a timestamp as GitHub does: `YYYY-MM-DDThh:mm:ssZ`.
pub(crate) fn fmt_ts(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_finds_case_insensitively() {
        let s = Scenario::parse(
            br#"{"repos":{"Owner/Repo":{"repo":{"id":7,"full_name":"Owner/Repo"}}},
                "renamed":{"old/repo":"Owner/Repo"}}"#,
        )
        .unwrap();
        assert_eq!(s.repo("owner/repo").unwrap().0, "Owner/Repo");
        assert_eq!(s.repo_by_id(7).unwrap().0, "Owner/Repo");
        assert_eq!(s.renamed_to("OLD/repo"), Some("Owner/Repo"));
        assert!(s.repo("owner/other").is_none());
    }

    #[test]
    fn synthetic_updates_increase() {
        let s = synthetic("o/n", 10, "2025-01-01T00:00:00Z".parse().unwrap());
        let issues = &s.repo("o/n").unwrap().1.issues;
        assert_eq!(issues.len(), 10);
        let updated: Vec<&str> = issues
            .iter()
            .map(|i| i["updated_at"].as_str().unwrap())
            .collect();
        assert!(updated.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(updated[0], "2025-01-01T00:00:30Z");
        assert_eq!(
            issues
                .iter()
                .filter(|i| i.get("pull_request").is_some())
                .count(),
            3
        );
    }
}
