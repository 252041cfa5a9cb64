//! What `serve` answers with: a status, a content type and a body, and
//! the JSON bodies every endpoint and the front door share.

use serde_json::{Value, json};

/// A status, a content type and a body.
pub type Answer = (u16, &'static str, Vec<u8>);

/// The JSON body of an answer; `<`, `>` and `&` are escaped too, so a
/// response read as HTML by mistake is still inert.
pub fn json_answer(status: u16, value: &Value) -> Answer {
    let text = serde_json::to_string_pretty(value)
        .unwrap_or_else(|_| "{}".into())
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026");
    (status, "application/json; charset=utf-8", text.into_bytes())
}

/// [`json_answer`] of a typed value, written straight from it: the same
/// text as through a [`Value`] when its fields are in name order, as a
/// [`Value`]'s keys are, without building a map per object.
pub(super) fn typed_answer(status: u16, value: &impl serde::Serialize) -> Answer {
    match serde_json::to_string_pretty(value) {
        Ok(text) => (
            status,
            "application/json; charset=utf-8",
            escape_markup(text).into_bytes(),
        ),
        Err(e) => error(500, format!("cannot write the answer: {e}")),
    }
}

/// `<`, `>` and `&` escaped in a JSON text, in one pass, and only when
/// there is one (the usual answer has none).
fn escape_markup(text: String) -> String {
    if !text.bytes().any(|b| matches!(b, b'<' | b'>' | b'&')) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 64);
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            c => out.push(c),
        }
    }
    out
}

/// An error answer: `{"error": message}`.
pub fn error(status: u16, message: impl Into<String>) -> Answer {
    json_answer(status, &json!({ "error": message.into() }))
}
