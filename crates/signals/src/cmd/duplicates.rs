//! `signals duplicates`: how well the related items find the duplicates
//! the hosts mark, per group, at each threshold (`crate::duplicates`).

use std::collections::BTreeMap;

use anyhow::Context;
use signals_core::related::MarkedBy;

use crate::cli::DuplicatesArgs;
use crate::config::Config;

/// Measures each group of the store (or `--group` alone) and prints a
/// table per group.
pub fn run(config: &Config, args: &DuplicatesArgs) -> anyhow::Result<u8> {
    let mut store = crate::store::open(&config.store, crate::store::IfMissing::Refuse)?;
    let mut groups: BTreeMap<String, String> = BTreeMap::new();
    for summary in store.repositories()? {
        groups.insert(summary.group.id, summary.group.name);
    }
    if let Some(only) = &args.group {
        if !groups.contains_key(only) {
            let known: Vec<&str> = groups.keys().map(String::as_str).collect();
            anyhow::bail!(
                "no group `{only}` in the store at {}: its groups are {}; give one of them to --group",
                config.store.display(),
                if known.is_empty() {
                    "none yet (run `signals collect` first)".to_string()
                } else {
                    known.join(", ")
                }
            );
        }
        groups.retain(|id, _| id == only);
    }
    for (id, name) in &groups {
        crate::related::catch_up(&mut *store, id)
            .with_context(|| format!("cannot bring the related items of group {id} up to date"))?;
        let measured = crate::duplicates::measure(&*store, id)
            .with_context(|| format!("cannot measure the related items of group {id}"))?;
        print!("{}", report(id, name, &measured));
    }
    Ok(crate::exit::OK)
}

/// The text printed for one group.
fn report(id: &str, name: &str, m: &crate::duplicates::Measured) -> String {
    let mut out = format!(
        "Group {id} ({name}): {} duplicates marked by the hosts among {} items compared\n",
        m.marks.marked.len(),
        m.items
    );
    let ways = m.marks.by_way();
    let counts: Vec<String> = [
        MarkedBy::Comment,
        MarkedBy::CloseReason,
        MarkedBy::Label,
        MarkedBy::HostLink,
    ]
    .iter()
    .map(|by| format!("{} by {}", ways.get(by).copied().unwrap_or(0), by.as_str()))
    .collect();
    out.push_str(&format!("  marked: {}\n", counts.join(", ")));
    out.push_str(&format!(
        "  marked but left out (no single original among the group's items): {}\n",
        m.marks.unresolved
    ));
    if m.marks.marked.is_empty() {
        out.push_str("  nothing to measure\n\n");
        return out;
    }
    out.push('\n');
    out.push_str(&signals_core::related::table("marked", &m.quality));
    out.push('\n');
    out
}
