//! Whole owners: the owners a group lists, and the
//! repositories found through them with their state
//! (`signals_core::owners`).
//!
//! A collection claims an owner's listing ([`Owners::owner_claim`]), lists
//! it on the host, and records the outcome: the owner's repositories as
//! `signals_core::owners::apply` made them, with the listing's request
//! counts ([`Owners::owner_listed`]), or the failure
//! ([`Owners::owner_failed`]). Rows of `owner_repos` are replaced per owner
//! in one transaction but never dropped: `apply` keeps every repository it
//! was given, a gone one as `gone`.
//!
//! The types and the row decoding are shared by both backends; the SQL of
//! each is its own.

use std::path::Path;

use jiff::{SignedDuration, Timestamp};
use signals_core::owners::{Known, State};
use signals_core::{Group, RepoName, RequestStats};

use crate::codec::{int, ts_parse, ts_text, uint};
use crate::{Result, StoreError};

/// One owner of one group on one configured host.
#[derive(Debug, Clone, Copy)]
pub struct OwnerRef<'a> {
    /// The group that lists it.
    pub group: &'a Group,
    /// The configured host's name.
    pub host: &'a str,
    /// The owner, as configured.
    pub owner: &'a str,
}

/// A repository found through an owner, with the owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerRepo {
    /// The configured host's name.
    pub host: String,
    /// The owner, as configured.
    pub owner: String,
    /// The repository and its state.
    pub known: Known,
}

/// One owner as `signals status` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerStatus {
    /// The group's id.
    pub group_id: String,
    /// The configured host's name.
    pub host: String,
    /// The owner, as configured.
    pub owner: String,
    /// When a collection last took the listing on.
    pub claimed_at: Option<Timestamp>,
    /// The last successful listing.
    pub listed_at: Option<Timestamp>,
    /// Successful listings.
    pub listings: u64,
    /// Requests and 304s of the last successful listing.
    pub last: RequestStats,
    /// Requests, 304s and bytes of every successful listing.
    pub totals: RequestStats,
    /// The last failed listing since the last success: when, and why.
    pub failure: Option<(Timestamp, String)>,
    /// The repositories found through it, by full name.
    pub repos: Vec<Known>,
}

/// The raw columns of an `owner_repos` row, in [`OWNER_REPO_COLUMNS`]
/// order.
pub type OwnerRepoRow = (
    String,
    String,
    String,
    String,
    String,
    String,
    String,
    Option<i64>,
    Option<String>,
    Option<String>,
);

/// The columns of [`OwnerRepoRow`]: host, owner, full name, repo id,
/// state, since, first seen, host id, the name its ids use after a
/// rename, when it was renamed.
pub const OWNER_REPO_COLUMNS: &str =
    "host, owner, full_name, repo_id, state, since, first_seen, host_id, tracked_as, renamed_at";

/// The order of an owner's rows: by name, then (after a rename onto the
/// name of a gone repository, two rows share a name) by id.
pub const OWNER_REPO_ORDER: &str = "host, owner, full_name, repo_id";

/// Decodes an `owner_repos` row (both backends).
pub fn owner_repo_from(path: &Path, row: OwnerRepoRow) -> Result<OwnerRepo> {
    let (host, owner, full_name, repo_id, state, since, first_seen, host_id, tracked_as, renamed) =
        row;
    let corrupt = |what: String| StoreError::Corrupt {
        path: path.to_path_buf(),
        what,
    };
    let name = |column: &str, v: &str| {
        RepoName::parse(v).map_err(|e| corrupt(format!("owner_repos.{column}: {e}")))
    };
    Ok(OwnerRepo {
        host,
        owner,
        known: Known {
            full_name: name("full_name", &full_name)?,
            repo_id,
            state: State::parse(&state)
                .ok_or_else(|| corrupt(format!("owner_repos.state is {state:?}")))?,
            since: ts_parse(path, "owner_repos.since", &since)?,
            first_seen: ts_parse(path, "owner_repos.first_seen", &first_seen)?,
            host_id: host_id
                .map(|id| uint(path, "owner_repos.host_id", id))
                .transpose()?,
            tracked_as: tracked_as.map(|n| name("tracked_as", &n)).transpose()?,
            renamed_at: renamed
                .map(|t| ts_parse(path, "owner_repos.renamed_at", &t))
                .transpose()?,
        },
    })
}

