//! The email channel: a message with a text and an HTML part, sent over
//! SMTP by lettre (rustls; STARTTLS, implicit TLS, or none to a loopback
//! server). A digest lists its signals grouped by group and repository.
//!
//! The message is built from the stored payload only: its `Date` is the
//! payload's instant, its `Message-ID` the delivery id, and its MIME
//! boundary derived from the delivery id, so a retry sends the same
//! message and a mail client can drop the repeat by its `Message-ID`.

use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::{Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls as LettreTls, TlsParameters};
use lettre::{Message, SmtpTransport, Transport};
use signals_core::notify::{MessageSignal, Payload};

use crate::SendError;
use crate::escape::html;
use crate::slack::{cut, headline};

/// Transport security.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Security {
    /// STARTTLS, required (a server that does not offer it is refused).
    Starttls,
    /// TLS from the first byte.
    Implicit,
    /// None: a loopback server (the configuration checks it).
    None,
}

/// Where and how to send.
#[derive(Clone)]
pub struct Smtp {
    /// Server host name (also the name its certificate must carry).
    pub host: String,
    /// Port.
    pub port: u16,
    /// Transport security.
    pub security: Security,
    /// User and password, read from the environment by the caller.
    pub credentials: Option<(String, String)>,
    /// Extra trusted root certificates (PEM), for a private CA.
    pub roots: Vec<Vec<u8>>,
    /// Connect and command timeout.
    pub timeout: Duration,
}

impl std::fmt::Debug for Smtp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Smtp")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("security", &self.security)
            .field(
                "credentials",
                &self.credentials.as_ref().map(|_| "<redacted>"),
            )
            .finish_non_exhaustive()
    }
}

/// The subject: the headline and the top signal's title, one line.
pub fn subject(payload: &Payload) -> String {
    let mut s = format!("[signals] {}", headline(payload));
    if let Some(top) = payload.signals.first() {
        s.push_str(" — ");
        s.push_str(&cut(&top.signal.title, 80));
    }
    // A header is one line: control characters (CR, LF) would end it.
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Signals grouped by group and repository, in the payload's order.
fn sections(payload: &Payload) -> Vec<(String, Vec<&MessageSignal>)> {
    let mut out: Vec<(String, Vec<&MessageSignal>)> = Vec::new();
    for s in &payload.signals {
        let key = format!("{} / {}", s.signal.group, s.signal.project);
        match out.last_mut() {
            Some((k, list)) if *k == key => list.push(s),
            _ => out.push((key, vec![s])),
        }
    }
    out
}

fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The text part.
pub fn text(payload: &Payload) -> String {
    let mut out = format!("{}\n", one_line(&headline(payload)));
    for (key, list) in sections(payload) {
        out.push_str(&format!("\n{}\n", one_line(&key)));
        for s in list {
            out.push_str(&format!(
                "- [{}] {} (importance {})\n  {}\n",
                s.event.as_str(),
                one_line(&cut(&s.signal.title, 200)),
                s.importance,
                s.signal.url
            ));
        }
    }
    if payload.more > 0 {
        out.push_str(&format!("\nand {} more", payload.more));
        if let Some(link) = &payload.link {
            out.push_str(&format!(": {link}"));
        }
        out.push('\n');
    }
    out
}

/// The HTML part: every host value escaped, links only to the signals'
/// http(s) URLs (the dataset made them so), no script, no remote image.
pub fn html_part(payload: &Payload) -> String {
    let mut out = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{}</title></head><body>\n<h1>{}</h1>\n",
        html(&headline(payload)),
        html(&headline(payload))
    );
    for (key, list) in sections(payload) {
        out.push_str(&format!("<h2>{}</h2>\n<ul>\n", html(&key)));
        for s in list {
            out.push_str(&format!(
                "<li><a href=\"{}\">{}</a> <small>{} · importance {}</small></li>\n",
                html(&s.signal.url),
                html(&cut(&s.signal.title, 200)),
                html(s.event.as_str()),
                s.importance
            ));
        }
        out.push_str("</ul>\n");
    }
    if payload.more > 0 {
        match &payload.link {
            Some(link) => out.push_str(&format!(
                "<p>and {} more: <a href=\"{}\">the page</a></p>\n",
                payload.more,
                html(link)
            )),
            None => out.push_str(&format!("<p>and {} more</p>\n", payload.more)),
        }
    }
    out.push_str("</body></html>\n");
    out
}

