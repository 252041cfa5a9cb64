//! The `[[groups]]` section: each group's repositories (`repos`, the short
//! form or tables) and owners (`orgs`) with their filter, and the
//! host each one is collected from. Pure, like the rest of the
//! configuration: [`parse`] takes what serde read and the hosts, and says
//! what is wrong at which span.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::ops::Range;

use serde::Deserialize;
use signals_core::owners::Filter;
use signals_core::{Group, RepoName, TrackedRepo, is_slug, slugify};
use toml::Spanned;

use super::hosts::{HostConfig, url_domain};

/// What is wrong, and where in the file.
type Problem = (Range<usize>, String);

fn at(span: Range<usize>) -> Range<usize> {
    span
}

fn err(span: Range<usize>, message: String) -> Problem {
    (span, message)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawGroup {
    id: Spanned<String>,
    name: String,
    /// The host of the group's repositories that name none.
    host: Option<Spanned<String>>,
    #[serde(default)]
    repos: Vec<Spanned<RawRepoEntry>>,
    /// Owners whose public repositories the group tracks: a
    /// GitHub organisation or user, a GitLab group (with its subgroups), a
    /// Forgejo organisation or user; the name, or its URL.
    #[serde(default)]
    orgs: Vec<Spanned<String>>,
    /// Track the owners' archived repositories too.
    #[serde(default)]
    include_archived: bool,
    /// Track the owners' forks too.
    #[serde(default)]
    include_forks: bool,
    /// Repositories of the owners never tracked: `owner/name` or a name.
    #[serde(default)]
    exclude: Vec<Spanned<String>>,
    /// Accounts whose comments are no first response.
    #[serde(default)]
    ignore_users: Vec<String>,
    /// Read the repositories' GitHub Discussions (default true).
    discussions: Option<bool>,
    /// The lifecycle state its repositories declare.
    lifecycle: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRepo {
    repo: Spanned<String>,
    host: Option<Spanned<String>>,
    id: Option<Spanned<String>>,
    name: Option<String>,
    #[serde(default)]
    keywords: Vec<String>,
    /// The lifecycle state the repository declares.
    lifecycle: Option<Spanned<String>>,
}

/// One element of a group's `repos`: the short form `"owner/name"` (or a
/// pasted repository URL), or a table with `repo`, `id`, `name`, `keywords`.
/// Hand-written rather than `#[serde(untagged)]`, because an untagged enum
/// buffers its input and would lose the line numbers of errors.
#[derive(Debug)]
enum RawRepoEntry {
    Short(String),
    Full(RawRepo),
}

impl<'de> Deserialize<'de> for RawRepoEntry {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = RawRepoEntry;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"owner/name\", a repository URL, or a table with `repo`")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawRepoEntry, E> {
                Ok(RawRepoEntry::Short(v.to_string()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<RawRepoEntry, A::Error> {
                RawRepo::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(RawRepoEntry::Full)
            }
        }
        de.deserialize_any(Visitor)
    }
}

/// Turns what a user may paste as a repository into `owner/name`:
/// `owner/name` itself, or a web or clone URL of the repository
/// (`https://github.com/owner/name`, with or without `.git`, a trailing
/// slash, or a deeper page such as `/issues/5`; `git@github.com:owner/name.git`).
/// On github.com (and any host named `github.*`) a repository is the first
/// two path segments; elsewhere the whole path up to GitLab's `/-/` page
/// separator, so a nested GitLab path stays whole.
pub fn normalize_repo_input(input: &str) -> String {
    let s = input.trim();
    let (host, path) = if let Some(rest) = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"))
        .or_else(|| s.strip_prefix("ssh://"))
    {
        let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
        match rest.split_once('/') {
            Some((host, path)) => (Some(host), path),
            None => (Some(rest), ""),
        }
    } else if let Some((user_host, path)) = s.split_once(':').filter(|(h, _)| h.contains('@')) {
        (user_host.rsplit_once('@').map(|(_, h)| h), path)
    } else {
        return s.trim_matches('/').to_string();
    };
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let path = path
        .split("/-/")
        .next()
        .unwrap_or_default()
        .trim_matches('/');
    let host = host.map(|h| h.split(':').next().unwrap_or(h).to_ascii_lowercase());
    let github = host
        .as_deref()
        .is_some_and(|h| h == "github.com" || h == "www.github.com" || h.starts_with("github."));
    let path = if github {
        path.splitn(3, '/').take(2).collect::<Vec<_>>().join("/")
    } else {
        path.to_string()
    };
    path.strip_suffix(".git").unwrap_or(&path).to_string()
}
/// A group with its repositories.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupConfig {
    /// The group.
    pub group: Group,
    /// Its repositories, in file order.
    pub repos: Vec<TrackedRepo>,
    /// Owners whose repositories it tracks (`orgs`), in file order.
    pub owners: Vec<OwnerConfig>,
    /// What it takes from its owners' listings.
    pub filter: Filter,
    /// Accounts whose comments are no first response.
    pub ignore_users: Vec<String>,
    /// Whether its GitHub repositories' discussions are read
    /// (`discussions`, default true).
    pub discussions: bool,
    /// The lifecycle state its repositories declare (`lifecycle`).
    pub lifecycle: Option<signals_core::lifecycle::State>,
    /// The states its repositories declare themselves, by repository id.
    pub declared: HashMap<String, signals_core::lifecycle::State>,
}

/// One owner of a group's `orgs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerConfig {
    /// The owner: an organisation or user name, or a GitLab group's full
    /// path (`gnome/world`).
    pub owner: String,
    /// Its host, an index into the configured hosts.
    pub host: usize,
}

