//! One collection for every host: [`HostClient`] runs the same
//! collection and owner listing over any [`Host`].
//!
//! A collection asks, in this order: the repository's object; the releases
//! list (first page, with its assets' download counts); the repository's
//! security advisories ([`Host::advisories`]); the open milestones (first page) and the host's
//! completion of them ([`Host::milestones`]); every page of each items
//! list ([`Host::item_lists`]); the open pull requests the object's open
//! issue count holds ([`Host::open_pulls`]), unless the caller counts them
//! from its store ([`OpenPulls`]; the host can tell from the lists'
//! [`ListsSeen`] whether its kept count may have changed); and, when
//! some closed pull request's merge state was not given, the host's
//! [`Host::settle_merges`]. A pull request still unsettled is left out of
//! the run, never reported as not merged: its next update brings it back.

use std::collections::{HashMap, HashSet};
use std::fmt;

use sha2::{Digest, Sha256};

use jiff::Timestamp;
use signals_core::model::{
    AssetCount, Collected, Comment, DiscussionHead, Discussions, DiscussionsOff, ItemKind,
    ItemSnapshot, RepoName, WATERMARK_MARGIN,
};

use crate::host::{HEADS_PER_QUERY, Host, ListsSeen};
use crate::items::{Gather, Gathered, HeldReplies, ItemStamp, Listed, Merge, PageSink, ReplySink};
use crate::wire::{Place, WireItem, WireRelease, WireRepo};
use crate::{
    Client, Config, Error, Logger, OpenPulls, Owed, OwnerListing, RateLimit, RequestStats,
    ResponseCache, decode,
};

/// What a collection asks of the host beyond the repository, its
/// releases, milestones and items.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Asked {
    /// The comments and reviews written or edited at or after this
    /// instant; none when `None`.
    pub comments_since: Option<Timestamp>,
    /// Whether the caller counts the open pull requests from its store:
    /// they are then left owed ([`OpenPulls::Owed`]), not asked.
    pub count_pulls: bool,
}

/// What one host client's `collect` of one repository produced, the same
/// for every host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collection {
    /// Context, releases, milestones and items, in domain types.
    pub collected: Collected,
    /// The new name when the host redirected the repository (it was
    /// renamed or transferred); requests after the first used it.
    pub renamed_to: Option<RepoName>,
    /// Request counters of this collection.
    pub stats: RequestStats,
    /// The comments and reviews written or edited since the comments'
    /// `since`; empty when none were asked for, or when a [`PageSink`]
    /// took them.
    pub comments: Vec<Comment>,
    /// The merges the item lists' entries ([`WireItem::merger`])
    /// and the comments' answers told (who merged which pull request),
    /// always held: one per merged pull request, by key.
    pub merges: Vec<signals_core::model::Merge>,
    /// Whether the open pull requests were taken off `openIssues`, or
    /// are owed by the caller.
    pub open_pulls: OpenPulls,
    /// When the repository was created, when its object says.
    pub created_at: Option<Timestamp>,
    /// True when some closed pull request whose merge state stayed
    /// unknown was left out of the items.
    pub pulls_left_out: bool,
    /// The keys of those pull requests: with a [`PageSink`], an earlier
    /// sighting of one that went to the sink is to be dropped.
    pub left_out: HashSet<String>,
}

/// The comments of a collection going to its [`PageSink`], read against
/// the repository's web URL; the merges held.
struct ToSink<'a> {
    sink: &'a mut dyn PageSink,
    web: &'a str,
    merges: &'a mut Vec<signals_core::model::Merge>,
}

impl ReplySink for ToSink<'_> {
    fn comments(&mut self, page: Vec<Comment>) {
        self.sink.comments(self.web, page);
    }

    fn merges(&mut self, merges: Vec<signals_core::model::Merge>) {
        self.merges.extend(merges);
    }
}

/// `owner/name` lower-cased: how heads are keyed.
fn lowercase_name(repo: &RepoName) -> String {
    repo.to_string().to_lowercase()
}

/// A blocking client of one host: the shared [`Client`] and the host's
/// [`Host`]. Each host crate names it `Client`
/// (`signals_github::Client = HostClient<GitHub>`).
pub struct HostClient<H: Host> {
    http: Client,
    host: H,
    /// The repository's object as the last collection read it, for the
    /// discussions step ([`Host::discussions`]).
    repo_object: Option<Vec<u8>>,
    /// The round's repositories whose discussions may be asked by heads
    /// ([`HostClient::plan_discussion_heads`]), in order, and the place of
    /// each by lower-cased name.
    round: Vec<RepoName>,
    round_at: HashMap<String, usize>,
    /// Heads asked in this round, with when they were asked.
    heads: HashMap<String, (DiscussionHead, Timestamp)>,
    /// When a heads query last failed: none is asked again within the
    /// watermark's margin, so a failing GraphQL costs the round one
    /// failed query, not one per repository.
    heads_failed: Option<Timestamp>,
}

