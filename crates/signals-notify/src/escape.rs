//! Escaping for the two markups messages are written in. Host values
//! (titles, labels, handles) are hostile: they must stay text.

/// Text for HTML element content and quoted attribute values
/// ([`signals_core::hostile::html_text`]).
pub fn html(text: &str) -> String {
    signals_core::hostile::html_text(text)
}

/// Text for Slack's mrkdwn: `&`, `<` and `>` escaped as Slack documents,
/// so `<!channel>`, `<@U123>` and `<url|text>` written by a host stay
/// text; line breaks become spaces so a title cannot start a quote or a
/// list.
pub fn mrkdwn(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A URL inside Slack's `<url|text>`: `|`, `<`, `>` and spaces would end
/// it early, so they are percent-encoded.
pub(crate) fn mrkdwn_url(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        match c {
            '|' => out.push_str("%7C"),
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            ' ' => out.push_str("%20"),
            '&' => out.push_str("&amp;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_titles_stays_text() {
        assert_eq!(
            html("<script>alert('x')</script>&"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"
        );
        assert_eq!(
            mrkdwn("<!channel> a & b\n> quote"),
            "&lt;!channel&gt; a &amp; b &gt; quote"
        );
        assert_eq!(mrkdwn_url("https://h/x|y>z"), "https://h/x%7Cy%3Ez");
    }
}
