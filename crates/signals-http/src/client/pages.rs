//! The paging loop and the repository read every host crate did alike on
//! top of [`Client::get`]: the list's pages followed to the end (with the
//! page-number step a 304 of a full last page calls for, a disabled list,
//! the page guard), and a repository's object whose 404 is
//! [`Error::NotFound`].

use signals_core::model::RepoName;

use super::{Client, Fetched};
use crate::Error;
use crate::cache::ResponseCache;

/// A guard against pagination that never ends.
pub const MAX_PAGES: usize = 10_000;

impl Client {
    /// GETs every page of a list from `first`, handing each answer to
    /// `page`, which decodes it and says how many entries it held. Pages
    /// follow [`Fetched::next`]. A 304 keeps the cached pagination: when
    /// that page was the last one and full (`per_page` entries), entries
    /// added since (at the end of an ascending list) are on a page the
    /// cached answer does not announce, so the next page is asked by number
    /// (`&page=N` after `first`); an empty answer ends the list. A
    /// `disabled` status on the first page means the host has the list
    /// turned off (GitHub's 410, GitLab's 403): no entries, no error. More
    /// than [`MAX_PAGES`] pages is an error.
    pub fn get_pages(
        &mut self,
        first: &str,
        cache: &mut dyn ResponseCache,
        per_page: usize,
        disabled: Option<u16>,
        mut page: impl FnMut(&Fetched) -> Result<usize, Error>,
    ) -> Result<(), Error> {
        let mut next = Some(first.to_string());
        let mut pages = 0;
        while let Some(url) = next.take() {
            pages += 1;
            if pages > MAX_PAGES {
                return Err(Error::Http {
                    host: self.protocol.name(),
                    url,
                    status: 200,
                    message: format!("more than {MAX_PAGES} pages; stopping"),
                });
            }
            let fetched = match self.get(&url, cache) {
                Err(Error::Http { status, .. }) if pages == 1 && Some(status) == disabled => {
                    return Ok(());
                }
                r => r?,
            };
            let full = page(&fetched)? == per_page;
            next = fetched.next;
            if next.is_none() && full && fetched.not_modified {
                next = Some(format!("{first}&page={}", pages + 1));
            }
        }
        Ok(())
    }

    /// GETs a repository's own object at `url`; a 404 is
    /// [`Error::NotFound`] for `repo`.
    pub fn get_repository(
        &mut self,
        url: &str,
        repo: &RepoName,
        cache: &mut dyn ResponseCache,
    ) -> Result<Fetched, Error> {
        let host = self.protocol.name();
        self.get(url, cache).map_err(|e| match e {
            Error::Http { status: 404, .. } => Error::NotFound {
                host,
                repo: repo.clone(),
            },
            e => e,
        })
    }
}
