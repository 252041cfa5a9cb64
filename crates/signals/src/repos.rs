//! Tracking repositories without editing TOML or SQL by hand, for
//! `signals repos list|add|remove`.
//!
//! [`add`] and [`remove`] edit `signals.toml` in place through `toml_edit`,
//! so the user's comments and layout stay; the edited text is parsed with
//! [`Config::parse`] before it replaces the file (atomically), so they
//! never leave a configuration that `collect` would reject. Removing stops
//! collection only: the store keeps the repository's history, and `export`
//! keeps publishing it, unless [`purge`] deletes it. [`Listing`] is what
//! `list` shows: the configured repositories and owners with what the
//! store holds of them, and what only the store still holds.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, bail};
use signals_core::RepoName;
use signals_store::{OwnerStatus, RepoSummary};
use toml_edit::{Array, ArrayOfTables, DocumentMut, InlineTable, Item, Table, Value};

use crate::config::{Config, normalize_repo_input};

mod hosts;

/// The configured groups with what the store holds of them.
pub struct Listing {
    config: Config,
    stored: Vec<RepoSummary>,
    owners: Vec<OwnerStatus>,
}

impl Listing {
    /// Reads the store at `store_path` for `config`'s groups; a store not
    /// created yet holds nothing.
    pub fn read(config: Config, store_path: &Path) -> anyhow::Result<Listing> {
        let (stored, owners) = if store_path.exists() || crate::store::is_postgres(store_path) {
            let store = crate::store::open(store_path, crate::store::IfMissing::Refuse)?;
            (store.repositories()?, store.owners_status()?)
        } else {
            (Vec::new(), Vec::new())
        };
        Ok(Listing {
            config,
            stored,
            owners,
        })
    }

    /// Each group with its repositories (and their last run) and its
    /// owners' repositories (and their state), then the repositories only
    /// the store still holds.
    pub fn write(&self, out: &mut dyn Write) -> std::io::Result<()> {
        for g in &self.config.groups {
            writeln!(out, "{} ({})", g.group.id, g.group.name)?;
            for r in &g.repos {
                let last = self
                    .stored
                    .iter()
                    .find(|s| s.group.id == g.group.id && s.repo.id == r.id)
                    .and_then(|s| s.last_collected_at)
                    .map(|t| format!("last run {}", signals_core::dataset::fmt_seconds(t)))
                    .unwrap_or_else(|| "never collected".to_string());
                writeln!(out, "  {:<40} {:<24} {last}", r.repo.to_string(), r.id)?;
            }
            for o in &g.owners {
                writeln!(out, "  every repository of {} (orgs):", o.owner)?;
                let found = self
                    .owners
                    .iter()
                    .filter(|s| s.group_id == g.group.id && s.owner == o.owner)
                    .flat_map(|s| &s.repos);
                for k in found {
                    writeln!(
                        out,
                        "    {:<38} {:<24} {}",
                        k.full_name.to_string(),
                        k.repo_id,
                        k.state.as_str()
                    )?;
                    if let Some(line) = crate::status::renamed_line(k, &o.owner) {
                        writeln!(out, "      {line}")?;
                    }
                }
            }
        }
        let untracked: Vec<_> =
            self.stored
                .iter()
                .filter(|s| {
                    !self.config.groups.iter().any(|g| {
                        g.group.id == s.group.id && g.repos.iter().any(|r| r.id == s.repo.id)
                    }) && !self.through_owner(&s.group.id, &s.repo.id)
                })
                .collect();
        if !untracked.is_empty() {
            writeln!(
                out,
                "in the store only (no longer tracked; still published; `repos remove --purge` deletes):"
            )?;
            for s in untracked {
                writeln!(out, "  {}/{} {}", s.group.id, s.repo.id, s.repo.repo)?;
            }
        }
        Ok(())
    }

    /// True for a repository found through one of its group's configured
    /// owners.
    fn through_owner(&self, group: &str, repo: &str) -> bool {
        self.config.groups.iter().any(|g| {
            g.group.id == group
                && self.owners.iter().any(|o| {
                    o.group_id == group
                        && g.owners.iter().any(|c| c.owner == o.owner)
                        && o.repos.iter().any(|k| k.repo_id == repo)
                })
        })
    }
}

