//! The one integration test binary of signals-gitlab: the real client
//! against a loopback `signals_testhost` GitLab flavor. Nothing here
//! touches the internet. (Budgets, faults and token safety end to end are
//! in the binary's `tests/it/hosts.rs`.)

use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use signals_core::model::{ItemKind, RepoName};
use signals_gitlab::{Auth, Client, Config, GitLab, MemoryCache, Token};
use signals_testhost::{TestHost, synthetic_gitlab};

const PATH: &str = "grp/sub/proj";

fn start() -> Timestamp {
    Timestamp::now() - SignedDuration::from_hours(24 * 30)
}

fn client(host: &TestHost, auth: Auth, tokens: &[(&str, &str)]) -> Client {
    Client::with_host(
        Config {
            base_url: host.api_url(),
            tokens: tokens.iter().map(|(e, t)| Token::new(*e, *t)).collect(),
            timeout: Duration::from_secs(5),
            retry_base: Duration::from_millis(10),
            ..Config::default()
        },
        GitLab { auth },
    )
    .unwrap()
}

fn name(s: &str) -> RepoName {
    RepoName::parse(s).unwrap()
}

#[test]
fn pages_by_x_next_page_when_a_proxy_drops_link() {
    let host = TestHost::start(synthetic_gitlab(PATH, 250, start())).unwrap();
    host.drop_link_headers();
    let mut c = client(&host, Auth::PrivateToken, &[]);
    let got = c
        .collect(&name(PATH), start(), &mut MemoryCache::new())
        .unwrap();
    let items = &got.collected.items;
    assert_eq!(items.len(), 250);
    let mrs = items
        .iter()
        .filter(|i| i.kind() == ItemKind::PullRequest)
        .count();
    assert_eq!(mrs, 83);
    // project, releases, milestones, one milestone's counts, 2 issue pages,
    // 1 merge-request page.
    assert_eq!(got.stats.requests, 7);
    assert!(host.requests().iter().all(|r| r.header("link").is_none()));
    assert_eq!(got.collected.milestones.len(), 1);
    let m = &got.collected.milestones[0];
    assert!(m.open_issues + m.closed_issues > 0);
    assert_eq!(got.collected.context.repository.to_string(), PATH);
    assert_eq!(got.collected.context.license.as_deref(), Some("MIT"));
}

#[test]
fn a_moved_project_is_reported_renamed_and_asked_by_id() {
    let mut scenario = synthetic_gitlab(PATH, 5, start());
    scenario
        .renamed
        .insert("old/place/proj".into(), PATH.into());
    let host = TestHost::start(scenario).unwrap();
    let mut c = client(&host, Auth::PrivateToken, &[]);
    let got = c
        .collect(&name("old/place/proj"), start(), &mut MemoryCache::new())
        .unwrap();
    assert_eq!(got.renamed_to, Some(name(PATH)));
    assert_eq!(got.collected.items.len(), 5);
    let paths: Vec<String> = host.requests().into_iter().map(|r| r.path).collect();
    assert!(paths[0].starts_with("/api/v4/projects/old%2Fplace%2Fproj?"));
    assert!(
        paths[1..]
            .iter()
            .all(|p| p.starts_with("/api/v4/projects/4242/"))
    );
}

#[test]
fn tokens_go_in_private_token_or_bearer() {
    let host = TestHost::start(synthetic_gitlab(PATH, 1, start())).unwrap();
    let mut c = client(&host, Auth::PrivateToken, &[("GITLAB_TOKEN", "glpat-x")]);
    c.collect(&name(PATH), start(), &mut MemoryCache::new())
        .unwrap();
    assert!(host.requests().iter().all(
        |r| r.header("private-token") == Some("glpat-x") && r.header("authorization").is_none()
    ));
    host.clear_requests();
    let mut c = client(&host, Auth::Bearer, &[("GITLAB_OAUTH", "oauth-y")]);
    c.collect(&name(PATH), start(), &mut MemoryCache::new())
        .unwrap();
    assert!(
        host.requests()
            .iter()
            .all(|r| r.header("authorization") == Some("Bearer oauth-y")
                && r.header("private-token").is_none())
    );
    // The rate limit GitLab reported is read from its RateLimit-* headers.
    let limit = c.http_ref().rate_limit().unwrap();
    assert_eq!(limit.limit, 5000);
    assert_eq!(
        limit.resource.as_deref(),
        Some("throttle_authenticated_api")
    );
}

/// A project that plans with its group's milestone (GitLab's documented
/// shape of a group milestone: `group_id`, no `project_id`): the milestone
/// is listed with `include_ancestors=true`, and its counts are the
/// project's issues in it, at the same one request per milestone.
#[test]
fn group_milestones_are_seen_with_the_projects_counts() {
    let mut scenario = synthetic_gitlab(PATH, 40, start());
    let data = scenario.repos.get_mut(PATH).unwrap();
    data.milestones.push(serde_json::json!({
        "id": 1201, "iid": 17, "group_id": 9970, "title": "17.0",
        "description": "The group's release", "state": "active",
        "created_at": "2026-09-01T00:00:00.000Z", "updated_at": "2026-10-01T00:00:00.000Z",
        "due_date": "2026-12-18", "start_date": "2026-11-18", "expired": false,
        "web_url": "https://gitlab.example/groups/grp/-/milestones/17"
    }));
    let (mut open, mut closed) = (0, 0);
    for (i, issue) in data.issues.iter_mut().enumerate() {
        if i % 3 == 0 {
            issue["milestone"] =
                serde_json::json!({ "id": 1201, "iid": 17, "group_id": 9970, "title": "17.0" });
            if issue["state"] == "opened" {
                open += 1;
            } else {
                closed += 1;
            }
        }
    }
    assert!(open > 0 && closed > 0);
    let host = TestHost::start(scenario).unwrap();
    let mut c = client(&host, Auth::PrivateToken, &[]);
    let got = c
        .collect(&name(PATH), start(), &mut MemoryCache::new())
        .unwrap();
    let group = got
        .collected
        .milestones
        .iter()
        .find(|m| m.title == "17.0")
        .expect("the group milestone is listed");
    assert_eq!((group.open_issues, group.closed_issues), (open, closed));
    assert_eq!(
        group.url,
        "https://gitlab.example/groups/grp/-/milestones/17"
    );
    // The project's own active milestone is there too, and each costs one
    // counts request: project, releases, milestones, 2 counts, 1 issue
    // page, 1 merge-request page.
    assert_eq!(got.collected.milestones.len(), 2);
    assert_eq!(got.stats.requests, 7);
    let listing = host
        .requests()
        .into_iter()
        .find(|r| r.path.contains("/milestones?"))
        .unwrap();
    assert!(
        listing.path.contains("include_ancestors=true"),
        "{}",
        listing.path
    );
}
