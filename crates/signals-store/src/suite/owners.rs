//! Checks of [`crate::Owners`].

use jiff::{SignedDuration, Timestamp};
use signals_core::RepoName;

use super::*;
use crate::RequestStats;

pub(super) fn known(
    full_name: &str,
    id: &str,
    state: &str,
    at: Timestamp,
) -> signals_core::owners::Known {
    signals_core::owners::Known {
        full_name: RepoName::parse(full_name).unwrap(),
        repo_id: id.into(),
        state: signals_core::owners::State::parse(state).unwrap(),
        since: at,
        first_seen: at,
        host_id: None,
        tracked_as: None,
        renamed_at: None,
    }
}

pub(super) fn stats(requests: u64, not_modified: u64) -> RequestStats {
    RequestStats {
        requests,
        not_modified,
        bytes_received: 100 * (requests - not_modified),
        ..RequestStats::default()
    }
}

/// An owner's listing is taken on once per interval; its repositories
/// are kept with their states and ids, gone ones included, and the cost
/// of its listings is added up; a failed listing leaves them as they were.
/// Host ids, the name a renamed repository's ids keep and when it was
/// renamed round-trip, and two rows may share a name (a rename onto a
/// gone repository's name).
pub fn owners_keep_their_repositories_and_are_claimed_once_per_interval(make: Factory<'_>) {
    let mut store = make();
    let g = group();
    let owner = crate::OwnerRef {
        group: &g,
        host: "github",
        owner: "org",
    };
    let t1 = ts("2026-11-20T10:00:00Z");
    let hour = SignedDuration::from_hours(1);
    assert!(store.owner_claim(owner, t1, hour).unwrap());
    // Claimed a moment ago (by the store's clock on PostgreSQL): not again
    // within the hour, by this worker or another.
    assert!(!store.owner_claim(owner, t1, hour).unwrap());
    // Zero: every collection lists (one process owns a SQLite store).
    assert!(store.owner_claim(owner, t1, SignedDuration::ZERO).unwrap());
    assert!(store.owner_repos(&g.id).unwrap().is_empty());
    // org/b as stored before host ids were read.
    let mut first = [
        known("org/a", "a", "tracked", t1),
        known("org/b", "b", "tracked", t1),
    ];
    first[0].host_id = Some(1);
    store.owner_listed(owner, t1, &first, &stats(1, 0)).unwrap();
    let t2 = ts("2026-11-20T11:00:00.5Z");
    let mut second = first.to_vec();
    second[0].state = signals_core::owners::State::Gone;
    second[0].since = t2;
    // Renamed onto the gone one's name: two rows share it, told apart by
    // their ids; its signal ids keep the name it was first tracked under.
    second[1].full_name = RepoName::parse("org/a").unwrap();
    second[1].host_id = Some(2);
    second[1].tracked_as = Some(RepoName::parse("org/b").unwrap());
    second[1].renamed_at = Some(t2);
    let mut c = known("org/C", "c", "tracked", t2);
    c.host_id = Some(i64::MAX as u64);
    second.push(c);
    assert!(store.owner_claim(owner, t2, SignedDuration::ZERO).unwrap());
    store
        .owner_listed(owner, t2, &second, &stats(2, 2))
        .unwrap();
    let repos: Vec<_> = store
        .owner_repos(&g.id)
        .unwrap()
        .into_iter()
        .map(|r| (r.host, r.owner, r.known))
        .collect();
    let mut want: Vec<_> = second
        .iter()
        .map(|k| ("github".to_string(), "org".to_string(), k.clone()))
        .collect();
    want.sort_by_key(|(_, _, k)| (k.full_name.to_string(), k.repo_id.clone()));
    assert_eq!(repos, want);
    assert_eq!(repos[2].2.ids_name().to_string(), "org/b");
    store
        .owner_failed(owner, ts("2026-11-20T12:00:00Z"), "500 from the host")
        .unwrap();
    assert_eq!(store.owner_repos(&g.id).unwrap().len(), 3);
    let status = store.owners_status().unwrap();
    assert_eq!(status.len(), 1);
    let o = &status[0];
    assert_eq!(
        (o.group_id.as_str(), o.host.as_str(), o.owner.as_str()),
        ("engines", "github", "org")
    );
    assert_eq!(o.listed_at, Some(t2));
    assert_eq!(o.listings, 2);
    assert_eq!((o.last.requests, o.last.not_modified), (2, 2));
    assert_eq!(
        (
            o.totals.requests,
            o.totals.not_modified,
            o.totals.bytes_received
        ),
        (3, 2, 100)
    );
    assert_eq!(
        o.failure,
        Some((ts("2026-11-20T12:00:00Z"), "500 from the host".to_string()))
    );
    assert_eq!(o.repos.len(), 3);
    // A success clears the failure.
    assert!(store.owner_claim(owner, t2, SignedDuration::ZERO).unwrap());
    store
        .owner_listed(owner, t2, &second, &stats(1, 1))
        .unwrap();
    let back = store.owners_status().unwrap();
    assert_eq!(back[0].failure, None);
    assert_eq!(
        back[0].repos,
        want.iter().map(|(_, _, k)| k.clone()).collect::<Vec<_>>()
    );
    // A host id no column holds (no host sends one) is kept as unknown
    // rather than failing the listing.
    let mut odd = second.clone();
    odd[2].host_id = Some(u64::MAX);
    assert!(store.owner_claim(owner, t2, SignedDuration::ZERO).unwrap());
    store.owner_listed(owner, t2, &odd, &stats(1, 1)).unwrap();
    let c = store.owner_repos(&g.id).unwrap().remove(0).known;
    assert_eq!(
        (c.full_name.to_string(), c.host_id),
        ("org/C".to_string(), None)
    );
    // Another group's owners are its own.
    assert!(store.owner_repos("other").unwrap().is_empty());
}