impl<H: Host> fmt::Debug for HostClient<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.http.fmt(f)
    }
}

impl<H: Host + Default> HostClient<H> {
    /// Builds a client; fails when the base URL is not http(s). An empty
    /// base URL means the host kind's public instance ([`Host::API_URL`]).
    pub fn new(config: Config) -> Result<Self, Error> {
        Self::with_host(config, H::default())
    }
}

impl<H: Host> HostClient<H> {
    /// Builds a client of `host` (a host with settings of its own, such as
    /// GitLab's token header); see [`HostClient::new`].
    pub fn with_host(config: Config, host: H) -> Result<Self, Error> {
        Ok(HostClient {
            http: Client::with_default_base(config, H::API_URL, Box::new(host.clone()))?,
            host,
            repo_object: None,
            round: Vec::new(),
            round_at: HashMap::new(),
            heads: HashMap::new(),
            heads_failed: None,
        })
    }

    /// The shared HTTP client (logger, stats, rate limits).
    pub fn http(&mut self) -> &mut Client {
        &mut self.http
    }

    /// The shared HTTP client, read-only.
    pub fn http_ref(&self) -> &Client {
        &self.http
    }

    /// Installs a callback called after every HTTP request.
    pub fn set_logger(&mut self, logger: Logger) {
        self.http.set_logger(logger);
    }

    /// True when at least one token is configured.
    pub fn is_authenticated(&self) -> bool {
        self.http.is_authenticated()
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        self.http.config()
    }

    /// The counters of the latest collection or listing, also when it
    /// failed: a failed collection spends requests too.
    pub fn last_stats(&self) -> RequestStats {
        self.http.stats()
    }

    /// The last rate limit seen for the token the next request would use
    /// (or for anonymous access); `None` before any answer.
    pub fn rate_limit(&self) -> Option<RateLimit> {
        self.http.rate_limit()
    }

    /// The last rate limit seen per token, with its environment variable
    /// name (`None` for anonymous).
    pub fn rate_limits(&self) -> Vec<(Option<String>, Option<RateLimit>)> {
        self.http.rate_limits()
    }

    /// Collects one repository: context, releases, open milestones, and
    /// every issue and pull request updated at or after `since` (see the
    /// module documentation for the order of requests, and each host
    /// crate for their count). Items are in the order the host listed
    /// them, one per kind and key (the last seen wins, should an item move
    /// between pages while paging). A renamed repository is reported in
    /// [`Collection::renamed_to`], and everything after its object is
    /// asked of the new name.
    pub fn collect(
        &mut self,
        repo: &RepoName,
        since: Timestamp,
        cache: &mut dyn ResponseCache,
    ) -> Result<Collection, Error> {
        self.collect_with(repo, since, Asked::default(), cache)
    }

    /// [`HostClient::collect`], and then, when `comments_since` is given,
    /// the comments and reviews written or edited since then
    /// ([`Host::comments`], into [`Collection::comments`]). When
    /// `count_pulls` (the caller can count the open pull requests from
    /// its store), they are not asked of the host but left owed
    /// ([`OpenPulls::Owed`]).
    pub fn collect_with(
        &mut self,
        repo: &RepoName,
        since: Timestamp,
        asked: Asked,
        cache: &mut dyn ResponseCache,
    ) -> Result<Collection, Error> {
        self.collect_into(repo, since, asked, None, cache)
    }

