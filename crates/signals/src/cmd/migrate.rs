//! `signals migrate --from <store> --to <store>`: copies a store into a new
//! one of either kind, then verifies the copy (`crate::migrate`).

use signals_core::importance::Weights;

use crate::cli::MigrateArgs;

/// Runs `signals migrate`.
pub fn run(args: &MigrateArgs, weights: &Weights) -> anyhow::Result<u8> {
    let copied = crate::migrate::copy(&args.from, &args.to)?;
    println!(
        "copied {} rows: {}",
        copied.counts.iter().map(|(_, n)| n).sum::<u64>(),
        copied
            .counts
            .iter()
            .map(|(t, n)| format!("{t} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let files = crate::migrate::verify(&copied, weights)?;
    println!(
        "verified: {files} exported files are identical from both stores; {} is ready",
        crate::store::shown(&args.to)
    );
    Ok(crate::exit::OK)
}
