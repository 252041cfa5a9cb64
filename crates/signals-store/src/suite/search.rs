//! Checks of [`crate::SearchIndex`]: the word index follows the
//! latest snapshots and their comments, costs what changed, refuses a
//! state that moved, keeps repositories apart, and orders terms by bytes.

use std::collections::HashMap;

use signals_core::model::{Comment, CommentKind, ItemKind};
use signals_core::search::{Positions, Query, evaluate};

use super::*;
use crate::search::{Postings, SearchUpdate, catch_up};

fn found(store: &dyn Backend, key: RepoKey, q: &str) -> Vec<String> {
    let docs: HashMap<u32, String> = store
        .search_docs(key)
        .unwrap()
        .into_iter()
        .map(|(id, doc)| (doc, id))
        .collect();
    let stats = store.search_state(key).unwrap().stats;
    let query = Query::parse(q).unwrap();
    let mut source = Postings { store, repo: key };
    let mut ids: Vec<String> = evaluate(&query, stats, &mut source)
        .unwrap()
        .iter()
        .map(|h| docs[&h.doc].clone())
        .collect();
    ids.sort();
    ids
}

fn titled(key: &str, title: &str, body: &str) -> ItemSnapshot {
    let mut item = issue(key);
    item.title = title.into();
    item.text = body.into();
    item
}