    /// [`HostClient::collect_with`], the items and comments sent to
    /// `sink` as their pages arrive instead of held: the [`Collection`]'s
    /// items and comments are then empty, and the comments step reads only
    /// the stamps of the items updated since its `since`, held meanwhile.
    pub fn collect_into(
        &mut self,
        repo: &RepoName,
        since: Timestamp,
        asked: Asked,
        sink: Option<&mut dyn PageSink>,
        cache: &mut dyn ResponseCache,
    ) -> Result<Collection, Error> {
        let (http, host) = (&mut self.http, &self.host);
        http.reset_stats();
        self.repo_object = None;
        let name_of_host = http.host_name();
        let base = http.base().to_string();
        let url = host.repository_url(&base, repo);
        let fetched = http.get_repository(&url, repo, cache)?;
        let wire_repo: H::Repo = decode(name_of_host, &fetched.url, &fetched.body)?;
        self.repo_object = Some(fetched.body);
        let renamed_to = if fetched.redirected || !H::RENAME_BY_REDIRECT {
            renamed(repo, wire_repo.full_name())
        } else {
            None
        };
        let name = renamed_to.clone().unwrap_or_else(|| repo.clone());
        let web = wire_repo.web_url().to_string();
        let root = host.root(&base, &name, &wire_repo);
        // The host's spelling of the name (its case), unless it is no
        // valid `owner/name`.
        let repository = RepoName::parse(wire_repo.full_name()).unwrap_or_else(|_| name.clone());
        let created_at = wire_repo.created_at();
        let mut context = wire_repo.into_context(repository);
        let at = Place {
            repo: &name,
            web: &web,
            conventions: &H::CONVENTIONS,
        };

        let fetched = http.get(&host.releases_url(&root), cache)?;
        let (releases, downloads) = releases_of::<H>(name_of_host, &fetched, &at)?;
        let advisories = host.advisories(http, &root, &at, cache)?;

        let fetched = http.get(&host.milestones_url(&root), cache)?;
        let listed = decode::<Vec<H::Milestone>>(name_of_host, &fetched.url, &fetched.body)?;
        let milestones = host.milestones(http, &root, listed, &at, cache)?;

        let since_text = since.strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
        let mut gather = Gather::new(sink, asked.comments_since);
        let lists_asked = Lists {
            root: &root,
            since: &since_text,
            at: &at,
        };
        let lists = read_lists(http, host, &lists_asked, &mut gather, cache)?;
        let open_pulls = if !H::OPEN_ISSUES_HOLD_PULLS {
            OpenPulls::NotHeld
        } else if asked.count_pulls {
            OpenPulls::Owed(Owed {
                root: root.clone(),
                lists,
            })
        } else {
            let count = host.open_pulls(http, &root, &lists, cache)?;
            context.open_issues = context.open_issues.saturating_sub(count);
            OpenPulls::Asked(count)
        };
        let Gathered {
            mut items,
            mut unknown,
            recent,
            mut sink,
            mut merges,
        } = gather.finish();
        if !unknown.is_empty() {
            host.settle_merges(http, &root, since, &mut items, &mut unknown, cache)?;
            items.retain(|i| !(i.kind() == ItemKind::PullRequest && unknown.contains(&i.key)));
        }
        let stamps = match recent {
            Some(recent) => recent,
            None => items.iter().map(ItemStamp::of).collect(),
        };
        if let Some(sink) = &mut sink {
            sink.items(std::mem::take(&mut items));
        }
        let replies = Replies {
            root: &root,
            web: &web,
            since: asked.comments_since,
            stamps: &stamps,
        };
        let held = read_replies(http, host, &replies, sink, cache)?;
        // One merge per pull request: an answer's stands over a list's.
        let HeldReplies {
            comments,
            merges: told,
        } = held;
        merges.extend(told.into_iter().map(|m| (m.item_key.clone(), m)));
        Ok(Collection {
            collected: Collected {
                context,
                releases,
                milestones,
                items,
                advisories,
                downloads,
            },
            renamed_to,
            stats: http.stats(),
            comments,
            merges: merges.into_values().collect(),
            open_pulls,
            created_at,
            pulls_left_out: !unknown.is_empty(),
            left_out: unknown,
        })
    }

    /// Asks the host for the open pull requests a collection left owed
    /// ([`OpenPulls::Owed`]); the request joins the client's counters.
    pub fn ask_open_pulls(
        &mut self,
        owed: &Owed,
        cache: &mut dyn ResponseCache,
    ) -> Result<u64, Error> {
        self.host
            .open_pulls(&mut self.http, &owed.root, &owed.lists, cache)
    }

