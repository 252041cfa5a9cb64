//! Configuration: `signals.toml`, then `SIGNALS_*` environment variables, then
//! command-line flags, over built-in defaults.
//!
//! [`Config::parse`] is pure (text in, config or error out) so every rule is
//! testable, and fuzzed (`fuzz/`, docs/fuzzing.md); loading (the binary's
//! `config/load.rs`) only reads the file and the environment and calls it. Each section is checked in its own module: the hosts
//! (`hosts.rs`), the groups (`groups.rs`) and the alert rules
//! (`notify.rs`), each saying what is wrong at which span of the file.
//! Tokens are not part of the file: it names the environment variables
//! that hold them, and the values are read when the client is built, never
//! stored or printed.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use signals_core::importance::Weights;
use signals_core::{Group, RepoName, TrackedRepo};
use toml::Spanned;

mod conversation;
pub mod groups;
pub mod hosts;
mod lifecycle;
pub mod notify;
mod read;
pub use groups::{GroupConfig, normalize_repo_input};
pub use hosts::{HostConfig, TokenHeader, url_domain};
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
    /// The file's further problems after this first one, in file order
    /// (line, message): a file is checked whole, and told whole.
    pub more: Vec<(usize, String)>,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match self.line {
            Some(line) => write!(f, "{path}:{line}: {}", self.message)?,
            None => write!(f, "{path}: {}", self.message)?,
        }
        for (line, message) in &self.more {
            write!(f, "\n{path}:{line}: {message}")?;
        }
        if !self.more.is_empty() {
            write!(f, "\n({} problems in {path})", self.more.len() + 1)?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

/// An error at a byte span of the file, with its message; the caller adds
/// the file and the line.
type SpanError = (Range<usize>, String);

/// The raw file, as serde sees it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    store: Option<PathBuf>,
    out: Option<PathBuf>,
    base_url: Option<Spanned<String>>,
    window_hours: Option<Spanned<i64>>,
    backfill_days: Option<Spanned<i64>>,
    /// How far a first run reads comments back.
    comments_backfill_days: Option<Spanned<i64>>,
    /// When an unanswered open item is waiting.
    waiting_days: Option<Spanned<i64>>,
    /// Every how many days a repository's run lists all its items; 0
    /// turns it off.
    reconcile_days: Option<Spanned<i64>>,
    /// Workers on a PostgreSQL store: when a repository is due again.
    interval: Option<Spanned<String>>,
    /// Workers on a PostgreSQL store: how long a claim lasts without
    /// progress.
    lease: Option<Spanned<String>>,
    /// The one host of an older or simpler configuration.
    host: Option<Spanned<hosts::RawHost>>,
    /// Several hosts, each with a `name` repositories refer to.
    hosts: Option<Vec<Spanned<hosts::RawHost>>>,
    #[serde(default)]
    importance: Option<Spanned<Weights>>,
    #[serde(default)]
    groups: Vec<groups::RawGroup>,
    /// Alert rules (`config/notify.rs`).
    #[serde(default)]
    notify: Vec<Spanned<notify::RawNotify>>,
    /// A fixed instant health is judged at, for a recorded store (the
    /// demo's); absent: now.
    clock: Option<Spanned<String>>,
    /// The thresholds of the lifecycle rules.
    lifecycle: Option<lifecycle::RawLifecycle>,
}

