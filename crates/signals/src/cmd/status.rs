//! `signals status`: each repository's last run, its counts and requests,
//! its last failure, and the rate limits last seen (`crate::status`), as
//! a table or as JSON.

use crate::cli::StatusArgs;
use crate::config::Config;
use crate::status::Report;
use std::io::Write;

/// Prints the status table (or JSON) of the store of `config`.
pub fn run(config: &Config, args: &StatusArgs) -> anyhow::Result<u8> {
    let store = crate::store::open(&config.store, crate::store::IfMissing::Refuse)?;
    let report = Report::read(&store, config)?;
    // Buffered: a line per repository, thousands of them.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report.to_json())?;
        writeln!(out)?;
    } else {
        report.write_text(&mut out)?;
    }
    out.flush()?;
    Ok(crate::exit::OK)
}
