//! How the domain names things: the code host an item comes from
//! ([`Source`], and [`SourceId`] for a host beyond the first of its kind),
//! a repository's `owner/name` ([`RepoName`]), and slugs. Each parses
//! strictly, so a name that reaches the store or an id is well formed.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The code host an item comes from; its string form is the `source` of a
/// signal and the first part of a signal id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// github.com or a GitHub Enterprise server (same REST API v3).
    Github,
    /// gitlab.com or a self-managed GitLab (REST API v4).
    Gitlab,
    /// A Forgejo or Gitea server, such as codeberg.org (API v1).
    Forgejo,
}

impl Source {
    /// Every host kind, in the order the docs list them.
    pub const ALL: [Source; 3] = [Source::Github, Source::Gitlab, Source::Forgejo];

    /// The host kind of a `source` value (`github`, `gitlab`, `forgejo`).
    pub fn parse(value: &str) -> Option<Source> {
        Source::ALL.into_iter().find(|s| s.as_str() == value)
    }

    /// The `source` value used in signal ids and documents.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Github => "github",
            Source::Gitlab => "gitlab",
            Source::Forgejo => "forgejo",
        }
    }

    /// The host's name as people write it, for pages and messages.
    pub fn display_name(self) -> &'static str {
        match self {
            Source::Github => "GitHub",
            Source::Gitlab => "GitLab",
            Source::Forgejo => "Forgejo",
        }
    }

    /// The API root of the kind's public instance (api.github.com,
    /// gitlab.com, codeberg.org): what a host of this kind talks to when
    /// the configuration names no `api_url`. One fact, read by the
    /// configuration (a pasted `https://github.com/o/r` picks its host
    /// by this domain while the file is checked) and by each host crate
    /// (its `API_URL`).
    pub const fn public_api_url(self) -> &'static str {
        match self {
            Source::Github => "https://api.github.com",
            Source::Gitlab => "https://gitlab.com/api/v4",
            Source::Forgejo => "https://codeberg.org/api/v1",
        }
    }

    /// The environment variable a token of this kind is usually in: the
    /// configuration's `token_env` when it names none.
    pub const fn token_env(self) -> &'static str {
        match self {
            Source::Github => "GITHUB_TOKEN",
            Source::Gitlab => "GITLAB_TOKEN",
            Source::Forgejo => "FORGEJO_TOKEN",
        }
    }

    /// True when a repository path may have more than two segments
    /// (GitLab's nested groups: `gnome/world/podcasts`).
    pub fn allows_nested_paths(self) -> bool {
        matches!(self, Source::Gitlab)
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `source` of a repository's signals, and the first part of their ids:
/// the host's kind (`github`) for the first configured host of each kind,
/// and `<kind>-<host name>` (`github-ghe`) for every further host of that
/// kind, so that github.com and a GitHub Enterprise server (or two GitLab
/// instances) holding the same `owner/name` give distinct ids, while a
/// configuration with one host per kind keeps the ids it always had. Kinds
/// hold no `-`, so no qualified source equals a bare kind, and the kind is
/// always the part before the first `-`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct SourceId {
    kind: Source,
    /// `<kind>-<host>`, for a host beyond the first of its kind.
    qualified: Option<String>,
}

/// Why a string is not a `source` value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{input:?} is not a source: expected \"github\", \"gitlab\" or \"forgejo\", \
     optionally followed by `-` and a host name of lowercase letters, digits and single `-`"
)]
pub struct SourceIdError {
    /// The rejected input.
    pub input: String,
}

impl SourceId {
    /// The source of the first host of its kind: the bare kind.
    pub fn kind_only(kind: Source) -> SourceId {
        SourceId {
            kind,
            qualified: None,
        }
    }

    /// The source of a further host of `kind`, named `host` in the
    /// configuration; `None` when `host` is not a slug (lowercase ASCII
    /// letters and digits with single `-` between them).
    pub fn qualified(kind: Source, host: &str) -> Option<SourceId> {
        is_slug(host).then(|| SourceId {
            kind,
            qualified: Some(format!("{kind}-{host}")),
        })
    }

