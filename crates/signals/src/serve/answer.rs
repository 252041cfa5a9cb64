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
/// [`Value`]'s keys are, without building a map per object. A page of 50
/// signals is some 40 KB: the buffer starts at that, not grown by copies.
pub(super) fn typed_answer(status: u16, value: &impl serde::Serialize) -> Answer {
    let mut text = Vec::with_capacity(ANSWER_CAPACITY);
    match serde_json::to_writer_pretty(&mut text, value) {
        Ok(()) => (
            status,
            "application/json; charset=utf-8",
            escape_markup(text),
        ),
        Err(e) => error(500, format!("cannot write the answer: {e}")),
    }
}

/// What [`typed_answer`] reserves for a text.
const ANSWER_CAPACITY: usize = 48 * 1024;

/// `<`, `>` and `&` escaped in a JSON text, in one pass, and only when
/// there is one (the usual answer has none: the search for one is
/// `memchr`'s, a few bytes a cycle).
fn escape_markup(text: Vec<u8>) -> Vec<u8> {
    if memchr::memchr3(b'<', b'>', b'&', &text).is_none() {
        return text;
    }
    let mut out = Vec::with_capacity(text.len() + 64);
    for b in text {
        match b {
            b'<' => out.extend_from_slice(b"\\u003c"),
            b'>' => out.extend_from_slice(b"\\u003e"),
            b'&' => out.extend_from_slice(b"\\u0026"),
            b => out.push(b),
        }
    }
    out
}

/// An error answer: `{"error": message}`.
pub fn error(status: u16, message: impl Into<String>) -> Answer {
    json_answer(status, &json!({ "error": message.into() }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize)]
    struct Titled<'a> {
        title: &'a str,
    }

    /// A title with markup comes out inert, and the same through a typed
    /// value as through a [`Value`]; one without is left as it is.
    #[test]
    fn markup_is_escaped_alike_in_both_answers() {
        for title in ["<script>a && b</script> ünï", "plain, ünï"] {
            let typed = typed_answer(200, &Titled { title }).2;
            let valued = json_answer(200, &json!({ "title": title })).2;
            assert_eq!(
                String::from_utf8(typed.clone()).unwrap(),
                String::from_utf8(valued).unwrap()
            );
            let text = String::from_utf8(typed).unwrap();
            assert!(!text.contains(['<', '>', '&']), "{text}");
            let back: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(back["title"], title);
        }
    }
}
