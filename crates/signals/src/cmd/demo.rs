//! `signals demo`: collects the bundled recordings of three hosts at two
//! instants and exports the site, offline (`crate::demo`).

use std::path::Path;

/// Runs the demo into `out` (its store and its site); returns the exit code.
pub fn run(out: &Path, verbose: bool) -> anyhow::Result<u8> {
    let report = crate::demo::demo(out, verbose)?;
    println!("{report}");
    Ok(crate::exit::OK)
}
