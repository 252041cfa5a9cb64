//! What a code host may send that would break our own promises, and how it
//! is made harmless. Every host crate and the dataset view go through here,
//! so the rules hold for every host and for data stored before a rule
//! existed.
//!
//! - [`repair_surrogates`]: a JSON string escape of a lone UTF-16 surrogate
//!   (`"\ud800"`) is valid JSON but no Unicode text; serde_json rejects it,
//!   which would make a repository impossible to collect, run after run. It
//!   is replaced by `\ufffd` (U+FFFD REPLACEMENT CHARACTER) before decoding.
//! - [`http_url`] and [`homepage`]: the dataset schema allows only
//!   `http(s)://` URLs (and an empty homepage); anything else (`javascript:`,
//!   `data:`, relative paths, URLs with spaces or control characters) is
//!   replaced (docs/decisions.md).
//! - [`clamp_timestamp`]: timestamps before year 0 or after 9999 cannot be
//!   written as `YYYY-MM-DDThh:mm:ssZ`; they are clamped into that range.
//! - [`html_text`]: text written into HTML by hand (outside the site's
//!   templates, which escape on their own) stays text.

use std::borrow::Cow;

use jiff::Timestamp;

/// Replaces every `\uXXXX` escape of a lone surrogate in the JSON strings of
/// `json` by `\ufffd`, keeping properly paired surrogates. The output has the
/// same length as the input (an escape is replaced by an escape of the same
/// size), so byte offsets in errors stay true. Borrowed when nothing needed
/// repair, which is the common case and costs one scan.
pub fn repair_surrogates(json: &[u8]) -> Cow<'_, [u8]> {
    // Fast path: no `\u` followed by d/D at all.
    if !json
        .windows(3)
        .any(|w| w[0] == b'\\' && w[1] == b'u' && (w[2] == b'd' || w[2] == b'D'))
    {
        return Cow::Borrowed(json);
    }
    let mut out = json.to_vec();
    let mut i = 0;
    let mut in_string = false;
    while i < out.len() {
        let b = out[i];
        if !in_string {
            if b == b'"' {
                in_string = true;
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = false;
                i += 1;
            }
            b'\\' if out.get(i + 1) == Some(&b'u') => {
                match hex4(&out[i + 2..]) {
                    Some(0xD800..=0xDBFF) => {
                        // A high surrogate must be followed by `\u` + low.
                        let paired = out.get(i + 6) == Some(&b'\\')
                            && out.get(i + 7) == Some(&b'u')
                            && matches!(
                                hex4(&out[(i + 8).min(out.len())..]),
                                Some(0xDC00..=0xDFFF)
                            );
                        if paired {
                            i += 12;
                        } else {
                            out[i + 2..i + 6].copy_from_slice(b"fffd");
                            i += 6;
                        }
                    }
                    Some(0xDC00..=0xDFFF) => {
                        out[i + 2..i + 6].copy_from_slice(b"fffd");
                        i += 6;
                    }
                    _ => i += 2,
                }
            }
            // Any other escape: skip the escaped character (which may be a
            // quote or a backslash).
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    Cow::Owned(out)
}

fn hex4(b: &[u8]) -> Option<u16> {
    let s = std::str::from_utf8(b.get(..4)?).ok()?;
    u16::from_str_radix(s, 16).ok()
}

/// Is `url` an absolute `http(s)://` URL with a host and nothing a browser
/// or a feed reader would choke on (whitespace, control characters, quotes
/// or angle brackets)?
pub fn is_http_url(url: &str) -> bool {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    let Some(rest) = rest else {
        return false;
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    !host.is_empty()
        && !url
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '"' | '<' | '>' | '\\'))
}

/// `url` when it is an http(s) URL ([`is_http_url`]), else `fallback`.
pub fn http_url(url: &str, fallback: &str) -> String {
    if is_http_url(url) {
        url.to_string()
    } else {
        fallback.to_string()
    }
}

/// A homepage as the schema allows it: an http(s) URL, or empty.
pub fn homepage(url: &str) -> String {
    http_url(url.trim(), "")
}

/// Text for HTML element content and quoted attribute values: `&`, `<`,
/// `>`, `"` and `'` escaped, control characters other than a newline and
/// a tab dropped (a title has no place for a NUL or an escape).
pub fn html_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// `ts` clamped to `0000-01-01T00:00:00Z ..= 9999-12-31T23:59:59Z`, the
/// instants that have a four-digit year.
pub fn clamp_timestamp(ts: Timestamp) -> Timestamp {
    let min = Timestamp::from_second(-62_167_219_200).unwrap_or(Timestamp::MIN);
    let max = Timestamp::from_second(253_402_300_799).unwrap_or(Timestamp::MAX);
    ts.clamp(min, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repaired(s: &str) -> String {
        String::from_utf8(repair_surrogates(s.as_bytes()).into_owned()).unwrap()
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        assert_eq!(repaired(r#"{"t":"a\ud800b"}"#), r#"{"t":"a\ufffdb"}"#);
        assert_eq!(repaired(r#"{"t":"\uDC00"}"#), r#"{"t":"\ufffd"}"#);
        assert_eq!(repaired(r#"{"t":"\ud800"}"#), r#"{"t":"\ufffd"}"#);
        assert_eq!(
            repaired(r#"{"t":"\ud800\ud800"}"#),
            r#"{"t":"\ufffd\ufffd"}"#
        );
        // A proper pair stays and decodes to one character.
        let pair = r#"{"t":"\ud83d\ude00"}"#;
        assert_eq!(repaired(pair), pair);
        // An escaped backslash followed by `ud800` is text, not an escape.
        let text = r#"{"t":"\\ud800"}"#;
        assert_eq!(repaired(text), text);
        // Outside strings nothing is touched (and nothing is there to touch).
        assert!(matches!(repair_surrogates(b"[1, 2]"), Cow::Borrowed(_)));
        let v: serde_json::Value =
            serde_json::from_slice(&repair_surrogates(br#"{"t":"x\ud800y"}"#)).unwrap();
        assert_eq!(v["t"], "x\u{fffd}y");
    }

    #[test]
    fn urls() {
        assert!(is_http_url("https://github.com/o/n"));
        assert!(is_http_url("http://example.com"));
        for bad in [
            "javascript:alert(document.domain)",
            "JAVASCRIPT:alert(1)",
            "data:text/html,x",
            "/o/n",
            "",
            "https://",
            "https:// evil",
            "https://x/\"><script>",
            "https://x/\u{0}",
        ] {
            assert!(!is_http_url(bad), "{bad:?}");
        }
        assert_eq!(homepage("javascript:alert(document.domain)"), "");
        assert_eq!(homepage(" https://x.org "), "https://x.org");
    }

    #[test]
    fn timestamps_keep_four_digit_years() {
        let low: Timestamp = "-000100-01-01T00:00:00Z".parse().unwrap();
        assert_eq!(
            crate::dataset::fmt_seconds(clamp_timestamp(low)),
            "0000-01-01T00:00:00Z"
        );
        let fine: Timestamp = "2024-01-01T00:00:00Z".parse().unwrap();
        assert_eq!(clamp_timestamp(fine), fine);
    }
}
