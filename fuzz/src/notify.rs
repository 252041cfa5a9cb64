//! What a receiver of alerts answers, as `signals_notify` reads it: a
//! webhook's (and a Slack-style webhook's: both POST through
//! `webhook::Sender`) HTTP answer, its status and `Retry-After`; an SMTP
//! server's replies to `email::send`, over plain SMTP (no TLS, as to a
//! loopback server).
//!
//! The input is sent as it is, byte for byte: once as the HTTP answer to a
//! webhook, once as the SMTP server's every reply. Besides "no panic, no
//! hang", an error must not show a secret: a webhook URL's path (a Slack
//! URL's credential) nor the SMTP password.

use std::net::SocketAddr;
use std::time::Duration;

use signals_core::notify::{MessageKind, Payload};
use signals_notify::email::{self, Security, Smtp};
use signals_notify::webhook::{self, Sender};

use crate::loopback::Server;

/// A webhook URL's path: its credential, for Slack.
const HOOK_PATH: &str = "/services/T0FUZZ/B0FUZZ/hook-path-secret";
/// The SMTP password.
const PASSWORD: &str = "smtp-password-secret";

/// Reads `data` as a webhook's answer and as an SMTP server's replies.
pub fn answer(data: &[u8]) {
    let payload = Payload {
        rule: "fuzz".into(),
        kind: MessageKind::Alert,
        group: None,
        repository: None,
        collected_at: "2024-06-01T12:00:00.000Z".into(),
        signals: vec![],
        more: 1,
        link: Some("https://signals.example/g/r/index.html".into()),
        lifecycle: None,
    };

    let http = Server::http();
    http.load([data.to_vec()]);
    let sender = Sender::new(Duration::from_secs(5), "repo-signals-fuzz");
    let url = format!("{}{HOOK_PATH}", http.home());
    if let Err(e) = webhook::send(&sender, &url, Some(b"signing-secret"), "d1", &payload) {
        let shown = e.to_string();
        assert!(!shown.contains("hook-path-secret"), "{shown}");
        let _ = e.retry_after();
    }
    drop(sender);

    let server = Server::smtp();
    server.load([data.to_vec()]);
    let port = server
        .home()
        .trim_start_matches("http://")
        .parse::<SocketAddr>()
        .expect("a loopback address")
        .port();
    let smtp = Smtp {
        host: "127.0.0.1".into(),
        port,
        security: Security::None,
        credentials: Some(("fuzz".into(), PASSWORD.into())),
        roots: vec![],
        timeout: Duration::from_secs(5),
    };
    let message = email::message(
        "from@example.org",
        &["to@example.org".into()],
        "d1",
        &payload,
    )
    .expect("a valid message");
    if let Err(e) = email::send(&smtp, &message) {
        let shown = e.to_string();
        assert!(!shown.contains(PASSWORD), "{shown}");
    }
}
