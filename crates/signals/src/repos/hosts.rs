//! The hosts side of `signals repos add`: which configured host a pasted
//! URL names, which host a group is of, the `[[hosts]]` entry to add when
//! no configured host serves a URL, and where a new group goes in the
//! file.
//!
//! A group is of one host when it says so (`host = "..."`), or when all
//! its repositories and owners are on one host; an empty group, or one
//! that already mixes hosts (each entry naming its own), is of none and
//! takes a repository of any host.

use std::path::Path;

use signals_core::{RepoName, Source};
use toml_edit::{DocumentMut, Item, Table};

use crate::config::{Config, HostConfig};

/// The host the group of `table` is of: its `host`, else the one host of all its
/// repositories and owners; `None` for an empty or a mixed group.
pub(super) fn group_host(config: &Config, table: &Table) -> Option<usize> {
    if let Some(host) = explicit_host(config, table) {
        return Some(host);
    }
    let gid = super::group_id(table)?;
    let g = config.groups.iter().find(|g| g.group.id == gid)?;
    let mut hosts = g
        .repos
        .iter()
        .map(|r| config.host_of(&g.group, r))
        .chain(g.owners.iter().map(|o| o.host));
    let first = hosts.next()?;
    hosts.all(|h| h == first).then_some(first)
}

/// The host a group's table names with `host = "..."`.
pub(super) fn explicit_host(config: &Config, table: &Table) -> Option<usize> {
    let name = table.get("host").and_then(Item::as_str)?;
    config.hosts.iter().position(|h| h.name == name)
}

/// The group that tracks `repo` on `host` already, if one does.
pub(super) fn tracked_in(config: &Config, repo: &RepoName, host: usize) -> Option<String> {
    config.groups.iter().find_map(|g| {
        g.repos
            .iter()
            .any(|r| {
                r.repo.to_string().eq_ignore_ascii_case(&repo.to_string())
                    && config.host_of(&g.group, r) == host
            })
            .then(|| g.group.id.clone())
    })
}

/// The refusal of a repository of `host` into group `gid`, of host `home`:
/// the groups of `host` it can go to, or how to create one.
pub(super) fn other_host(
    config: &Config,
    gid: &str,
    home: usize,
    host: usize,
    input: &str,
) -> String {
    let (home, there) = (&config.hosts[home], &config.hosts[host]);
    format!(
        "group {gid:?} holds the repositories of host {:?} ({}), and {input} is on host {:?} \
         ({}): a group holds one host's repositories. Pass --group ID --group-name NAME to \
         create a group for it{}",
        home.name,
        home.web_domain(),
        there.name,
        there.web_domain(),
        groups_of(config, host)
    )
}

/// ", or --group with one of its groups: a, b", when host `host` has groups.
fn groups_of(config: &Config, host: usize) -> String {
    let ids: Vec<&str> = config
        .groups
        .iter()
        .filter(|g| {
            !g.repos.is_empty()
                && g.repos.iter().all(|r| config.host_of(&g.group, r) == host)
                && g.owners.iter().all(|o| o.host == host)
        })
        .map(|g| g.group.id.as_str())
        .collect();
    if ids.is_empty() {
        String::new()
    } else {
        format!(
            ", or pass --group with one of its groups: {}",
            ids.join(", ")
        )
    }
}

