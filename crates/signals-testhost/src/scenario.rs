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

/// Which host's API the fake speaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Flavor {
    /// GitHub REST v3 at the server root.
    #[default]
    Github,
    /// GitLab REST v4 under `/api/v4`: projects by id or encoded path,
    /// `RateLimit-*` headers, `X-Next-Page`, weak ETags.
    Gitlab,
    /// Forgejo/Gitea API v1 under `/api/v1`: `X-Total-Count`, no ETags, no
    /// rate-limit headers (a limiting proxy's 429 can be simulated).
    Forgejo,
}

impl Flavor {
    /// The API root below the server's base URL.
    pub fn api_prefix(self) -> &'static str {
        match self {
            Flavor::Github => "",
            Flavor::Gitlab => "/api/v4",
            Flavor::Forgejo => "/api/v1",
        }
    }
}

/// Everything the fake host knows.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Scenario {
    /// The API spoken (GitHub unless said otherwise).
    #[serde(default)]
    pub flavor: Flavor,
    /// Repositories by full name `owner/name` (matched case-insensitively,
    /// as GitHub does).
    #[serde(default)]
    pub repos: BTreeMap<String, RepoData>,
    /// Renamed repositories: old full name to new full name. Requests for the
    /// old name get a 301 to `/repositories/{id}` of the new one.
    #[serde(default)]
    pub renamed: BTreeMap<String, String>,
    /// The owners that are organisations (GitLab: groups, by full path),
    /// whose repositories `/orgs/{org}/repos` (GitLab: `/groups/{id}/
    /// projects`) lists; every other owner of a repository is a user
    /// (`/users/{user}/repos`).
    #[serde(default)]
    pub orgs: std::collections::BTreeSet<String>,
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
    /// Issue-list entries; on GitHub and Forgejo pull requests carry a
    /// `pull_request` key.
    #[serde(default)]
    pub issues: Vec<Value>,
    /// GitLab only: merge-request list entries. A merged one's merger is
    /// its `merge_user` or `merged_by` (a user object): the host answers
    /// it in both.
    #[serde(default)]
    pub merge_requests: Vec<Value>,
    /// GitHub only: pull-request objects (`GET /repos/{o}/{n}/pulls`).
    /// Empty means: made from the issue-list entries whose `pull_request`
    /// carries `merged_at`, as GitHub's two lists describe the same pull
    /// requests. An entry without `merged_at` (recorded before 2022) says
    /// nothing of its merge, so no pulls object is made of it: the host
    /// does not invent one.
    #[serde(default)]
    pub pulls: Vec<Value>,
    /// GitHub and Forgejo: issue comments (`issues/comments`), on issues
    /// and pull requests alike.
    #[serde(default)]
    pub comments: Vec<Value>,
    /// GitHub only: review comments (`pulls/comments`).
    #[serde(default)]
    pub review_comments: Vec<Value>,
    /// GitHub only: the reviews of each pull request by number, as
    /// GraphQL review nodes, in order.
    #[serde(default)]
    pub reviews: BTreeMap<String, Vec<Value>>,
    /// GitLab only: the notes of each item by `issues/{iid}` or
    /// `merge_requests/{iid}`.
    #[serde(default)]
    pub notes: BTreeMap<String, Vec<Value>>,
    /// GitHub only: discussion nodes as GraphQL answers them
    /// (`crate::discussion` makes one). `None`: the repository has
    /// discussions turned off.
    #[serde(default)]
    pub discussions: Option<Vec<Value>>,
    /// GitHub only: the commits per week of the last 52, oldest first,
    /// as `stats/participation` answers them (`all`). `None`: none in
    /// those weeks.
    #[serde(default)]
    pub participation: Option<Vec<u64>>,
    /// GitHub only: true while GitHub computes the statistics, when
    /// `stats/participation` answers 202 with an empty object.
    #[serde(default)]
    pub participation_computing: bool,
    /// GitHub only: repository security advisories
    /// (`GET /repos/{o}/{n}/security-advisories`), every state, in the
    /// order listed; a release's `assets` (with `id` and `download_count`)
    /// sit in its object in `releases`.
    #[serde(default)]
    pub advisories: Vec<Value>,
}

