//! A repository's trends as the site shows them: `trends.json`, and (in
//! `charts.rs`) the SVG charts of its page, its group's small multiples and
//! the index's sparklines. The numbers come in ready-made from
//! `signals_core::trends`; this module only writes and draws them.

use signals_core::trends::Trends;

use crate::{RepoPage, SiteError};

/// The trends document's file name, beside `dataset.json`.
pub const TRENDS_FILE: &str = "trends.json";

/// `trends.json`: the document, pretty-printed as `dataset.json` is.
pub fn render_trends(trends: &Trends, repo: &RepoPage<'_>) -> Result<String, SiteError> {
    let mut json = serde_json::to_string_pretty(trends).map_err(|source| SiteError::Json {
        repository: format!(
            "{}/{}",
            repo.document.dataset.group.id, repo.document.dataset.repository.id
        ),
        source,
    })?;
    json.push('\n');
    Ok(json)
}
