//! `[[notify]]`: alert rules and where their messages go.
//!
//! Its own module so `lib.rs` only hands it the raw tables and the
//! groups. Each rule is checked here, with the file, line and fix in the
//! error as the rest of the configuration; the filter is a
//! `signals_core::notify::Rule`, the channel a [`Channel`]. Secrets (the
//! webhook URL, a signing secret, SMTP credentials) are read from the
//! environment when a message is sent, never at load, and never printed:
//! [`Secret`] has a redacting `Debug`.

use std::fmt;
use std::ops::Range;

use serde::Deserialize;
use signals_core::ItemKind;
use signals_core::notify::{Initial, Keywords, Rule, Schedule, Trigger};
use toml::Spanned;

use super::{GroupConfig, SpanError};

/// A value that must not be shown: `Debug` prints `<redacted>`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// Where a webhook or Slack URL comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlSource {
    /// Written in the file (`url`).
    Inline(Secret),
    /// Read from this environment variable at sending (`url_env`).
    Env(String),
}

/// How an email rule reaches its SMTP server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tls {
    /// Plain connection upgraded with STARTTLS (port 587), required.
    Starttls,
    /// TLS from the first byte (port 465).
    Implicit,
    /// No TLS: only to a loopback server, and without credentials.
    None,
}

/// An email rule's SMTP settings and schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct EmailConfig {
    /// SMTP host name.
    pub smtp_host: String,
    /// SMTP port (587 for STARTTLS, 465 for implicit TLS by default).
    pub smtp_port: u16,
    /// Transport security.
    pub tls: Tls,
    /// Environment variable of the SMTP user name.
    pub user_env: Option<String>,
    /// Environment variable of the SMTP password.
    pub password_env: Option<String>,
    /// `From` address.
    pub from: String,
    /// Recipients.
    pub to: Vec<String>,
    /// `None`: one message per rule per repository run; else a digest.
    pub digest: Option<Schedule>,
    /// The digest's time zone (IANA name); UTC by default.
    pub timezone: jiff::tz::TimeZone,
    /// Signals in a digest.
    pub top: usize,
    /// A PEM file of extra trusted certificates (a private CA).
    pub ca_file: Option<std::path::PathBuf>,
}

/// Where a rule's messages go.
#[derive(Debug, Clone, PartialEq)]
pub enum Channel {
    /// POST of the JSON message, signed when `secret_env` is set.
    Webhook {
        /// The receiver.
        url: UrlSource,
        /// Environment variable of the HMAC-SHA256 signing secret.
        secret_env: Option<String>,
    },
    /// A Slack-style incoming webhook (`text` plus `blocks`).
    Slack {
        /// The incoming webhook; a secret itself.
        url: UrlSource,
    },
    /// Email over SMTP.
    Email(Box<EmailConfig>),
}

/// One `[[notify]]` rule.
#[derive(Debug, Clone, PartialEq)]
pub struct NotifyRule {
    /// What it selects.
    pub rule: Rule,
    /// Where it sends.
    pub channel: Channel,
}

impl NotifyRule {
    /// True when its messages wait for a digest.
    pub fn held(&self) -> bool {
        matches!(&self.channel, Channel::Email(e) if e.digest.is_some())
    }
}