/// A repository to add to a group's `repos`.
pub struct NewRepo<'a> {
    /// `owner/name` (or a pasted URL of it).
    pub repo: &'a str,
    /// Its repository id, when not the slug of its name.
    pub id: Option<&'a str>,
    /// Its display name, when not its name.
    pub name: Option<&'a str>,
    /// Its keywords.
    pub keywords: &'a [String],
}

/// A repository added.
pub struct Added {
    /// `owner/name`.
    pub repo: RepoName,
    /// The group it was added to.
    pub group: String,
    /// The name of the host it is collected from.
    pub host: String,
}

/// Adds `new` to the group `group` (the only one when `None`), creating
/// the group when `group_name` is given.
///
/// A pasted URL names its host: the repository goes to the configured
/// host whose web address that is, or, when none is, the error gives the
/// `[[hosts]]` entry to add. A group holds one host's repositories (see
/// `repos/hosts.rs`): a repository of another host is refused, never
/// written there.
pub fn add(
    config_path: &Path,
    new: &NewRepo<'_>,
    group: Option<&str>,
    group_name: Option<&str>,
) -> anyhow::Result<Added> {
    let repo = parse_repo(new.repo)?;
    let mut doc = read_doc(config_path)?;
    let config = Config::parse(&doc.to_string(), config_path)
        .context("fix the configuration first: `signals repos add` edits only a file that loads")?;
    let url_host = match crate::config::url_domain(new.repo) {
        Some(domain) => Some(
            config
                .hosts
                .iter()
                .position(|h| h.serves(&domain))
                .ok_or_else(|| {
                    anyhow::anyhow!(hosts::missing_host(
                        config_path,
                        &doc,
                        &config,
                        new.repo,
                        &domain
                    ))
                })?,
        ),
        None => None,
    };
    let groups = groups_mut(&mut doc)?;
    let ids: Vec<String> = groups
        .iter()
        .filter_map(|t| group_id(t).map(str::to_string))
        .collect();
    let gid = match (group, ids.as_slice()) {
        (Some(g), _) => g.to_string(),
        (None, [only]) => only.clone(),
        (None, []) => {
            bail!("there is no group yet: pass --group ID --group-name NAME to create one")
        }
        (None, many) => bail!("pass --group, one of: {}", many.join(", ")),
    };
    let found = groups
        .iter()
        .position(|t| group_id(t) == Some(gid.as_str()));
    // The host the repository goes to, and whether its entry must name it.
    let (host, name_host) = match found {
        Some(i) => {
            let table = groups.get(i).expect("found in groups");
            let home = hosts::group_host(&config, table);
            let default = hosts::explicit_host(&config, table).unwrap_or(0);
            if let (Some(home), Some(host)) = (home, url_host)
                && home != host
            {
                bail!(hosts::other_host(&config, &gid, home, host, new.repo));
            }
            let host = url_host.or(home).unwrap_or(default);
            (host, host != default)
        }
        None => (url_host.unwrap_or(0), false),
    };
    if let Some(other) = hosts::tracked_in(&config, &repo, host) {
        bail!("{repo} is already tracked in group {other:?}");
    }
    let index = match found {
        Some(i) => i,
        None => {
            let Some(name) = group_name else {
                bail!(
                    "no group {gid:?} (groups: {}): pass --group-name NAME to create it",
                    if ids.is_empty() {
                        "none yet".to_string()
                    } else {
                        ids.join(", ")
                    }
                );
            };
            let mut t = Table::new();
            t.insert("id", toml_edit::value(gid.clone()));
            t.insert("name", toml_edit::value(name));
            if host != 0 || config.hosts.len() > 1 {
                t.insert("host", toml_edit::value(config.hosts[host].name.clone()));
            }
            hosts::append_group(&mut doc, t)?;
            groups_mut(&mut doc)?.len() - 1
        }
    };
    let groups = groups_mut(&mut doc)?;
    let group = groups.get_mut(index).expect("index is in range");
    let host_name = name_host.then(|| config.hosts[host].name.as_str());
    push_entry(group, &gid, &repo, new, host_name)?;
    write_doc(config_path, &doc)?;
    Ok(Added {
        repo,
        group: gid,
        host: config.hosts[host].name.clone(),
    })
}

