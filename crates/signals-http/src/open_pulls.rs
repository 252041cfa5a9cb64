//! Who counts the open pull requests a host's open issue count holds
//! (GitHub's `open_issues_count`): the host, with a request, or
//! the caller, from a store that holds the repository's whole history.

use crate::ListsSeen;

/// What a collection did about the open pull requests its repository
/// object's open issue count holds ([`crate::Host::OPEN_ISSUES_HOLD_PULLS`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenPulls {
    /// The host's count is issues only: nothing to take off.
    NotHeld,
    /// Counted by the host ([`crate::Host::open_pulls`]) and taken off
    /// `openIssues` already.
    Asked(u64),
    /// Not asked, as the caller said it can count them
    /// ([`crate::HostClient::collect_with`]): `openIssues` still holds
    /// them. The caller takes its own count off, or asks the host with
    /// [`crate::HostClient::ask_open_pulls`].
    Owed(Owed),
}

/// What asking for an owed count needs: the repository's API root and
/// what its item lists answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owed {
    /// The repository's API root, under the name the host answered to.
    pub root: String,
    /// The item lists of the collection.
    pub lists: ListsSeen,
}
