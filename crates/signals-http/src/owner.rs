//! An owner's listing: every page of an organisation's or a
//! user's repositories, each page decoded as a list of the host's
//! [`ListedEntry`], the same for every host. Which repositories of it a
//! group tracks is decided in `signals_core::owners`, not here.

use crate::wire::ListedEntry;
use crate::{Client, Error, RequestStats, ResponseCache, decode};

/// What one host client's listing of an owner's repositories
/// produced, the same for every host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerListing {
    /// The owner's public repositories, as the host listed them.
    pub repos: Vec<signals_core::owners::Listed>,
    /// Every page answered 304: nothing changed since the last listing.
    pub not_modified: bool,
    /// Request counters of this listing.
    pub stats: RequestStats,
}

impl Client {
    /// Lists an owner's repositories: every page from the first of `urls`,
    /// each decoded as a list of `T`. When a URL answers 404, the next is tried
    /// (`/orgs/…` for an organisation, then `/users/…` for a user); a 404
    /// of the last is [`Error::OwnerNotFound`], `kinds` saying what the
    /// owner was looked up as.
    pub fn list_owner<T: ListedEntry>(
        &mut self,
        owner: &str,
        urls: &[String],
        kinds: &'static str,
        cache: &mut dyn ResponseCache,
        per_page: usize,
    ) -> Result<OwnerListing, Error> {
        self.reset_stats();
        let host = self.host_name();
        for url in urls {
            let mut repos = vec![];
            let mut all_304 = true;
            let result = self.get_pages(url, cache, per_page, None, |fetched| {
                all_304 &= fetched.not_modified;
                let page: Vec<T> = decode(host, &fetched.url, &fetched.body)?;
                // The count of entries kept, as each host counted it before
                // the listing moved here.
                let before = repos.len();
                repos.extend(page.into_iter().filter_map(T::into_listed));
                let n = repos.len() - before;
                Ok(n)
            });
            match result {
                Ok(()) => {
                    return Ok(OwnerListing {
                        repos,
                        not_modified: all_304,
                        stats: self.stats(),
                    });
                }
                Err(Error::Http { status: 404, .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Err(Error::OwnerNotFound {
            host: self.host_name(),
            owner: owner.to_string(),
            kinds,
        })
    }
}
