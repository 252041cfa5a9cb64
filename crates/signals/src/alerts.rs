//! Alerts: delivery of the messages waiting in the outbox, the email
//! digests that are due, what `--dry-run` shows, and the alerts part of
//! `signals status`. `signals notify` runs [`deliver`]; so do `collect`
//! after its runs (unless `--no-notify`) and a looping worker after each
//! step.
//!
//! Delivery is at least once: a message is claimed (a lease, so a sender
//! that dies leaves it to the next), sent, then settled. A failure is
//! retried with exponential backoff and jitter from `--retry-base` (5 s),
//! or after the receiver's `Retry-After` when longer, until `--give-up`
//! (24 h) after the run: then the message is failed, and `signals status`
//! shows it. Every attempt sends the same delivery id and body. Secrets
//! (URLs from `url_env`, signing secrets, SMTP credentials) are read from
//! the environment at sending and never printed or stored.

use std::io::Write;
use std::time::Duration;

use anyhow::Context;
use jiff::{SignedDuration, Timestamp};
use serde_json::json;
use signals_core::dataset::fmt_collected;
use signals_core::notify::{Payload, digest};
use signals_notify::email::{Security, Smtp};
use signals_notify::webhook::Sender;
use signals_notify::{SendError, email, slack, webhook};
use signals_store::{MessageState, Outbox, OutboxMessage, RuleOutbox, Settle};

use crate::config::notify::{Channel, EmailConfig, Tls, UrlSource};
use crate::config::{Config, NotifyRule, parse_duration};

/// How `signals notify` (or `collect`) delivers.
#[derive(Debug, Clone)]
pub struct Options {
    /// Make every digest that holds messages now, whatever its schedule.
    pub send_digests: bool,
    /// How long to stay for retries that come due.
    pub wait: Duration,
    /// How long after its run a message is given up.
    pub give_up: SignedDuration,
    /// The first retry's delay (doubled each time, with jitter).
    pub retry_base: Duration,
    /// How long a claim lasts: longer than one attempt can take.
    pub claim: SignedDuration,
    /// Connect and answer timeout of one attempt.
    pub timeout: Duration,
    /// Print nothing unless something failed.
    pub quiet: bool,
}

/// The longest pause between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(3600);

impl Options {
    /// `collect`'s delivery: the defaults of `signals notify`, staying for
    /// retries only when not looping (a worker delivers again after its
    /// next step). The hidden settings follow their environment variables.
    /// It is quiet: a caller that shows its notes sets `quiet` to false.
    pub fn for_collect() -> Options {
        let env = |k: &str, default: Duration| {
            std::env::var(k)
                .ok()
                .and_then(|v| parse_duration(&v).ok())
                .unwrap_or(default)
        };
        Options {
            send_digests: false,
            wait: Duration::from_secs(60),
            give_up: SignedDuration::from_hours(24),
            retry_base: env("SIGNALS_NOTIFY_RETRY_BASE", Duration::from_secs(5)),
            claim: SignedDuration::try_from(env("SIGNALS_NOTIFY_CLAIM", Duration::from_secs(600)))
                .unwrap_or(SignedDuration::from_mins(10)),
            timeout: Duration::from_secs(30),
            quiet: true,
        }
    }
}

/// What one delivery pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Messages accepted by their receiver.
    pub delivered: u64,
    /// Failed attempts that will be retried.
    pub retried: u64,
    /// Messages given up.
    pub failed: u64,
    /// Digests made.
    pub digests: u64,
    /// Messages still pending when it stopped.
    pub pending: u64,
}

impl Report {
    /// One line for the terminal.
    pub fn line(&self) -> String {
        format!(
            "notify: {} delivered, {} attempts to retry, {} failed, {} digests made, {} pending",
            self.delivered, self.retried, self.failed, self.digests, self.pending
        )
    }
}