/// The host of an entry that names none: the group's, else the host whose
/// API domain a pasted URL names, else the first.
fn default_host(input: &str, group_host: Option<usize>, hosts: &[HostConfig]) -> usize {
    group_host
        .or_else(|| {
            let domain = url_domain(input)?;
            hosts.iter().position(|h| h.serves(&domain))
        })
        .unwrap_or(0)
}

/// A group's `orgs`: each an owner's name (a GitLab group's full path) or
/// its URL, on the group's host (or the one its URL names).
fn owners(
    orgs: &[Spanned<String>],
    group_host: Option<usize>,
    hosts: &[HostConfig],
) -> Result<Vec<OwnerConfig>, Problem> {
    let mut out: Vec<OwnerConfig> = Vec::new();
    for o in orgs {
        let host = default_host(o.get_ref(), group_host, hosts);
        let owner = normalize_repo_input(o.get_ref());
        // An owner is what precedes a repository's name: it must parse as
        // one with a placeholder name.
        let valid = !owner.is_empty() && RepoName::parse(&format!("{owner}/x")).is_ok();
        if !valid {
            return Err(err(
                at(o.span()),
                format!(
                    "{:?} in `orgs` is not an owner: write an organisation or user name such as \"vllm-project\", or a GitLab group's path such as \"gnome/world\"",
                    o.get_ref()
                ),
            ));
        }
        let source = hosts[host].source;
        if owner.contains('/') && !source.allows_nested_paths() {
            return Err(err(
                at(o.span()),
                format!(
                    "{owner:?} in `orgs` has more than one part, which only GitLab groups have; host {:?} is {}: set the group's `host` to a GitLab host, or name the owner alone",
                    hosts[host].name,
                    source.display_name()
                ),
            ));
        }
        if out
            .iter()
            .any(|x| x.host == host && x.owner.eq_ignore_ascii_case(&owner))
        {
            return Err(err(
                at(o.span()),
                format!("{owner:?} is listed twice in `orgs`"),
            ));
        }
        out.push(OwnerConfig { owner, host });
    }
    Ok(out)
}

/// The host of each repository, by (group id, repository id), as an
/// index into the hosts.
type RepoHosts = HashMap<(String, String), usize>;

/// The groups, checked, and where each of their repositories is hosted.
pub(super) struct Groups {
    /// The groups in file order.
    pub(super) groups: Vec<GroupConfig>,
    /// The host of each repository.
    pub(super) repo_hosts: RepoHosts,
}

/// Checks the groups: ids, repositories, owners and hosts. Returns them
/// with the host of each repository by (group id, repository id).
///
/// Every group is checked, and every problem returned (the first of each
/// group), so a file with several is told them all at once.
pub(super) fn parse(raw: Vec<RawGroup>, hosts: &[HostConfig]) -> Result<Groups, Vec<Problem>> {
    let mut repo_hosts = HashMap::new();
    let mut groups = Vec::new();
    let mut group_ids = HashSet::new();
    let mut problems = Vec::new();
    for g in raw {
        let gid = g.id.get_ref();
        if !is_slug(gid) {
            problems.push(err(
                at(g.id.span()),
                format!(
                    "group id {gid:?} is not a slug: use lowercase letters, digits and single dashes, such as {:?}",
                    slugify(gid)
                ),
            ));
            continue;
        }
        if !group_ids.insert(gid.clone()) {
            problems.push(err(
                at(g.id.span()),
                format!("group id {gid:?} is used twice"),
            ));
            continue;
        }
        match group(g, hosts, &mut repo_hosts) {
            Ok(g) => groups.push(g),
            Err(p) => problems.push(p),
        }
    }
    if problems.is_empty() {
        Ok(Groups { groups, repo_hosts })
    } else {
        Err(problems)
    }
}

