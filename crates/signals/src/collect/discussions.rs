//! The discussions step of one run (issue 26): asked of the host after
//! its collection, in the same run, unless the group turns them off; what
//! it reads joins the run's items, and the news gets the open ones or the
//! reason there are none. See docs/decisions.md, "Discussions (issue
//! 26)".

use jiff::Timestamp;
use signals_core::{Discussions, DiscussionsOff, GraphqlCost, ItemSnapshot, News, RepoName};
use signals_http::ResponseCache;

use crate::hosts::HostClient;

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
            None => {}
        }
    }
}

/// Asks the host for `name`'s discussions updated at or after
/// `watermark`, unless `off` (the group's `discussions = false`).
pub fn read(
    client: &mut HostClient,
    name: &RepoName,
    watermark: Timestamp,
    off: bool,
    cache: &mut dyn ResponseCache,
) -> Result<Read, signals_http::Error> {
    if off {
        return Ok(Read {
            news: Some(Discussions::Off(DiscussionsOff::Configured)),
            cost: client.http_ref().graphql_cost(),
            ..Read::default()
        });
    }
    let result = client.discussions(name, watermark, cache);
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
        off @ Discussions::Off(_) => Read {
            items: Vec::new(),
            news: Some(off),
            cost,
        },
    })
}
