//! Exit codes, documented in the README and the man page: a script (cron,
//! a systemd timer) tells from them whether everything, part, or nothing
//! was done. Engines return them; `main` only passes them on.

/// Everything asked for was done.
pub const OK: u8 = 0;
/// An error stopped the command (bad config, unreadable store, ...), or
/// `validate` found problems.
pub const ERROR: u8 = 1;
/// Bad command-line usage (clap's own code).
// clap exits with it on its own; named so the list is the README's.
#[allow(dead_code)]
pub const USAGE: u8 = 2;
/// `collect`: some repositories failed; the others were committed.
pub const PARTIAL: u8 = 3;
/// `collect`: stopped on a rate limit whose wait exceeded the maximum;
/// runs already committed stay, the rest were not collected.
pub const RATE_LIMITED: u8 = 4;
/// `collect`: the host refused the token (401); stopped at once, since
/// every repository would fail the same way.
pub const UNAUTHORIZED: u8 = 5;
/// `collect`: the host did not answer (connection refused, DNS,
/// timeouts) after the retries; stopped at once.
pub const UNREACHABLE: u8 = 6;
/// Any command: the disk (of the store, the output folder or the
/// temporary folder) is full. Nothing half-written was kept: the store
/// rolled the write back, an export removed its unfinished generation and
/// the site served is the previous one. Free space and run again.
pub const DISK_FULL: u8 = 7;

/// The exit code of a command that stopped on `err`: [`DISK_FULL`] when a
/// full disk is among its causes, else [`ERROR`].
pub fn of_error(err: &anyhow::Error) -> u8 {
    if is_disk_full(err) { DISK_FULL } else { ERROR }
}

/// True when a full disk (or an exhausted disk quota) is among the causes
/// of `err`: the store's own error, or the system's, whoever wrapped it
/// (JSON written straight to a file reports it inside its own error).
pub fn is_disk_full(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<signals_store::StoreError>()
            .is_some_and(signals_store::StoreError::is_disk_full)
            || c.downcast_ref::<std::io::Error>().is_some_and(io_is_full)
            || c.downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind)
                .is_some_and(kind_is_full)
    })
}

/// True when a system error says that the disk, or the user's quota on
/// it, is full.
pub fn io_is_full(e: &std::io::Error) -> bool {
    kind_is_full(e.kind()) || matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT))
}

fn kind_is_full(kind: std::io::ErrorKind) -> bool {
    use std::io::ErrorKind;
    matches!(kind, ErrorKind::StorageFull | ErrorKind::QuotaExceeded)
}

/// The cause to give an error for a child process that exited with
/// [`DISK_FULL`], so that its parent's error counts as a full disk too.
pub fn disk_full_cause() -> std::io::Error {
    std::io::Error::from_raw_os_error(libc::ENOSPC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_anywhere_in_the_chain_is_exit_code_7() {
        let io = anyhow::Error::new(disk_full_cause()).context("could not write x");
        assert_eq!(of_error(&io.context("export failed")), DISK_FULL);
        let quota = anyhow::Error::new(std::io::Error::from_raw_os_error(libc::EDQUOT));
        assert_eq!(of_error(&quota), DISK_FULL);
        let store = anyhow::Error::new(signals_store::StoreError::DiskFull {
            path: "s.db".into(),
            doing: "committing a run",
            disk: "the disk that holds .".into(),
        });
        assert_eq!(of_error(&store.context("collect")), DISK_FULL);
        let other = anyhow::Error::new(std::io::Error::from_raw_os_error(libc::EACCES));
        assert_eq!(of_error(&other), ERROR);
        assert_eq!(of_error(&anyhow::anyhow!("bad config")), ERROR);
    }
}
