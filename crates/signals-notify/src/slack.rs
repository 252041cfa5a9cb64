//! The Slack channel: an incoming-webhook message, `text` (the
//! notification and the fallback) plus `blocks` (a header, one section
//! per signal, and a context line with the rest). Mattermost, Rocket.Chat
//! and Discord's `/slack` endpoints take the same body. Every host value
//! is escaped for mrkdwn (`crate::mrkdwn`), so a title cannot mention
//! `@channel`, link elsewhere or break the layout; the header is
//! `plain_text`, which Slack never formats.

use serde_json::{Value, json};
use signals_core::notify::{MessageKind, Payload};

use crate::SendError;
use crate::escape::{mrkdwn, mrkdwn_url};
use crate::webhook::Sender;

/// Longest title shown, in characters (a section holds 3,000).
const TITLE_CHARS: usize = 200;

/// The message's one-line summary: `text`, the email subject's core.
pub fn headline(payload: &Payload) -> String {
    if let (Some(change), Some(r)) = (&payload.lifecycle, &payload.repository) {
        return format!(
            "{}: {} is now {} (was {})",
            payload.rule,
            r.repo,
            change.to.as_str(),
            change.from.as_str()
        );
    }
    let n = payload.signals.len() as u64 + payload.more;
    let noun = if n == 1 { "signal" } else { "signals" };
    match (&payload.kind, &payload.repository) {
        (MessageKind::Digest, _) | (_, None) => {
            format!("{}: the top {n} {noun}", payload.rule)
        }
        (MessageKind::Summary, Some(r)) => {
            format!("{}: now watching {}, top {n} {noun}", payload.rule, r.repo)
        }
        (MessageKind::Alert, Some(r)) => format!("{}: {n} {noun} in {}", payload.rule, r.repo),
    }
}

/// Cuts `text` to `max` characters, with an ellipsis when cut.
pub(crate) fn cut(text: &str, max: usize) -> String {
    let mut chars = text.chars();
    let mut out: String = chars.by_ref().take(max).collect();
    if chars.next().is_some() {
        out.push('…');
    }
    out
}

/// The JSON body.
pub fn body(payload: &Payload) -> Vec<u8> {
    let mut blocks = vec![json!({
        "type": "header",
        "text": { "type": "plain_text", "text": cut(&headline(payload), 140), "emoji": false },
    })];
    for s in &payload.signals {
        let sig = &s.signal;
        let title = mrkdwn(&cut(&sig.title, TITLE_CHARS));
        let mut line = format!(
            "*<{}|{}>*\n{} · {} · {} · importance {}",
            mrkdwn_url(&sig.url),
            if title.trim().is_empty() {
                "(no title)".to_string()
            } else {
                title
            },
            s.event.as_str(),
            mrkdwn(&sig.project),
            mrkdwn(&sig.kind.replace('_', " ")),
            s.importance
        );
        if !sig.labels.is_empty() {
            line.push_str(" · ");
            line.push_str(&mrkdwn(&cut(&sig.labels.join(", "), 200)));
        }
        blocks.push(json!({ "type": "section", "text": { "type": "mrkdwn", "text": line } }));
    }
    if payload.more > 0 {
        let more = match &payload.link {
            Some(link) => format!("and {} more: <{}|the page>", payload.more, mrkdwn_url(link)),
            None => format!("and {} more", payload.more),
        };
        blocks.push(json!({ "type": "context", "elements": [{ "type": "mrkdwn", "text": more }] }));
    }
    let body: Value = json!({ "text": mrkdwn(&headline(payload)), "blocks": blocks });
    serde_json::to_vec(&body).unwrap_or_default()
}

/// Posts a message to an incoming webhook. Slack checks no signature; the
/// delivery id still goes in `X-Signals-Delivery` for proxies that log it.
pub fn send(
    sender: &Sender,
    url: &str,
    delivery: &str,
    payload: &Payload,
) -> Result<(), SendError> {
    sender.post(url, &[("X-Signals-Delivery", delivery)], &body(payload))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_titles_stay_inert_in_blocks() {
        let p = crate::tests::hostile_payload();
        let v: Value = serde_json::from_slice(&body(&p)).unwrap();
        let mut texts = vec![v["text"].as_str().unwrap().to_string()];
        for b in v["blocks"].as_array().unwrap() {
            if let Some(t) = b["text"]["text"].as_str() {
                texts.push(t.to_string());
            }
            for e in b["elements"].as_array().into_iter().flatten() {
                texts.push(e["text"].as_str().unwrap().to_string());
            }
        }
        let section = &texts[2];
        // The one link is the signal's own; the title's markup is text.
        assert!(
            section.starts_with("*<https://github.com/evil/repo/issues/1|"),
            "{section}"
        );
        assert_eq!(section.matches('<').count(), 1, "{section}");
        assert!(section.contains("&lt;!channel&gt;"), "{section}");
        for t in &texts[1..] {
            assert!(
                !t.contains("<!channel>") && !t.contains("<script") && !t.contains('\u{0}'),
                "{t}"
            );
        }
        // The header is plain text, which Slack does not format.
        assert_eq!(v["blocks"][0]["text"]["type"], "plain_text");
        assert!(
            texts
                .last()
                .unwrap()
                .contains("and 3 more: <https://signals.example/g/repo/index.html|the page>")
        );
    }
}