    /// The discussions of `repo` updated at or after `watermark` (see
    /// [`Host::discussions`]); the counters of the collection before it
    /// go on, GraphQL's apart. What the previous run found (`before`)
    /// may spare the request: when it read them and the head of `repo`
    /// ([`HostClient::head_of`]) shows nothing changed since `watermark`,
    /// nothing more is asked ([`Discussions::Unchanged`]); when it found
    /// them turned off, they are taken as still off when the head says
    /// so, or, with no head, when that run was on the same UTC day, so a
    /// repository without discussions is asked at most daily.
    pub fn discussions(
        &mut self,
        repo: &RepoName,
        watermark: Timestamp,
        before: DiscussionsBefore,
        cache: &mut dyn ResponseCache,
    ) -> Result<Discussions, Error> {
        match before {
            DiscussionsBefore::Unknown => {}
            DiscussionsBefore::Read => {
                if self
                    .head_of(repo, cache)
                    .is_some_and(|h| h.unchanged_since(watermark))
                {
                    return Ok(Discussions::Unchanged);
                }
            }
            DiscussionsBefore::Disabled { same_day } => match self.head_of(repo, cache) {
                Some(DiscussionHead::Disabled) => {
                    return Ok(Discussions::Off(DiscussionsOff::Disabled));
                }
                None if same_day => return Ok(Discussions::Off(DiscussionsOff::Disabled)),
                Some(DiscussionHead::Enabled(_)) | None => {}
            },
        }
        let object = self.repo_object.as_deref();
        self.host
            .discussions(&mut self.http, repo, object, watermark, cache)
    }

    /// The commits per week of `repo` (its current name), for its
    /// lifecycle ([`Host::commits`]); the request joins the client's
    /// counters. `None`: the host gives none.
    pub fn commits(
        &mut self,
        repo: &RepoName,
        cache: &mut dyn ResponseCache,
    ) -> Result<Option<signals_core::lifecycle::verdict::Commits>, Error> {
        self.host.commits(&mut self.http, repo, cache)
    }

    /// Names the round's repositories whose discussions may be asked
    /// by heads ([`Host::discussion_heads`]), in the order they will be
    /// collected; forgets the heads of the round before. Asks nothing.
    pub fn plan_discussion_heads(&mut self, repos: &[RepoName]) {
        self.round = repos.to_vec();
        self.round_at.clear();
        for (at, repo) in repos.iter().enumerate().rev() {
            self.round_at.insert(lowercase_name(repo), at);
        }
        self.heads.clear();
        self.heads_failed = None;
    }

    /// The head of `repo`'s discussions, asked when it has none fresh:
    /// one query for `repo` and the round's next repositories, at most
    /// [`HEADS_PER_QUERY`] (its cost is the run's). A head older than the
    /// watermark's margin is not used: a discussion changed after it was
    /// asked would be missed by the next run too ([`WATERMARK_MARGIN`]).
    /// `None` when `repo` is not in the round, is its last repository (its
    /// own query costs what a head would), or a heads query failed within
    /// the margin.
    fn head_of(
        &mut self,
        repo: &RepoName,
        cache: &mut dyn ResponseCache,
    ) -> Option<DiscussionHead> {
        let key = lowercase_name(repo);
        let now = (self.http.config().clock)();
        let fresh = |at: Timestamp| now.duration_since(at) <= WATERMARK_MARGIN;
        if let Some(&(head, at)) = self.heads.get(&key)
            && fresh(at)
        {
            return Some(head);
        }
        // The round in fixed chunks, so that its last repository shares
        // the chunk of those before it instead of asking alone.
        let at = *self.round_at.get(&key)?;
        let start = at - at % HEADS_PER_QUERY;
        let chunk = &self.round[start..(start + HEADS_PER_QUERY).min(self.round.len())];
        if chunk.len() < 2 || self.heads_failed.is_some_and(fresh) {
            return None;
        }
        let Ok(heads) = self.host.discussion_heads(&mut self.http, chunk, cache) else {
            self.heads_failed = Some(now);
            return None;
        };
        for (name, head) in heads {
            self.heads.insert(name, (head, now));
        }
        self.heads.get(&key).map(|&(head, _)| head)
    }

    /// Lists the public repositories of `owner` from the first of
    /// [`Host::owner_urls`] that knows it (see [`Client::list_owner`]).
    pub fn list_owner(
        &mut self,
        owner: &str,
        cache: &mut dyn ResponseCache,
    ) -> Result<OwnerListing, Error> {
        let urls = self.host.owner_urls(self.http.base(), owner);
        self.http
            .list_owner::<H::Listed>(owner, &urls, H::OWNER_KINDS, cache, H::PER_PAGE as usize)
    }
}

/// What a repository's previous run found of its discussions, which may
/// spare its run the request ([`HostClient::discussions`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscussionsBefore {
    /// Nothing to go by: its first run, or discussions it could not read
    /// (no token, not found).
    Unknown,
    /// It read them.
    Read,
    /// It found them turned off on the host; `same_day`: it ran on this
    /// run's UTC day.
    Disabled {
        /// The previous run was on this run's UTC day.
        same_day: bool,
    },
}