/// Checks a `base_url` (an absolute http(s) URL) and ends it with `/`.
pub fn normalize_base_url(url: &str) -> Result<String, String> {
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

/// Every how many days a repository is reconciled by default.
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
    /// How far a repository's first run reads comments back, days (90 by
    /// default).
    pub comments_backfill_days: u32,
    /// An open issue or pull request unanswered for longer than this many
    /// days is waiting for a reply (2 by default).
    pub waiting_days: u32,
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
    /// The instant health is judged at instead of now (`clock`): the
    /// demo's store is a recording, fresh at its own last run.
    pub clock: Option<jiff::Timestamp>,
    /// The thresholds of the lifecycle rules (`[lifecycle]`).
    pub lifecycle: signals_core::lifecycle::Thresholds,
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
    ///
    /// Every problem is found, not only the first: the file is read past
    /// each key serde refuses (`read.rs`), each setting and each
    /// group and rule is checked, and the problems are reported together
    /// in file order.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let fail = |mut problems: Vec<SpanError>| {
            problems.sort_by_key(|(span, _)| span.start);
            let mut lines = problems
                .into_iter()
                .map(|(span, message)| (line_of(text, span.start), message));
            let (line, message) = lines.next().unwrap_or_default();
            ConfigError {
                path: path.to_path_buf(),
                line: Some(line),
                message,
                more: lines.collect(),
            }
        };
        let read::ReadPast { raw, mut problems } = read::deserialize_all::<RawConfig>(text)
            .map_err(|e| ConfigError {
                path: path.to_path_buf(),
                line: e.span.map(|s| line_of(text, s.start)),
                message: e.message,
                more: Vec::new(),
            })?;
        let Some(raw) = raw else {
            return Err(fail(problems));
        };
        let config = check(raw, &mut problems);
        match config {
            Some(config) if problems.is_empty() => Ok(config),
            _ => Err(fail(problems)),
        }
    }

    /// The instant health is judged at: `clock` when set, else now.
    pub fn now(&self) -> jiff::Timestamp {
        self.clock.unwrap_or_else(jiff::Timestamp::now)
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

/// Every check of the raw file's settings, groups and rules; each problem
/// goes into `problems`. The configuration when it could be built (a
/// check that failed leaves its default in it, and `problems` says so).
fn check(raw: RawConfig, problems: &mut Vec<SpanError>) -> Option<Config> {
    fn keep<T>(r: Result<T, SpanError>, problems: &mut Vec<SpanError>) -> Option<T> {
        r.map_err(|p| problems.push(p)).ok()
    }
    let base_url = keep(
        raw.base_url
            .as_ref()
            .map(|url| normalize_base_url(url.get_ref()).map_err(|m| (url.span(), m)))
            .transpose(),
        problems,
    )
    .flatten();
    let window_hours = keep(window_hours(raw.window_hours), problems).unwrap_or(24);
    let interval = keep(
        duration(raw.interval, "interval", DEFAULT_INTERVAL),
        problems,
    )
    .unwrap_or_default();
    let lease = keep(duration(raw.lease, "lease", DEFAULT_LEASE), problems).unwrap_or_default();
    let backfill_days = keep(backfill_days(raw.backfill_days), problems).flatten();
    let comments_backfill_days = keep(
        conversation::comments_backfill_days(raw.comments_backfill_days),
        problems,
    )
    .unwrap_or(conversation::DEFAULT_COMMENTS_BACKFILL_DAYS);
    let waiting_days = keep(conversation::waiting_days(raw.waiting_days), problems).unwrap_or(2);
    let reconcile_days = keep(reconcile_days(raw.reconcile_days), problems).unwrap_or_default();
    let importance = keep(importance(raw.importance), problems).unwrap_or_default();
    let clock = keep(clock(raw.clock), problems).flatten();
    let lifecycle = keep(lifecycle::thresholds(raw.lifecycle), problems).unwrap_or_default();
    // Groups name hosts, and rules name groups: each is checked against
    // what came before it only when that was whole.
    let hosts = keep(hosts::parse(raw.host, raw.hosts), problems)?;
    let groups::Groups { groups, repo_hosts } = groups::parse(raw.groups, &hosts)
        .map_err(|p| problems.extend(p))
        .ok()?;
    let notify = notify::parse(raw.notify, &groups)
        .map_err(|p| problems.extend(p))
        .ok()?;
    Some(Config {
        store: raw.store.unwrap_or_else(|| PathBuf::from("signals.db")),
        out: raw.out.unwrap_or_else(|| PathBuf::from("site")),
        base_url,
        window_hours,
        backfill_days,
        comments_backfill_days,
        waiting_days,
        reconcile_days,
        interval,
        lease,
        hosts,
        repo_hosts,
        importance,
        groups,
        notify,
        clock,
        lifecycle,
    })
}

/// `window_hours`: at least 24 (24 by default).
fn window_hours(w: Option<Spanned<i64>>) -> Result<i64, SpanError> {
    match w {
        Some(w) if *w.get_ref() < 24 => Err((
            w.span(),
            format!(
                "window_hours = {} is too short: the v3 dataset needs a window of at least 24 hours",
                w.get_ref()
            ),
        )),
        Some(w) => Ok(*w.get_ref()),
        None => Ok(24),
    }
}

/// A duration setting (`interval`, `lease`), or its default.
fn duration(
    value: Option<Spanned<String>>,
    key: &str,
    default: Duration,
) -> Result<Duration, SpanError> {
    match value {
        None => Ok(default),
        Some(v) => parse_duration(v.get_ref())
            .map_err(|problem| (v.span(), format!("{key} = {:?}: {problem}", v.get_ref()))),
    }
}

/// `backfill_days`: at least 1, when set.
fn backfill_days(b: Option<Spanned<i64>>) -> Result<Option<i64>, SpanError> {
    match b {
        Some(b) if *b.get_ref() < 1 => {
            Err((b.span(), "backfill_days must be at least 1".to_string()))
        }
        Some(b) => Ok(Some(*b.get_ref())),
        None => Ok(None),
    }
}

/// `reconcile_days`: 0 (never) to 366, [`DEFAULT_RECONCILE_DAYS`] by
/// default.
fn reconcile_days(d: Option<Spanned<i64>>) -> Result<u32, SpanError> {
    match d {
        Some(d) => u32::try_from(*d.get_ref())
            .ok()
            .filter(|d| *d <= 366)
            .ok_or_else(|| {
                (
                    d.span(),
                    "reconcile_days must be a whole number of days from 0 (never) to 366"
                        .to_string(),
                )
            }),
        None => Ok(DEFAULT_RECONCILE_DAYS),
    }
}

/// `clock`: an RFC 3339 instant, when set.
fn clock(c: Option<Spanned<String>>) -> Result<Option<jiff::Timestamp>, SpanError> {
    c.map(|c| {
        c.get_ref().parse().map_err(|e| {
            (
                c.span(),
                format!(
                    "clock = {:?} is not an instant ({e}); write it like \"2021-11-02T00:00:00Z\", \
                     or remove it to judge health now",
                    c.get_ref()
                ),
            )
        })
    })
    .transpose()
}

/// `[importance]`: the weights, checked, or the defaults.
fn importance(w: Option<Spanned<Weights>>) -> Result<Weights, SpanError> {
    match w {
        Some(w) => {
            let span = w.span();
            let w = w.into_inner();
            w.validate()
                .map_err(|m| (span, format!("[importance]: {m}")))?;
            Ok(w)
        }
        None => Ok(Weights::default()),
    }
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

    /// A file with several problems is told them all, in file
    /// order; before, one at a time, and not the first in the file.
    #[test]
    fn issue_30_every_problem_is_reported_in_file_order() {
        let text = "\
store = \"s.db\"
window_hours = 3
[host]
api_url = \"https://api.github.com\"
tokn = \"X\"

[[groups]]
id = \"Bad Id\"
name = \"A\"

[[groups]]
id = \"b\"
name = \"B\"
repos = [\"not a repo\"]

[[notify]]
name = \"n\"
kind = \"carrier-pigeon\"
";
        let e = parse(text).unwrap_err();
        let lines: Vec<usize> = std::iter::once(e.line.unwrap())
            .chain(e.more.iter().map(|(l, _)| *l))
            .collect();
        assert_eq!(lines, [2, 5, 8, 14], "{e}");
        let shown = e.to_string();
        assert!(
            shown.starts_with("signals.toml:2: window_hours = 3"),
            "{shown}"
        );
        assert!(
            shown.contains("\nsignals.toml:5: ") && shown.contains("tokn"),
            "{shown}"
        );
        assert!(
            shown.contains("\nsignals.toml:8: group id \"Bad Id\""),
            "{shown}"
        );
        assert!(shown.contains("\nsignals.toml:14: "), "{shown}");
        assert!(shown.ends_with("(4 problems in signals.toml)"), "{shown}");

        // Refused keys in several tables, and a rule with a bad kind once
        // the groups are whole.
        let text = "[[groups]]\nid = \"g\"\nname = \"G\"\ncolour = 1\nrepos = [\"o/n\"]\n\n\
                    [[notify]]\nname = \"n\"\nkind = \"carrier-pigeon\"\n\n[importance]\nbogus = 2\n";
        let e = parse(text).unwrap_err();
        let lines: Vec<usize> = std::iter::once(e.line.unwrap())
            .chain(e.more.iter().map(|(l, _)| *l))
            .collect();
        assert_eq!(lines, [4, 9, 12], "{e}");
        // A file that is not TOML is one problem, where it breaks.
        let e = parse("a = \"x\"\nb = [\n").unwrap_err();
        assert!(e.more.is_empty(), "{e}");
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
