//! The configuration file, as `signals` reads it: the text through
//! `signals_config::Config::parse`, the one entry point of loading (the
//! binary only reads the file around it).
//!
//! Besides "no panic, no hang", a harness checks what the parser promises:
//! an error names a line of the file and says something; a configuration
//! it accepts is whole (at least one host, and every repository and owner
//! on one of them; the window, backfill and reconcile settings within
//! their bounds; a `base_url` ending in `/`; weights that validate; ids
//! unique where they are keys), and a webhook URL written in the file,
//! a credential, never shows in its rule's `Debug` output.

use std::collections::HashSet;
use std::path::Path;

use signals_config::Config;
use signals_config::notify::{Channel, UrlSource};

/// Parses `data` (when it is UTF-8, as the file must be) as `signals.toml`.
pub fn file(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Config::parse(text, Path::new("signals.toml")) {
        Ok(config) => check(&config),
        Err(e) => {
            let lines = text.split('\n').count();
            if let Some(line) = e.line {
                assert!((1..=lines).contains(&line), "line {line} of {lines}: {e}");
            }
            assert!(!e.message.trim().is_empty(), "an empty error message");
        }
    }
}

/// What a configuration that parsed promises.
fn check(config: &Config) {
    assert!(!config.hosts.is_empty(), "no host");
    assert!(
        config.window_hours >= 24,
        "window_hours {}",
        config.window_hours
    );
    assert!(config.backfill_days.is_none_or(|d| d >= 1));
    assert!(config.reconcile_days <= 366);
    assert!(config.base_url.as_ref().is_none_or(|u| u.ends_with('/')));
    assert!(
        config.importance.validate().is_ok(),
        "weights that do not validate"
    );
    let mut groups = HashSet::new();
    for g in &config.groups {
        assert!(
            groups.insert(&g.group.id),
            "group id {:?} twice",
            g.group.id
        );
        let mut repos = HashSet::new();
        for r in &g.repos {
            assert!(
                repos.insert(&r.id),
                "repository id {:?} twice in {:?}",
                r.id,
                g.group.id
            );
            assert!(config.host_of(&g.group, r) < config.hosts.len());
        }
        for o in &g.owners {
            assert!(
                o.host < config.hosts.len(),
                "owner {:?} on no host",
                o.owner
            );
        }
    }
    assert!(config.repo_hosts.values().all(|h| *h < config.hosts.len()));
    for rule in &config.notify {
        let url = match &rule.channel {
            Channel::Webhook { url, .. } | Channel::Slack { url } => url,
            Channel::Email(_) => continue,
        };
        if let UrlSource::Inline(secret) = url {
            let shown = format!("{:?}", rule.channel);
            assert!(
                secret.0.len() < 4 || !shown.contains(&secret.0),
                "a webhook URL shown: {shown}"
            );
        }
    }
}