/// Adds the entry of `repo` to a group's `repos`, in the form the group
/// already uses: the short form when it says nothing more, else an inline
/// table in a list, or a `[[groups.repos]]` table; `host` is the host's
/// name when the entry must name it.
fn push_entry(
    group: &mut Table,
    gid: &str,
    repo: &RepoName,
    new: &NewRepo<'_>,
    host: Option<&str>,
) -> anyhow::Result<()> {
    let plain = new.name.is_none() && new.id.is_none() && new.keywords.is_empty() && host.is_none();
    let mut keywords = Array::new();
    for k in new.keywords {
        keywords.push(k.as_str());
    }
    match group.get_mut("repos") {
        None if plain => {
            let mut a = Array::new();
            a.push(repo.to_string());
            group.insert("repos", toml_edit::value(a));
        }
        Some(Item::Value(Value::Array(a))) => {
            if plain {
                a.push(repo.to_string());
            } else {
                let mut t = InlineTable::new();
                t.insert("repo", repo.to_string().into());
                if let Some(host) = host {
                    t.insert("host", host.into());
                }
                if let Some(id) = new.id {
                    t.insert("id", id.into());
                }
                if let Some(name) = new.name {
                    t.insert("name", name.into());
                }
                if !new.keywords.is_empty() {
                    t.insert("keywords", Value::Array(keywords));
                }
                a.push(t);
            }
        }
        None | Some(Item::ArrayOfTables(_)) => {
            if group.get("repos").is_none() {
                group.insert("repos", Item::ArrayOfTables(ArrayOfTables::new()));
            }
            let mut t = Table::new();
            t.insert("repo", toml_edit::value(repo.to_string()));
            if let Some(host) = host {
                t.insert("host", toml_edit::value(host));
            }
            if let Some(id) = new.id {
                t.insert("id", toml_edit::value(id));
            }
            if let Some(name) = new.name {
                t.insert("name", toml_edit::value(name));
            }
            if !new.keywords.is_empty() {
                t.insert("keywords", toml_edit::value(keywords));
            }
            group["repos"]
                .as_array_of_tables_mut()
                .expect("repos is an array of tables")
                .push(t);
        }
        Some(_) => bail!("group {gid:?}: `repos` must be an array"),
    }
    Ok(())
}

/// A repository no longer tracked.
pub struct Removed {
    /// `owner/name`.
    pub repo: RepoName,
    /// The group it was tracked in.
    pub group: String,
    /// Its repository id there, under which the store keeps it.
    pub repo_id: String,
}

/// Removes `repo` from the group that tracks it (`group`, when several
/// do); the store keeps its history.
pub fn remove(config_path: &Path, repo: &str, group: Option<&str>) -> anyhow::Result<Removed> {
    let repo = parse_repo(repo)?;
    let before = crate::config::load_with_env(config_path)?;
    let mut doc = read_doc(config_path)?;
    let groups = groups_mut(&mut doc)?;
    let holders: Vec<String> = groups
        .iter()
        .filter(|t| tracks(t, &repo))
        .filter_map(|t| group_id(t).map(str::to_string))
        .filter(|g| group.is_none_or(|want| want == g))
        .collect();
    let gid = match holders.as_slice() {
        [] => bail!(
            "{repo} is not tracked{}: see `signals repos list`",
            group
                .map(|g| format!(" in group {g:?}"))
                .unwrap_or_default()
        ),
        [one] => one.clone(),
        many => bail!(
            "{repo} is tracked in several groups ({}): pass --group",
            many.join(", ")
        ),
    };
    let repo_id = before
        .groups
        .iter()
        .find(|g| g.group.id == gid)
        .and_then(|g| g.repos.iter().find(|r| same(&r.repo, &repo)))
        .map(|r| r.id.clone())
        .context("the configuration and its text disagree")?;
    for t in groups
        .iter_mut()
        .filter(|t| group_id(t) == Some(gid.as_str()))
    {
        match t.get_mut("repos") {
            Some(Item::ArrayOfTables(a)) => a.retain(|r| {
                !entry_repo(r.get("repo").and_then(Item::as_str)).is_some_and(|n| same(&n, &repo))
            }),
            Some(Item::Value(Value::Array(a))) => a.retain(|v| {
                let s = match v {
                    Value::String(s) => Some(s.value().as_str()),
                    Value::InlineTable(t) => t.get("repo").and_then(Value::as_str),
                    _ => None,
                };
                !entry_repo(s).is_some_and(|n| same(&n, &repo))
            }),
            _ => {}
        }
    }
    write_doc(config_path, &doc)?;
    Ok(Removed {
        repo,
        group: gid,
        repo_id,
    })
}