/// A `[[notify]]` table as serde sees it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawNotify {
    name: Option<Spanned<String>>,
    kind: Option<Spanned<String>>,
    url: Option<Spanned<String>>,
    url_env: Option<String>,
    secret_env: Option<String>,
    #[serde(default)]
    groups: Vec<Spanned<String>>,
    #[serde(default)]
    repos: Vec<Spanned<String>>,
    #[serde(default)]
    kinds: Vec<Spanned<String>>,
    #[serde(default)]
    events: Vec<Spanned<String>>,
    #[serde(default)]
    labels: Vec<String>,
    min_importance: Option<Spanned<f64>>,
    keywords: Option<Spanned<RawKeywords>>,
    #[serde(default)]
    authors: Vec<String>,
    #[serde(default)]
    exclude_authors: Vec<String>,
    #[serde(default)]
    include_bots: bool,
    initial: Option<Spanned<String>>,
    smtp_host: Option<Spanned<String>>,
    smtp_port: Option<u16>,
    smtp_ca_file: Option<std::path::PathBuf>,
    tls: Option<Spanned<String>>,
    user_env: Option<String>,
    password_env: Option<String>,
    from: Option<Spanned<String>>,
    to: Option<Spanned<RawTo>>,
    digest: Option<Spanned<String>>,
    timezone: Option<Spanned<String>>,
    top: Option<Spanned<i64>>,
}

/// `keywords = ["a", "b"]` or `keywords = "repository"`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawKeywords {
    Named(String),
    Words(Vec<String>),
}

/// `to = "a@x"` or `to = ["a@x", "b@y"]`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawTo {
    One(String),
    Many(Vec<String>),
}

/// Checks the `[[notify]]` tables against the configured groups.
///
/// Every rule is checked and every problem returned (the first of each
/// rule), so a file with several is told them all at once.
pub(super) fn parse(
    raw: Vec<Spanned<RawNotify>>,
    groups: &[GroupConfig],
) -> Result<Vec<NotifyRule>, Vec<SpanError>> {
    let mut rules: Vec<NotifyRule> = Vec::new();
    let mut problems = Vec::new();
    for table in raw {
        let span = table.span();
        let r = table.into_inner();
        let checked = rule_name(&r, &span, &rules).and_then(|name| {
            let ctx = |m: String| format!("notify rule {name:?}: {m}");
            let rule = filter(&r, &name, groups, &ctx)?;
            let channel = channel(&r, span, &ctx)?;
            Ok(NotifyRule { rule, channel })
        });
        match checked {
            Ok(rule) => rules.push(rule),
            Err(p) => problems.push(p),
        }
    }
    if problems.is_empty() {
        Ok(rules)
    } else {
        Err(problems)
    }
}

/// A rule's name: set, and not another rule's.
fn rule_name(
    r: &RawNotify,
    span: &Range<usize>,
    rules: &[NotifyRule],
) -> Result<String, SpanError> {
    let name = match &r.name {
        Some(n) if !n.get_ref().trim().is_empty() => n.get_ref().trim().to_string(),
        _ => {
            return Err((
                span.clone(),
                "every [[notify]] rule needs a `name`, such as name = \"regressions\"".to_string(),
            ));
        }
    };
    let name_span = r.name.as_ref().map_or(span.clone(), |n| n.span());
    if rules.iter().any(|x| x.rule.name == name) {
        return Err((
            name_span,
            format!("notify rule name {name:?} is used twice: give each rule its own name"),
        ));
    }
    Ok(name)
}

/// What a rule selects: where (groups, repositories), what (kinds,
/// events, labels, authors), how important, and its first run's summary.
fn filter(
    r: &RawNotify,
    name: &str,
    groups: &[GroupConfig],
    ctx: &dyn Fn(String) -> String,
) -> Result<Rule, SpanError> {
    let mut rule = Rule::any(name);
    where_from(r, groups, &mut rule, ctx)?;
    what(r, &mut rule, ctx)?;
    rule.labels = r.labels.clone();
    if let Some(m) = &r.min_importance {
        if !m.get_ref().is_finite() || *m.get_ref() < 0.0 {
            return Err((
                m.span(),
                ctx("min_importance must be a number of 0 or more".to_string()),
            ));
        }
        rule.min_importance = Some(*m.get_ref());
    }
    if let Some(k) = &r.keywords {
        rule.keywords = match k.get_ref() {
            RawKeywords::Named(n) if n == "repository" => Keywords::Repository,
            RawKeywords::Named(n) => {
                return Err((
                    k.span(),
                    ctx(format!(
                        "keywords = {n:?}: write a list such as [\"regression\"], or \"repository\" for each repository's own keywords"
                    )),
                ));
            }
            RawKeywords::Words(w) => Keywords::Words(w.clone()),
        };
    }
    rule.authors = r.authors.clone();
    rule.exclude_authors = r.exclude_authors.clone();
    rule.include_bots = r.include_bots;
    if let Some(i) = &r.initial {
        rule.initial = match i.get_ref().as_str() {
            "summary" => Initial::Summary,
            "none" => Initial::None,
            other => {
                return Err((
                    i.span(),
                    ctx(format!(
                        "initial = {other:?}: use \"summary\" (the default) or \"none\""
                    )),
                ));
            }
        };
    }
    Ok(rule)
}

