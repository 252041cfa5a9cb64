//! The templates and the one function that renders them.
//!
//! Templates are embedded with `include_str!` and see only view types
//! (`views.rs` and each page's own), which borrow from the document and are
//! built by the module of the page. Host text reaches the templates as
//! plain strings and is HTML-escaped on output by [`escape_formatter`]; the
//! only pre-rendered HTML is sanitized release notes (see `text.rs`), the
//! only links are http(s) URLs that passed `text::http_url`.

use std::sync::LazyLock;

use minijinja::{AutoEscape, Environment, UndefinedBehavior, Value};
use serde::Serialize;

use crate::error::SiteError;
use crate::text::escape_markup;

static ENV: LazyLock<Environment<'static>> = LazyLock::new(|| {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_syntax(
        minijinja::syntax::SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()
            .expect("the default delimiters are valid"),
    );
    // Feeds are XML; HTML escaping of text is valid XML escaping too.
    env.set_auto_escape_callback(|name| {
        if name.ends_with(".html") || name.ends_with(".atom") {
            AutoEscape::Html
        } else {
            AutoEscape::None
        }
    });
    env.set_formatter(escape_formatter);
    for (name, source) in [
        ("base.html", include_str!("../templates/base.html")),
        ("macros.html", include_str!("../templates/macros.html")),
        ("repo.html", include_str!("../templates/repo.html")),
        ("trail.html", include_str!("../templates/trail.html")),
        ("index.html", include_str!("../templates/index.html")),
        ("repos.html", include_str!("../templates/repos.html")),
        (
            "importance.html",
            include_str!("../templates/importance.html"),
        ),
        ("feed.atom", include_str!("../templates/feed.atom")),
        ("group.html", include_str!("../templates/group.html")),
        ("history.html", include_str!("../templates/history.html")),
        (
            "references.html",
            include_str!("../templates/references.html"),
        ),
    ] {
        env.add_template(name, source)
            .unwrap_or_else(|e| panic!("embedded template {name} does not parse: {e:#}"));
    }
    env
});

/// Escapes `& < > " '` and drops control characters (minijinja's own escaper also turns `/` into `&#x2f;`,
/// which is safe but makes every URL unreadable). `none` prints nothing.
fn escape_formatter(
    out: &mut minijinja::Output<'_>,
    state: &mut minijinja::State<'_, '_>,
    value: &Value,
) -> Result<(), minijinja::Error> {
    if value.is_none() {
        return Ok(());
    }
    if *state.auto_escape() == AutoEscape::None || value.is_safe() {
        return minijinja::escape_formatter(out, state, value);
    }
    let text = match value.as_str() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(value.to_string()),
    };
    let escaped = escape_markup(&text);
    out.write_str(&escaped)
        .map_err(|e| minijinja::Error::new(minijinja::ErrorKind::WriteFailure, e.to_string()))
}

/// Renders template `name` with `ctx`.
pub(crate) fn render(name: &'static str, ctx: &impl Serialize) -> Result<String, SiteError> {
    ENV.get_template(name)
        .and_then(|t| t.render(minijinja::value::Serde(ctx)))
        .map_err(|source| SiteError::Template { name, source })
}
