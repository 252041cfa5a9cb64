//! `signals status`: each repository's last run, its counts and requests,
//! its last failure, and the rate limits last seen (`crate::status`), as
//! a table or as JSON.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use crate::status::Report;

/// Prints the status table (or JSON) of the store at `store_path`.
pub fn run(
    store_path: &Path,
    as_json: bool,
    interval: Duration,
    now: jiff::Timestamp,
) -> anyhow::Result<u8> {
    let store = crate::store::open(store_path, false)?;
    let report = Report::read(&store, interval, now)?;
    // Buffered: a line per repository, thousands of them (issue 27).
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if as_json {
        serde_json::to_writer_pretty(&mut out, &report.to_json())?;
        writeln!(out)?;
    } else {
        report.write_text(&mut out)?;
    }
    out.flush()?;
    Ok(crate::exit::OK)
}
