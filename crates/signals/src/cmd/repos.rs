//! `signals repos list|add|remove`: tracking repositories without editing
//! TOML or SQL by hand.
//!
//! `add` and `remove` edit `signals.toml` in place through `toml_edit`, so
//! the user's comments and layout stay; the edited text is parsed with
//! [`Config::parse`] before it replaces the file (atomically), so the
//! command never leaves a configuration that `collect` would reject.
//! Removing stops collection only: the store keeps the repository's
//! history, and `export` keeps publishing it, unless `--purge` deletes it.

use std::path::Path;

use anyhow::{Context, bail};
use signals_core::{RepoName, slugify};
use toml_edit::{Array, ArrayOfTables, DocumentMut, InlineTable, Item, Table, Value};

use crate::cli::{ReposAddArgs, ReposCommand, ReposListArgs, ReposRemoveArgs};
use crate::config::{Config, normalize_repo_input};

/// Runs `signals repos ...`.
pub fn run(config_path: &Path, command: ReposCommand) -> anyhow::Result<u8> {
    match command {
        ReposCommand::List(args) => list(config_path, &args),
        ReposCommand::Add(args) => add(config_path, &args),
        ReposCommand::Remove(args) => remove(config_path, &args),
    }
}

fn list(config_path: &Path, args: &ReposListArgs) -> anyhow::Result<u8> {
    let config = crate::config::load_with_env(config_path)?;
    let store_path = args.store.clone().unwrap_or_else(|| config.store.clone());
    let (stored, owners) = if store_path.exists() || crate::store::is_postgres(&store_path) {
        let store = crate::store::open(&store_path, false)?;
        (store.repositories()?, store.owners_status()?)
    } else {
        (Vec::new(), Vec::new())
    };
    // A repository found through one of its group's configured owners.
    let through_owner = |group: &str, repo: &str| {
        config.groups.iter().any(|g| {
            g.group.id == group
                && owners.iter().any(|o| {
                    o.group_id == group
                        && g.owners.iter().any(|c| c.owner == o.owner)
                        && o.repos.iter().any(|k| k.repo_id == repo)
                })
        })
    };
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    for g in &config.groups {
        writeln!(out, "{} ({})", g.group.id, g.group.name)?;
        for r in &g.repos {
            let last = stored
                .iter()
                .find(|s| s.group.id == g.group.id && s.repo.id == r.id)
                .and_then(|s| s.last_collected_at)
                .map(|t| format!("last run {}", signals_core::dataset::fmt_seconds(t)))
                .unwrap_or_else(|| "never collected".to_string());
            writeln!(out, "  {:<40} {:<24} {last}", r.repo.to_string(), r.id)?;
        }
        for o in &g.owners {
            writeln!(out, "  every repository of {} (orgs):", o.owner)?;
            let found = owners
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
    let untracked: Vec<_> = stored
        .iter()
        .filter(|s| {
            !config
                .groups
                .iter()
                .any(|g| g.group.id == s.group.id && g.repos.iter().any(|r| r.id == s.repo.id))
                && !through_owner(&s.group.id, &s.repo.id)
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
    Ok(crate::exit::OK)
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

fn add(config_path: &Path, args: &ReposAddArgs) -> anyhow::Result<u8> {
    let repo = parse_repo(&args.repo)?;
    let mut doc = read_doc(config_path)?;
    let groups = groups_mut(&mut doc)?;
    let ids: Vec<String> = groups
        .iter()
        .filter_map(|t| group_id(t).map(str::to_string))
        .collect();
    let gid = match (&args.group, ids.as_slice()) {
        (Some(g), _) => g.clone(),
        (None, [only]) => only.clone(),
        (None, []) => {
            bail!("there is no group yet: pass --group ID --group-name NAME to create one")
        }
        (None, many) => bail!("pass --group, one of: {}", many.join(", ")),
    };
    if let Some(t) = groups.iter().find(|t| tracks(t, &repo)) {
        bail!(
            "{repo} is already tracked in group {:?}",
            group_id(t).unwrap_or("?")
        );
    }
    let found = groups
        .iter()
        .position(|t| group_id(t) == Some(gid.as_str()));
    let index = match found {
        Some(i) => i,
        None => {
            let Some(name) = &args.group_name else {
                bail!(
                    "no group {gid:?} (groups: {}): pass --group-name NAME to create it",
                    ids.join(", ")
                );
            };
            let mut t = Table::new();
            t.insert("id", toml_edit::value(gid.clone()));
            t.insert("name", toml_edit::value(name.clone()));
            groups.push(t);
            groups.len() - 1
        }
    };
    let group = groups.get_mut(index).expect("index is in range");
    let plain = args.name.is_none() && args.id.is_none() && args.keywords.is_empty();
    let mut keywords = Array::new();
    for k in &args.keywords {
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
                if let Some(id) = &args.id {
                    t.insert("id", id.as_str().into());
                }
                if let Some(name) = &args.name {
                    t.insert("name", name.as_str().into());
                }
                if !args.keywords.is_empty() {
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
            if let Some(id) = &args.id {
                t.insert("id", toml_edit::value(id.as_str()));
            }
            if let Some(name) = &args.name {
                t.insert("name", toml_edit::value(name.as_str()));
            }
            if !args.keywords.is_empty() {
                t.insert("keywords", toml_edit::value(keywords));
            }
            group["repos"]
                .as_array_of_tables_mut()
                .expect("repos is an array of tables")
                .push(t);
        }
        Some(_) => bail!("group {gid:?}: `repos` must be an array"),
    }
    write_doc(config_path, &doc)?;
    println!(
        "tracking {repo} in group {gid:?} (id {:?}); the next `signals collect` collects it",
        args.id.clone().unwrap_or_else(|| slugify(repo.name()))
    );
    Ok(crate::exit::OK)
}

fn remove(config_path: &Path, args: &ReposRemoveArgs) -> anyhow::Result<u8> {
    let repo = parse_repo(&args.repo)?;
    let before = crate::config::load_with_env(config_path)?;
    let mut doc = read_doc(config_path)?;
    let groups = groups_mut(&mut doc)?;
    let holders: Vec<String> = groups
        .iter()
        .filter(|t| tracks(t, &repo))
        .filter_map(|t| group_id(t).map(str::to_string))
        .filter(|g| args.group.as_ref().is_none_or(|want| want == g))
        .collect();
    let gid = match holders.as_slice() {
        [] => bail!(
            "{repo} is not tracked{}: see `signals repos list`",
            args.group
                .as_deref()
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
    if !args.purge {
        println!(
            "no longer tracking {repo} (group {gid:?}); its history stays in the store and on the site: `signals repos remove --purge` deletes it"
        );
        return Ok(crate::exit::OK);
    }
    // The store as `collect` sees it: relative to the config file's folder.
    let store_path = match &args.store {
        Some(p) => p.clone(),
        None => crate::config::load_with_env(config_path)?.store,
    };
    let mut store = crate::store::open(&store_path, false)?;
    let key = store
        .repositories()?
        .into_iter()
        .find(|s| s.group.id == gid && s.repo.id == repo_id)
        .map(|s| s.key);
    match key {
        Some(key) => {
            let runs = store.purge_repository(key)?;
            println!(
                "no longer tracking {repo}; deleted its history ({runs} runs) from {}; delete {} from the site's folder if it was published",
                store_path.display(),
                Path::new(&gid).join(&repo_id).display()
            );
        }
        None => println!(
            "no longer tracking {repo}; the store {} held nothing of it",
            store_path.display()
        ),
    }
    Ok(crate::exit::OK)
}
