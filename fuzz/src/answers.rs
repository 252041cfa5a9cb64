//! A body a host sent, whatever it was asked: decoded as every wire shape
//! of the host (the repository object, the releases, milestones, items and
//! owner listing pages) and as its error body, and each decoded value
//! turned into its domain value, as `HostClient::collect` and
//! `list_owner` do.
//!
//! A hostile or broken host can send any body at any URL, so one input
//! meets every shape; most bodies fail most shapes, which is cheap.

use jiff::Timestamp;
use signals_core::{ItemDetail, ItemSnapshot, Milestone, RepoName};
use signals_http::wire::{
    Kinds, ListedEntry, Place, WireItem, WireMilestone, WireRelease, WireRepo,
};
use signals_http::{Host, decode};

/// The URL errors name; any will do.
const URL: &str = "http://127.0.0.1/fuzz";

/// Runs `body` through every parser of GitHub: its host's shapes, and
/// the commits per week of `stats/participation`.
pub fn github_body(body: &[u8]) {
    host_body::<signals_github::GitHub>(body);
    if let signals_core::lifecycle::verdict::Commits::Weeks { weeks } =
        signals_github::parse_participation(body)
    {
        assert!(!weeks.is_empty());
    }
}

/// Runs `body` through every parser of host `H`.
pub fn host_body<H: Host + Default>(body: &[u8]) {
    let host = H::default();
    let name = host.name();
    let _ = host.error_message(body);

    let asked = RepoName::parse("owner/name").expect("a valid name");
    let mut web = "https://example.org/owner/name".to_string();
    if let Ok(repo) = decode::<H::Repo>(name, URL, body) {
        // What `collect` does with a repository object: the rename check
        // and the host's spelling of the name.
        if let Ok(renamed) = RepoName::parse(repo.full_name()) {
            let again = RepoName::parse(&renamed.to_string()).expect("a name prints as it parsed");
            assert_eq!(again, renamed);
        }
        web = repo.web_url().to_string();
        let repository = RepoName::parse(repo.full_name()).unwrap_or_else(|_| asked.clone());
        let context = repo.into_context(repository);
        assert!(!context.repository.name().is_empty());
    }
    let at = Place {
        repo: &asked,
        web: &web,
        conventions: &H::CONVENTIONS,
    };
    if let Ok(releases) = decode::<Vec<H::Release>>(name, URL, body) {
        for release in releases {
            for asset in release.downloads() {
                assert!(!asset.asset.is_empty() && asset.count <= i64::MAX as u64);
            }
            if let Some(snapshot) = release.into_snapshot(&at) {
                check_snapshot(&snapshot);
            }
        }
    }
    if let Ok(milestones) = decode::<Vec<H::Milestone>>(name, URL, body) {
        for milestone in milestones {
            check_milestone(&milestone.into_milestone(&at));
        }
    }
    // Every kind of list an entry can come from, as the hosts use them.
    for kinds in [Kinds::Both, Kinds::Issues, Kinds::Pulls] {
        if let Ok(items) = decode::<Vec<H::Item>>(name, URL, body) {
            for item in items {
                let _ = item.merge_unknown();
                if let Some(merge) = item.merger(&at, kinds) {
                    assert!(!merge.item_key.is_empty() && !merge.merged_by.trim().is_empty());
                }
                check_snapshot(&item.into_snapshot(&at, kinds));
            }
        } else {
            break;
        }
    }
    if let Ok(listed) = decode::<Vec<H::Listed>>(name, URL, body) {
        for entry in listed.into_iter().filter_map(ListedEntry::into_listed) {
            assert!(
                entry
                    .host_id
                    .is_none_or(|id| id >= 1 && id <= i64::MAX as u64)
            );
        }
    }
}

/// What every snapshot promises the store: a key, and times in whole
/// seconds (the store keeps seconds; a fraction would read as a change on
/// every run).
pub fn check_snapshot(s: &ItemSnapshot) {
    assert!(!s.key.is_empty(), "a snapshot without a key: {s:?}");
    let mut times = vec![Some(s.created_at), Some(s.updated_at), s.closed_at];
    match &s.detail {
        ItemDetail::PullRequest { merged_at, .. } => times.push(*merged_at),
        ItemDetail::Release { published_at, .. } => times.push(Some(*published_at)),
        _ => {}
    }
    for t in times.into_iter().flatten() {
        whole_seconds(t);
    }
}

/// What a milestone promises: times in whole seconds.
pub fn check_milestone(m: &Milestone) {
    for t in [m.due_on, m.updated_at].into_iter().flatten() {
        whole_seconds(t);
    }
}

fn whole_seconds(t: Timestamp) {
    assert_eq!(t.subsec_nanosecond(), 0, "{t} is not in whole seconds");
}
