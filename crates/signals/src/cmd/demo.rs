//! `signals demo`: collects the bundled recordings of three hosts at two
//! instants and exports the site, offline (`crate::demo`).

use crate::cli::DemoArgs;
use crate::hosts::Requests;

/// Runs the demo into `--out` (its store and its site); returns the exit
/// code.
pub fn run(args: &DemoArgs) -> anyhow::Result<u8> {
    let requests = if args.verbose {
        Requests::Logged
    } else {
        Requests::Unlogged
    };
    let report = crate::demo::demo(&args.out, requests)?;
    println!("{report}");
    Ok(crate::exit::OK)
}
