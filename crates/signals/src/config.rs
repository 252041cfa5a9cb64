//! Configuration: `signals.toml`, then `SIGNALS_*` environment variables, then
//! command-line flags, over built-in defaults.
//!
//! [`Config::parse`] is pure (text in, config or error out) so every rule is
//! testable; [`Config::load`] only reads the file and calls it. Tokens are not
//! part of the file: it names the environment variables that hold them, and
//! the values are read when the client is built, never stored or printed.

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;
use signals_core::importance::Weights;
use signals_core::{Group, RepoName, Source, SourceId, TrackedRepo, slugify};
use std::time::Duration;

use toml::Spanned;

pub mod groups;
pub mod notify;
pub use groups::{GroupConfig, normalize_repo_input};
pub use notify::NotifyRule;

/// The default config file name, looked up in the working directory.
pub const DEFAULT_PATH: &str = "signals.toml";

/// A configuration error, located in its file.
#[derive(Debug)]
pub struct ConfigError {
    /// The file, or `<built-in>` for the demo's own configuration.
    pub path: PathBuf,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// What is wrong and what to do.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

/// The raw file, as serde sees it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    store: Option<PathBuf>,
    out: Option<PathBuf>,
    base_url: Option<Spanned<String>>,
    window_hours: Option<Spanned<i64>>,
    backfill_days: Option<Spanned<i64>>,
    /// Every how many days a repository's run lists all its items (issue
    /// 20); 0 turns it off.
    reconcile_days: Option<Spanned<i64>>,
    /// Workers on a PostgreSQL store: when a repository is due again.
    interval: Option<Spanned<String>>,
    /// Workers on a PostgreSQL store: how long a claim lasts without
    /// progress.
    lease: Option<Spanned<String>>,
    /// The one host of an older or simpler configuration.
    host: Option<Spanned<RawHost>>,
    /// Several hosts, each with a `name` repositories refer to.
    hosts: Option<Vec<Spanned<RawHost>>>,
    #[serde(default)]
    importance: Option<Spanned<Weights>>,
    #[serde(default)]
    groups: Vec<groups::RawGroup>,
    /// Alert rules (`config/notify.rs`).
    #[serde(default)]
    notify: Vec<Spanned<notify::RawNotify>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHost {
    name: Option<Spanned<String>>,
    kind: Option<Spanned<String>>,
    token_header: Option<Spanned<String>>,
    api_url: Option<Spanned<String>>,
    token_env: Option<TokenEnv>,
    user_agent: Option<String>,
    timeout_secs: Option<u64>,
    max_retries: Option<u32>,
    max_rate_limit_wait_secs: Option<u64>,
}

/// `token_env = "GITHUB_TOKEN"` or `token_env = ["TOKEN_A", "TOKEN_B"]`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum TokenEnv {
    One(String),
    Many(Vec<String>),
}

/// Checks a `base_url` (an absolute http(s) URL) and ends it with `/`.
fn normalize_base_url(url: &str) -> Result<String, String> {
    let u = url.trim();
    if !signals_core::hostile::is_http_url(u) {
        return Err(format!(
            "base_url = {url:?} must be the site's absolute http(s) address, such as \"https://signals.example.org/\""
        ));
    }
    Ok(if u.ends_with('/') {
        u.to_string()
    } else {
        format!("{u}/")
    })
}

/// How a GitLab token is sent (other hosts have one way each).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TokenHeader {
    /// `PRIVATE-TOKEN`: GitLab personal, project and group access tokens.
    #[default]
    PrivateToken,
    /// `Authorization: Bearer`: GitLab OAuth tokens.
    Bearer,
}