impl RepoData {
    /// The pull-request objects GitHub's `/pulls` lists for this repository.
    pub fn pull_objects(&self) -> Vec<Value> {
        if !self.pulls.is_empty() {
            return self.pulls.clone();
        }
        self.issues
            .iter()
            .filter(|i| {
                i.get("pull_request")
                    .is_some_and(|p| p.get("merged_at").is_some())
            })
            .map(|i| {
                let mut pull = serde_json::Map::new();
                for key in [
                    "number",
                    "title",
                    "body",
                    "state",
                    "user",
                    "created_at",
                    "updated_at",
                    "closed_at",
                    "draft",
                ] {
                    if let Some(v) = i.get(key) {
                        pull.insert(key.into(), v.clone());
                    }
                }
                pull.insert("merged_at".into(), i["pull_request"]["merged_at"].clone());
                pull.insert("html_url".into(), i["pull_request"]["html_url"].clone());
                Value::Object(pull)
            })
            .collect()
    }
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
            // GitHub's meaning: open issues and open pull requests.
            "open_issues_count": (0..items).filter(|i| i % 4 != 0).count() as u64,
            "archived": false,
            "license": { "key": "mit", "spdx_id": "MIT", "name": "MIT License" },
            "created_at": at(0),
            "updated_at": at(items as i64 * 60),
        }),
        releases: vec![
            release("v2.0.0", true, 7200),
            release("v1.0.0", false, 3600),
        ],
        milestones: vec![milestone(2, "open"), milestone(1, "closed")],
        issues,
        merge_requests: vec![],
        pulls: vec![],
        ..RepoData::default()
    };
    let mut scenario = Scenario::default();
    scenario.repos.insert(full_name.to_string(), data);
    scenario
}

/// A scenario of many synthetic repositories, and their names in order
/// ([`synthetic_many`], [`synthetic_shared`]).
#[derive(Debug, Clone)]
pub struct Synthetic {
    /// The repositories' scenario.
    pub scenario: Scenario,
    /// Their full names, `owner/r000` first.
    pub names: Vec<String>,
}

/// `repos` synthetic GitHub repositories in one scenario, for tests and
/// benchmarks with many repositories (several workers, a full round):
/// `owner/r000`, `owner/r001`, ..., each made by [`synthetic`] with `items`
/// entries but with its own repository `id` (424242 + its index), so
/// `/repositories/{id}` finds the right one. Returns the scenario and the
/// names in order.
///
/// Combine with [`crate::TestHost::set_latency`] (a distant host) and
/// [`crate::TestHost::set_rate_window`] (budgets that reset within a test);
/// [`crate::TestHost::max_in_flight`] and [`crate::TestHost::overlaps`]
/// then tell whether requests on one token stayed serial.
pub fn synthetic_many(owner: &str, repos: usize, items: usize, start: Timestamp) -> Synthetic {
    let mut all = Scenario::default();
    let mut names = Vec::with_capacity(repos);
    for i in 0..repos {
        let name = format!("{owner}/r{i:03}");
        for (key, mut data) in synthetic(&name, items, start).repos {
            data.repo["id"] = json!(424_242 + i as u64);
            all.repos.insert(key, data);
        }
        names.push(name);
    }
    Synthetic {
        scenario: all,
        names,
    }
}