/// The index follows the latest snapshots and comments, a second catch-up
/// reads nothing, a changed item loses its old words, prefixes expand in
/// byte order, a stale update is refused, and a purge takes the index.
pub fn the_word_index_follows_the_latest_snapshots(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let mut other_repo = tracked();
    other_repo.id = "other".into();
    let other = store.ensure_repository(&group(), &other_repo).unwrap();
    let items = vec![
        titled("1", "Crash on start", "segfault in torch.compile"),
        titled("2", "Über slow build", "修复内存泄漏"),
        titled("3", "Docs", "typo"),
    ];
    let commit = run_of(&*store, key, ts("2026-11-20T10:00:00Z"), items, 1);
    store.commit_run(key, &commit).unwrap();
    let comment = Comment {
        kind: CommentKind::Comment,
        host_id: "c1".into(),
        item_kind: ItemKind::Issue,
        item_key: "3".into(),
        author: "bob".into(),
        association: None,
        bot: false,
        state: None,
        created_at: ts("2026-11-20T09:00:00Z"),
        updated_at: ts("2026-11-20T09:00:00Z"),
        body: "also a CUDA_VISIBLE_DEVICES problem".into(),
    };
    store
        .store_comments(key, &[(id(&issue("3")), comment)])
        .unwrap();
    assert_eq!(catch_up(&mut *store, key).unwrap(), 3);
    assert_eq!(catch_up(&mut *store, key).unwrap(), 0, "nothing changed");
    let (one, two, three) = (id(&issue("1")), id(&issue("2")), id(&issue("3")));
    assert_eq!(found(&*store, key, "crash"), [one.as_str()]);
    assert_eq!(found(&*store, key, "uber"), [two.as_str()]);
    assert_eq!(found(&*store, key, "内存"), [two.as_str()]);
    assert_eq!(found(&*store, key, "compile"), [one.as_str()]);
    assert_eq!(
        found(&*store, key, "cuda_visible_devices"),
        [three.as_str()]
    );
    assert_eq!(
        found(&*store, key, "alice"),
        [one.as_str(), two.as_str(), three.as_str()]
    );
    assert_eq!(
        found(&*store, key, "bug -crash"),
        [two.as_str(), three.as_str()]
    );
    assert_eq!(
        store.search_expand(key, "se", 10).unwrap(),
        ["segfault"],
        "a prefix is a key range"
    );
    let mut expanded = store.search_expand(key, "", 100).unwrap();
    let mut sorted = expanded.clone();
    sorted.sort();
    assert_eq!(expanded, sorted, "terms come in byte order");
    expanded.dedup();
    assert_eq!(expanded.len(), sorted.len(), "each term once");
    let before = store.search_state(key).unwrap();
    assert_eq!(before.stats.docs, 3);

    // Item 1 changes: its old words go, its new ones come; item 4 is new.
    let items = vec![
        titled("1", "Hang on start", "deadlock"),
        titled("4", "Crash again", "crash"),
    ];
    let commit = run_of(&*store, key, ts("2026-11-21T10:00:00Z"), items, 1);
    store.commit_run(key, &commit).unwrap();
    assert_eq!(catch_up(&mut *store, key).unwrap(), 2, "only what changed");
    assert_eq!(found(&*store, key, "crash"), [id(&issue("4")).as_str()]);
    assert_eq!(found(&*store, key, "deadlock"), [one.as_str()]);
    assert!(found(&*store, key, "segfault").is_empty());
    let after = store.search_state(key).unwrap();
    let changed = store.search_terms_written(key, before.through).unwrap();
    assert!(
        changed.iter().any(|t| t == "segfault"),
        "emptied: {changed:?}"
    );
    assert!(changed.iter().any(|t| t == "deadlock"), "new: {changed:?}");
    assert!(
        !changed.iter().any(|t| t == "uber"),
        "untouched: {changed:?}"
    );
    let blocks = word_index_blocks(&*store, key);
    assert!(blocks.windows(2).all(|w| w[0].0 < w[1].0), "term order");
    assert!(
        blocks.iter().all(|b| !b.2.is_empty() && !b.3.is_empty()),
        "no empty block"
    );
    // A word's read leaves the positions on the server; a phrase's takes
    // them, and they decode with the counts.
    let bare = store.search_blocks(key, "crash", Positions::Skip).unwrap();
    assert!(bare.len() == 1 && bare[0].positions.is_empty() && !bare[0].docs.is_empty());
    let whole = store.search_blocks(key, "crash", Positions::Read).unwrap();
    assert_eq!(whole[0].docs, bare[0].docs);
    let mut entries = Vec::new();
    signals_core::search::postings::decode(&whole[0].docs, Some(&whole[0].positions), &mut entries)
        .unwrap();
    assert_eq!(entries.len(), 1);
    assert!(!entries[0].positions.is_empty());
    assert!(!blocks.iter().any(|b| b.0 == "segfault"));
    assert_eq!(after.stats.docs, 4);
    assert_eq!(after.next_doc, 4, "a changed item keeps its number");
    assert!(after.through > before.through);

    // A comment stored on its own (an edit: no new snapshot of its item)
    // reaches the index at the next catch-up, and only its item is read.
    let edit = Comment {
        kind: CommentKind::Comment,
        host_id: "c2".into(),
        item_kind: ItemKind::Issue,
        item_key: "2".into(),
        author: "carol".into(),
        association: None,
        bot: false,
        state: None,
        created_at: ts("2026-11-21T11:00:00Z"),
        updated_at: ts("2026-11-21T11:00:00Z"),
        body: "a kernel panic too".into(),
    };
    store.store_comments(key, &[(two.clone(), edit)]).unwrap();
    assert_eq!(catch_up(&mut *store, key).unwrap(), 1, "the commented item");
    assert_eq!(found(&*store, key, "panic"), [two.as_str()]);
    assert_eq!(
        found(&*store, key, "uber"),
        [two.as_str()],
        "its own words stay"
    );
    assert_eq!(catch_up(&mut *store, key).unwrap(), 0, "the mark is gone");

    // A state that moved is refused, and nothing is written.
    let stale = SearchUpdate {
        from: before,
        to: before,
        blocks: vec![("crash".into(), 0, Default::default())],
        docs: vec![],
        read: vec![],
    };
    assert!(!store.search_apply(key, &stale).unwrap());
    assert_eq!(found(&*store, key, "crash"), [id(&issue("4")).as_str()]);

    // The other repository has its own index; a purge takes this one.
    assert!(
        store
            .search_blocks(other, "crash", Positions::Read)
            .unwrap()
            .is_empty()
    );
    store.purge_repository(key).unwrap();
    assert!(
        store
            .search_blocks(key, "crash", Positions::Read)
            .unwrap()
            .is_empty()
    );
    assert!(store.search_docs(key).unwrap().is_empty());
    assert_eq!(store.search_state(key).unwrap(), Default::default());
}