/// The groups and repositories a rule watches, each configured.
fn where_from(
    r: &RawNotify,
    groups: &[GroupConfig],
    rule: &mut Rule,
    ctx: &dyn Fn(String) -> String,
) -> Result<(), SpanError> {
    for g in &r.groups {
        if !groups.iter().any(|c| c.group.id == *g.get_ref()) {
            return Err((
                g.span(),
                ctx(format!(
                    "group {:?} is not configured: use one of {}",
                    g.get_ref(),
                    list(groups.iter().map(|c| c.group.id.as_str()))
                )),
            ));
        }
        rule.groups.push(g.get_ref().clone());
    }
    for repo in &r.repos {
        let known = groups.iter().flat_map(|g| &g.repos).any(|t| {
            t.id == *repo.get_ref() || t.repo.to_string().eq_ignore_ascii_case(repo.get_ref())
        });
        if !known {
            return Err((
                repo.span(),
                ctx(format!(
                    "repository {:?} is not configured: name a repository id or its owner/name",
                    repo.get_ref()
                )),
            ));
        }
        rule.repos.push(repo.get_ref().clone());
    }
    Ok(())
}

/// The kinds of items and the events a rule sends.
fn what(r: &RawNotify, rule: &mut Rule, ctx: &dyn Fn(String) -> String) -> Result<(), SpanError> {
    for k in &r.kinds {
        let kind = ItemKind::parse(k.get_ref()).ok_or_else(|| {
            (
                k.span(),
                ctx(format!(
                    "kind {:?} is not known: use \"issue\", \"pull_request\" or \"release\"",
                    k.get_ref()
                )),
            )
        })?;
        rule.kinds.push(kind);
    }
    for e in &r.events {
        let t = Trigger::parse(e.get_ref()).ok_or_else(|| {
            (
                e.span(),
                ctx(format!(
                    "event {:?} is not known: use {}",
                    e.get_ref(),
                    list(Trigger::ALL.iter().map(|t| t.as_str()))
                )),
            )
        })?;
        rule.events.push(t);
    }
    Ok(())
}

/// Where a rule sends: by its `kind`, with only the keys of that kind.
fn channel(
    r: &RawNotify,
    span: Range<usize>,
    ctx: &dyn Fn(String) -> String,
) -> Result<Channel, SpanError> {
    let kind = r.kind.as_ref().ok_or_else(|| {
        (
            span.clone(),
            ctx("needs a `kind`: \"webhook\", \"slack\" or \"email\"".to_string()),
        )
    })?;
    let email_only = [
        ("smtp_host", r.smtp_host.is_some()),
        ("smtp_ca_file", r.smtp_ca_file.is_some()),
        ("tls", r.tls.is_some()),
        ("from", r.from.is_some()),
        ("to", r.to.is_some()),
        ("digest", r.digest.is_some()),
        ("timezone", r.timezone.is_some()),
        ("top", r.top.is_some()),
    ];
    match kind.get_ref().as_str() {
        "webhook" | "slack" => {
            if let Some((key, _)) = email_only.iter().find(|(_, set)| *set) {
                return Err((
                    span,
                    ctx(format!(
                        "`{key}` applies to email rules only: remove it, or set kind = \"email\""
                    )),
                ));
            }
            if kind.get_ref() == "webhook" {
                Ok(Channel::Webhook {
                    url: url(r, kind.get_ref(), &span, ctx)?,
                    secret_env: r.secret_env.clone(),
                })
            } else {
                if r.secret_env.is_some() {
                    return Err((
                        span,
                        ctx("secret_env applies to webhook rules only (Slack does not verify signatures)".to_string()),
                    ));
                }
                Ok(Channel::Slack {
                    url: url(r, kind.get_ref(), &span, ctx)?,
                })
            }
        }
        "email" => Ok(Channel::Email(Box::new(email(r, span, ctx)?))),
        other => Err((
            kind.span(),
            ctx(format!(
                "kind {other:?} is not known: use \"webhook\", \"slack\" or \"email\""
            )),
        )),
    }
}