/// Makes the digests that are due (all that hold messages with
/// `send_digests`), then delivers every message due, staying up to
/// `options.wait` for retries that come due.
pub fn deliver(
    config: &Config,
    store: &mut dyn Outbox,
    options: &Options,
) -> anyhow::Result<Report> {
    let mut report = Report {
        digests: make_digests(config, store, Timestamp::now(), Digests::of(options))?,
        ..Report::default()
    };
    let sender = Sender::new(
        options.timeout,
        concat!("repo-signals/", env!("CARGO_PKG_VERSION")),
    );
    let stay_until = Timestamp::now()
        .checked_add(SignedDuration::try_from(options.wait).unwrap_or(SignedDuration::ZERO))
        .unwrap_or(Timestamp::MAX);
    loop {
        let now = Timestamp::now();
        let Some(message) = store
            .outbox_claim(now, options.claim)
            .context("cannot claim an alert from the outbox")?
        else {
            // Nothing due now: wait for the next retry if it comes soon.
            match store.outbox_next_due()? {
                Some(due) if due <= stay_until => {
                    let pause = due.duration_since(Timestamp::now());
                    if let Ok(p) = Duration::try_from(pause) {
                        std::thread::sleep(p.min(Duration::from_secs(5)));
                    }
                    continue;
                }
                _ => break,
            }
        };
        let outcome = attempt(config, &sender, &message, options);
        let at = Timestamp::now();
        let settle = match outcome {
            Ok(()) => {
                report.delivered += 1;
                Settle::Delivered
            }
            Err(e) => {
                let error = e.to_string();
                let deadline = message
                    .created_at
                    .checked_add(options.give_up)
                    .unwrap_or(Timestamp::MAX);
                let next = at
                    .checked_add(
                        SignedDuration::try_from(backoff(options, message.attempts, &e))
                            .unwrap_or(SignedDuration::ZERO),
                    )
                    .unwrap_or(Timestamp::MAX);
                if next >= deadline {
                    report.failed += 1;
                    eprintln!(
                        "error: alert {} of rule {:?} given up after {} attempts: {error}",
                        message.delivery,
                        message.rule,
                        message.attempts + 1
                    );
                    Settle::Failed { error }
                } else {
                    report.retried += 1;
                    if !options.quiet {
                        eprintln!(
                            "warning: alert {} of rule {:?}: {error}; trying again at {}",
                            message.delivery,
                            message.rule,
                            fmt_collected(next)
                        );
                    }
                    Settle::Retry { next, error }
                }
            }
        };
        store
            .outbox_settle(message.id, at, &settle)
            .context("cannot record an alert's delivery in the outbox")?;
    }
    report.pending = store
        .outbox_status()?
        .iter()
        .map(|r| r.pending)
        .sum::<u64>();
    Ok(report)
}

/// The pause before the next attempt: the base doubled per attempt made,
/// with jitter (half to all of it), at most an hour, and never shorter
/// than the receiver's `Retry-After`.
fn backoff(options: &Options, attempts: u32, error: &SendError) -> Duration {
    let doubled = options
        .retry_base
        .saturating_mul(1u32 << attempts.min(16))
        .min(MAX_BACKOFF);
    let jittered = doubled.mul_f64(0.5 + fastrand::f64() * 0.5);
    jittered.max(error.retry_after().unwrap_or_default())
}

/// One attempt to send a message by its rule's channel.
fn attempt(
    config: &Config,
    sender: &Sender,
    m: &OutboxMessage,
    options: &Options,
) -> Result<(), SendError> {
    let Some(rule) = config.notify.iter().find(|r| r.rule.name == m.rule) else {
        return Err(SendError::Setup(format!(
            "rule {:?} is no longer in the configuration: put it back to send its messages",
            m.rule
        )));
    };
    match &rule.channel {
        Channel::Webhook { url, secret_env } => {
            let url = resolve_url(url, &rule.rule.name)?;
            let secret = secret_env
                .as_deref()
                .map(|v| env(v, &rule.rule.name, "the signing secret"))
                .transpose()?;
            webhook::send(
                sender,
                &url,
                secret.as_deref().map(str::as_bytes),
                &m.delivery,
                &m.payload,
            )
        }
        Channel::Slack { url } => slack::send(
            sender,
            &resolve_url(url, &rule.rule.name)?,
            &m.delivery,
            &m.payload,
        ),
        Channel::Email(e) => {
            let smtp = smtp(e, &rule.rule.name, options.timeout)?;
            let message = email::message(&e.from, &e.to, &m.delivery, &m.payload)?;
            email::send(&smtp, &message)
        }
    }
}

