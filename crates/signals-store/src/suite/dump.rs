//! Checks of [`crate::Dump`]: a copy holds everything, ids kept.

use jiff::SignedDuration;
use signals_core::{ItemState, RepoName, TrackedRepo};

use super::outbox::alerting_run;
use super::owners::{known, stats};
use super::*;
use crate::{CachedResponse, RateLimit, StoreError};

/// A dump loaded into a fresh store gives the same rows, counts and views;
/// a store that holds data refuses a load.
pub fn dump_and_load_copy_everything(make: Factory<'_>) {
    let mut store = make();
    let key = store.ensure_repository(&group(), &tracked()).unwrap();
    let t1 = ts("2026-11-20T10:00:00.001Z");
    let rules = [("now", false), ("mail", true)];
    let mut run = alerting_run(&*store, key, t1, vec![issue("1"), issue("2")], &rules);
    // A download count to copy.
    run.downloads = vec![signals_core::AssetCount {
        asset: "41".into(),
        count: 3,
    }];
    store.commit_run(key, &run).unwrap();
    let mut changed = issue("1");
    changed.state = ItemState::Closed;
    // A reference: keys, references and a mark to copy.
    changed.text = "duplicate of #2".into();
    let t2 = ts("2026-11-21T10:00:00Z");
    let mut run = alerting_run(&*store, key, t2, vec![changed], &rules);
    // The kept count of open pull requests and a difference.
    run.open_pulls = crate::KeptPulls::Differed { kept: 2, host: 3 };
    store.commit_run(key, &run).unwrap();
    // A lifecycle judgement of that run.
    let judgement = super::lifecycle_record(
        signals_core::lifecycle::State::Active,
        "2026-11-21T10:00:00Z",
    );
    store.record_lifecycle(key, t2, &judgement, &[]).unwrap();
    // Who merged a pull request.
    let merge = super::merge_of("1", "m", "2026-11-21T09:00:00Z");
    store.store_merges(key, &[merge]).unwrap();
    // Alerts: one delivered, one pending, two held folded into a digest
    // (which references its parts' digest row, made after them).
    let sent = store
        .outbox_claim(t2, SignedDuration::from_secs(60))
        .unwrap()
        .unwrap();
    store
        .outbox_settle(sent.id, t2, &crate::Settle::Delivered)
        .unwrap();
    let held = store
        .outbox_messages(crate::MessageState::Held, None)
        .unwrap();
    let payloads: Vec<_> = held.iter().map(|m| m.payload.clone()).collect();
    let digest = signals_core::notify::digest("mail", &payloads, 10, t2).unwrap();
    let parts: Vec<i64> = held.iter().map(|m| m.id).collect();
    assert!(store.outbox_digest(&parts, &digest, t2).unwrap());
    store
        .record_failure(key, t2, "http", "500 \u{1F600}")
        .unwrap();
    let response = CachedResponse {
        etag: None,
        last_modified: None,
        link_next: None,
        body: vec![0, 159, 255],
    };
    store.cache_put("https://h/x", "fp", &response, t2).unwrap();
    let limit = RateLimit {
        limit: 60,
        remaining: 1,
        reset: Some(t2),
        used: None,
        resource: None,
    };
    store.rate_limit_put("fp", &limit, t2).unwrap();
    let owner = crate::OwnerRef {
        group: &group(),
        host: "github",
        owner: "o",
    };
    assert!(store.owner_claim(owner, t2, SignedDuration::ZERO).unwrap());
    // A renamed one: its host id, first name and rename are copied too.
    let mut renamed = known("o/b2", "b", "tracked", t1);
    renamed.host_id = Some(42);
    renamed.tracked_as = Some(RepoName::parse("o/b").unwrap());
    renamed.renamed_at = Some(t2);
    store
        .owner_listed(
            owner,
            t2,
            &[known("o/a", "a", "tracked", t2), renamed.clone()],
            &stats(2, 1),
        )
        .unwrap();
    // A reply, its body a text of its own.
    let at = ts("2026-11-20T11:00:00Z");
    let reply = signals_core::model::Comment {
        kind: signals_core::model::CommentKind::Review,
        host_id: "9".into(),
        item_kind: signals_core::ItemKind::Issue,
        item_key: "1".into(),
        author: "m".into(),
        association: Some("MEMBER".into()),
        bot: true,
        state: Some("APPROVED".into()),
        created_at: at,
        updated_at: at,
        body: "a reply of its own".into(),
    };
    store
        .store_comments(key, &[(id(&issue("1")), reply)])
        .unwrap();

    let mut rows = Vec::new();
    store
        .dump(&mut |r| {
            rows.push(r);
            Ok(())
        })
        .unwrap();
    let mut copy = make();
    copy.load(&mut rows.clone().into_iter().map(Ok)).unwrap();
    assert_eq!(copy.table_counts().unwrap(), store.table_counts().unwrap());
    assert!(copy.table_counts().unwrap().iter().all(|(_, n)| *n > 0));
    assert_eq!(
        copy.repository_view(key).unwrap(),
        store.repository_view(key).unwrap()
    );
    assert_eq!(copy.status().unwrap(), store.status().unwrap());
    let ids = ["github:o/n:issue:1".to_string()];
    assert_eq!(
        copy.links_of(key, &ids).unwrap(),
        store.links_of(key, &ids).unwrap()
    );
    assert_eq!(
        copy.references_mark(key).unwrap(),
        store.references_mark(key).unwrap()
    );
    assert_eq!(copy.cache_get("https://h/x", "fp").unwrap(), Some(response));
    assert_eq!(copy.replies(key).unwrap(), store.replies(key).unwrap());
    assert_eq!(copy.lifecycle(key).unwrap(), store.lifecycle(key).unwrap());
    assert!(store.kept_pulls(key).unwrap().differed.is_some());
    assert_eq!(
        copy.kept_pulls(key).unwrap(),
        store.kept_pulls(key).unwrap()
    );
    assert_eq!(
        copy.comment_texts(key).unwrap(),
        store.comment_texts(key).unwrap()
    );
    assert_eq!(
        copy.owners_status().unwrap(),
        store.owners_status().unwrap()
    );
    assert_eq!(copy.owners_status().unwrap()[0].repos[1], renamed);
    assert_eq!(
        copy.outbox_status().unwrap(),
        store.outbox_status().unwrap()
    );
    assert_eq!(
        copy.outbox_messages(crate::MessageState::Pending, None)
            .unwrap(),
        store
            .outbox_messages(crate::MessageState::Pending, None)
            .unwrap()
    );
    let mut again = Vec::new();
    copy.dump(&mut |r| {
        again.push(r);
        Ok(())
    })
    .unwrap();
    assert_eq!(again, rows);
    // The copy goes on as the original would: new ids do not collide.
    let t3 = ts("2026-11-22T10:00:00Z");
    let run = run_of(&*copy, key, t3, vec![issue("3")], 1);
    copy.commit_run(key, &run).unwrap();
    let other = TrackedRepo {
        id: "m".into(),
        ..tracked()
    };
    copy.ensure_repository(&group(), &other).unwrap();

    let err = copy.load(&mut rows.into_iter().map(Ok)).unwrap_err();
    assert!(matches!(err, StoreError::NotEmpty { .. }), "{err:?}");
}