/// A webhook's or Slack's URL: in the file (`url`) or in the environment
/// (`url_env`), one of them.
fn url(
    r: &RawNotify,
    kind: &str,
    span: &Range<usize>,
    ctx: &dyn Fn(String) -> String,
) -> Result<UrlSource, SpanError> {
    match (&r.url, &r.url_env) {
        (Some(_), Some(_)) => Err((
            span.clone(),
            ctx("set `url` or `url_env`, not both".to_string()),
        )),
        (Some(u), None) => {
            if !signals_core::hostile::is_http_url(u.get_ref()) {
                // The URL itself is not repeated: it may be a secret.
                return Err((u.span(), ctx("url must be an http(s) URL".to_string())));
            }
            Ok(UrlSource::Inline(Secret(u.get_ref().clone())))
        }
        (None, Some(env)) => Ok(UrlSource::Env(env.clone())),
        (None, None) => Err((
            span.clone(),
            ctx(format!(
                "a {kind} rule needs `url` (or `url_env`, the environment variable holding it)"
            )),
        )),
    }
}

/// An email rule's server, addresses and schedule.
fn email(
    r: &RawNotify,
    span: Range<usize>,
    ctx: &dyn Fn(String) -> String,
) -> Result<EmailConfig, SpanError> {
    if r.url.is_some() || r.url_env.is_some() || r.secret_env.is_some() {
        return Err((
            span,
            ctx("an email rule takes smtp_host, from and to, not url or secret_env".to_string()),
        ));
    }
    let need = |v: &Option<Spanned<String>>, key: &str, example: &str| {
        v.as_ref()
            .map(|s| s.get_ref().trim().to_string())
            .filter(|s| !s.is_empty())
            .ok_or_else(|| {
                (
                    span.clone(),
                    ctx(format!(
                        "an email rule needs `{key}`, such as {key} = {example:?}"
                    )),
                )
            })
    };
    let smtp_host = need(&r.smtp_host, "smtp_host", "smtp.example.org")?;
    let from = need(&r.from, "from", "signals@example.org")?;
    let tls = tls(r, &smtp_host, &span, ctx)?;
    let to = recipients(r, &from, &span, ctx)?;
    let Digest {
        schedule: digest,
        timezone,
        top,
    } = digest(r, ctx)?;
    Ok(EmailConfig {
        smtp_port: r.smtp_port.unwrap_or(match tls {
            Tls::Implicit => 465,
            Tls::Starttls => 587,
            Tls::None => 25,
        }),
        smtp_host,
        tls,
        user_env: r.user_env.clone(),
        password_env: r.password_env.clone(),
        from,
        to,
        digest,
        timezone,
        top,
        ca_file: r.smtp_ca_file.clone(),
    })
}