/// The lists of several terms read at once (a prefix's) are each term's
/// own list, without positions, in the order asked for: a term asked
/// twice gets its list twice, a term with no document an empty one; and
/// a prefix finds what its terms find one by one.
pub fn a_prefix_reads_the_lists_of_its_terms_at_once(make: Factory<'_>) {
    let mut store = make();
    let key = indexed_repository(&mut *store);
    let terms: Vec<String> = ["start", "crash", "nowhere", "crash", "compile", "修复"]
        .iter()
        .map(|t| t.to_string())
        .collect();
    let lists = store.search_blocks_of(key, &terms).unwrap();
    assert_eq!(lists.len(), terms.len());
    for (term, list) in terms.iter().zip(&lists) {
        let alone = store.search_blocks(key, term, Positions::Skip).unwrap();
        assert_eq!(list, &alone, "{term}");
        assert_eq!(list.is_empty(), term == "nowhere", "{term}");
        assert!(list.iter().all(|b| b.positions.is_empty()), "{term}");
    }
    let expanded = store.search_expand(key, "tor", 100).unwrap();
    assert!(expanded.len() >= 2, "{expanded:?}");
    let mut one_by_one: Vec<String> = expanded
        .iter()
        .flat_map(|t| found(&*store, key, t))
        .collect();
    one_by_one.sort();
    one_by_one.dedup();
    assert_eq!(found(&*store, key, "tor*"), one_by_one);
    assert!(!one_by_one.is_empty(), "{one_by_one:?}");
    let mut other_repo = tracked();
    other_repo.id = "other".into();
    let other = store.ensure_repository(&group(), &other_repo).unwrap();
    assert!(
        store
            .search_blocks_of(other, &terms)
            .unwrap()
            .iter()
            .all(Vec::is_empty),
        "another repository's index is its own"
    );
}

/// A repository whose items are indexed, for the migration tests of the
/// word index: its key. Its words repeat across items and within one, so
/// blocks hold several entries with several positions.
pub fn indexed_repository(store: &mut dyn Backend) -> RepoKey {
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let items = vec![
        titled(
            "1",
            "Crash on start",
            "segfault in torch.compile, crash again",
        ),
        titled("2", "Über slow build", "修复内存泄漏 on start"),
        titled("3", "Docs", "typo crash"),
        titled(
            "4",
            "Out of memory",
            "out of memory when CUDA_VISIBLE_DEVICES is set",
        ),
    ];
    let commit = run_of(&*store, key, ts("2026-11-20T10:00:00Z"), items, 1);
    store.commit_run(key, &commit).unwrap();
    assert_eq!(catch_up(&mut *store, key).unwrap(), 4);
    key
}

/// Every block of `key`'s word index: term, number, documents' part,
/// positions' part.
pub fn word_index_blocks(
    store: &dyn Backend,
    key: RepoKey,
) -> Vec<(String, u32, Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    store
        .search_each_block(key, &mut |term, block, docs, positions| {
            out.push((term.to_string(), block, docs.to_vec(), positions.to_vec()));
            Ok(())
        })
        .unwrap();
    out
}

/// What a few queries find in [`indexed_repository`]: a word, a phrase, a
/// prefix, an exclusion, characters without spaces.
pub fn word_index_answers(store: &dyn Backend, key: RepoKey) -> Vec<Vec<String>> {
    let answers: Vec<Vec<String>> = [
        "crash",
        "\"on start\"",
        "seg*",
        "crash -docs",
        "内存",
        "\"out of memory\"",
    ]
    .iter()
    .map(|q| found(store, key, q))
    .collect();
    assert!(answers.iter().all(|a| !a.is_empty()), "{answers:?}");
    answers
}

/// A block as the index's first format kept it (before migration 0018):
/// one string, each entry's positions right after its counts.
pub fn first_format(docs: &[u8], positions: &[u8]) -> Vec<u8> {
    let mut entries = Vec::new();
    signals_core::search::postings::decode(docs, Some(positions), &mut entries).unwrap();
    signals_core::search::postings::encode_first_format(&entries)
}