/// The comments step of one collection, as it is asked.
struct Replies<'a> {
    /// The repository's API root.
    root: &'a str,
    /// Its web URL, which the comments' references are read against.
    web: &'a str,
    /// The comments and reviews written or edited at or after this
    /// instant; none when `None`.
    since: Option<Timestamp>,
    /// The items whose comments may be read.
    stamps: &'a [ItemStamp],
}

/// The comments step ([`Host::comments`]): the comments and reviews to
/// `sink` when there is one, else held; the merges its answers told,
/// held.
fn read_replies<H: Host>(
    http: &mut Client,
    host: &H,
    asked: &Replies<'_>,
    sink: Option<&mut dyn PageSink>,
    cache: &mut dyn ResponseCache,
) -> Result<HeldReplies, Error> {
    let mut held = HeldReplies::default();
    let Some(at) = asked.since else {
        return Ok(held);
    };
    match sink {
        Some(sink) => {
            let mut to_sink = ToSink {
                sink,
                web: asked.web,
                merges: &mut held.merges,
            };
            host.comments(http, asked.root, at, asked.stamps, &mut to_sink, cache)?;
        }
        None => host.comments(http, asked.root, at, asked.stamps, &mut held, cache)?,
    }
    Ok(held)
}

/// The item lists of one repository, as a collection asks them.
struct Lists<'a> {
    /// The repository's API root.
    root: &'a str,
    /// The lists' `since`, as the host reads it.
    since: &'a str,
    /// Where their items are.
    at: &'a Place<'a>,
}

/// Reads every page of each of the host's item lists into `gather`;
/// returns what the lists answered.
fn read_lists<H: Host>(
    http: &mut Client,
    host: &H,
    asked: &Lists<'_>,
    gather: &mut Gather<'_>,
    cache: &mut dyn ResponseCache,
) -> Result<ListsSeen, Error> {
    let name_of_host = http.host_name();
    let mut digest = H::DIGESTS_LISTS.then(Sha256::new);
    for list in host.item_lists(asked.root, asked.since) {
        let per_page = H::PER_PAGE as usize;
        let mut pages = 0;
        http.get_pages(&list.url, cache, per_page, list.disabled, |fetched| {
            let page = decode::<Vec<H::Item>>(name_of_host, &fetched.url, &fetched.body)?;
            pages += 1;
            if let Some(d) = &mut digest {
                for part in [fetched.url.as_bytes(), &fetched.body] {
                    d.update((part.len() as u64).to_le_bytes());
                    d.update(part);
                }
            }
            let entries = page.len();
            gather.page(
                page.into_iter()
                    .map(|entry| Listed {
                        merge: if entry.merge_unknown() {
                            Merge::Unknown
                        } else {
                            Merge::Known
                        },
                        merger: entry.merger(asked.at, list.kinds),
                        item: entry.into_snapshot(asked.at, list.kinds),
                    })
                    .collect(),
            );
            Ok(entries)
        })?;
        // A list turned off answers no page.
        if pages == 0 {
            digest = None;
        }
    }
    Ok(ListsSeen {
        digest: digest.map(|d| crate::cache::hex(&d.finalize())),
    })
}

/// The releases of a releases page, and their assets' download counts, one
/// per asset (the first listed wins). A draft's assets are not public:
/// only a release's count.
fn releases_of<H: Host>(
    name_of_host: &'static str,
    fetched: &crate::Fetched,
    at: &Place<'_>,
) -> Result<(Vec<ItemSnapshot>, Vec<AssetCount>), Error> {
    let mut downloads = Vec::new();
    let mut seen = HashSet::new();
    let releases = decode::<Vec<H::Release>>(name_of_host, &fetched.url, &fetched.body)?
        .into_iter()
        .filter_map(|r| {
            let assets = r.downloads();
            let release = r.into_snapshot(at)?;
            downloads.extend(assets.into_iter().filter(|d| seen.insert(d.asset.clone())));
            Some(release)
        })
        .collect();
    Ok((releases, downloads))
}

/// The new name when the host's answer names another repository than the
/// one asked for (case aside) and that name is a valid `owner/name`.
fn renamed(asked: &RepoName, answered: &str) -> Option<RepoName> {
    if answered.eq_ignore_ascii_case(&asked.to_string()) {
        None
    } else {
        RepoName::parse(answered).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_are_other_valid_names() {
        let asked = RepoName::parse("o/n").unwrap();
        assert_eq!(renamed(&asked, "O/N"), None);
        assert_eq!(renamed(&asked, "not a name"), None);
        assert_eq!(renamed(&asked, "p/m").unwrap().to_string(), "p/m");
    }
}