/// Deletes the history of a removed repository from the store at
/// `store_path`; the runs deleted, or `None` when the store held nothing
/// of it.
pub fn purge(store_path: &Path, removed: &Removed) -> anyhow::Result<Option<u64>> {
    let mut store = crate::store::open(store_path, crate::store::IfMissing::Refuse)?;
    let key = store
        .repositories()?
        .into_iter()
        .find(|s| s.group.id == removed.group && s.repo.id == removed.repo_id)
        .map(|s| s.key);
    match key {
        Some(key) => Ok(Some(store.purge_repository(key)?)),
        None => Ok(None),
    }
}

fn read_doc(config_path: &Path) -> anyhow::Result<DocumentMut> {
    let text = std::fs::read_to_string(config_path).with_context(|| {
        format!(
            "cannot read {}: run `signals init` first, or pass --config",
            config_path.display()
        )
    })?;
    text.parse::<DocumentMut>()
        .with_context(|| format!("{} is not valid TOML", config_path.display()))
}

/// Checks the edited text as `collect` would, then replaces the file
/// atomically (a temporary file renamed over it).
fn write_doc(config_path: &Path, doc: &DocumentMut) -> anyhow::Result<Config> {
    let text = doc.to_string();
    let config = Config::parse(&text, config_path)
        .context("the edited configuration would not load; the file was left unchanged")?;
    let mut tmp = config_path.as_os_str().to_owned();
    tmp.push(".tmp");
    std::fs::write(&tmp, &text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, config_path)
        .with_context(|| format!("cannot replace {}", config_path.display()))?;
    Ok(config)
}

fn parse_repo(input: &str) -> anyhow::Result<RepoName> {
    Ok(RepoName::parse(&normalize_repo_input(input))?)
}

/// The `repo` value of an entry of a group's `repos` (short or full form).
fn entry_repo(value: Option<&str>) -> Option<RepoName> {
    value.and_then(|v| RepoName::parse(&normalize_repo_input(v)).ok())
}

fn same(a: &RepoName, b: &RepoName) -> bool {
    a.to_string().eq_ignore_ascii_case(&b.to_string())
}

fn groups_mut(doc: &mut DocumentMut) -> anyhow::Result<&mut ArrayOfTables> {
    if !doc.contains_key("groups") {
        doc.insert("groups", Item::ArrayOfTables(ArrayOfTables::new()));
    }
    doc["groups"]
        .as_array_of_tables_mut()
        .context("`groups` must be written as [[groups]] tables for `signals repos` to edit it")
}

fn group_id(t: &Table) -> Option<&str> {
    t.get("id").and_then(Item::as_str)
}

/// Does the group table track `repo`?
fn tracks(t: &Table, repo: &RepoName) -> bool {
    match t.get("repos") {
        Some(Item::ArrayOfTables(a)) => a.iter().any(|r| {
            entry_repo(r.get("repo").and_then(Item::as_str)).is_some_and(|n| same(&n, repo))
        }),
        Some(Item::Value(Value::Array(a))) => a.iter().any(|v| {
            let s = match v {
                Value::String(s) => Some(s.value().as_str()),
                Value::InlineTable(t) => t.get("repo").and_then(Value::as_str),
                _ => None,
            };
            entry_repo(s).is_some_and(|n| same(&n, repo))
        }),
        _ => false,
    }
}