/// Like [`synthetic_many`], but with texts that repositories share, as
/// real repositories of one theme do: the same few authors everywhere
/// (`dependabot[bot]`, `github-actions[bot]`, maintainers who work across
/// the theme) and bodies drawn from one pool of `pool` texts (bot-written
/// dependency bumps, issue templates), each repository walking the pool
/// in its own order. So two repositories committed at the same time store
/// many of the same new texts, in different orders: what would deadlock
/// concurrent commits on `texts` if each inserted them in its own order.
pub fn synthetic_shared(
    owner: &str,
    repos: usize,
    items: usize,
    pool: usize,
    start: Timestamp,
) -> Synthetic {
    let pool = pool.max(1);
    let authors = [
        "dependabot[bot]",
        "github-actions[bot]",
        "renovate[bot]",
        "maintainer-a",
        "maintainer-b",
        "maintainer-c",
    ];
    let Synthetic {
        scenario: mut all,
        names,
    } = synthetic_many(owner, repos, items, start);
    for (r, name) in names.iter().enumerate() {
        let Some(data) = all.repos.get_mut(name) else {
            continue;
        };
        // A step coprime with the pool's size visits all of it, from a
        // start and in a stride of each repository's own.
        let stride = (1..pool)
            .rev()
            .find(|s| gcd(*s, pool) == 1 && *s != r % pool)
            .unwrap_or(1);
        for (i, entry) in data.issues.iter_mut().enumerate() {
            let b = (r * 5 + i * stride) % pool;
            entry["body"] = json!(format!(
                "Bumps the shared dependency group with update {b}.\n\n\
                 Release notes, changelog and commits are in the linked pages.\n\n\
                 Dependabot will resolve any conflicts with this PR as long as you don't alter it yourself."
            ));
            let a = (r + i) % authors.len();
            entry["user"] = json!({ "login": authors[a], "id": 900 + a });
        }
    }
    Synthetic {
        scenario: all,
        names,
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Like [`synthetic`] for GitLab: project `path` (nested groups allowed,
/// numeric id 4242) with `items` entries, every third one a merge request
/// (its own `iid` sequence, as on GitLab), each `updated_at` later than the
/// one before; two releases, two milestones (one closed) whose issue counts
/// `issues_statistics` derives from the issues' `milestone`.
pub fn synthetic_gitlab(path: &str, items: usize, start: Timestamp) -> Scenario {
    let web = format!("https://gitlab.example/{path}");
    let at = |secs: i64| fmt_ms(start + SignedDuration::from_secs(secs));
    let labels = [
        "bug",
        "enhancement",
        "documentation",
        "regression",
        "question",
    ];
    let (mut issues, mut mrs) = (vec![], vec![]);
    for i in 0..items {
        let is_mr = i % 3 == 2;
        let iid = if is_mr { mrs.len() } else { issues.len() } as u64 + 1;
        let open = i % 4 != 0;
        let created = i as i64 * 60;
        let state = match (open, is_mr && i % 2 == 0) {
            (true, _) => "opened",
            (false, true) => "merged",
            (false, false) => "closed",
        };
        let user = |n: usize| json!({ "id": 100 + n, "username": format!("user{n}"), "name": format!("User {n}"), "state": "active" });
        let mut entry = json!({
            "id": 9_000_000 + i as u64,
            "iid": iid,
            "project_id": 4242,
            "title": format!("Synthetic item {}", i + 1),
            "description": format!("Body of synthetic item {}.\n\n- detail one", i + 1),
            "state": state,
            "created_at": at(created),
            "updated_at": at(created + 30),
            "closed_at": if open { Value::Null } else { json!(at(created + 30)) },
            "labels": [labels[i % labels.len()]],
            "author": user(i % 17),
            "assignees": if i % 5 == 0 { json!([user(99)]) } else { json!([]) },
            "upvotes": (i % 7) as u64,
            "downvotes": (i % 2) as u64,
            "user_notes_count": (i % 11) as u64,
            "milestone": if i % 10 == 1 { json!({ "id": 72, "iid": 2, "title": "v2.0" }) } else { Value::Null },
            "web_url": format!("{web}/-/{}/{iid}", if is_mr { "merge_requests" } else { "issues" }),
            "references": { "short": format!("{}{iid}", if is_mr { "!" } else { "#" }) },
        });
        if is_mr {
            entry["draft"] = json!(open && i % 2 == 1);
            entry["work_in_progress"] = entry["draft"].clone();
            entry["merged_at"] = if state == "merged" {
                json!(at(created + 30))
            } else {
                Value::Null
            };
            entry["target_branch"] = json!("main");
            mrs.push(entry);
        } else {
            issues.push(entry);
        }
    }
    let release = |tag: &str, secs: i64| {
        json!({
            "tag_name": tag,
            "name": format!("Release {tag}"),
            "description": "## Changes\n\n- Faster\n- Smaller",
            "created_at": at(secs),
            "released_at": at(secs),
            "upcoming_release": false,
            "author": { "id": 1, "username": "maintainer" },
            "_links": { "self": format!("{web}/-/releases/{tag}") },
        })
    };
    let milestone = |iid: u64, title: &str, state: &str| {
        json!({
            "id": 70 + iid, "iid": iid, "project_id": 4242, "title": title,
            "description": "Planned work", "state": state,
            "created_at": at(0), "updated_at": at(0), "due_date": Value::Null,
            "web_url": format!("{web}/-/milestones/{iid}"),
        })
    };
    let data = RepoData {
        repo: json!({
            "id": 4242,
            "path": path.rsplit('/').next().unwrap_or(path),
            "path_with_namespace": path,
            "name_with_namespace": path.replace('/', " / "),
            "web_url": web,
            "description": "A synthetic GitLab project",
            "topics": ["synthetic"],
            "default_branch": "main",
            "star_count": 321,
            "forks_count": 12,
            "open_issues_count": issues.iter().filter(|i| i["state"] == "opened").count(),
            "archived": false,
            "license": { "key": "mit", "name": "MIT License", "nickname": null },
            "last_activity_at": at(items as i64 * 60),
        }),
        releases: vec![release("v2.0.0-rc.1", 7200), release("v1.0.0", 3600)],
        milestones: vec![
            milestone(2, "v2.0", "active"),
            milestone(1, "v1.0", "closed"),
        ],
        issues,
        merge_requests: mrs,
        pulls: vec![],
        ..RepoData::default()
    };
    let mut scenario = Scenario {
        flavor: Flavor::Gitlab,
        ..Scenario::default()
    };
    scenario.repos.insert(path.to_string(), data);
    scenario
}

/// Like [`synthetic`] for Forgejo: repository `full_name` (id 777) with
/// `items` issue-list entries, every third one a pull request
/// (`pull_request.merged`, `draft`), two releases (one a draft), two
/// milestones (one closed).
pub fn synthetic_forgejo(full_name: &str, items: usize, start: Timestamp) -> Scenario {
    let web = format!("https://forgejo.example/{full_name}");
    let mut scenario = synthetic(full_name, items, start);
    scenario.flavor = Flavor::Forgejo;
    let data = scenario.repos.get_mut(full_name).expect("just made");
    for entry in &mut data.issues {
        let number = entry["number"].as_u64().unwrap_or_default();
        let obj = entry.as_object_mut().expect("an object");
        obj.remove("reactions");
        obj.remove("author_association");
        obj.remove("url");
        let is_pr = obj.contains_key("pull_request");
        obj.insert(
            "html_url".into(),
            json!(format!(
                "{web}/{}/{number}",
                if is_pr { "pulls" } else { "issues" }
            )),
        );
        if is_pr {
            let merged_at = obj["pull_request"]["merged_at"].clone();
            let draft = obj.remove("draft").unwrap_or(json!(false));
            obj.insert(
                "pull_request".into(),
                json!({ "merged": !merged_at.is_null(), "merged_at": merged_at, "draft": draft,
                        "html_url": format!("{web}/pulls/{number}") }),
            );
        }
    }
    for r in &mut data.releases {
        let tag = r["tag_name"].as_str().unwrap_or_default().to_string();
        r["html_url"] = json!(format!("{web}/releases/tag/{tag}"));
        // Forgejo sets `published_at` on drafts too.
        if r["published_at"].is_null() {
            r["published_at"] = r["created_at"].clone();
        }
    }
    for m in &mut data.milestones {
        let obj = m.as_object_mut().expect("an object");
        obj.remove("html_url");
        obj.remove("url");
        obj.remove("number");
    }
    // Forgejo counts open issues and open pull requests apart.
    let open = |pulls: bool| {
        data.issues
            .iter()
            .filter(|i| i["state"] == "open" && i["pull_request"].is_null() != pulls)
            .count()
    };
    let (open_issues, open_pulls) = (open(false), open(true));
    data.repo = json!({
        "id": 777,
        "owner": { "id": 1, "login": full_name.split('/').next().unwrap_or(full_name) },
        "name": full_name.split('/').nth(1).unwrap_or(full_name),
        "full_name": full_name,
        "html_url": web,
        "description": "A synthetic Forgejo repository",
        "website": "",
        "language": "Go",
        "topics": ["synthetic"],
        "default_branch": "main",
        "stars_count": 89,
        "forks_count": 7,
        "open_issues_count": open_issues,
        "open_pr_counter": open_pulls,
        "archived": false,
        "licenses": ["GPL-3.0-or-later"],
    });
    scenario
}

/// Formats a timestamp with milliseconds, as GitLab does.
fn fmt_ms(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%dT%H:%M:%S.000Z").to_string()
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