/// One code host's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostConfig {
    /// The name repositories use to pick it (`host = "codeberg"`); the kind
    /// (`github`) when the configuration names none.
    pub name: String,
    /// Which API: GitHub, GitLab or Forgejo/Gitea.
    pub source: Source,
    /// The `source` of its repositories' signals: the kind for the first
    /// host of each kind, `<kind>-<name>` for every further one (so ids
    /// stay distinct across hosts holding the same `owner/name`).
    pub signals_source: SourceId,
    /// API base URL (`https://api.github.com`, `https://HOST/api/v3`,
    /// `https://gitlab.com/api/v4`, `https://codeberg.org/api/v1`).
    pub api_url: String,
    /// Names of the environment variables that hold tokens.
    pub token_env: Vec<String>,
    /// GitLab: how the token is sent.
    pub token_header: TokenHeader,
    /// User-Agent sent with every request.
    pub user_agent: String,
    /// Connect and read timeout, seconds.
    pub timeout_secs: u64,
    /// Retries of a request after a 5xx, a timeout or a reset.
    pub max_retries: u32,
    /// Longest wait for a rate limit before the run stops, seconds.
    pub max_rate_limit_wait_secs: u64,
}

impl HostConfig {
    /// The defaults of a host of `source`: its public instance
    /// (github.com, gitlab.com, codeberg.org) and its usual token variable.
    pub fn of(source: Source) -> HostConfig {
        let (api_url, token) = match source {
            Source::Github => ("https://api.github.com", "GITHUB_TOKEN"),
            Source::Gitlab => ("https://gitlab.com/api/v4", "GITLAB_TOKEN"),
            Source::Forgejo => ("https://codeberg.org/api/v1", "FORGEJO_TOKEN"),
        };
        HostConfig {
            name: source.as_str().to_string(),
            source,
            signals_source: SourceId::from(source),
            api_url: api_url.to_string(),
            token_env: vec![token.to_string()],
            token_header: TokenHeader::default(),
            user_agent: concat!("repo-signals/", env!("CARGO_PKG_VERSION")).to_string(),
            timeout_secs: 30,
            max_retries: 4,
            max_rate_limit_wait_secs: 15 * 60,
        }
    }

    /// The host part of the API URL, lowercased (`api.github.com`).
    pub(super) fn api_domain(&self) -> String {
        groups::url_domain(&self.api_url).unwrap_or_default()
    }
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig::of(Source::Github)
    }
}

/// The host kind a `kind` value names.
fn parse_kind(kind: &str) -> Option<Source> {
    match kind.trim().to_ascii_lowercase().as_str() {
        "github" => Some(Source::Github),
        "gitlab" => Some(Source::Gitlab),
        "forgejo" | "gitea" => Some(Source::Forgejo),
        _ => None,
    }
}

/// Every how many days a repository is reconciled by default (issue 20).
pub const DEFAULT_RECONCILE_DAYS: u32 = 7;

/// When a repository is due again, by default.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(3600);
/// How long a claim lasts without progress, by default.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(300);

/// Parses a duration such as `90s`, `30m`, `1h`, `1h 30m` (jiff's friendly
/// format, or ISO 8601 `PT1H`); it must not be negative.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let d: jiff::SignedDuration = text
        .trim()
        .parse()
        .map_err(|e| format!("not a duration ({e}); write it like 90s, 30m or 1h"))?;
    Duration::try_from(d).map_err(|_| "a duration must not be negative".to_string())
}

/// The whole configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// SQLite store file.
    pub store: PathBuf,
    /// Output folder of the site.
    pub out: PathBuf,
    /// The site's public address, ending in `/`: feeds link absolutely
    /// under it.
    pub base_url: Option<String>,
    /// The run window, hours (24 by default).
    pub window_hours: i64,
    /// How far a repository's first run reaches back, days (`None`: the
    /// window only).
    pub backfill_days: Option<i64>,
    /// Every how many days a repository's run lists all its items, not
    /// only those updated since (7 by default; 0: never).
    pub reconcile_days: u32,
    /// Workers on a PostgreSQL store: a repository is due when its last
    /// attempt is older than this (1 hour by default).
    pub interval: Duration,
    /// Workers on a PostgreSQL store: a claim on a repository expires after
    /// this long without a request (5 minutes by default).
    pub lease: Duration,
    /// The code hosts; the first is the default of repositories that name
    /// none. Never empty.
    pub hosts: Vec<HostConfig>,
    /// The host of each repository, by group id and repository id, as an
    /// index into `hosts`.
    pub repo_hosts: std::collections::HashMap<(String, String), usize>,
    /// Importance weights.
    pub importance: Weights,
    /// Groups, in file order.
    pub groups: Vec<GroupConfig>,
    /// Alert rules, in file order.
    pub notify: Vec<NotifyRule>,
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