/// How an email rule reaches its server: STARTTLS by default; no TLS
/// only to a loopback server, and then without credentials.
fn tls(
    r: &RawNotify,
    smtp_host: &str,
    span: &Range<usize>,
    ctx: &dyn Fn(String) -> String,
) -> Result<Tls, SpanError> {
    let tls = match r.tls.as_ref().map(|t| (t.span(), t.get_ref().as_str())) {
        None | Some((_, "starttls")) => Tls::Starttls,
        Some((_, "tls")) => Tls::Implicit,
        Some((_, "none")) => Tls::None,
        Some((s, other)) => {
            return Err((
                s,
                ctx(format!(
                    "tls = {other:?}: use \"starttls\" (port 587, the default), \"tls\" (port 465) or \"none\" (a loopback server only)"
                )),
            ));
        }
    };
    if tls == Tls::None {
        let loopback = matches!(smtp_host, "localhost" | "127.0.0.1" | "::1");
        if !loopback {
            return Err((
                span.clone(),
                ctx(format!(
                    "tls = \"none\" is only allowed to a loopback server, not {smtp_host:?}: use \"starttls\" or \"tls\""
                )),
            ));
        }
        if r.user_env.is_some() || r.password_env.is_some() {
            return Err((
                span.clone(),
                ctx("tls = \"none\" sends no credentials: remove user_env and password_env, or use TLS".to_string()),
            ));
        }
    }
    Ok(tls)
}

/// An email rule's recipients (at least one), each an address, as
/// `from` must be.
fn recipients(
    r: &RawNotify,
    from: &str,
    span: &Range<usize>,
    ctx: &dyn Fn(String) -> String,
) -> Result<Vec<String>, SpanError> {
    let to = match r.to.as_ref().map(|t| t.get_ref()) {
        Some(RawTo::One(a)) => vec![a.clone()],
        Some(RawTo::Many(v)) => v.clone(),
        None => vec![],
    };
    if to.is_empty() {
        return Err((
            span.clone(),
            ctx("an email rule needs `to`, such as to = [\"me@example.org\"]".to_string()),
        ));
    }
    for addr in std::iter::once(from).chain(to.iter().map(String::as_str)) {
        if !is_address(addr) {
            let at = r.to.as_ref().map_or(span.clone(), |t| t.span());
            return Err((
                at,
                ctx(format!(
                    "{addr:?} is not an email address: write it as name@example.org"
                )),
            ));
        }
    }
    Ok(to)
}

/// An email rule's digest settings.
struct Digest {
    /// Its schedule (`None`: a message per run).
    schedule: Option<Schedule>,
    timezone: jiff::tz::TimeZone,
    /// How many signals it holds.
    top: usize,
}

/// An email rule's digest: its schedule, its time zone and how many
/// signals it holds.
fn digest(r: &RawNotify, ctx: &dyn Fn(String) -> String) -> Result<Digest, SpanError> {
    let digest = match &r.digest {
        None => None,
        Some(d) if d.get_ref() == "immediate" => None,
        Some(d) => Some(Schedule::parse(d.get_ref()).map_err(|m| (d.span(), ctx(m)))?),
    };
    let timezone = match &r.timezone {
        None => jiff::tz::TimeZone::UTC,
        Some(z) => jiff::tz::TimeZone::get(z.get_ref()).map_err(|_| {
            (
                z.span(),
                ctx(format!(
                    "timezone {:?} is not known: use an IANA name such as \"Europe/Berlin\" or \"UTC\"",
                    z.get_ref()
                )),
            )
        })?,
    };
    let top = match &r.top {
        None => 10,
        Some(t) if (1..=signals_core::notify::MAX_SIGNALS as i64).contains(t.get_ref()) => {
            *t.get_ref() as usize
        }
        Some(t) => {
            return Err((
                t.span(),
                ctx(format!(
                    "top = {} must be between 1 and {}",
                    t.get_ref(),
                    signals_core::notify::MAX_SIGNALS
                )),
            ));
        }
    };
    Ok(Digest {
        schedule: digest,
        timezone,
        top,
    })
}

