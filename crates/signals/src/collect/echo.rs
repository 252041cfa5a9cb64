//! Which new items of a run tell a story already told in another
//! repository of their group, for the `echo` alert event: only when some
//! `[[notify]]` rule asks for it, and not on a repository's first run.
//! The run's new issues, pull requests and discussions are weighed
//! against the group's stored profiles (`signals_core::related`) before
//! the run commits, so the alert is committed with its run; no request
//! to the host. The lists themselves are written after the commit
//! (`crate::related::catch_up`), the same scores from the same profiles.

use std::collections::HashSet;

use signals_core::dataset::RelatedDoc;
use signals_core::notify::{Echoed, Trigger};
use signals_core::related::{self, Corpus, Member, Profile};
use signals_core::run::RunDelta;
use signals_core::{Group, ItemKind, ItemState, Observation};
use signals_store::{Backend, RepoKey, StoreError};

use super::run::{Alerts, RunError};

/// The run's new items that have related items in other repositories of
/// `group`, with those; empty when no rule asks for `echo`. Not called on
/// a repository's first run.
pub(super) fn echoing(
    store: &dyn Backend,
    key: RepoKey,
    group: &Group,
    delta: &RunDelta,
    alerts: &Alerts<'_>,
) -> Result<Vec<Echoed>, RunError> {
    let asked = alerts
        .rules
        .iter()
        .any(|r| r.rule.events.contains(&Trigger::Echo));
    if !asked {
        return Ok(Vec::new());
    }
    let discovered: HashSet<&str> = delta
        .events
        .iter()
        .filter(|e| e.observation == Observation::Discovered)
        .map(|e| e.item_id.as_str())
        .collect();
    let new: Vec<_> = delta
        .snapshots
        .iter()
        .filter(|(id, s)| discovered.contains(id.as_str()) && s.kind() != ItemKind::Release)
        .collect();
    if new.is_empty() {
        return Ok(Vec::new());
    }
    let mut members = Vec::new();
    for p in store.related_profiles(&group.id)? {
        if p.item.repo == key && discovered.contains(p.item.id.as_str()) {
            continue;
        }
        let profile = Profile::decode(&p.profile).map_err(|e| StoreError::Corrupt {
            path: format!("repository {}", p.item.repo).into(),
            what: format!("the related items' profile of {}: {e}", p.item.id),
        })?;
        members.push(Member {
            id: p.item.id,
            repo: p.item.repo.raw(),
            open: p.open,
            profile,
        });
    }
    for (id, s) in &new {
        members.push(Member {
            id: id.clone(),
            repo: key.raw(),
            open: s.state == ItemState::Open,
            profile: related::profile(&s.title, &s.text),
        });
    }
    let corpus = Corpus::new(members);
    let mut out = Vec::new();
    for (id, s) in new {
        let others: Vec<RelatedDoc> = corpus
            .neighbours(id)
            .into_iter()
            .filter(|n| n.repo != key.raw())
            .take(related::SHOWN)
            .map(|n| RelatedDoc {
                id: n.id,
                score: n.score,
                shared: n.shared,
            })
            .collect();
        if !others.is_empty() {
            out.push(Echoed {
                item: s.clone(),
                others,
            });
        }
    }
    Ok(out)
}
