//! The references' check: each stored item's links are the items its
//! latest body and its stored replies' texts name (`#N` in its own
//! repository, `owner/name#N` in another of the group), among the items
//! the store holds, itself apart; and each named item lists it back.

use std::collections::{BTreeMap, BTreeSet};

use signals_store::suite::WholeReads;
use signals_store::{CommentStore, ReferenceReads, RepoKey};

use super::check::{Difference, What};
use super::model::{Limit, Tally, excuse};

/// The store's repositories: (name, key), in the group's order.
pub(super) type Repos<'a> = &'a [(String, RepoKey)];

/// The `(repository, number)`s a text names, `here` for `#N`.
fn named(text: &str, here: &str, repos: Repos) -> Vec<(String, u64)> {
    let mut out = vec![];
    for (at, _) in text.match_indices('#') {
        let digits: String = text[at + 1..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let Ok(number) = digits.parse::<u64>() else {
            continue;
        };
        let before = &text[..at];
        let repo = repos
            .iter()
            .map(|(name, _)| name)
            .find(|name| before.ends_with(name.as_str()));
        match repo {
            Some(name) => out.push((name.clone(), number)),
            None if before.is_empty() || before.ends_with(' ') => {
                out.push((here.to_string(), number));
            }
            None => {}
        }
    }
    out
}

/// The differences between the links of `repos[r]`'s stored items and
/// what their texts name; `tally` counts the links a limit excused.
pub(super) fn check(
    store: &signals_store_sqlite::Store,
    repos: Repos,
    r: usize,
    tally: &mut Tally,
) -> Vec<Difference> {
    // Every stored item of the group by (repository, number).
    let mut by_number: BTreeMap<(String, u64), String> = BTreeMap::new();
    for (name, key) in repos {
        for (id, snapshot) in store.latest_snapshots(*key).expect("the store's snapshots") {
            if let Ok(n) = snapshot.key.parse::<u64>() {
                by_number.insert((name.clone(), n), id);
            }
        }
    }
    let (here, key) = &repos[r];
    let after = store.latest_snapshots(*key).expect("the store's snapshots");
    let mut texts: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (id, snapshot) in &after {
        texts.entry(id).or_default().push(&snapshot.text);
    }
    let comments = store.comment_texts(*key).expect("the comments' texts");
    for (id, body) in &comments {
        if let Some(list) = texts.get_mut(id.as_str()) {
            list.push(body);
        }
    }
    let ids: Vec<String> = after.keys().cloned().collect();
    let links = store.links_of(*key, &ids).expect("the links");
    let mut out = vec![];
    for (id, bodies) in texts {
        let expected: BTreeSet<&str> = bodies
            .iter()
            .flat_map(|t| named(t, here, repos))
            .filter_map(|k| by_number.get(&k).map(String::as_str))
            .filter(|target| *target != id)
            .filter(|target| {
                let discussion = target.contains(":discussion:");
                if discussion {
                    excuse(tally, Limit::DiscussionByNumber);
                }
                !discussion
            })
            .collect();
        let got: BTreeSet<&str> = links
            .get(id)
            .map(|l| l.references.iter().map(|x| x.id.as_str()).collect())
            .unwrap_or_default();
        if got != expected {
            out.push(Difference {
                what: What::References,
                detail: format!("{id} links {got:?}, its texts name {expected:?}"),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_names_its_own_repositorys_and_others_items() {
        let repos = [
            ("acme/repo0".to_string(), RepoKey::from_raw(1)),
            ("acme/repo1".to_string(), RepoKey::from_raw(2)),
        ];
        let found = named(
            "Reply 7. See #3. Same as acme/repo1#12. x#4",
            "acme/repo0",
            &repos,
        );
        assert_eq!(
            found,
            [
                ("acme/repo0".to_string(), 3),
                ("acme/repo1".to_string(), 12)
            ]
        );
    }
}
