//! [`Collect`]: a host client behind a pointer, whatever its host.

use std::fmt;

use jiff::Timestamp;
use signals_core::model::{Discussions, RepoName};

use crate::{
    Asked, Client, Collection, Error, Host, HostClient, Owed, OwnerListing, PageSink, ResponseCache,
};

/// A host client behind a pointer: what the binary holds for each
/// configured host, whatever its kind. Implemented by every
/// [`HostClient`].
pub trait Collect: fmt::Debug + Send {
    /// See [`HostClient::collect`].
    fn collect(
        &mut self,
        repo: &RepoName,
        since: Timestamp,
        cache: &mut dyn ResponseCache,
    ) -> Result<Collection, Error>;
    /// See [`HostClient::collect_with`].
    fn collect_with(
        &mut self,
        repo: &RepoName,
        since: Timestamp,
        asked: Asked,
        cache: &mut dyn ResponseCache,
    ) -> Result<Collection, Error>;
    /// See [`HostClient::collect_into`].
    fn collect_into(
        &mut self,
        repo: &RepoName,
        since: Timestamp,
        asked: Asked,
        sink: Option<&mut dyn PageSink>,
        cache: &mut dyn ResponseCache,
    ) -> Result<Collection, Error>;
    /// See [`HostClient::ask_open_pulls`].
    fn ask_open_pulls(&mut self, owed: &Owed, cache: &mut dyn ResponseCache) -> Result<u64, Error>;
    /// See [`HostClient::list_owner`].
    fn list_owner(
        &mut self,
        owner: &str,
        cache: &mut dyn ResponseCache,
    ) -> Result<OwnerListing, Error>;
    /// See [`HostClient::discussions`].
    fn discussions(
        &mut self,
        repo: &RepoName,
        watermark: Timestamp,
        before: crate::DiscussionsBefore,
        cache: &mut dyn ResponseCache,
    ) -> Result<Discussions, Error>;
    /// See [`HostClient::commits`].
    fn commits(
        &mut self,
        repo: &RepoName,
        cache: &mut dyn ResponseCache,
    ) -> Result<Option<signals_core::lifecycle::verdict::Commits>, Error>;
    /// See [`HostClient::plan_discussion_heads`].
    fn plan_discussion_heads(&mut self, repos: &[RepoName]);
    /// The shared HTTP client (logger, stats, rate limits).
    fn http(&mut self) -> &mut Client;
    /// The shared HTTP client, read-only.
    fn http_ref(&self) -> &Client;
}

impl<H: Host> Collect for HostClient<H> {
    fn collect(
        &mut self,
        repo: &RepoName,
        since: Timestamp,
        cache: &mut dyn ResponseCache,
    ) -> Result<Collection, Error> {
        HostClient::collect(self, repo, since, cache)
    }

    fn collect_with(
        &mut self,
        repo: &RepoName,
        since: Timestamp,
        asked: Asked,
        cache: &mut dyn ResponseCache,
    ) -> Result<Collection, Error> {
        HostClient::collect_with(self, repo, since, asked, cache)
    }

    fn collect_into(
        &mut self,
        repo: &RepoName,
        since: Timestamp,
        asked: Asked,
        sink: Option<&mut dyn PageSink>,
        cache: &mut dyn ResponseCache,
    ) -> Result<Collection, Error> {
        HostClient::collect_into(self, repo, since, asked, sink, cache)
    }

    fn ask_open_pulls(&mut self, owed: &Owed, cache: &mut dyn ResponseCache) -> Result<u64, Error> {
        HostClient::ask_open_pulls(self, owed, cache)
    }

    fn list_owner(
        &mut self,
        owner: &str,
        cache: &mut dyn ResponseCache,
    ) -> Result<OwnerListing, Error> {
        HostClient::list_owner(self, owner, cache)
    }

    fn discussions(
        &mut self,
        repo: &RepoName,
        watermark: Timestamp,
        before: crate::DiscussionsBefore,
        cache: &mut dyn ResponseCache,
    ) -> Result<Discussions, Error> {
        HostClient::discussions(self, repo, watermark, before, cache)
    }

    fn commits(
        &mut self,
        repo: &RepoName,
        cache: &mut dyn ResponseCache,
    ) -> Result<Option<signals_core::lifecycle::verdict::Commits>, Error> {
        HostClient::commits(self, repo, cache)
    }

    fn plan_discussion_heads(&mut self, repos: &[RepoName]) {
        HostClient::plan_discussion_heads(self, repos)
    }

    fn http(&mut self) -> &mut Client {
        HostClient::http(self)
    }

    fn http_ref(&self) -> &Client {
        HostClient::http_ref(self)
    }
}
