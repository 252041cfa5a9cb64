//! The entry of an owner's repository listing as GitHub and
//! Forgejo/Gitea send it.

use serde::Deserialize;
use signals_core::model::RepoName;
use signals_core::owners::Listed;

use super::ListedEntry;
use crate::de::text;

/// One entry of `GET /orgs/{org}/repos` or `GET /users/{user}/repos` as
/// GitHub (a "minimal repository") and Forgejo/Gitea (swagger
/// `Repository`) send it: only what decides whether a group tracks it.
#[derive(Debug, Deserialize)]
pub struct ListedRepo {
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
        assert!(listed(r#"{"full_name": "o/r", "private": true}"#).is_none());
        assert!(listed(r#"{"full_name": "not-a-name"}"#).is_none());
        assert!(
            listed(r#"{"full_name": "o/r", "fork": true, "private": false}"#)
                .unwrap()
                .fork
        );
    }
}
