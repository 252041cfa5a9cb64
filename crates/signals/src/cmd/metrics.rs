//! `signals metrics`: the store's Prometheus metrics (`crate::metrics`),
//! printed, or written whole into a file for node_exporter's textfile
//! collector (a cron job next to `collect`).

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use anyhow::Context;

/// Prints them, or replaces `out` with them.
pub fn run(
    store_path: &Path,
    out: Option<&Path>,
    interval: Duration,
    now: jiff::Timestamp,
) -> anyhow::Result<u8> {
    let store = crate::store::open(store_path, crate::store::IfMissing::Refuse)?;
    let text = crate::metrics::text(&store, interval, now)?;
    match out {
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(text.as_bytes())?;
        }
        Some(path) => {
            let (dir, name) = match (path.parent(), path.file_name()) {
                (Some(dir), Some(name)) => (dir, name),
                _ => anyhow::bail!(
                    "--out {} names no file: give a file path such as /var/lib/node_exporter/signals.prom",
                    path.display()
                ),
            };
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            signals_site::write_content(dir, Path::new(name), text.as_bytes())
                .with_context(|| format!("writing the metrics to {}", path.display()))?;
        }
    }
    Ok(crate::exit::OK)
}
