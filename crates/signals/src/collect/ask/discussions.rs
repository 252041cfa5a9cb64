//! The discussions of one run: asked of the host after its collection,
//! in the same run, unless the group turns them off; what it reads joins
//! the run's items, and the news gets the open ones or the reason there
//! are none. See docs/decisions.md, "Discussions".

use jiff::Timestamp;
use signals_core::{Discussions, DiscussionsOff, GraphqlCost, ItemSnapshot, News, RepoName};
use signals_http::{DiscussionsBefore, ResponseCache};

use crate::collect::run::Target;
use crate::hosts::{HostClient, HostEntry};

/// What the step brought to the run.
#[derive(Debug, Default)]
pub struct Read {
    /// Discussions updated since the watermark.
    pub items: Vec<ItemSnapshot>,
    /// What went into the news: the open ones, or why none.
    news: Option<Discussions>,
    /// What GraphQL cost the run: the reviews' queries (asked with the
    /// collection, before) and the discussions'.
    pub cost: GraphqlCost,
}

impl Read {
    /// True when the host's discussions were read: then the run saw all
    /// that changed since the watermark (all of them on a reconcile).
    pub fn read(&self) -> bool {
        matches!(self.news, Some(Discussions::Read { .. }))
    }

    /// Puts the open discussions, or the reason there are none, in the
    /// run's news.
    pub fn into_news(self, news: &mut News) {
        match self.news {
            Some(Discussions::Read { open, .. }) => news.discussions = open,
            Some(Discussions::Off(off)) => news.discussions_off = Some(off),
            // `read` turns it into the previous run's open discussions.
            Some(Discussions::Unchanged) | None => {}
        }
    }
}

/// What the discussions step of a run goes by.
pub struct Asked {
    /// The oldest `updatedAt` read.
    pub watermark: Timestamp,
    /// The news of the repository's previous run.
    pub previous: Option<News>,
    /// The previous run was on this run's UTC day.
    pub same_day: bool,
    /// The group's `discussions = false`.
    pub off: bool,
}

/// Asks the host for `name`'s discussions updated at or after the
/// watermark, unless the group turns them off. When the previous run
/// read them and the round's head shows none changed since, nothing is
/// asked and its open discussions stand; when it found them turned off on
/// the host, they stay off while the head says so, or, without a head,
/// until the next UTC day.
pub fn read(
    client: &mut HostClient,
    name: &RepoName,
    asked: Asked,
    cache: &mut dyn ResponseCache,
) -> Result<Read, signals_http::Error> {
    let Asked {
        watermark,
        previous,
        same_day,
        off,
    } = asked;
    if off {
        return Ok(Read {
            news: Some(Discussions::Off(DiscussionsOff::Configured)),
            cost: client.http_ref().graphql_cost(),
            ..Read::default()
        });
    }
    let read_before = previous.as_ref().filter(|n| n.discussions_off.is_none());
    let before = match previous.as_ref().map(|n| n.discussions_off) {
        Some(None) => DiscussionsBefore::Read,
        Some(Some(DiscussionsOff::Disabled)) => DiscussionsBefore::Disabled { same_day },
        Some(Some(_)) | None => DiscussionsBefore::Unknown,
    };
    let result = client.discussions(name, watermark, before, cache);
    let cost = client.http_ref().graphql_cost();
    Ok(match result? {
        Discussions::Read { items, open } => Read {
            items,
            news: Some(Discussions::Read {
                items: Vec::new(),
                open,
            }),
            cost,
        },
        Discussions::Unchanged => Read {
            items: Vec::new(),
            news: Some(Discussions::Read {
                items: Vec::new(),
                open: read_before
                    .map(|n| n.discussions.clone())
                    .unwrap_or_default(),
            }),
            cost,
        },
        off @ Discussions::Off(_) => Read {
            items: Vec::new(),
            news: Some(off),
            cost,
        },
    })
}

/// Names to each host the round's repositories on it whose group reads
/// discussions, so a run asks their heads a hundred at a time
/// (one GraphQL point) and a quiet repository's run asks nothing more.
/// Asks nothing itself.
pub fn plan_heads(hosts: &mut [HostEntry], targets: &[Target<'_>], discussions_off: &[String]) {
    for (h, host) in hosts.iter_mut().enumerate() {
        let names: Vec<RepoName> = targets
            .iter()
            .filter(|t| t.host == h && !discussions_off.contains(&t.group.id))
            .map(|t| t.ask().clone())
            .collect();
        host.client.plan_discussion_heads(&names);
    }
}
