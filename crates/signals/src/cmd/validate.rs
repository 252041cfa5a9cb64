//! `signals validate FILE...`: prints every problem with its JSON pointer.

use std::path::PathBuf;

use anyhow::Context;

/// Checks each file; exit 1 when any has a problem.
pub fn run(files: &[PathBuf]) -> anyhow::Result<u8> {
    let mut bad = 0usize;
    for file in files {
        let bytes =
            std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
        let problems = crate::validate::check(&bytes);
        if problems.is_empty() {
            println!("{}: ok", file.display());
        } else {
            bad += 1;
            for p in &problems {
                println!("{}: {p}", file.display());
            }
        }
    }
    if bad > 0 {
        eprintln!("{bad} of {} documents have problems", files.len());
        Ok(crate::exit::ERROR)
    } else {
        Ok(crate::exit::OK)
    }
}
