//! Which new items of a run tell a story already told in another
//! repository of their group, for the `echo` alert event: only when some
//! `[[notify]]` rule asks for it, and not on a repository's first run.
//! The run's new issues, pull requests and discussions are weighed
//! against the group's stored vectors (`crate::related::echoes`) before
//! the run commits, so the alert is committed with its run; no request
//! to the host. The lists themselves are written after the commit
//! (`crate::related::catch_up`), the same scores from the same profiles.

use std::collections::HashSet;

use signals_core::dataset::RelatedDoc;
use signals_core::notify::{Echoed, Trigger};
use signals_core::related;
use signals_core::run::RunDelta;
use signals_core::{Group, Observation};
use signals_store::{Backend, RepoKey};

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
    let new: Vec<(&String, &signals_core::ItemSnapshot)> = delta
        .snapshots
        .iter()
        .map(|(id, s)| (id, s))
        .filter(|(id, s)| discovered.contains(id.as_str()) && related::compared(s.kind()))
        .collect();
    if new.is_empty() {
        return Ok(Vec::new());
    }
    let echoes = crate::related::echoes(store, &group.id, key, &new)?;
    let mut out = Vec::new();
    for (id, s) in new {
        let Some(others) = echoes.iter().find(|e| e.0 == **id).map(|e| &e.1) else {
            continue;
        };
        if !others.is_empty() {
            out.push(Echoed {
                item: s.clone(),
                others: others
                    .iter()
                    .map(|n| RelatedDoc {
                        id: n.id.clone(),
                        score: n.score,
                        shared: n.shared.clone(),
                    })
                    .collect(),
            });
        }
    }
    Ok(out)
}
