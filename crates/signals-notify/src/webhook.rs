//! The webhook channel: the message as JSON (`schemas/notify-v1.schema.json`),
//! POSTed with its delivery id, and signed when the rule has a secret:
//! `X-Signals-Signature-256: sha256=<hex HMAC-SHA256 of the body>`, as
//! GitHub signs its webhooks, so the same receiver code verifies both.
//! Also the HTTP sender the Slack channel uses.

use std::time::Duration;

use hmac::{Hmac, Mac};
use serde_json::{Map, Value, json};
use sha2::Sha256;
use signals_core::notify::Payload;

use crate::{SendError, origin, scrub};

/// The version of the webhook body, in `X-Signals-Event` and the schema.
pub const BODY_VERSION: u32 = 1;

/// The JSON body of a message: `delivery`, `rule`, `kind`, `group`,
/// `repository`, `collectedAt`, `signals` (each a v3 signal plus
/// `importance`, `event` and the changed `fields`), `more` and `link`;
/// and `lifecycle` (from, to, reasons) in a `lifecycle` alert.
/// The same payload and delivery id always give the same bytes.
pub fn body(delivery: &str, payload: &Payload) -> Vec<u8> {
    let signals: Vec<Value> = payload
        .signals
        .iter()
        .map(|s| {
            let mut v = serde_json::to_value(&s.signal).unwrap_or(Value::Null);
            if let Value::Object(o) = &mut v {
                o.insert("importance".into(), json!(s.importance));
                o.insert("event".into(), json!(s.event.as_str()));
                o.insert("fields".into(), json!(s.fields));
            }
            v
        })
        .collect();
    let mut o = Map::new();
    o.insert("version".into(), json!(BODY_VERSION));
    o.insert("delivery".into(), json!(delivery));
    o.insert("rule".into(), json!(payload.rule));
    o.insert("kind".into(), json!(payload.kind));
    o.insert("group".into(), json!(payload.group));
    o.insert("repository".into(), json!(payload.repository));
    o.insert("collectedAt".into(), json!(payload.collected_at));
    o.insert("signals".into(), Value::Array(signals));
    o.insert("more".into(), json!(payload.more));
    o.insert("link".into(), json!(payload.link));
    if let Some(change) = &payload.lifecycle {
        o.insert("lifecycle".into(), json!(change));
    }
    // serde_json escapes `<`, `>` and `&`? It does not; a body is JSON
    // for programs, and its content type says so.
    serde_json::to_vec(&Value::Object(o)).unwrap_or_default()
}

/// `sha256=<hex>`: HMAC-SHA256 of `body` under `secret`.
pub fn signature(secret: &[u8], body: &[u8]) -> String {
    // HMAC takes a key of any length.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret)
        .unwrap_or_else(|_| unreachable!("HMAC accepts keys of any length"));
    mac.update(body);
    let hex: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256={hex}")
}

/// POSTs JSON bodies; no redirects are followed (a moved receiver is a
/// configuration to fix, and a POST must not turn into a GET).
#[derive(Debug, Clone)]
pub struct Sender {
    agent: ureq::Agent,
    user_agent: String,
}

impl Sender {
    /// A sender whose requests give up after `timeout` (connect, answer,
    /// body each).
    pub fn new(timeout: Duration, user_agent: &str) -> Sender {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_connect(Some(timeout))
            .timeout_send_body(Some(timeout))
            .timeout_recv_response(Some(timeout))
            .timeout_recv_body(Some(timeout))
            .build()
            .new_agent();
        Sender {
            agent,
            user_agent: user_agent.to_string(),
        }
    }

    /// POSTs `body` as JSON with `headers`; a 2xx answer is delivery.
    /// Errors name the receiver by its origin only.
    pub fn post(&self, url: &str, headers: &[(&str, &str)], body: &[u8]) -> Result<(), SendError> {
        let receiver = origin(url);
        let mut req = self
            .agent
            .post(url)
            .header("Content-Type", "application/json")
            .header("User-Agent", &self.user_agent);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let mut resp = req.send(body).map_err(|e| SendError::Transport {
            receiver: receiver.clone(),
            reason: scrub(&e.to_string(), url),
        })?;
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| signals_http::retry_after_secs(v, jiff::Timestamp::now()))
            .map(Duration::from_secs);
        // The answer's body is read (a little of it) so the connection can
        // be reused, and dropped: receivers' messages are not ours to keep.
        let _ = resp.body_mut().with_config().limit(64 * 1024).read_to_vec();
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(SendError::Status {
                receiver,
                status,
                retry_after,
            })
        }
    }
}

/// Sends a message to a webhook: its body, delivery id, kind and, with a
/// secret, its signature.
pub fn send(
    sender: &Sender,
    url: &str,
    secret: Option<&[u8]>,
    delivery: &str,
    payload: &Payload,
) -> Result<(), SendError> {
    let body = body(delivery, payload);
    let kind = serde_json::to_value(payload.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let signature = secret.map(|s| signature(s, &body));
    let mut headers = vec![
        ("X-Signals-Delivery", delivery),
        ("X-Signals-Event", kind.as_str()),
    ];
    if let Some(sig) = &signature {
        headers.push(("X-Signals-Signature-256", sig.as_str()));
    }
    sender.post(url, &headers, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_is_hmac_sha256_in_hex() {
        // RFC 4231, test case 2.
        assert_eq!(
            signature(b"Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}

#[cfg(test)]
mod hostile {
    use super::*;

    #[test]
    fn hostile_titles_round_trip_as_json_strings() {
        let p = crate::tests::hostile_payload();
        let b = body("d1", &p);
        let v: Value = serde_json::from_slice(&b).unwrap();
        assert_eq!(v["signals"][0]["title"], json!(p.signals[0].signal.title));
        assert_eq!(v["signals"][0]["importance"], 7);
        assert_eq!(v["signals"][0]["event"], "discovered");
        assert_eq!(v["delivery"], "d1");
        assert_eq!(body("d1", &p), b);
    }
}
