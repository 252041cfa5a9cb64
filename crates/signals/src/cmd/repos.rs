//! `signals repos list|add|remove`: tracking repositories without editing
//! TOML or SQL by hand (`crate::repos`). Removing stops collection only,
//! unless `--purge` deletes the repository's history from the store.

use std::path::Path;

use signals_core::slugify;

use crate::cli::{ReposAddArgs, ReposCommand, ReposListArgs, ReposRemoveArgs};
use crate::config::load_with_env;
use crate::exit;
use crate::repos::{self, Listing, NewRepo};

/// Runs `signals repos ...`.
pub fn run(config_path: &Path, command: ReposCommand) -> anyhow::Result<u8> {
    match command {
        ReposCommand::List(args) => list(config_path, &args),
        ReposCommand::Add(args) => add(config_path, &args),
        ReposCommand::Remove(args) => remove(config_path, &args),
    }
}

fn list(config_path: &Path, args: &ReposListArgs) -> anyhow::Result<u8> {
    let config = load_with_env(config_path)?;
    let store_path = args.store.clone().unwrap_or_else(|| config.store.clone());
    let listing = Listing::read(config, &store_path)?;
    listing.write(&mut std::io::stdout().lock())?;
    Ok(exit::OK)
}

fn add(config_path: &Path, args: &ReposAddArgs) -> anyhow::Result<u8> {
    let new = NewRepo {
        repo: &args.repo,
        id: args.id.as_deref(),
        name: args.name.as_deref(),
        keywords: &args.keywords,
    };
    let added = repos::add(
        config_path,
        &new,
        args.group.as_deref(),
        args.group_name.as_deref(),
    )?;
    println!(
        "tracking {} of host {:?} in group {:?} (id {:?}); the next `signals collect` collects it",
        added.repo,
        added.host,
        added.group,
        args.id
            .clone()
            .unwrap_or_else(|| slugify(added.repo.name()))
    );
    Ok(exit::OK)
}

fn remove(config_path: &Path, args: &ReposRemoveArgs) -> anyhow::Result<u8> {
    let removed = repos::remove(config_path, &args.repo, args.group.as_deref())?;
    let (repo, gid) = (&removed.repo, &removed.group);
    if !args.purge {
        println!(
            "no longer tracking {repo} (group {gid:?}); its history stays in the store and on the site: `signals repos remove --purge` deletes it"
        );
        return Ok(exit::OK);
    }
    // The store as `collect` sees it: relative to the config file's folder.
    let store_path = match &args.store {
        Some(p) => p.clone(),
        None => load_with_env(config_path)?.store,
    };
    match repos::purge(&store_path, &removed)? {
        Some(runs) => println!(
            "no longer tracking {repo}; deleted its history ({runs} runs) from {}; delete {} from the site's folder if it was published",
            store_path.display(),
            Path::new(gid).join(&removed.repo_id).display()
        ),
        None => println!(
            "no longer tracking {repo}; the store {} held nothing of it",
            store_path.display()
        ),
    }
    Ok(exit::OK)
}
