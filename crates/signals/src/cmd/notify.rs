//! `signals notify`: delivers the alerts waiting in the outbox and makes
//! the email digests that are due (`crate::alerts`), or with `--dry-run`
//! shows what would be sent.

use anyhow::Context;
use jiff::SignedDuration;

use crate::alerts::{self, Options};
use crate::cli::NotifyArgs;
use crate::config::{Config, parse_duration};
use crate::exit;

/// Runs `signals notify`.
pub fn run(config: &Config, args: &NotifyArgs) -> anyhow::Result<u8> {
    let options = options(args)?;
    let mut store = crate::store::open(&config.store, crate::store::IfMissing::Refuse)?;
    if args.dry_run {
        alerts::dry_run(config, &*store, &mut std::io::stdout().lock())?;
        return Ok(exit::OK);
    }
    let report = alerts::deliver(config, &mut *store, &options)?;
    if !options.quiet || report.failed > 0 {
        println!("{}", report.line());
    }
    Ok(if report.failed > 0 {
        exit::PARTIAL
    } else {
        exit::OK
    })
}

/// The delivery options of the command line.
fn options(args: &NotifyArgs) -> anyhow::Result<Options> {
    let d =
        |flag: &str, v: &str| parse_duration(v).map_err(|m| anyhow::anyhow!("--{flag} {v:?}: {m}"));
    let signed = |flag: &str, v: &str| -> anyhow::Result<SignedDuration> {
        SignedDuration::try_from(d(flag, v)?).with_context(|| format!("--{flag} {v:?} is too long"))
    };
    Ok(Options {
        send_digests: args.send_digests,
        wait: d("wait", &args.wait)?,
        give_up: signed("give-up", &args.give_up)?,
        retry_base: d("retry-base", &args.retry_base)?.max(std::time::Duration::from_millis(10)),
        claim: signed("claim", &args.claim)?,
        timeout: d("timeout", &args.timeout)?.max(std::time::Duration::from_secs(1)),
        quiet: args.quiet,
    })
}
