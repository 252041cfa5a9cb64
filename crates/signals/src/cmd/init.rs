//! `signals init`: writes the commented example configuration.

use std::path::Path;

use anyhow::{Context, bail};

use crate::cli::InitArgs;
use crate::config::EXAMPLE;

/// Writes the example to `path`, refusing to overwrite unless `--force`.
pub fn run(path: &Path, args: &InitArgs) -> anyhow::Result<u8> {
    if path.exists() && !args.force {
        bail!(
            "{} already exists: edit it, or pass --force to overwrite it with the example",
            path.display()
        );
    }
    std::fs::write(path, EXAMPLE).with_context(|| format!("cannot write {}", path.display()))?;
    println!(
        "wrote {}: list your groups and repositories there, then run `signals collect`",
        path.display()
    );
    Ok(crate::exit::OK)
}
