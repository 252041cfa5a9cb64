//! What a host crate supplies ([`Host`]): its [`Protocol`], its URLs,
//! its wire types and the steps only it needs; and the lists a collection
//! pages through ([`ItemList`], [`ListsSeen`]). The collection itself, the
//! same over every host, is [`crate::HostClient`]'s (`host_client.rs`).

use std::collections::{HashMap, HashSet};

use jiff::Timestamp;
use signals_core::model::{
    DiscussionHead, Discussions, DiscussionsOff, ItemSnapshot, Milestone, RepoName,
};

use signals_core::lifecycle::verdict::Commits;

use crate::items::ItemStamp;

use crate::wire::{
    Conventions, Kinds, ListedEntry, Place, WireItem, WireMilestone, WireRelease, WireRepo,
};
use crate::{Client, Error, Protocol, ResponseCache};

/// One list of issues and/or pull requests a collection pages through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemList {
    /// The first page, asking for entries updated since the run's window.
    pub url: String,
    /// What the list holds.
    pub kinds: Kinds,
    /// The status with which the host answers the first page when the
    /// repository has this list turned off (GitHub's 410, GitLab's 403):
    /// no entries, no error.
    pub disabled: Option<u16>,
}

/// What a collection's item lists answered, for a step that needs to know
/// whether anything in them changed since it last looked
/// ([`Host::open_pulls`]).
///
/// Every issue and pull request opened, closed, reopened or merged since
/// the window's start is in the lists with its new `updated_at` and state,
/// so when the lists answer byte for byte what they answered before,
/// nothing of that kind happened in between.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListsSeen {
    /// SHA-256 over every page's URL and body, in the order asked (hex);
    /// `None` when some list was turned off on the host (its entries are
    /// not seen, so the lists cannot vouch for them), or when the host does
    /// not read it ([`Host::DIGESTS_LISTS`]).
    pub digest: Option<String>,
}

