//! The entry of an owner's repository listing as GitHub and
//! Forgejo/Gitea send it.

use serde::Deserialize;
use signals_core::model::RepoName;
use signals_core::owners::Listed;

use super::ListedEntry;
use crate::de::{host_id, text};

/// One entry of `GET /orgs/{org}/repos` or `GET /users/{user}/repos` as
/// GitHub (a "minimal repository") and Forgejo/Gitea (swagger
/// `Repository`) send it: only what decides whether a group tracks it,
/// and its numeric `id`, which a rename keeps (so a group follows one at
/// no extra request).
#[derive(Debug, Deserialize)]
pub struct ListedRepo {
    #[serde(default, deserialize_with = "host_id")]
    id: Option<u64>,
    #[serde(default, deserialize_with = "text")]
    full_name: String,
    #[serde(default)]
    archived: Option<bool>,
    #[serde(default)]
    fork: Option<bool>,
    #[serde(default)]
    private: Option<bool>,
}

impl ListedEntry for ListedRepo {
    /// `None` for a private repository (a token that can see them lists
    /// them too) or a name that is not `owner/name`.
    fn into_listed(self) -> Option<Listed> {
        if self.private == Some(true) {
            return None;
        }
        Some(Listed {
            full_name: RepoName::parse(&self.full_name).ok()?,
            archived: self.archived.unwrap_or(false),
            fork: self.fork.unwrap_or(false),
            host_id: self.id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(json: &str) -> Option<Listed> {
        crate::decode::<ListedRepo>("Test", "u", json.as_bytes())
            .unwrap()
            .into_listed()
    }

    #[test]
    fn listed_repo_rules() {
        let l = listed(r#"{"full_name": "o/r", "archived": true, "fork": null}"#).unwrap();
        assert_eq!(l.full_name.to_string(), "o/r");
        assert!(l.archived && !l.fork);
        assert_eq!(l.host_id, None);
        assert!(listed(r#"{"full_name": "o/r", "private": true}"#).is_none());
        assert!(listed(r#"{"full_name": "not-a-name"}"#).is_none());
        assert!(
            listed(r#"{"full_name": "o/r", "fork": true, "private": false}"#)
                .unwrap()
                .fork
        );
    }

    #[test]
    fn the_host_id_is_read_and_an_odd_one_dropped() {
        let id = |v: &str| {
            listed(&format!(r#"{{"full_name": "o/r", "id": {v}}}"#))
                .unwrap()
                .host_id
        };
        assert_eq!(id("1296269"), Some(1296269));
        assert_eq!(id("9223372036854775807"), Some(i64::MAX as u64));
        for odd in [
            "null",
            "0",
            "-3",
            "1.5",
            "\"12\"",
            "{}",
            "18446744073709551615",
        ] {
            assert_eq!(id(odd), None, "{odd}");
        }
    }
}