impl Config {
    /// Parses and checks a config file's text. `path` is only used in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let err = |line: Option<usize>, message: String| ConfigError {
            path: path.to_path_buf(),
            line,
            message,
        };
        let at = |span: std::ops::Range<usize>| Some(line_of(text, span.start));
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start));
            // The toml message already quotes the offending key; drop its own
            // multi-line excerpt and keep the first line plus the reason.
            let message = e.message().trim().to_string();
            err(
                line,
                format!("{message} (fix this key, or run `signals init` for a commented example)"),
            )
        })?;

        let base_url = match &raw.base_url {
            Some(url) => {
                Some(normalize_base_url(url.get_ref()).map_err(|m| err(at(url.span()), m))?)
            }
            None => None,
        };
        let raw_hosts: Vec<Spanned<RawHost>> = match (raw.host, raw.hosts) {
            (Some(one), Some(_)) => {
                return Err(err(
                    at(one.span()),
                    "both [host] and [[hosts]] are set: keep one. For several hosts, move the \
                     [host] keys into a [[hosts]] entry with a `name`"
                        .to_string(),
                ));
            }
            (Some(one), None) => vec![one],
            (None, Some(list)) if !list.is_empty() => list,
            (None, _) => vec![],
        };
        let several = raw_hosts.len() > 1;
        let mut hosts: Vec<HostConfig> = Vec::new();
        for raw_host in raw_hosts {
            let span = raw_host.span();
            let raw_host = raw_host.into_inner();
            let source = match &raw_host.kind {
                None => Source::Github,
                Some(kind) => parse_kind(kind.get_ref()).ok_or_else(|| {
                    err(
                        at(kind.span()),
                        format!(
                            "host kind {:?} is not known: use \"github\", \"gitlab\" or \"forgejo\" (Forgejo and Gitea)",
                            kind.get_ref()
                        ),
                    )
                })?,
            };
            let mut host = HostConfig::of(source);
            match &raw_host.name {
                Some(name) => {
                    let n = name.get_ref().trim();
                    if n.is_empty() || n.chars().any(|c| c.is_whitespace()) {
                        return Err(err(
                            at(name.span()),
                            format!(
                                "host name {:?} must be a non-empty word, such as \"codeberg\"",
                                name.get_ref()
                            ),
                        ));
                    }
                    host.name = n.to_string();
                }
                None if several => {
                    return Err(err(
                        at(span),
                        "every [[hosts]] entry needs a `name` (repositories pick their host by it)"
                            .to_string(),
                    ));
                }
                None => {}
            }
            if hosts.iter().any(|h| h.name == host.name) {
                return Err(err(
                    at(raw_host.name.as_ref().map_or(span, |n| n.span())),
                    format!(
                        "host name {:?} is used twice: give each host its own name",
                        host.name
                    ),
                ));
            }
            // A further host of a kind writes its name into its signals'
            // `source` and ids, so the name must fit there.
            if hosts.iter().any(|h| h.source == source) {
                host.signals_source =
                    SourceId::qualified(source, &host.name).ok_or_else(|| {
                        err(
                            at(raw_host.name.as_ref().map_or(span.clone(), |n| n.span())),
                            format!(
                                "host name {:?} is not a slug: a second {} host's name becomes part of its signal ids ({}-<name>:owner/name:...), so use lowercase letters, digits and single dashes, such as {:?}",
                                host.name,
                                source.display_name(),
                                source,
                                slugify(&host.name)
                            ),
                        )
                    })?;
            }
            if let Some(url) = &raw_host.api_url {
                let u = url.get_ref().trim_end_matches('/');
                if !(u.starts_with("https://") || u.starts_with("http://")) {
                    return Err(err(
                        at(url.span()),
                        format!(
                            "api_url = {:?} must be an http(s) URL such as {}",
                            url.get_ref(),
                            HostConfig::of(source).api_url
                        ),
                    ));
                }
                host.api_url = u.to_string();
            }
            if let Some(names) = raw_host.token_env {
                host.token_env = match names {
                    TokenEnv::One(n) => vec![n],
                    TokenEnv::Many(v) => v,
                };
            }
            if let Some(h) = &raw_host.token_header {
                host.token_header = match (source, h.get_ref().to_ascii_lowercase().as_str()) {
                    (Source::Gitlab, "private-token") => TokenHeader::PrivateToken,
                    (Source::Gitlab, "bearer") => TokenHeader::Bearer,
                    (Source::Gitlab, _) => {
                        return Err(err(
                            at(h.span()),
                            format!(
                                "token_header {:?} is not known: use \"private-token\" (access tokens) or \"bearer\" (OAuth tokens)",
                                h.get_ref()
                            ),
                        ));
                    }
                    _ => {
                        return Err(err(
                            at(h.span()),
                            "token_header applies to GitLab hosts only".to_string(),
                        ));
                    }
                };
            }
            if let Some(ua) = raw_host.user_agent {
                host.user_agent = ua;
            }
            if let Some(t) = raw_host.timeout_secs {
                host.timeout_secs = t.max(1);
            }
            if let Some(r) = raw_host.max_retries {
                host.max_retries = r;
            }
            if let Some(w) = raw_host.max_rate_limit_wait_secs {
                host.max_rate_limit_wait_secs = w;
            }
            hosts.push(host);
        }
        if hosts.is_empty() {
            hosts.push(HostConfig::default());
        }
        let window_hours = match raw.window_hours {
            Some(w) if *w.get_ref() < 24 => {
                return Err(err(
                    at(w.span()),
                    format!(
                        "window_hours = {} is too short: the v3 dataset needs a window of at least 24 hours",
                        w.get_ref()
                    ),
                ));
            }
            Some(w) => *w.get_ref(),
            None => 24,
        };
        let duration = |value: Option<Spanned<String>>, key: &str, default: Duration| match value {
            None => Ok(default),
            Some(v) => parse_duration(v.get_ref()).map_err(|problem| {
                err(
                    at(v.span()),
                    format!("{key} = {:?}: {problem}", v.get_ref()),
                )
            }),
        };
        let interval = duration(raw.interval, "interval", DEFAULT_INTERVAL)?;
        let lease = duration(raw.lease, "lease", DEFAULT_LEASE)?;
        let backfill_days = match raw.backfill_days {
            Some(b) if *b.get_ref() < 1 => {
                return Err(err(
                    at(b.span()),
                    "backfill_days must be at least 1".to_string(),
                ));
            }
            Some(b) => Some(*b.get_ref()),
            None => None,
        };
        let reconcile_days = match raw.reconcile_days {
            Some(d) => u32::try_from(*d.get_ref())
                .ok()
                .filter(|d| *d <= 366)
                .ok_or_else(|| {
                    err(
                        at(d.span()),
                        "reconcile_days must be a whole number of days from 0 (never) to 366"
                            .to_string(),
                    )
                })?,
            None => DEFAULT_RECONCILE_DAYS,
        };
        let importance = match raw.importance {
            Some(w) => {
                let span = w.span();
                let w = w.into_inner();
                w.validate()
                    .map_err(|m| err(at(span), format!("[importance]: {m}")))?;
                w
            }
            None => Weights::default(),
        };

        let (groups, repo_hosts) =
            groups::parse(raw.groups, &hosts).map_err(|(span, m)| err(at(span), m))?;

        let notify = notify::parse(raw.notify, &groups).map_err(|(span, m)| err(at(span), m))?;

        Ok(Config {
            store: raw.store.unwrap_or_else(|| PathBuf::from("signals.db")),
            out: raw.out.unwrap_or_else(|| PathBuf::from("site")),
            base_url,
            window_hours,
            backfill_days,
            reconcile_days,
            interval,
            lease,
            hosts,
            repo_hosts,
            importance,
            groups,
            notify,
        })
    }

    /// Reads and parses a config file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            path: path.to_path_buf(),
            line: None,
            message: if e.kind() == std::io::ErrorKind::NotFound {
                "no such file: run `signals init` to write an example, or pass --config".to_string()
            } else {
                format!("cannot read it: {e}")
            },
        })?;
        let mut config = Config::parse(&text, path)?;
        config.resolve_paths(path.parent().unwrap_or(Path::new("")));
        Ok(config)
    }

    /// Makes a relative `store` and `out` relative to `dir`, the config
    /// file's folder: `signals --config /srv/signals/signals.toml collect`
    /// run by cron from another folder must find the same store. (Paths from
    /// `SIGNALS_*` variables and flags stay relative to the working
    /// directory, like any path typed in a shell.)
    pub fn resolve_paths(&mut self, dir: &Path) {
        for p in [&mut self.store, &mut self.out] {
            // A PostgreSQL address is not a path.
            if p.is_relative() && !crate::store::is_postgres(p) {
                *p = dir.join(&*p);
            }
        }
    }

    /// Applies `SIGNALS_STORE`, `SIGNALS_OUT`, `SIGNALS_API_URL` and
    /// `SIGNALS_WINDOW_HOURS` from `env` (a lookup, so tests need not touch the
    /// process environment).
    pub fn apply_env(&mut self, env: impl Fn(&str) -> Option<String>) -> Result<(), ConfigError> {
        let err = |message: String| ConfigError {
            path: PathBuf::from("<environment>"),
            line: None,
            message,
        };
        if let Some(v) = env("SIGNALS_STORE") {
            self.store = PathBuf::from(v);
        }
        if let Some(v) = env("SIGNALS_OUT") {
            self.out = PathBuf::from(v);
        }
        if let Some(v) = env("SIGNALS_BASE_URL") {
            self.base_url =
                Some(normalize_base_url(&v).map_err(|m| err(format!("SIGNALS_BASE_URL: {m}")))?);
        }
        if let Some(v) = env("SIGNALS_API_URL")
            && let Some(first) = self.hosts.first_mut()
        {
            first.api_url = v.trim_end_matches('/').to_string();
        }
        if let Some(v) = env("SIGNALS_WINDOW_HOURS") {
            match v.parse::<i64>() {
                Ok(h) if h >= 24 => self.window_hours = h,
                _ => {
                    return Err(err(format!(
                        "SIGNALS_WINDOW_HOURS={v:?} must be a whole number of hours, at least 24"
                    )));
                }
            }
        }
        Ok(())
    }

    /// The host a repository of a group is collected from.
    pub fn host_of(&self, group: &Group, repo: &TrackedRepo) -> usize {
        self.repo_hosts
            .get(&(group.id.clone(), repo.id.clone()))
            .copied()
            .unwrap_or(0)
    }

    /// The repositories selected by `--group` and `--repo`, with their group.
    pub fn select(
        &self,
        group: Option<&str>,
        repo: Option<&RepoName>,
    ) -> Vec<(&Group, &TrackedRepo)> {
        self.groups
            .iter()
            .filter(|g| group.is_none_or(|id| g.group.id == id))
            .flat_map(|g| g.repos.iter().map(move |r| (&g.group, r)))
            .filter(|(_, r)| repo.is_none_or(|name| &r.repo == name))
            .collect()
    }
}