/// The error for a URL on `domain`, which no configured host serves: the
/// whole `[[hosts]]` entry to add (with the entry that keeps the hosts
/// already used when the file names none, or how to turn its `[host]` into
/// an entry), so that running the command again then works.
pub(super) fn missing_host(
    config_path: &Path,
    doc: &DocumentMut,
    config: &Config,
    input: &str,
    domain: &str,
) -> String {
    let file = config_path.display();
    let known = config
        .hosts
        .iter()
        .map(|h| format!("{:?} at {}", h.name, h.web_domain()))
        .collect::<Vec<_>>()
        .join(", ");
    let entry = new_host_entry(config, input, domain);
    let first = &config.hosts[0];
    let mut steps = Vec::new();
    let mut keep = String::new();
    if doc.contains_key("host") {
        steps.push(format!(
            "in {file}, replace the line `[host]` with `[[hosts]]` and add `name = {:?}` below \
             it: it becomes the first of several hosts",
            first.name
        ));
        steps.push(format!("add the entry below at the end of {file}"));
    } else if doc.contains_key("hosts") {
        steps.push(format!("add the entry below at the end of {file}"));
    } else {
        steps.push(format!(
            "add the entries below at the end of {file}: the first keeps {}, the host of the \
             repositories that name none",
            first.web_domain()
        ));
        keep = format!(
            "[[hosts]]\nname = {:?}\nkind = {:?}\n\n",
            first.name,
            first.source.as_str()
        );
    }
    steps.push("run this command again".to_string());
    let steps: String = steps
        .iter()
        .enumerate()
        .map(|(i, step)| format!("\n{}. {step}", i + 1))
        .collect();
    format!(
        "{input} is on {domain}, which no host of {file} serves (its hosts: {known}). To track \
         it:{steps}\n\n{keep}{entry}"
    )
}

/// The `[[hosts]]` entry for `domain`: the public instance's when it is
/// one, else a guess of its kind from its name or the URL's shape (GitLab's
/// `/-/`), with the other kinds' `api_url` in a comment.
fn new_host_entry(config: &Config, input: &str, domain: &str) -> String {
    let (source, name, known) = match domain.strip_prefix("www.").unwrap_or(domain) {
        "github.com" => (Source::Github, "github".to_string(), true),
        "gitlab.com" => (Source::Gitlab, "gitlab".to_string(), true),
        "codeberg.org" => (Source::Forgejo, "codeberg".to_string(), true),
        "gitea.com" => (Source::Forgejo, "gitea".to_string(), true),
        d => {
            let source = if d.contains("gitlab") || input.contains("/-/") {
                Source::Gitlab
            } else if d.contains("github") {
                Source::Github
            } else {
                Source::Forgejo
            };
            (source, short_name(d), false)
        }
    };
    let name = (1..)
        .map(|n| {
            if n == 1 {
                name.clone()
            } else {
                format!("{name}-{n}")
            }
        })
        .find(|n| config.hosts.iter().all(|h| h.name != *n))
        .expect("a free name");
    let web = domain.strip_prefix("www.").unwrap_or(domain);
    let api_url = match source {
        Source::Github if web == "github.com" => HostConfig::of(source).api_url,
        Source::Github => format!("https://{web}/api/v3"),
        Source::Gitlab => format!("https://{web}/api/v4"),
        Source::Forgejo => format!("https://{web}/api/v1"),
    };
    // A second host of a kind needs a token variable of its own.
    let token = if config.hosts.iter().any(|h| h.source == source) {
        format!("{}_TOKEN", name.to_ascii_uppercase().replace('-', "_"))
    } else {
        source.token_env().to_string()
    };
    let kind = match (source, known) {
        (Source::Github, false) => "\"github\"   # GitHub Enterprise".to_string(),
        (_, true) => format!("{:?}", source.as_str()),
        (_, false) => format!(
            "{:?}   # a guess: \"gitlab\" (api_url \"https://{domain}/api/v4\") or \"forgejo\" \
             (Forgejo, Gitea: \"https://{domain}/api/v1\")",
            source.as_str()
        ),
    };
    format!(
        "[[hosts]]\nname = {name:?}\nkind = {kind}\napi_url = {api_url:?}\ntoken_env = {token:?}\n"
    )
}

/// A host's name from its domain: its main label, past a `gitlab.`,
/// `git.` or `code.` prefix (gitlab.gnome.org: `gnome`).
fn short_name(domain: &str) -> String {
    let labels: Vec<&str> = domain.split('.').collect();
    let main = match labels.as_slice() {
        [prefix, main, _, ..] if ["gitlab", "git", "code", "forgejo", "gitea"].contains(prefix) => {
            main
        }
        [main, ..] => main,
        [] => "host",
    };
    signals_core::slugify(main)
}

