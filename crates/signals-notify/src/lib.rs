//! The channels alerts go out by: a webhook (`webhook.rs`:
//! the JSON message, signed with HMAC-SHA256 like GitHub's webhooks), a
//! Slack-style incoming webhook (`slack.rs`: `text` plus `blocks`, which
//! Slack, Mattermost, Rocket.Chat and Discord's `/slack` endpoints take),
//! and email over SMTP (`email.rs`, lettre over rustls).
//!
//! Each channel renders a stored `signals_core::notify::Payload`, so a
//! retry sends the very same bytes, and sends it once: retrying, backoff
//! and the outbox are the caller's. Nothing here may show a secret: a
//! webhook URL is named by its origin only (a Slack URL's path is its
//! credential), and no error carries a signing secret or a password.

pub mod email;
mod escape;
pub mod slack;
pub mod webhook;

use std::time::Duration;

pub use escape::{html, mrkdwn};

/// Why a message was not delivered. Every variant is worth retrying until
/// the caller's bound: a receiver may be down, a variable may be set, a
/// refusal may be lifted.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// The receiver answered with an error status.
    #[error("{receiver} answered HTTP {status}{}", hint(*status))]
    Status {
        /// The receiver's origin (`https://hooks.slack.com`), never its path.
        receiver: String,
        /// The status code.
        status: u16,
        /// Its `Retry-After`, when sent.
        retry_after: Option<Duration>,
    },
    /// The receiver could not be reached or did not answer in time.
    #[error("could not deliver to {receiver}: {reason}")]
    Transport {
        /// The receiver's origin, or the SMTP server.
        receiver: String,
        /// What failed, without the URL's path.
        reason: String,
    },
    /// The SMTP server refused the message or the login.
    #[error("SMTP server {server} refused: {reason}")]
    Smtp {
        /// `host:port`.
        server: String,
        /// The server's reply or lettre's reason (never a password).
        reason: String,
    },
    /// The message cannot be built as configured (a missing variable, an
    /// address the SMTP client refuses).
    #[error("{0}")]
    Setup(String),
}

fn hint(status: u16) -> &'static str {
    match status {
        429 => " (too many requests: retried after its Retry-After)",
        404 | 410 => " (the receiver does not know this URL: check the rule's url)",
        401 | 403 => " (refused: check the receiver's credentials or the signing secret)",
        300..=399 => " (a redirect: set the rule's url to where it points)",
        _ => "",
    }
}

impl SendError {
    /// How long the receiver asked to wait (`Retry-After`), if it did.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            SendError::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

/// The origin of an http(s) URL (`https://host:port`): how a receiver is
/// named in errors and logs, since a webhook URL's path may be its secret.
pub fn origin(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return "<webhook>".to_string();
    };
    let rest = &url[scheme_end + 3..];
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let host = &rest[..host_end];
    // user:password@host names credentials too.
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    format!("{}://{host}", &url[..scheme_end])
}

/// `text` with every occurrence of `secret` (and of each long part of
/// it) replaced, for errors from libraries that may quote a URL.
pub fn scrub(text: &str, secret: &str) -> String {
    let mut out = text.replace(secret, "<redacted>");
    for part in secret.split(['/', '?', '&', '=', '#']) {
        if part.len() >= 8 {
            out = out.replace(part, "<redacted>");
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A payload made of the hostile values the integration tests feed the
    /// collector (`tests/it/everyday.rs`), for the channels' own tests.
    pub(crate) fn hostile_payload() -> signals_core::notify::Payload {
        use signals_core::notify::{
            GroupRef, MessageKind, MessageSignal, Payload, RepoRef, Trigger,
        };
        use signals_core::{
            ItemDetail, ItemSnapshot, ItemState, Metrics, RepoName, Source, TrackedRepo,
        };
        let nasty = "</title><script>alert(1)</script>\u{0}\u{7}\u{202e}\"'& <!channel> <https://evil.example|click> *b* \r\nBcc: x@evil.example";
        let repo = TrackedRepo {
            id: "repo".into(),
            source: Source::Github.into(),
            repo: RepoName::parse("evil/repo").unwrap(),
            name: nasty.into(),
            keywords: vec![],
        };
        let item = ItemSnapshot {
            repo: repo.repo.clone(),
            key: "1".into(),
            title: nasty.into(),
            text: "[x](javascript:alert(1)) <img src=x onerror=alert(1)>".into(),
            url: "https://github.com/evil/repo/issues/1".into(),
            created_at: "2026-11-01T00:00:00Z".parse().unwrap(),
            updated_at: "2026-11-20T00:00:00Z".parse().unwrap(),
            metrics: Metrics::default(),
            labels: vec!["<b>bug</b>".into(), nasty.into()],
            author: "\"><svg onload=alert(1)>".into(),
            state: ItemState::Open,
            closed_at: None,
            assignees: vec![],
            detail: ItemDetail::issue(),
        };
        let signal = signals_core::dataset::signal_of(
            "g",
            &repo,
            &item,
            "https://github.com/evil/repo",
            signals_core::dataset::Changed::No,
        );
        Payload {
            rule: "r".into(),
            kind: MessageKind::Alert,
            group: Some(GroupRef {
                id: "g".into(),
                name: nasty.into(),
            }),
            repository: Some(RepoRef {
                id: "repo".into(),
                repo: "evil/repo".into(),
                name: nasty.into(),
            }),
            collected_at: "2026-11-20T10:00:00.000Z".into(),
            signals: vec![MessageSignal {
                signal,
                importance: 7,
                event: Trigger::Discovered,
                fields: vec![],
            }],
            more: 3,
            link: Some("https://signals.example/g/repo/index.html".into()),
            lifecycle: None,
        }
    }

    #[test]
    fn a_receiver_is_named_by_its_origin() {
        assert_eq!(
            origin("https://hooks.slack.com/services/T0/B0/XXXXsecret"),
            "https://hooks.slack.com"
        );
        assert_eq!(
            origin("http://user:pw@127.0.0.1:8080/x?token=y"),
            "http://127.0.0.1:8080"
        );
        let e = SendError::Status {
            receiver: origin("https://hooks.slack.com/services/T0/B0/XXXXsecret"),
            status: 404,
            retry_after: None,
        };
        assert!(!e.to_string().contains("XXXXsecret"));
        assert!(
            scrub(
                "POST https://h/services/T0/B0/XXXXsecret: refused",
                "https://h/services/T0/B0/XXXXsecret"
            )
            .find("XXXX")
            .is_none()
        );
    }
}
