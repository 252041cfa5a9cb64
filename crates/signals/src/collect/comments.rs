//! The comments step of one run (issue 26): the comments and reviews the
//! host gave are stored under their items' signal ids, and what each one
//! names joins the run's references, so a comment links items across a
//! group as a body does (docs/decisions.md, "References across a group").

use std::collections::HashMap;

use signals_core::references::{ItemReferences, extract, of_text, place_of_repo};
use signals_core::{Comment, ItemKind, ItemSnapshot, TrackedRepo, signal_id};
use signals_store::{Backend, RepoKey};

use super::pipeline::RunError;

/// Stores a run's comments under their items' signal ids and returns what
/// their bodies name. The store is an upsert, before the run's commit:
/// should the commit fail, the next run reads the same window again and
/// stores them once (docs/decisions.md, "Comments and first responses");
/// the references are committed with the run.
pub(super) fn store(
    store: &mut dyn Backend,
    key: RepoKey,
    repo: &TrackedRepo,
    (repo_url, items): (&str, &[ItemSnapshot]),
    comments: Vec<Comment>,
) -> Result<Vec<ItemReferences>, RunError> {
    let references = references(repo, repo_url, items, &comments);
    let comments: Vec<(String, Comment)> = comments
        .into_iter()
        .map(|c| {
            (
                signal_id(&repo.source, &repo.repo, c.item_kind, &c.item_key),
                c,
            )
        })
        .collect();
    store.store_comments(key, &comments)?;
    Ok(references)
}

/// What each comment names: one text per comment, tagged
/// `comment:<kind>:<host id>` (an edit replaces its keys), read against
/// its item's URL when the run saw the item (a comment updates its item,
/// so it nearly always did), else against the repository's, where
/// `#123` still means an item of it. A comment never sets its item's own
/// key: that comes from the item.
fn references(
    repo: &TrackedRepo,
    repo_url: &str,
    items: &[ItemSnapshot],
    comments: &[Comment],
) -> Vec<ItemReferences> {
    let urls: HashMap<(ItemKind, &str), &str> = items
        .iter()
        .map(|i| ((i.kind(), i.key.as_str()), i.url.as_str()))
        .collect();
    let place = place_of_repo(repo_url);
    comments
        .iter()
        .map(|c| {
            let id = signal_id(&repo.source, &repo.repo, c.item_kind, &c.item_key);
            let tag = format!("comment:{}:{}", c.kind.as_str(), c.host_id);
            match urls.get(&(c.item_kind, c.item_key.as_str())) {
                Some(url) => ItemReferences {
                    own: None,
                    ..of_text(&id, url, &tag, &c.body)
                },
                None => ItemReferences {
                    item_id: id,
                    own: None,
                    text: tag,
                    targets: extract(&c.body, &place.clone().unwrap_or_default()),
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::Timestamp;
    use signals_core::{CommentKind, RepoName, Source};

    fn comment(key: &str, body: &str) -> Comment {
        let at: Timestamp = "2026-11-01T00:00:00Z".parse().unwrap();
        Comment {
            kind: CommentKind::Comment,
            host_id: format!("c{key}"),
            item_kind: ItemKind::Issue,
            item_key: key.into(),
            author: "a".into(),
            association: None,
            bot: false,
            state: None,
            created_at: at,
            updated_at: at,
            body: body.into(),
        }
    }

    #[test]
    fn a_comment_names_items_against_its_item_or_else_its_repository() {
        let repo = TrackedRepo {
            id: "n".into(),
            source: Source::Github.into(),
            repo: RepoName::parse("o/n").unwrap(),
            name: "N".into(),
            keywords: vec![],
        };
        let comments = [
            comment(
                "1",
                "same as other/x#7 and #2 (and #1: itself, left to the store)",
            ),
            comment("9", "see #3"),
        ];
        let found = references(&repo, "https://github.com/o/n", &[], &comments);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].item_id, "github:o/n:issue:1");
        assert_eq!(found[0].text, "comment:comment:c1");
        assert_eq!(found[0].own, None);
        assert!(
            found[0]
                .targets
                .contains(&"github.com/other/x#7".to_string())
        );
        assert!(found[0].targets.contains(&"github.com/o/n#2".to_string()));
        assert_eq!(found[1].targets, vec!["github.com/o/n#3".to_string()]);
    }
}