/// A named host, or an error that lists the configured names.
fn find_host(hosts: &[HostConfig], name: &Spanned<String>) -> Result<usize, Problem> {
    hosts
        .iter()
        .position(|h| h.name == *name.get_ref())
        .ok_or_else(|| {
            err(
                at(name.span()),
                format!(
                    "host {:?} is not configured: use one of {}",
                    name.get_ref(),
                    hosts
                        .iter()
                        .map(|h| format!("{:?}", h.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })
}

/// One group: its repositories (each with its host, noted in
/// `repo_hosts`), its owners and their filter.
fn group(
    g: RawGroup,
    hosts: &[HostConfig],
    repo_hosts: &mut RepoHosts,
) -> Result<GroupConfig, Problem> {
    let gid = g.id.get_ref();
    let group_host = g.host.as_ref().map(|h| find_host(hosts, h)).transpose()?;
    let lifecycle = super::lifecycle::declared(g.lifecycle.as_ref())?;
    let mut declared = HashMap::new();
    let mut repos = Vec::new();
    let mut repo_ids = HashSet::new();
    for entry in g.repos {
        let RepoEntry {
            repo,
            host: host_idx,
            span,
            lifecycle,
        } = repo_entry(entry, group_host, hosts)?;
        if let Some(state) = lifecycle {
            declared.insert(repo.id.clone(), state);
        }
        if !repo_ids.insert(repo.id.clone()) {
            return Err(err(
                at(span),
                format!(
                    "repository id {:?} is used twice in group {gid:?}: set a distinct `id` for one of them",
                    repo.id
                ),
            ));
        }
        repo_hosts.insert((gid.clone(), repo.id.clone()), host_idx);
        repos.push(repo);
    }
    let owners = owners(&g.orgs, group_host, hosts)?;
    let exclude = exclude(g.exclude)?;
    if owners.is_empty() && (g.include_archived || g.include_forks || !exclude.is_empty()) {
        return Err(err(
            at(g.id.span()),
            format!(
                "group {gid:?} sets include_archived, include_forks or exclude, which apply to `orgs` only: list the owners in `orgs`, or remove those keys"
            ),
        ));
    }
    Ok(GroupConfig {
        group: Group {
            id: gid.clone(),
            name: g.name,
        },
        repos,
        owners,
        filter: Filter {
            include_archived: g.include_archived,
            include_forks: g.include_forks,
            exclude,
        },
        ignore_users: g.ignore_users,
        discussions: g.discussions.unwrap_or(true),
        lifecycle,
        declared,
    })
}

/// One entry of a group's `repos`, checked.
struct RepoEntry {
    repo: TrackedRepo,
    /// Its host, an index into the hosts.
    host: usize,
    /// The span of its id, to say where a repeated id is.
    span: Range<usize>,
    /// The lifecycle state it declares.
    lifecycle: Option<signals_core::lifecycle::State>,
}

/// One entry of a group's `repos`: the repository, its host, and the
/// span of its id.
fn repo_entry(
    entry: Spanned<RawRepoEntry>,
    group_host: Option<usize>,
    hosts: &[HostConfig],
) -> Result<RepoEntry, Problem> {
    let entry_span = entry.span();
    let r = match entry.into_inner() {
        RawRepoEntry::Full(r) => r,
        RawRepoEntry::Short(s) => RawRepo {
            repo: Spanned::new(entry_span.clone(), s),
            host: None,
            id: None,
            name: None,
            keywords: vec![],
            lifecycle: None,
        },
    };
    // The repository's host: named, else the group's, else the
    // host whose domain a pasted URL names, else the first.
    let host_idx = match &r.host {
        Some(name) => find_host(hosts, name)?,
        None => default_host(r.repo.get_ref(), group_host, hosts),
    };
    let source = hosts[host_idx].source;
    let signals_source = hosts[host_idx].signals_source.clone();
    let repo = RepoName::parse(&normalize_repo_input(r.repo.get_ref()))
        .map_err(|e| err(at(r.repo.span()), e.to_string()))?;
    if repo.is_nested() && !source.allows_nested_paths() {
        return Err(err(
            at(r.repo.span()),
            format!(
                "{:?} has more than two parts, which only GitLab projects (nested groups) have; host {:?} is {}: set `host` to a GitLab host, or use `owner/name`",
                repo.to_string(),
                hosts[host_idx].name,
                source.display_name()
            ),
        ));
    }
    let name = r.name.unwrap_or_else(|| repo.name().to_string());
    let (id, span) = match &r.id {
        Some(id) => (id.get_ref().clone(), id.span()),
        None => (slugify(repo.name()), r.repo.span()),
    };
    if !is_slug(&id) {
        return Err(err(
            at(span),
            format!(
                "repository id {id:?} is not a slug: use lowercase letters, digits and single dashes"
            ),
        ));
    }
    let lifecycle = super::lifecycle::declared(r.lifecycle.as_ref())?;
    let repo = TrackedRepo {
        id,
        source: signals_source,
        repo,
        name,
        keywords: r.keywords,
    };
    Ok(RepoEntry {
        repo,
        host: host_idx,
        span,
        lifecycle,
    })
}

/// A group's `exclude`: repositories of its owners never tracked, each
/// `owner/name` or a name.
fn exclude(raw: Vec<Spanned<String>>) -> Result<Vec<String>, Problem> {
    let mut exclude = Vec::new();
    for e in raw {
        let name = normalize_repo_input(e.get_ref());
        if name.is_empty() || name.split('/').any(|s| s.is_empty()) {
            return Err(err(
                at(e.span()),
                format!(
                    "exclude entry {:?} is not a repository: write \"owner/name\" or a name",
                    e.get_ref()
                ),
            ));
        }
        exclude.push(name);
    }
    Ok(exclude)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use signals_core::Source;

    use crate::{Config, ConfigError};

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Path::new("signals.toml"))
    }

    #[test]
    fn owners_with_their_filter_and_host() {
        let c = parse(
            r#"
[[hosts]]
name = "github"
kind = "github"

[[hosts]]
name = "gnome"
kind = "gitlab"
api_url = "https://gitlab.gnome.org/api/v4"

[[groups]]
id = "g"
name = "G"
orgs = ["vllm-project", "https://gitlab.gnome.org/World/Rust"]
include_forks = true
exclude = ["vllm-project/old", "docs"]

[[groups]]
id = "h"
name = "H"
repos = ["a/b"]
discussions = false
"#,
        )
        .unwrap();
        let g = &c.groups[0];
        assert!(g.repos.is_empty());
        let owners: Vec<_> = g
            .owners
            .iter()
            .map(|o| (o.owner.as_str(), c.hosts[o.host].source))
            .collect();
        assert_eq!(
            owners,
            vec![
                ("vllm-project", Source::Github),
                ("World/Rust", Source::Gitlab)
            ]
        );
        assert!(g.filter.include_forks && !g.filter.include_archived);
        assert_eq!(g.filter.exclude, vec!["vllm-project/old", "docs"]);
        assert!(c.groups[1].owners.is_empty());
        assert_eq!(c.groups[1].filter, Default::default());
        // Discussions are read unless a group says not to.
        assert!(g.discussions && !c.groups[1].discussions);
    }

    #[test]
    fn owner_mistakes_are_explained_on_their_line() {
        let e = parse(
            "[[groups]]\nid = \"g\"\nname = \"G\"\norgs = [\n  \"ok\",\n  \"not an owner\",\n]\n",
        )
        .unwrap_err();
        assert_eq!(e.line, Some(6), "{e}");
        assert!(e.to_string().contains("not an owner"), "{e}");
        let e = parse("[[groups]]\nid = \"g\"\nname = \"G\"\norgs = [\"a/b\"]\n").unwrap_err();
        assert!(e.to_string().contains("only GitLab groups"), "{e}");
        let e = parse("[[groups]]\nid = \"g\"\nname = \"G\"\norgs = [\"a\", \"A\"]\n").unwrap_err();
        assert!(e.to_string().contains("twice"), "{e}");
        let e = parse(
            "[[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\"a/b\"]\ninclude_forks = true\n",
        )
        .unwrap_err();
        assert!(e.to_string().contains("apply to `orgs` only"), "{e}");
        let e = parse("[[groups]]\nid = \"g\"\nname = \"G\"\norgs = [\"a\"]\nexclude = [\"\"]\n")
            .unwrap_err();
        assert_eq!(e.line, Some(5), "{e}");
    }
}