/// Appends `table` as the file's last group, whole: after the last group
/// and the comment lines right below its last line (a commented example
/// of its keys belongs to it), before what follows them. toml_edit would
/// put the new table between that group's last key and those comments,
/// which it keeps as the prefix of the next table, or as the file's end.
pub(super) fn append_group(doc: &mut DocumentMut, mut table: Table) -> anyhow::Result<()> {
    let groups = super::groups_mut(doc)?;
    let last_end = groups.iter().last().map(last_position);
    let mut prefix = "\n".to_string();
    if let Some(last_end) = last_end.flatten() {
        let next = next_position(doc.as_table(), last_end);
        let after = match next {
            Some(p) => table_at(doc.as_table(), p)
                .and_then(|t| t.decor().prefix().and_then(|r| r.as_str()))
                .unwrap_or_default()
                .to_string(),
            None => doc.trailing().as_str().unwrap_or_default().to_string(),
        };
        let (own, rest) = split_at_blank_line(&after);
        prefix = format!("{own}\n");
        match next {
            Some(p) => {
                set_prefix_at(doc.as_table_mut(), p, rest);
            }
            None => doc.set_trailing(rest),
        }
    }
    table.decor_mut().set_prefix(prefix);
    super::groups_mut(doc)?.push(table);
    Ok(())
}

/// The comment lines at the start of `text` (up to its first blank line),
/// and the rest from that blank line on.
fn split_at_blank_line(text: &str) -> (&str, &str) {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.trim().is_empty() {
            break;
        }
        at += line.len();
    }
    text.split_at(at)
}

/// The greatest position of `table` and the tables below it.
fn last_position(table: &Table) -> Option<isize> {
    let mut last = table.position();
    for (_, item) in table.iter() {
        let below = match item {
            Item::Table(t) => last_position(t),
            Item::ArrayOfTables(a) => a.iter().filter_map(last_position).max(),
            _ => None,
        };
        last = last.max(below);
    }
    last
}

/// The smallest position after `after` of the tables below `table`.
fn next_position(table: &Table, after: isize) -> Option<isize> {
    let mut next: Option<isize> = None;
    let mut consider = |t: &Table| {
        let below = next_position(t, after);
        let own = t.position().filter(|p| *p > after && !t.is_implicit());
        for p in [own, below].into_iter().flatten() {
            next = Some(next.map_or(p, |n| n.min(p)));
        }
    };
    for (_, item) in table.iter() {
        match item {
            Item::Table(t) => consider(t),
            Item::ArrayOfTables(a) => a.iter().for_each(&mut consider),
            _ => {}
        }
    }
    next
}

/// The table at position `position` below `table`.
fn table_at(table: &Table, position: isize) -> Option<&Table> {
    table.iter().find_map(|(_, item)| match item {
        Item::Table(t) if t.position() == Some(position) && !t.is_implicit() => Some(t),
        Item::Table(t) => table_at(t, position),
        Item::ArrayOfTables(a) => a.iter().find_map(|t| {
            if t.position() == Some(position) {
                Some(t)
            } else {
                table_at(t, position)
            }
        }),
        _ => None,
    })
}

/// Sets the prefix of the table at position `position` below `table`;
/// whether there was one.
fn set_prefix_at(table: &mut Table, position: isize, prefix: &str) -> bool {
    let mut done = false;
    for (_, item) in table.iter_mut() {
        if done {
            break;
        }
        let visit = |t: &mut Table| {
            if t.position() == Some(position) && !t.is_implicit() {
                t.decor_mut().set_prefix(prefix);
                true
            } else {
                set_prefix_at(t, position, prefix)
            }
        };
        done = match item {
            Item::Table(t) => visit(t),
            Item::ArrayOfTables(a) => a.iter_mut().any(visit),
            _ => false,
        };
    }
    done
}