/// Loads the config file and applies the environment.
pub fn load_with_env(path: &Path) -> anyhow::Result<Config> {
    let mut config = Config::load(path)?;
    config.apply_env(|k| std::env::var(k).ok())?;
    Ok(config)
}

/// The configuration of commands that need no repository list, with the
/// store and output paths given as flags: flags win; otherwise the config
/// file when there is one; otherwise the environment and the defaults.
pub fn for_command(
    config_path: &Path,
    store: Option<&Path>,
    out: Option<&Path>,
) -> anyhow::Result<Config> {
    let mut config = if config_path.exists() {
        load_with_env(config_path)?
    } else {
        let mut c = Config::parse("", Path::new("<defaults>")).context("built-in defaults")?;
        c.apply_env(|k| std::env::var(k).ok())?;
        c
    };
    if let Some(store) = store {
        config.store = store.to_path_buf();
    }
    if let Some(out) = out {
        config.out = out.to_path_buf();
    }
    Ok(config)
}

/// The commented example `signals init` writes.
pub const EXAMPLE: &str = include_str!("../signals.example.toml");

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Path::new("signals.toml"))
    }

    #[test]
    fn example_parses() {
        let c = parse(EXAMPLE).unwrap();
        assert_eq!(c.window_hours, 24);
        assert_eq!(c.hosts[0].api_url, "https://api.github.com");
        assert!(!c.groups.is_empty());
        assert!(c.groups.iter().all(|g| !g.repos.is_empty()));
    }

    #[test]
    fn defaults_and_derived_ids() {
        let c = parse("[[groups]]\nid = \"g\"\nname = \"G\"\n[[groups.repos]]\nrepo = \"sigmavirus24/github3.py\"\n").unwrap();
        let r = &c.groups[0].repos[0];
        assert_eq!(r.id, "github3-py");
        assert_eq!(r.name, "github3.py");
        assert_eq!(c.store, PathBuf::from("signals.db"));
        assert_eq!(c.hosts[0].token_env, vec!["GITHUB_TOKEN"]);
    }

    #[test]
    fn errors_name_file_line_and_key() {
        let e = parse("store = \"x.db\"\n\n[host]\ntoken = \"ghp_secret\"\n").unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with("signals.toml:4: "), "{msg}");
        assert!(msg.contains("token"), "{msg}");
        assert!(!msg.contains("ghp_secret"), "{msg}");

        let e = parse(
            "[[groups]]\nid = \"g\"\nname = \"G\"\n[[groups.repos]]\nrepo = \"not a repo\"\n",
        )
        .unwrap_err();
        assert_eq!(e.line, Some(5), "{e}");
        assert!(e.to_string().contains("owner"), "{e}");

        let e = parse("[[groups]]\nid = \"Bad Id\"\nname = \"G\"\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.to_string().contains("\"bad-id\""), "{e}");

        let e = parse("window_hours = 3\n").unwrap_err();
        assert_eq!(e.line, Some(1));

        let twice = "[[groups]]\nid = \"g\"\nname = \"G\"\n[[groups.repos]]\nrepo = \"a/x\"\n[[groups.repos]]\nrepo = \"b/x\"\n";
        let e = parse(twice).unwrap_err();
        assert_eq!(e.line, Some(7), "{e}");
    }

    #[test]
    fn short_form_and_pasted_urls() {
        let c = parse(
            "[[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\"sigmavirus24/github3.py\", \"https://github.com/betamaxpy/betamax/issues/5\", { repo = \"git@github.com:o/Some_Thing.git\", name = \"S\" }]\n",
        )
        .unwrap();
        let repos: Vec<_> = c.groups[0]
            .repos
            .iter()
            .map(|r| (r.repo.to_string(), r.id.as_str(), r.name.as_str()))
            .collect();
        assert_eq!(
            repos,
            vec![
                (
                    "sigmavirus24/github3.py".to_string(),
                    "github3-py",
                    "github3.py"
                ),
                ("betamaxpy/betamax".to_string(), "betamax", "betamax"),
                ("o/Some_Thing".to_string(), "some-thing", "S"),
            ]
        );
        // A bad short entry is reported on its own line.
        let e = parse(
            "[[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\n  \"a/b\",\n  \"not a repo\",\n]\n",
        )
        .unwrap_err();
        assert_eq!(e.line, Some(6), "{e}");
    }

    #[test]
    fn pasted_inputs_normalize() {
        for (input, want) in [
            ("o/n", "o/n"),
            (" o/n/ ", "o/n"),
            ("https://github.com/o/n", "o/n"),
            ("https://github.com/o/n.git", "o/n"),
            ("https://github.com/o/n/", "o/n"),
            ("http://www.github.com/o/n/pull/3?x=1#y", "o/n"),
            ("https://github.example.com/o/n/tree/main", "o/n"),
            ("git@github.com:o/n.git", "o/n"),
            ("ssh://git@github.com/o/n.git", "o/n"),
            (
                "https://gitlab.com/gnome/world/podcasts/-/issues/3",
                "gnome/world/podcasts",
            ),
        ] {
            assert_eq!(normalize_repo_input(input), want, "{input}");
        }
    }

    #[test]
    fn base_url_is_checked_and_ends_in_a_slash() {
        let c = parse("base_url = \"https://s.example.org/signals\"\n").unwrap();
        assert_eq!(
            c.base_url.as_deref(),
            Some("https://s.example.org/signals/")
        );
        assert_eq!(parse("").unwrap().base_url, None);
        let e = parse("\nbase_url = \"javascript:x\"\n").unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
    }

    #[test]
    fn relative_paths_follow_the_config_file() {
        let mut c = parse("store = \"data/s.db\"\n").unwrap();
        c.resolve_paths(Path::new("/srv/signals"));
        assert_eq!(c.store, PathBuf::from("/srv/signals/data/s.db"));
        assert_eq!(c.out, PathBuf::from("/srv/signals/site"));
        let mut c = parse("store = \"/var/s.db\"\n").unwrap();
        c.resolve_paths(Path::new("/srv/signals"));
        assert_eq!(c.store, PathBuf::from("/var/s.db"));
    }

    #[test]
    fn env_overrides_file() {
        let mut c = parse("store = \"a.db\"\n").unwrap();
        c.apply_env(|k| match k {
            "SIGNALS_STORE" => Some("b.db".into()),
            "SIGNALS_API_URL" => Some("https://ghe.example.com/api/v3/".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(c.store, PathBuf::from("b.db"));
        assert_eq!(c.hosts[0].api_url, "https://ghe.example.com/api/v3");
        assert!(
            c.apply_env(|k| (k == "SIGNALS_WINDOW_HOURS").then(|| "x".into()))
                .is_err()
        );
    }

    #[test]
    fn several_hosts_and_how_repositories_pick_one() {
        let c = parse(
            r#"
[[hosts]]
name = "github"
kind = "github"

[[hosts]]
name = "gnome"
kind = "gitlab"
api_url = "https://gitlab.gnome.org/api/v4/"
token_env = "GNOME_TOKEN"
token_header = "bearer"

[[hosts]]
name = "codeberg"
kind = "forgejo"

[[groups]]
id = "g"
name = "G"
repos = [
  "o/plain",
  "https://codeberg.org/forgejo/forgejo",
  { repo = "gnome/world/podcasts", host = "gnome" },
  "https://gitlab.gnome.org/GNOME/gtk/-/issues/1",
]

[[groups]]
id = "h"
name = "H"
host = "codeberg"
repos = ["a/b"]
"#,
        )
        .unwrap();
        // One host per kind: every source is the bare kind, as always.
        let hosts: Vec<(&str, &str, String)> = c
            .select(None, None)
            .into_iter()
            .map(|(g, r)| {
                let h = &c.hosts[c.host_of(g, r)];
                (h.name.as_str(), r.source.as_str(), r.repo.to_string())
            })
            .collect();
        assert_eq!(
            hosts,
            vec![
                ("github", "github", "o/plain".to_string()),
                ("codeberg", "forgejo", "forgejo/forgejo".to_string()),
                ("gnome", "gitlab", "gnome/world/podcasts".to_string()),
                ("gnome", "gitlab", "GNOME/gtk".to_string()),
                ("codeberg", "forgejo", "a/b".to_string()),
            ]
        );
        let gnome = &c.hosts[1];
        assert_eq!(gnome.api_url, "https://gitlab.gnome.org/api/v4");
        assert_eq!(gnome.token_env, vec!["GNOME_TOKEN"]);
        assert_eq!(gnome.token_header, TokenHeader::Bearer);
        assert_eq!(c.hosts[2].api_url, "https://codeberg.org/api/v1");
        assert_eq!(c.hosts[2].token_env, vec!["FORGEJO_TOKEN"]);
    }

    #[test]
    fn a_further_host_of_a_kind_qualifies_its_source() {
        let c = parse(
            "[[hosts]]\nname = \"dotcom\"\nkind = \"github\"\n\
             [[hosts]]\nname = \"ghe\"\nkind = \"github\"\napi_url = \"https://ghe.example.com/api/v3\"\n\
             [[hosts]]\nname = \"gitlab\"\nkind = \"gitlab\"\n\
             [[groups]]\nid = \"g\"\nname = \"G\"\n\
             [[groups.repos]]\nrepo = \"o/n\"\n\
             [[groups.repos]]\nrepo = \"o/n\"\nid = \"n-ghe\"\nhost = \"ghe\"\n",
        )
        .unwrap();
        let sources: Vec<&str> = c.hosts.iter().map(|h| h.signals_source.as_str()).collect();
        assert_eq!(sources, ["github", "github-ghe", "gitlab"]);
        let repos: Vec<(&str, &str)> = c.groups[0]
            .repos
            .iter()
            .map(|r| (r.id.as_str(), r.source.as_str()))
            .collect();
        assert_eq!(repos, [("n", "github"), ("n-ghe", "github-ghe")]);
        // The name of a further host becomes part of ids: it must be a slug.
        let e = parse(
            "[[hosts]]\nname = \"a\"\nkind = \"gitlab\"\n\
             [[hosts]]\nname = \"Gnome.org\"\nkind = \"gitlab\"\n",
        )
        .unwrap_err();
        let m = e.to_string();
        assert!(m.starts_with("signals.toml:5: "), "{m}");
        assert!(
            m.contains("\"Gnome.org\" is not a slug") && m.contains("\"gnome-org\""),
            "{m}"
        );
        // The first host of a kind may keep any name: it is not in ids.
        assert!(parse("[[hosts]]\nname = \"Gnome.org\"\nkind = \"gitlab\"\n").is_ok());
    }

    #[test]
    fn old_single_host_configs_keep_working() {
        let c = parse("[host]\nkind = \"gitlab\"\n[[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\"a/b/c\"]\n").unwrap();
        assert_eq!(c.hosts.len(), 1);
        assert_eq!(c.hosts[0].name, "gitlab");
        assert_eq!(c.hosts[0].api_url, "https://gitlab.com/api/v4");
        assert_eq!(c.groups[0].repos[0].source, Source::Gitlab);
        assert_eq!(c.groups[0].repos[0].id, "c");
    }

    #[test]
    fn host_errors_say_what_to_change() {
        let e = parse("[host]\nkind = \"github\"\n[[hosts]]\nname = \"a\"\n").unwrap_err();
        assert!(e.to_string().contains("keep one"), "{e}");
        let e = parse("[[hosts]]\nkind = \"github\"\n[[hosts]]\nname = \"b\"\nkind = \"gitlab\"\n")
            .unwrap_err();
        assert!(e.to_string().contains("needs a `name`"), "{e}");
        let e = parse("[host]\nkind = \"bitbucket\"\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.to_string().contains("\"forgejo\""), "{e}");
        let e = parse("[[groups]]\nid = \"g\"\nname = \"G\"\n[[groups.repos]]\nrepo = \"a/b\"\nhost = \"nope\"\n").unwrap_err();
        assert_eq!(e.line, Some(6));
        assert!(e.to_string().contains("use one of \"github\""), "{e}");
        // A nested path on GitHub is a mistake the error explains.
        let e = parse("[[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\"a/b/c\"]\n").unwrap_err();
        assert!(e.to_string().contains("only GitLab projects"), "{e}");
        let e = parse("[host]\ntoken_header = \"bearer\"\n").unwrap_err();
        assert!(e.to_string().contains("GitLab hosts only"), "{e}");
    }

    #[test]
    fn selection() {
        let c = parse(EXAMPLE).unwrap();
        let all = c.select(None, None).len();
        let first = &c.groups[0];
        assert_eq!(
            c.select(Some(&first.group.id), None).len(),
            first.repos.len()
        );
        assert_eq!(c.select(None, Some(&first.repos[0].repo)).len(), 1);
        assert!(all >= first.repos.len());
        assert_eq!(c.select(Some("nope"), None).len(), 0);
    }
}