fn env(name: &str, rule: &str, what: &str) -> Result<String, SendError> {
    std::env::var(name).map_err(|_| {
        SendError::Setup(format!(
            "the environment variable {name} is not set: set it to {what} of rule {rule:?}"
        ))
    })
}

fn resolve_url(url: &UrlSource, rule: &str) -> Result<String, SendError> {
    match url {
        UrlSource::Inline(secret) => Ok(secret.0.clone()),
        UrlSource::Env(name) => {
            let url = env(name, rule, "the webhook URL")?;
            if signals_core::hostile::is_http_url(&url) {
                Ok(url)
            } else {
                Err(SendError::Setup(format!(
                    "the environment variable {name} of rule {rule:?} is not an http(s) URL"
                )))
            }
        }
    }
}

fn smtp(e: &EmailConfig, rule: &str, timeout: Duration) -> Result<Smtp, SendError> {
    let credentials = match (&e.user_env, &e.password_env) {
        (Some(u), Some(p)) => Some((
            env(u, rule, "the SMTP user")?,
            env(p, rule, "the SMTP password")?,
        )),
        (Some(u), None) => Some((env(u, rule, "the SMTP user")?, String::new())),
        _ => None,
    };
    let roots = match &e.ca_file {
        Some(path) => vec![std::fs::read(path).map_err(|err| {
            SendError::Setup(format!(
                "cannot read smtp_ca_file {} of rule {rule:?}: {err}",
                path.display()
            ))
        })?],
        None => vec![],
    };
    Ok(Smtp {
        host: e.smtp_host.clone(),
        port: e.smtp_port,
        security: match e.tls {
            Tls::Starttls => Security::Starttls,
            Tls::Implicit => Security::Implicit,
            Tls::None => Security::None,
        },
        credentials,
        roots,
        timeout,
    })
}

/// Which digests a delivery makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Digests {
    /// Those whose schedule says so.
    Due,
    /// Every one that holds messages (`--send-digests`).
    AllHeld,
}

impl Digests {
    fn of(options: &Options) -> Digests {
        if options.send_digests {
            Digests::AllHeld
        } else {
            Digests::Due
        }
    }
}

/// Folds each digest rule's held messages into a digest when `which`
/// says so. Returns the digests made.
fn make_digests(
    config: &Config,
    store: &mut dyn Outbox,
    now: Timestamp,
    which: Digests,
) -> anyhow::Result<u64> {
    let mut made = 0;
    for rule in &config.notify {
        let name = &rule.rule.name;
        // A rule that no longer makes digests (changed to immediate, or to
        // another channel) sends what it held at once, as one digest.
        let (schedule, top) = match &rule.channel {
            Channel::Email(e) => (e.digest.map(|s| (s, &e.timezone)), e.top),
            _ => (None, signals_core::notify::MAX_SIGNALS),
        };
        let held = store.outbox_messages(MessageState::Held, Some(name))?;
        let Some(first) = held.first() else { continue };
        if let Some((schedule, timezone)) = schedule {
            let since = store.outbox_last_digest(name)?.unwrap_or(first.created_at);
            if which == Digests::Due && now < schedule.next_after(since, timezone) {
                continue;
            }
        }
        // Moved, not copied: the held messages are the digest's memory.
        let (ids, payloads): (Vec<i64>, Vec<Payload>) =
            held.into_iter().map(|m| (m.id, m.payload)).unzip();
        if let Some(d) = digest(name, &payloads, top, now)
            && store.outbox_digest(&ids, &d, now)?
        {
            made += 1;
        }
    }
    Ok(made)
}

