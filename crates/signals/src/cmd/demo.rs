//! `signals demo`: collects the bundled recordings of three hosts at two
//! instants and exports the site, offline (`crate::demo`).

use crate::cli::DemoArgs;

/// Runs the demo into `--out` (its store and its site); returns the exit
/// code.
pub fn run(args: &DemoArgs) -> anyhow::Result<u8> {
    let report = crate::demo::demo(&args.out, args.verbose)?;
    println!("{report}");
    Ok(crate::exit::OK)
}