/// Builds the message.
pub fn message(
    from: &str,
    to: &[String],
    delivery: &str,
    payload: &Payload,
) -> Result<Message, SendError> {
    let mailbox = |a: &str| {
        a.parse::<Mailbox>()
            .map_err(|e| SendError::Setup(format!("{a:?} is not an email address the SMTP client accepts ({e}): fix the rule's from or to")))
    };
    let date = payload
        .collected_at
        .parse::<jiff::Timestamp>()
        .map(std::time::SystemTime::from)
        .unwrap_or(std::time::UNIX_EPOCH);
    let mut builder = Message::builder()
        .from(mailbox(from)?)
        .subject(subject(payload))
        .date(date)
        .message_id(Some(format!("<{delivery}@repo-signals>")))
        .user_agent(concat!("repo-signals/", env!("CARGO_PKG_VERSION")).to_string());
    for t in to {
        builder = builder.to(mailbox(t)?);
    }
    let body = MultiPart::alternative()
        .boundary(format!("signals-{delivery}"))
        .singlepart(
            SinglePart::builder()
                .header(ContentType::TEXT_PLAIN)
                .body(text(payload)),
        )
        .singlepart(
            SinglePart::builder()
                .header(ContentType::TEXT_HTML)
                .body(html_part(payload)),
        );
    builder
        .multipart(body)
        .map_err(|e| SendError::Setup(format!("the message could not be built: {e}")))
}

/// Sends a message.
pub fn send(smtp: &Smtp, message: &Message) -> Result<(), SendError> {
    let server = format!("{}:{}", smtp.host, smtp.port);
    let setup = |e: lettre::transport::smtp::Error| {
        SendError::Setup(format!("TLS for {server} could not be set up: {e}"))
    };
    let tls = match smtp.security {
        Security::None => LettreTls::None,
        Security::Starttls | Security::Implicit => {
            let mut params = TlsParameters::builder(smtp.host.clone());
            for pem in &smtp.roots {
                let cert = Certificate::from_pem(pem).map_err(setup)?;
                params = params.add_root_certificate(cert);
            }
            let params = params.build_rustls().map_err(setup)?;
            if smtp.security == Security::Starttls {
                LettreTls::Required(params)
            } else {
                LettreTls::Wrapper(params)
            }
        }
    };
    let mut transport = SmtpTransport::builder_dangerous(smtp.host.as_str())
        .port(smtp.port)
        .tls(tls)
        .timeout(Some(smtp.timeout));
    if let Some((user, password)) = &smtp.credentials {
        transport = transport.credentials(Credentials::new(user.clone(), password.clone()));
    }
    let transport = transport.build();
    transport.send(message).map(|_| ()).map_err(|e| {
        let reason = match &smtp.credentials {
            Some((_, password)) if !password.is_empty() => crate::scrub(&e.to_string(), password),
            _ => e.to_string(),
        };
        if e.is_permanent() || e.is_transient() {
            SendError::Smtp { server, reason }
        } else {
            SendError::Transport {
                receiver: server,
                reason,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_titles_stay_inert_in_html_and_headers() {
        let p = crate::tests::hostile_payload();
        let h = html_part(&p);
        assert!(!h.contains("<script"), "{h}");
        assert!(
            !h.contains("<svg") && !h.contains("<img") && !h.contains("<b>"),
            "{h}"
        );
        assert!(h.contains("&lt;/title&gt;&lt;script&gt;"), "{h}");
        assert_eq!(h.matches("<a href=").count(), 2, "{h}");
        let s = subject(&p);
        assert!(!s.contains('\r') && !s.contains('\n'), "{s:?}");
        let m = message("a@example.org", &["b@example.org".into()], "d1", &p).unwrap();
        let raw = String::from_utf8(m.formatted()).unwrap();
        // The title's "Bcc:" stays inside the encoded subject: one header
        // section, no Bcc header.
        let head = raw.split("\r\n\r\n").next().unwrap();
        assert!(
            !head
                .lines()
                .any(|l| l.to_ascii_lowercase().starts_with("bcc:")),
            "{head}"
        );
        // The same payload and id give the same bytes (retries).
        let again = message("a@example.org", &["b@example.org".into()], "d1", &p).unwrap();
        assert_eq!(m.formatted(), again.formatted());
    }
}