/// `--dry-run`: per rule, the messages that would be sent and the digest
/// that would be made, without sending or changing anything.
pub fn dry_run(config: &Config, store: &dyn Outbox, out: &mut dyn Write) -> anyhow::Result<()> {
    let now = Timestamp::now();
    let pending = store.outbox_messages(MessageState::Pending, None)?;
    if config.notify.is_empty() {
        writeln!(
            out,
            "no [[notify]] rules in the configuration: nothing would be sent \
             (docs/notify.md shows how to add one)"
        )?;
    }
    for rule in &config.notify {
        let name = &rule.rule.name;
        let mine: Vec<&OutboxMessage> = pending.iter().filter(|m| m.rule == *name).collect();
        writeln!(
            out,
            "rule {name:?} ({}): {} to send",
            describe(rule),
            mine.len()
        )?;
        for m in mine {
            print_payload(out, &m.payload, Some(m))?;
        }
        if let Channel::Email(e) = &rule.channel
            && let Some(schedule) = e.digest
        {
            let held = store.outbox_messages(MessageState::Held, Some(name))?;
            if let Some(first) = held.first() {
                let since = store.outbox_last_digest(name)?.unwrap_or(first.created_at);
                let due = schedule.next_after(since, &e.timezone);
                let payloads: Vec<Payload> = held.iter().map(|m| m.payload.clone()).collect();
                writeln!(
                    out,
                    "  {} held for the digest due at {} (--send-digests: now)",
                    held.len(),
                    fmt_collected(due)
                )?;
                if let Some(d) = digest(name, &payloads, e.top, now) {
                    print_payload(out, &d.payload, None)?;
                }
            }
        }
    }
    let orphans: Vec<&OutboxMessage> = pending
        .iter()
        .filter(|m| !config.notify.iter().any(|r| r.rule.name == m.rule))
        .collect();
    if !orphans.is_empty() {
        writeln!(
            out,
            "{} pending messages belong to rules no longer configured: {}",
            orphans.len(),
            orphans
                .iter()
                .map(|m| format!("{:?}", m.rule))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect::<Vec<_>>()
                .join(", ")
        )?;
    }
    Ok(())
}

/// A rule's channel, without its secrets.
fn describe(rule: &NotifyRule) -> String {
    match &rule.channel {
        Channel::Webhook { url, secret_env } => format!(
            "webhook to {}{}",
            match url {
                UrlSource::Inline(u) => signals_notify::origin(&u.0),
                UrlSource::Env(v) => format!("${v}"),
            },
            if secret_env.is_some() { ", signed" } else { "" }
        ),
        Channel::Slack { url } => format!(
            "slack to {}",
            match url {
                UrlSource::Inline(u) => signals_notify::origin(&u.0),
                UrlSource::Env(v) => format!("${v}"),
            }
        ),
        Channel::Email(e) => format!(
            "email to {} by {}:{}{}",
            e.to.join(", "),
            e.smtp_host,
            e.smtp_port,
            if e.digest.is_some() { ", digest" } else { "" }
        ),
    }
}

/// Host values printed to a terminal lose their control characters.
fn plain(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn print_payload(
    out: &mut dyn Write,
    p: &Payload,
    m: Option<&OutboxMessage>,
) -> anyhow::Result<()> {
    let id = m.map(|m| format!(" {}", m.delivery)).unwrap_or_default();
    let tries = m
        .filter(|m| m.attempts > 0)
        .map(|m| {
            format!(
                " ({} attempts, last: {})",
                m.attempts,
                m.last_error.as_deref().unwrap_or("")
            )
        })
        .unwrap_or_default();
    writeln!(out, "  {}{id}{tries}", plain(&slack::headline(p)))?;
    for s in &p.signals {
        writeln!(
            out,
            "    [{}] {} ({}, importance {}) {}",
            s.event.as_str(),
            plain(&s.signal.title),
            plain(&s.signal.project),
            s.importance,
            plain(&s.signal.url)
        )?;
    }
    if p.more > 0 {
        writeln!(out, "    and {} more", p.more)?;
    }
    Ok(())
}

/// The alerts part of `signals status --json`.
pub fn status_json(rules: &[RuleOutbox]) -> serde_json::Value {
    rules
        .iter()
        .map(|r| {
            json!({"rule": r.rule, "held": r.held, "pending": r.pending,
                   "delivered": r.delivered, "failed": r.failed, "lastError": r.last_error})
        })
        .collect()
}

/// The alerts part of `signals status`.
pub fn print_status(out: &mut dyn Write, rules: &[RuleOutbox]) -> std::io::Result<()> {
    if rules.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\n{:<24} {:>7} {:>9} {:>6} {:>6}  last error",
        "alert rule", "pending", "delivered", "failed", "held"
    )?;
    for r in rules {
        writeln!(
            out,
            "{:<24} {:>7} {:>9} {:>6} {:>6}  {}",
            r.rule,
            r.pending,
            r.delivered,
            r.failed,
            r.held,
            r.last_error.as_deref().unwrap_or("")
        )?;
    }
    Ok(())
}
