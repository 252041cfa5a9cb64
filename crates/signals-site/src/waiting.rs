//! "Waiting for a reply": the open issues and pull requests
//! nobody but their author (or a bot, or an ignored account) answered for
//! more than `waiting_days`, most important first, on the repository page
//! and the group digest. Which items wait is the export's to say (at the
//! dataset's instant, like importance); this module only shapes them.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use signals_core::ItemKind;

use crate::paths::{history_file, id_parts};
use crate::source::Ranked;
use crate::text::http_url;

/// Items listed on a repository page, and on the group digest.
pub const WAITING_LISTED: usize = 10;

/// One item waiting for a reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitingEntry {
    /// Its signal id.
    pub id: String,
    /// `issue` or `pull request`.
    pub kind: String,
    /// `#12`.
    pub number: String,
    /// Its title.
    pub title: String,
    /// Its web page, when http(s).
    pub url: Option<String>,
    /// Its history page, relative to the page that lists it.
    pub history: String,
    /// Its author.
    pub author: String,
    /// Whole days since it was opened, at the dataset's instant.
    pub days: i64,
    /// Its importance.
    pub importance: u32,
    /// Its repository's name, on the group digest.
    #[serde(default)]
    pub repo: Option<String>,
}

/// The entries of `ranked` (waiting items in page order) at `instant`,
/// history links under `prefix` (`""` on the repository's page,
/// `<repo id>/` on the group's).
pub(crate) fn entries(ranked: &[Ranked], instant: Timestamp, prefix: &str) -> Vec<WaitingEntry> {
    ranked
        .iter()
        .map(|r| {
            let s = &r.signal;
            let (kind, key) = id_parts(&s.id);
            let created: Option<Timestamp> = s.created_at.parse().ok();
            WaitingEntry {
                id: s.id.clone(),
                kind: kind.map_or("item", ItemKind::label).to_string(),
                number: format!("#{key}"),
                title: s.title.clone(),
                url: http_url(&s.url).map(str::to_string),
                history: format!("{prefix}history/{}", history_file(&s.id)),
                author: s.author.clone(),
                days: created.map_or(0, |c| instant.duration_since(c).as_secs() / 86_400),
                importance: r.score.total,
                repo: None,
            }
        })
        .collect()
}

/// Folds `more` into a group's list: most important first (ties by id),
/// at most [`WAITING_LISTED`].
pub(crate) fn merge(list: &mut Vec<WaitingEntry>, more: Vec<WaitingEntry>) {
    list.extend(more);
    list.sort_by(|a, b| {
        b.importance
            .cmp(&a.importance)
            .then_with(|| a.id.as_bytes().cmp(b.id.as_bytes()))
    });
    list.truncate(WAITING_LISTED);
}
