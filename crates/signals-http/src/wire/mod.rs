//! What a host crate's wire types promise, and the JSON shapes more than
//! one host sends the same way.
//!
//! A host crate decodes each answer into its own wire types and turns
//! them into `signals_core` domain values through the traits here
//! ([`WireRepo`], [`WireRelease`], [`WireMilestone`], [`WireItem`],
//! [`ListedEntry`]); the shared collection
//! ([`HostClient::collect`](crate::HostClient::collect)) asks for nothing
//! else of them. Shapes that several hosts send alike live here once:
//! [`v3`] (GitHub's REST v3 objects, which Forgejo's and Gitea's API v1
//! copies) and [`ListedRepo`] (an owner's repository listing).

use serde::de::DeserializeOwned;
use signals_core::model::{ItemSnapshot, Merge, Milestone, RepoContext, RepoName};
use signals_core::owners::Listed;

pub mod comment;
mod listing;
pub mod v3;

pub use listing::ListedRepo;

/// How a host names what its JSON leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conventions {
    /// The handle the host shows for a deleted account (GitHub's and
    /// GitLab's `ghost`, Forgejo's `Ghost`): an author or assignee the
    /// answer does not name.
    pub ghost: &'static str,
    /// Title prefixes that mark a pull request as a draft when the answer
    /// has no draft flag (Forgejo's and Gitea's default `WIP:` and
    /// `[WIP]`; none on GitHub, whose drafts always say so).
    pub wip_prefixes: &'static [&'static str],
}

impl Conventions {
    /// An account's handle; the host's [`Conventions::ghost`] when the
    /// answer has no account or an empty handle.
    pub fn handle(&self, handle: Option<String>) -> String {
        match handle {
            Some(h) if !h.is_empty() => h,
            _ => self.ghost.to_string(),
        }
    }

    /// True when `title` starts with one of the work-in-progress prefixes
    /// (case-insensitively, after leading white space).
    pub fn is_wip(&self, title: &str) -> bool {
        let t = title.trim_start().to_ascii_uppercase();
        self.wip_prefixes.iter().any(|p| t.starts_with(p))
    }
}

/// Where a wire value is turned into a domain value: the repository under
/// its current name, its web address (for links the API does not give)
/// and the host's conventions.
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    /// The repository's name (the new one after a rename).
    pub repo: &'a RepoName,
    /// The repository's web address, as the host reported it.
    pub web: &'a str,
    /// How the host names what its JSON leaves out.
    pub conventions: &'a Conventions,
}

/// Which kinds of item one list holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kinds {
    /// Issues and pull requests in one list (GitHub's and Forgejo's
    /// issues list), told apart by each entry.
    Both,
    /// Issues only.
    Issues,
    /// Pull (merge) requests only.
    Pulls,
}

/// A host's repository object.
pub trait WireRepo: DeserializeOwned {
    /// The repository's full name as the host reports it (after a rename,
    /// the new one).
    fn full_name(&self) -> &str;
    /// The repository's web address.
    fn web_url(&self) -> &str;
    /// The context of the repository, named `repository` (its full name
    /// as the host spells it, or the name asked for when that is no valid
    /// `owner/name`).
    fn into_context(self, repository: RepoName) -> RepoContext;
    /// When the repository was created, when the host says (a
    /// first run whose window reaches it has seen every item). Default:
    /// not said.
    fn created_at(&self) -> Option<jiff::Timestamp> {
        None
    }
}

/// An entry of a host's releases list.
pub trait WireRelease: DeserializeOwned {
    /// The snapshot; `None` for an entry that is no signal (a draft, a
    /// release without a tag).
    fn into_snapshot(self, at: &Place<'_>) -> Option<ItemSnapshot>;

    /// The download counts of its assets, keyed by the host's asset id.
    /// Default: none (the host counts no downloads).
    fn downloads(&self) -> Vec<signals_core::model::AssetCount> {
        Vec::new()
    }
}

/// An entry of a host's open milestones list.
pub trait WireMilestone: DeserializeOwned {
    /// The milestone (a host whose entries lack the issue counts completes
    /// them in [`Host::milestones`](crate::Host::milestones)).
    fn into_milestone(self, at: &Place<'_>) -> Milestone;
}

/// An entry of a host's list of issues or pull requests.
pub trait WireItem: DeserializeOwned {
    /// The snapshot; `kinds` is what the list it came from holds.
    fn into_snapshot(self, at: &Place<'_>, kinds: Kinds) -> ItemSnapshot;
    /// True for a closed pull request whose entry does not say whether it
    /// was merged: the collection settles it with
    /// [`Host::settle_merges`](crate::Host::settle_merges) or leaves it out,
    /// and never reports it as not merged.
    fn merge_unknown(&self) -> bool {
        false
    }
    /// Who merged the entry's pull request, and when, where the entry
    /// itself says (GitLab's merge requests list does; GitHub's and
    /// Forgejo's issue lists do not, and GitHub's merger comes with the
    /// reviews instead). Asked before [`WireItem::into_snapshot`], of
    /// every entry of a list holding `kinds`; the collection holds what
    /// it yields, one per pull request, in
    /// [`Collection::merges`](crate::Collection::merges). `None` for an
    /// entry that is no merged pull request, or whose merger is not named
    /// (a deleted account). Default: never said.
    fn merger(&self, _at: &Place<'_>, _kinds: Kinds) -> Option<Merge> {
        None
    }
}

/// One entry of a host's listing of an owner's repositories, turned into
/// the domain entry by [`ListedEntry::into_listed`]; what
/// [`Client::list_owner`](crate::Client::list_owner) decodes each page as.
pub trait ListedEntry: DeserializeOwned {
    /// The domain entry; `None` for an entry the listing leaves out (not
    /// public, or a name that is not `owner/name`).
    fn into_listed(self) -> Option<Listed>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conventions() {
        let c = Conventions {
            ghost: "Ghost",
            wip_prefixes: &["WIP:", "[WIP]"],
        };
        assert_eq!(c.handle(None), "Ghost");
        assert_eq!(c.handle(Some(String::new())), "Ghost");
        assert_eq!(c.handle(Some("a".into())), "a");
        assert!(c.is_wip("  wip: faster"));
        assert!(c.is_wip("[WIP] x"));
        assert!(!c.is_wip("Wipe the cache"));
        let none = Conventions {
            ghost: "ghost",
            wip_prefixes: &[],
        };
        assert!(!none.is_wip("WIP: x"));
    }
}