/// What a host crate supplies: its dialect ([`Protocol`]), its URLs, its
/// wire types, and the steps only it needs (each has a default that does
/// nothing). Everything else about collecting is [`crate::HostClient`]'s.
pub trait Host: Protocol + Clone + 'static {
    /// The API root of the host kind's public instance, used when the
    /// configuration gives no base URL.
    const API_URL: &'static str;
    /// Entries asked of every list page (the host's maximum, or its
    /// default cap).
    const PER_PAGE: u32;
    /// How the host names what its JSON leaves out.
    const CONVENTIONS: Conventions;
    /// What an owner is looked up as, in the order of
    /// [`Host::owner_urls`], for the "not found" message ("an
    /// organisation or a user").
    const OWNER_KINDS: &'static str;
    /// True when a renamed repository is answered by a redirect (GitHub,
    /// Forgejo): only a redirected answer can report a new name. False
    /// when the host answers an old path with the object under its new
    /// name (GitLab): every answer whose name differs is a rename.
    const RENAME_BY_REDIRECT: bool = true;
    /// True when [`Host::open_pulls`] reads [`ListsSeen::digest`]:
    /// only then are the item pages hashed as they are read (it costs
    /// about 0.7 ms of CPU per 1,000 items).
    const DIGESTS_LISTS: bool = false;
    /// True when the repository object's open issue count holds the open
    /// pull requests too (GitHub), which [`Host::open_pulls`] counts, so
    /// that `openIssues` means issues on every host.
    const OPEN_ISSUES_HOLD_PULLS: bool = false;

    /// The repository's object.
    type Repo: WireRepo;
    /// An entry of the releases list.
    type Release: WireRelease;
    /// An entry of the open milestones list.
    type Milestone: WireMilestone;
    /// An entry of an issues or pull requests list.
    type Item: WireItem;
    /// An entry of an owner's repository listing.
    type Listed: ListedEntry;

    /// The URL of the repository's object under `repo` (the configured
    /// name). Default: `{base}/repos/{repo}`.
    fn repository_url(&self, base: &str, repo: &RepoName) -> String {
        format!("{base}/repos/{repo}")
    }
    /// The root of the repository's lists, once its object is known;
    /// `name` is its current name. Default: `{base}/repos/{name}`.
    fn root(&self, base: &str, name: &RepoName, repo: &Self::Repo) -> String {
        let _ = repo;
        format!("{base}/repos/{name}")
    }
    /// The first page of releases.
    fn releases_url(&self, root: &str) -> String;
    /// The first page of open milestones.
    fn milestones_url(&self, root: &str) -> String;
    /// The lists of issues and pull requests updated at or after `since`
    /// (`YYYY-MM-DDTHH:MM:SSZ`), each paged through in full.
    fn item_lists(&self, root: &str, since: &str) -> Vec<ItemList>;
    /// Where an owner's repositories are listed, tried in order while the
    /// host answers 404 (an organisation, then a user).
    fn owner_urls(&self, base: &str, owner: &str) -> Vec<String>;

    /// The open pull requests to take off the object's open issue count
    /// ([`Host::OPEN_ISSUES_HOLD_PULLS`]), after the item lists were read
    /// (`lists`). Default: none, nothing asked.
    fn open_pulls(
        &self,
        http: &mut Client,
        root: &str,
        lists: &ListsSeen,
        cache: &mut dyn ResponseCache,
    ) -> Result<u64, Error> {
        let _ = (http, root, lists, cache);
        Ok(0)
    }

    /// The milestones of the list's entries. Default: each entry as it
    /// is; a host whose entries lack the issue counts asks for them here.
    fn milestones(
        &self,
        http: &mut Client,
        root: &str,
        listed: Vec<Self::Milestone>,
        at: &Place<'_>,
        cache: &mut dyn ResponseCache,
    ) -> Result<Vec<Milestone>, Error> {
        let _ = (http, root, cache);
        Ok(listed.into_iter().map(|m| m.into_milestone(at)).collect())
    }

    /// The comments and reviews written or edited at or after `since`,
    /// handed to `sink` a page (or a query) at a time, at a cost bounded
    /// by the host crate (its `comments` module), with the merges those
    /// answers tell; `items` are the collection's items, of which those
    /// updated at or after `since` are the ones that changed. Default:
    /// none.
    fn comments(
        &self,
        http: &mut Client,
        root: &str,
        since: Timestamp,
        items: &[ItemStamp],
        sink: &mut dyn crate::ReplySink,
        cache: &mut dyn ResponseCache,
    ) -> Result<(), Error> {
        let _ = (http, root, since, items, sink, cache);
        Ok(())
    }

    /// Settles the merge state of the closed pull requests in `unknown`
    /// (by key) among `items`, setting `merged` and `mergedAt` and taking
    /// each settled key out of `unknown`, with a bounded number of
    /// requests. What stays in `unknown` is left out of the run. Default:
    /// nothing settled.
    fn settle_merges(
        &self,
        http: &mut Client,
        root: &str,
        since: Timestamp,
        items: &mut [ItemSnapshot],
        unknown: &mut HashSet<String>,
        cache: &mut dyn ResponseCache,
    ) -> Result<(), Error> {
        let _ = (http, root, since, items, unknown, cache);
        Ok(())
    }

    /// Reads the discussions of `repo` (its current name) updated at or
    /// after `watermark`, and its most recently updated open ones.
    /// Asked after [`crate::HostClient::collect`], in the same run, with the
    /// repository's object as that collection read it (`None` when it did
    /// not); what it costs is counted apart from REST requests
    /// ([`Client::graphql_cost`]). Default: the host has none.
    fn discussions(
        &self,
        http: &mut Client,
        repo: &RepoName,
        object: Option<&[u8]>,
        watermark: Timestamp,
        cache: &mut dyn ResponseCache,
    ) -> Result<Discussions, Error> {
        let _ = (http, repo, object, watermark, cache);
        Ok(Discussions::Off(DiscussionsOff::Unsupported))
    }

    /// The repository's commits per week over the last year (`repo`
    /// under its current name), for its lifecycle: asked conditionally,
    /// and at most as often as the caller says (daily). `None` when the
    /// host gives none, and nothing is asked. Default: none.
    fn commits(
        &self,
        http: &mut Client,
        repo: &RepoName,
        cache: &mut dyn ResponseCache,
    ) -> Result<Option<Commits>, Error> {
        let _ = (http, repo, cache);
        Ok(None)
    }

    /// The repository's published security advisories, withdrawn ones
    /// too, as items of kind `advisory`, read conditionally once per run
    /// (`root` is the repository's API root). A host's ordinary refusal
    /// (the feature off, not found, forbidden) is none. Default: the host
    /// has none, nothing asked.
    fn advisories(
        &self,
        http: &mut Client,
        root: &str,
        at: &Place<'_>,
        cache: &mut dyn ResponseCache,
    ) -> Result<Vec<ItemSnapshot>, Error> {
        let _ = (http, root, at, cache);
        Ok(Vec::new())
    }

    /// Asks, for many repositories at once (at most [`HEADS_PER_QUERY`]),
    /// whether their discussions are on and when the newest changed,
    /// by lower-cased `owner/name`; a repository left out is
    /// asked as before. Default: nothing (the host has no discussions).
    fn discussion_heads(
        &self,
        http: &mut Client,
        repos: &[RepoName],
        cache: &mut dyn ResponseCache,
    ) -> Result<HashMap<String, DiscussionHead>, Error> {
        let _ = (http, repos, cache);
        Ok(HashMap::new())
    }
}

/// Repositories whose discussions' heads one query asks
/// ([`Host::discussion_heads`]): GitHub charges one point for 100.
pub const HEADS_PER_QUERY: usize = 100;