/// `local@domain`, one `@`, no spaces or control characters (the SMTP
/// client checks the rest when it sends).
fn is_address(a: &str) -> bool {
    match a.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.is_empty()
                && !domain.contains('@')
                && !a.chars().any(|c| c.is_whitespace() || c.is_control())
        }
        None => false,
    }
}

fn list<'a>(items: impl Iterator<Item = &'a str>) -> String {
    items
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use crate::{Config, ConfigError};
    use std::path::Path;

    fn parse(extra: &str) -> Result<Config, ConfigError> {
        let text = format!(
            "[[groups]]\nid = \"llm\"\nname = \"LLM\"\nrepos = [\"ggml-org/llama.cpp\"]\n{extra}"
        );
        Config::parse(&text, Path::new("signals.toml"))
    }

    #[test]
    fn three_lines_make_a_slack_rule() {
        let c = parse(
            "[[notify]]\nname = \"regressions\"\nkind = \"slack\"\nurl_env = \"SLACK_URL\"\nkeywords = [\"regression\"]\n",
        )
        .unwrap();
        assert_eq!(c.notify.len(), 1);
        assert!(matches!(c.notify[0].channel, super::Channel::Slack { .. }));
        assert!(!c.notify[0].rule.include_bots);
    }

    #[test]
    fn errors_name_the_line_and_the_fix() {
        let e = parse("[[notify]]\nname = \"a\"\nkind = \"slack\"\nurl = \"https://h/x\"\nevents = [\"opened\"]\n")
            .unwrap_err();
        assert_eq!(e.line, Some(9), "{e}");
        assert!(e.to_string().contains("\"discovered\""), "{e}");
        let e = parse("[[notify]]\nname = \"a\"\nkind = \"slack\"\ngroups = [\"nope\"]\nurl = \"https://h/x\"\n")
            .unwrap_err();
        assert!(e.to_string().contains("\"llm\""), "{e}");
        let e = parse("[[notify]]\nname = \"a\"\nkind = \"email\"\nsmtp_host = \"smtp.example.org\"\nfrom = \"a@b.c\"\nto = \"x@y.z\"\ndigest = \"daily 25:00\"\n")
            .unwrap_err();
        assert_eq!(e.line, Some(11), "{e}");
        let e = parse("[[notify]]\nname = \"a\"\nkind = \"email\"\nsmtp_host = \"smtp.example.org\"\ntls = \"none\"\nfrom = \"a@b.c\"\nto = \"x@y.z\"\n")
            .unwrap_err();
        assert!(e.to_string().contains("loopback"), "{e}");
        let e = parse(
            "[[notify]]\nname = \"a\"\nkind = \"slack\"\nurl = \"ftp://secret-token-here\"\n",
        )
        .unwrap_err();
        assert!(!e.to_string().contains("secret-token-here"), "{e}");
    }

    #[test]
    fn a_secret_url_is_not_in_debug_output() {
        let c = parse(
            "[[notify]]\nname = \"a\"\nkind = \"webhook\"\nurl = \"https://h/T000/very-secret\"\n",
        )
        .unwrap();
        assert!(!format!("{c:?}").contains("very-secret"));
    }

    #[test]
    fn an_email_digest_has_a_schedule_and_a_zone() {
        let c = parse("[[notify]]\nname = \"morning\"\nkind = \"email\"\nsmtp_host = \"smtp.example.org\"\nfrom = \"signals@example.org\"\nto = [\"me@example.org\"]\ndigest = \"weekly mon 08:00\"\ntimezone = \"Europe/Berlin\"\n")
            .unwrap();
        assert!(c.notify[0].held());
        let crate::notify::Channel::Email(e) = &c.notify[0].channel else {
            panic!("not email")
        };
        assert_eq!(e.smtp_port, 587);
        assert_eq!(e.top, 10);
    }
}
