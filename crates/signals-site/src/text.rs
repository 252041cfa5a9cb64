//! Turning host text into something safe to put on a page.
//!
//! Everything here treats its input as hostile: titles, bodies, release notes
//! and URLs are written by anyone who can open an issue. Markdown becomes HTML
//! only through [`markdown_html`], which drops raw HTML before rendering and
//! sanitizes the result with ammonia; everything else reaches a template as
//! plain text and is escaped there.

use std::collections::HashSet;
use std::sync::LazyLock;

use pulldown_cmark::{Event, Options, Parser, TagEnd};

/// Length of a signal card's excerpt, in characters (Unicode scalar values).
pub const EXCERPT_CHARS: usize = 280;

/// `url` if it is an absolute `http://` or `https://` URL without whitespace
/// or control characters; only those become links. Anything else (such as
/// `javascript:`, `data:` or a relative path) is shown as text, if at all.
pub fn http_url(url: &str) -> Option<&str> {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    let scheme_ok = lower.starts_with("https://") || lower.starts_with("http://");
    let rest_ok = url.len() > 8 && !url.chars().any(|c| c.is_whitespace() || c.is_control());
    (scheme_ok && rest_ok).then_some(url)
}

static SANITIZER: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| {
    let mut b = ammonia::Builder::default();
    b.url_schemes(HashSet::from(["http", "https"]))
        // A relative link in release notes means something on the host, not
        // on this site; drop it rather than point somewhere wrong.
        .url_relative(ammonia::UrlRelative::Deny)
        .link_rel(Some("noopener noreferrer nofollow ugc"))
        .strip_comments(true);
    b
});

/// Renders Markdown (release notes) to sanitized HTML: raw HTML in the input
/// is dropped before rendering, and the rendered HTML is then cleaned by
/// ammonia (no scripts, no event handlers, no style, only http(s) links).
pub fn markdown_html(markdown: &str) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(markdown, options)
        .filter(|e| !matches!(e, Event::Html(_) | Event::InlineHtml(_)));
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events);
    SANITIZER.clean(&html).to_string()
}

/// The plain text of Markdown: text and code spans, with blocks and line
/// breaks as single spaces; raw HTML (issue-template comments, tags) and link
/// targets are dropped.
pub fn markdown_plain(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    for event in Parser::new_ext(
        markdown,
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH,
    ) {
        match event {
            Event::Text(t) | Event::Code(t) => out.push_str(&t),
            Event::SoftBreak | Event::HardBreak | Event::Rule => out.push(' '),
            Event::End(
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::Item
                | TagEnd::CodeBlock
                | TagEnd::TableCell
                | TagEnd::BlockQuote(_),
            ) => out.push(' '),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A card's excerpt: the plain text of `markdown`, at most [`EXCERPT_CHARS`]
/// characters plus `…` when cut. The cut falls on a character boundary, and
/// back at the last space when one is within the last 40 characters, so
/// words are not split.
pub fn excerpt(markdown: &str) -> String {
    let plain = markdown_plain(markdown);
    let Some((cut, _)) = plain.char_indices().nth(EXCERPT_CHARS) else {
        return plain;
    };
    let head = &plain[..cut];
    let head = match head.rfind(' ') {
        Some(space) if head[space..].chars().count() <= 40 => &head[..space],
        _ => head,
    };
    format!("{}…", head.trim_end())
}

/// Text made inert in HTML, XML (the feeds) and SVG: the five markup
/// characters escaped, and control characters (not allowed in XML 1.0,
/// meaningless in HTML) dropped. The templates' formatter and the charts
/// both use it.
pub(crate) fn escape_markup(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c if (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
                || matches!(c, '\u{FFFE}' | '\u{FFFF}') => {}
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_urls_are_links() {
        assert_eq!(
            http_url("https://github.com/o/n"),
            Some("https://github.com/o/n")
        );
        assert_eq!(http_url("HTTP://x.org/a"), Some("HTTP://x.org/a"));
        for bad in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            " https://x.org",
            "https://x.org/a b",
            "https://",
            "data:text/html,x",
            "//x.org",
            "/relative",
            "",
            "https://x.org/\u{7}",
        ] {
            assert_eq!(http_url(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn markdown_is_rendered_then_sanitized() {
        let html = markdown_html(
            "# Notes\n\n- **fast** [link](https://x.org) [bad](javascript:alert(1))\n\n\
             <script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n\
             ![i](https://x.org/i.png) [rel](/rel) <b onclick=\"x()\">b</b>",
        );
        assert!(html.contains("<strong>fast</strong>"), "{html}");
        assert!(html.contains("href=\"https://x.org\""), "{html}");
        assert!(
            html.contains("rel=\"noopener noreferrer nofollow ugc\""),
            "{html}"
        );
        assert!(html.contains("<img src=\"https://x.org/i.png\""), "{html}");
        let lower = html.to_ascii_lowercase();
        for bad in [
            "<script",
            "javascript:",
            "onerror",
            "onclick",
            "href=\"/rel\"",
        ] {
            assert!(!lower.contains(bad), "{bad} in {html}");
        }
    }

    #[test]
    fn plain_text_drops_markup_and_html() {
        assert_eq!(
            markdown_plain(
                "<!-- template -->\n## Steps\n\n1. run `x --y`\n2. see [docs](https://d)\n\n```\ncode\n```\n<div>raw</div>"
            ),
            "Steps run x --y see docs code"
        );
    }

    #[test]
    fn excerpts_cut_on_char_and_word_boundaries() {
        let short = "just a line";
        assert_eq!(excerpt(short), short);
        let exact = "é".repeat(EXCERPT_CHARS);
        assert_eq!(excerpt(&exact), exact);
        // No spaces: a hard cut at 280 characters, never inside a character.
        let long = "é".repeat(EXCERPT_CHARS + 1);
        assert_eq!(excerpt(&long), format!("{}…", "é".repeat(EXCERPT_CHARS)));
        // Words: back to the last space.
        let words = "word ".repeat(100);
        let e = excerpt(&words);
        assert!(e.ends_with("word…"), "{e}");
        assert!(e.chars().count() <= EXCERPT_CHARS + 1);
        assert!(e.chars().count() > EXCERPT_CHARS - 40);
    }
}