    /// Parses a `source` value: a kind, or `<kind>-<host>`.
    pub fn parse(input: &str) -> Result<SourceId, SourceIdError> {
        let (kind, host) = match input.split_once('-') {
            Some((kind, host)) => (kind, Some(host)),
            None => (input, None),
        };
        let kind = Source::parse(kind);
        match (kind, host) {
            (Some(kind), None) => Some(SourceId::kind_only(kind)),
            (Some(kind), Some(host)) => SourceId::qualified(kind, host),
            (None, _) => None,
        }
        .ok_or_else(|| SourceIdError {
            input: input.to_string(),
        })
    }

    /// The host kind (which API, which public host).
    pub fn kind(&self) -> Source {
        self.kind
    }

    /// The host's name when the source is qualified (`ghe` of `github-ghe`).
    pub fn host(&self) -> Option<&str> {
        let q = self.qualified.as_deref()?;
        Some(&q[self.kind.as_str().len() + 1..])
    }

    /// The value written as `source` and as the first part of signal ids.
    pub fn as_str(&self) -> &str {
        self.qualified.as_deref().unwrap_or(self.kind.as_str())
    }

    /// How pages name it: "GitHub", or "GitHub (ghe)" for a further host.
    pub fn display_name(&self) -> String {
        match self.host() {
            None => self.kind.display_name().to_string(),
            Some(host) => format!("{} ({host})", self.kind.display_name()),
        }
    }
}

impl From<Source> for SourceId {
    fn from(kind: Source) -> SourceId {
        SourceId::kind_only(kind)
    }
}

impl fmt::Display for SourceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl TryFrom<String> for SourceId {
    type Error = SourceIdError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        SourceId::parse(&value)
    }
}

impl From<SourceId> for String {
    fn from(value: SourceId) -> String {
        value.as_str().to_string()
    }
}

impl PartialEq<Source> for SourceId {
    fn eq(&self, other: &Source) -> bool {
        self.qualified.is_none() && self.kind == *other
    }
}

/// A repository's full name, `<owner>/<name>`. On GitLab the owner is the
/// whole namespace and may hold slashes itself (`gnome/world` of
/// `gnome/world/podcasts`); whether a host allows that is
/// [`Source::allows_nested_paths`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RepoName {
    owner: String,
    name: String,
}

/// Why a string is not a valid `<owner>/<name>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{input:?} is not a repository name: expected `<owner>/<name>` \
     (on GitLab `<group>/<subgroup>/<name>`), with letters, digits, `-`, \
     `_` or `.` in each part"
)]
pub struct RepoNameError {
    /// The rejected input.
    pub input: String,
}

impl RepoName {
    /// Parses `<owner>/<name>`, where `<owner>` may itself be a nested
    /// namespace `a/b`. Every segment must be non-empty and made of ASCII
    /// letters, digits, `-`, `_` and `.`, as GitHub, GitLab and Forgejo
    /// allow.
    pub fn parse(input: &str) -> Result<RepoName, RepoNameError> {
        let err = || RepoNameError {
            input: input.to_string(),
        };
        let (owner, name) = input.rsplit_once('/').ok_or_else(err)?;
        let valid = |s: &str| {
            !s.is_empty()
                && s != "."
                && s != ".."
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
        };
        if !owner.split('/').all(valid) || !valid(name) {
            return Err(err());
        }
        Ok(RepoName {
            owner: owner.to_string(),
            name: name.to_string(),
        })
    }

    /// The owner (user or organization; on GitLab the whole namespace).
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// True when the owner is a nested namespace (`a/b` of `a/b/c`).
    pub fn is_nested(&self) -> bool {
        self.owner.contains('/')
    }

    /// The repository's own name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for RepoName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

impl TryFrom<String> for RepoName {
    type Error = RepoNameError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        RepoName::parse(&value)
    }
}

impl From<RepoName> for String {
    fn from(value: RepoName) -> String {
        value.to_string()
    }
}

/// Turns a display name into a slug: lowercase ASCII letters and digits, with
/// single `-` between words. Used for repository ids derived from a name.
pub fn slugify(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    for c in input.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// True if `s` is a slug as [`slugify`] makes them.
pub fn is_slug(s: &str) -> bool {
    !s.is_empty() && slugify(s) == s
}
