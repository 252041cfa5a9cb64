//! Links between items of a group on the pages: the
//! line a card shows ("referenced from 2 other repositories in this
//! group"), the lists of an item's history page, and the group page's
//! items named from several repositories. Pure: the store resolved the
//! links; this only says them.

use serde::Serialize;
use signals_core::dataset::SignalDoc;

/// The repository part of a signal id (`github:o/n` of
/// `github:o/n:issue:1`).
fn repo_of(id: &str) -> &str {
    let mut parts = id.splitn(3, ':');
    let (source, repo) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    &id[..(source.len() + 1 + repo.len()).min(id.len())]
}

/// What a card says of the items naming it: the number of other
/// repositories of the group, or, when only items of its own repository
/// name it, their number; `None` when nothing names it.
pub(crate) fn card_line(s: &SignalDoc) -> Option<String> {
    let own = repo_of(&s.id);
    let mut others: Vec<&str> = s
        .referenced_by
        .iter()
        .map(|id| repo_of(id))
        .filter(|r| *r != own)
        .collect();
    others.sort_unstable();
    others.dedup();
    let line = match (others.len(), s.referenced_by.len()) {
        (0, 0) => return None,
        (0, 1) => "referenced from 1 other item in this repository".to_string(),
        (0, n) => format!("referenced from {n} other items in this repository"),
        (1, _) => "referenced from 1 other repository in this group".to_string(),
        (n, _) => format!("referenced from {n} other repositories in this group"),
    };
    Some(line)
}

/// The short name of a signal id: `o/b#1` of `github:o/b:issue:1`
/// (the id itself when it is not one).
pub fn short_name(id: &str) -> String {
    let parts: Vec<&str> = id.splitn(4, ':').collect();
    match parts.as_slice() {
        [_, repo, _, key] => format!("{repo}#{key}"),
        _ => id.to_string(),
    }
}

/// What a card says of its related items (`SignalDoc::related`, open ones
/// first): `similar: o/b#1 (0.66: texture, 214), grp/proj#1 (0.70: …)`,
/// each with its score and three of the words the two share; `None` when
/// it has none.
pub(crate) fn similar_line(s: &SignalDoc) -> Option<String> {
    if s.related.is_empty() {
        return None;
    }
    let items: Vec<String> = s
        .related
        .iter()
        .map(|r| {
            let words: Vec<&str> = r.shared.iter().take(3).map(String::as_str).collect();
            format!(
                "{} ({:.2}: {})",
                short_name(&r.id),
                r.score,
                words.join(", ")
            )
        })
        .collect();
    Some(format!("similar: {}", items.join(", ")))
}

/// A related item on a history page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RelatedItem {
    /// Its signal id.
    pub id: String,
    /// Its short name (`o/b#1`).
    pub name: String,
    /// Its history page, relative to the page that links to it.
    pub href: Option<String>,
    /// The pair's score, two decimals.
    pub score: String,
    /// The words the two share.
    pub shared: Vec<String>,
    /// Whether it is open.
    pub open: bool,
}

/// One item of a story of the group page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoryItem {
    /// Its short name (`o/b#1`).
    pub name: String,
    /// Its title.
    pub title: String,
    /// Its URL on the host, when http(s).
    pub url: Option<String>,
    /// Its history page, relative to the group folder.
    pub history: String,
}

/// The same story in several repositories of a group: an entry of the
/// group page's section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoryEntry {
    /// How many repositories its items are in.
    pub repos: usize,
    /// The words its pairs share most often.
    pub shared: Vec<String>,
    /// Its items.
    pub items: Vec<StoryItem>,
}

/// An item at the other end of a link, on a history page or the group
/// page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkedItem {
    /// Its signal id.
    pub id: String,
    /// Its history page, relative to the page that links to it; `None`
    /// when its repository's pages are not known.
    pub href: Option<String>,
}

/// The links of an item's history page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct HistoryLinks {
    /// The items its texts name.
    pub references: Vec<LinkedItem>,
    /// The items whose texts name it.
    pub referenced_by: Vec<LinkedItem>,
    /// What its card says ([`card_line`]), if anything.
    pub line: Option<String>,
    /// Its related items, best first.
    pub related: Vec<RelatedItem>,
}

impl HistoryLinks {
    /// The links of the item `id`, its line said as its card says it.
    pub fn new(id: &str, references: Vec<LinkedItem>, referenced_by: Vec<LinkedItem>) -> Self {
        let doc_line = card_line(&SignalDoc {
            id: id.to_string(),
            referenced_by: referenced_by.iter().map(|l| l.id.clone()).collect(),
            ..SignalDoc::default()
        });
        HistoryLinks {
            references,
            referenced_by,
            line: doc_line,
            related: Vec::new(),
        }
    }
}

/// An item of a group that items of several other repositories of the
/// group name: an entry of the group page's section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SharedEntry {
    /// Its signal id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its URL on the host, when http(s).
    pub url: Option<String>,
    /// Its repository's display name.
    pub repo: String,
    /// Its history page, relative to the group folder.
    pub history: String,
    /// The display names of the other repositories whose items name it.
    pub from: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_names_its_similar_items_with_scores_and_words() {
        let mut s = SignalDoc::default();
        assert_eq!(similar_line(&s), None);
        s.related = vec![signals_core::dataset::RelatedDoc {
            id: "gitlab:grp/sub/proj:issue:12".into(),
            score: 0.8,
            shared: vec!["sdl".into(), "ld".into(), "linking".into(), "cc".into()],
        }];
        assert_eq!(
            similar_line(&s).unwrap(),
            "similar: grp/sub/proj#12 (0.80: sdl, ld, linking)"
        );
        assert_eq!(short_name("nonsense"), "nonsense");
    }

    fn doc(id: &str, by: &[&str]) -> SignalDoc {
        SignalDoc {
            id: id.into(),
            referenced_by: by.iter().map(|s| s.to_string()).collect(),
            ..SignalDoc::default()
        }
    }

    #[test]
    fn a_card_counts_other_repositories_then_its_own() {
        let own = "github:o/a:issue:1";
        assert_eq!(card_line(&doc(own, &[])), None);
        assert_eq!(
            card_line(&doc(own, &["github:o/a:issue:2"])).unwrap(),
            "referenced from 1 other item in this repository"
        );
        assert_eq!(
            card_line(&doc(
                own,
                &["github:o/a:issue:2", "github:o/a:pull_request:3"]
            ))
            .unwrap(),
            "referenced from 2 other items in this repository"
        );
        assert_eq!(
            card_line(&doc(own, &["github:o/a:issue:2", "github:o/b:issue:1"])).unwrap(),
            "referenced from 1 other repository in this group"
        );
        assert_eq!(
            card_line(&doc(
                own,
                &[
                    "github:o/b:issue:1",
                    "github:o/b:issue:2",
                    "gitlab:g/c:issue:9"
                ]
            ))
            .unwrap(),
            "referenced from 2 other repositories in this group"
        );
    }
}