/// The values of `k`'s row after group, host and owner, in
/// [`OWNER_REPO_COLUMNS`] order from the full name on. A host id beyond
/// what a column holds (no host sends one; the listing's decoders drop
/// them) is stored as unknown rather than failing the listing.
pub fn owner_repo_values(k: &Known) -> OwnerRepoValues {
    (
        k.full_name.to_string(),
        k.repo_id.clone(),
        k.state.as_str(),
        ts_text(k.since),
        ts_text(k.first_seen),
        k.host_id.and_then(|id| i64::try_from(id).ok()),
        k.tracked_as.as_ref().map(|n| n.to_string()),
        k.renamed_at.map(ts_text),
    )
}

/// What [`owner_repo_values`] gives.
pub type OwnerRepoValues = (
    String,
    String,
    &'static str,
    String,
    String,
    Option<i64>,
    Option<String>,
    Option<String>,
);

/// The raw columns of an `owners` row, in [`OWNER_COLUMNS`] order.
pub type OwnerRow = (
    String,
    String,
    String,
    Option<String>,
    Option<String>,
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
    Option<String>,
    Option<String>,
);

/// The columns of [`OwnerRow`].
pub const OWNER_COLUMNS: &str = "group_id, host, owner, claimed_at, listed_at, listings, \
     last_requests, last_not_modified, requests, not_modified, bytes_received, failed_at, \
     last_error";

/// Decodes an `owners` row (both backends); its repositories are added by
/// the caller.
pub fn owner_status_from(path: &Path, row: OwnerRow) -> Result<OwnerStatus> {
    let (group_id, host, owner, claimed, listed, listings, lr, lnm, r, nm, b, failed, error) = row;
    let ts = |column: &str, v: Option<String>| -> Result<Option<Timestamp>> {
        v.map(|t| ts_parse(path, column, &t)).transpose()
    };
    let n = |column: &str, v: i64| uint(path, column, v);
    let failure = match (ts("owners.failed_at", failed)?, error) {
        (Some(at), Some(message)) => Some((at, message)),
        _ => None,
    };
    Ok(OwnerStatus {
        group_id,
        host,
        owner,
        claimed_at: ts("owners.claimed_at", claimed)?,
        listed_at: ts("owners.listed_at", listed)?,
        listings: n("owners.listings", listings)?,
        last: RequestStats {
            requests: n("owners.last_requests", lr)?,
            not_modified: n("owners.last_not_modified", lnm)?,
            ..RequestStats::default()
        },
        totals: RequestStats {
            requests: n("owners.requests", r)?,
            not_modified: n("owners.not_modified", nm)?,
            bytes_received: n("owners.bytes_received", b)?,
            ..RequestStats::default()
        },
        failure,
        repos: vec![],
    })
}

/// Puts each owner's repositories with it (`repos` in owner order).
pub fn attach_repos(owners: &mut [OwnerStatus], repos: Vec<(String, OwnerRepo)>) {
    for (group_id, repo) in repos {
        if let Some(o) = owners
            .iter_mut()
            .find(|o| o.group_id == group_id && o.host == repo.host && o.owner == repo.owner)
        {
            o.repos.push(repo.known);
        }
    }
}

/// The counters of a listing as stored.
pub fn listing_counts(stats: &RequestStats) -> Result<[i64; 3]> {
    Ok([
        int("listing requests", stats.requests)?,
        int("listing 304s", stats.not_modified)?,
        int("listing bytes", stats.bytes_received)?,
    ])
}

/// Whole owners: the listing of an owner's repositories claimed, recorded
/// or failed, and read back per group and for `signals status`.
pub trait Owners {
    /// Takes on the listing of `owner` at `at` (registering the group and
    /// the owner): true unless it was listed less than `every` ago. Where
    /// several workers share a store, the server's clock decides, so one of
    /// them lists it.
    fn owner_claim(
        &mut self,
        owner: OwnerRef<'_>,
        at: Timestamp,
        every: SignedDuration,
    ) -> Result<bool>;

    /// The repositories found through the owners of group `group_id`, by
    /// host, owner and full name.
    fn owner_repos(&self, group_id: &str) -> Result<Vec<OwnerRepo>>;

    /// Records a successful listing of a claimed `owner` at `at`: its
    /// repositories (every one it had: `apply` keeps them all, a gone one
    /// as `gone`) and what the listing cost, all or nothing.
    fn owner_listed(
        &mut self,
        owner: OwnerRef<'_>,
        at: Timestamp,
        repos: &[Known],
        stats: &RequestStats,
    ) -> Result<()>;

    /// Records a failed listing of a claimed `owner`; its repositories stay
    /// as they were.
    fn owner_failed(&mut self, owner: OwnerRef<'_>, at: Timestamp, message: &str) -> Result<()>;

    /// Every owner with its repositories, by group, host and owner.
    fn owners_status(&self) -> Result<Vec<OwnerStatus>>;
}
