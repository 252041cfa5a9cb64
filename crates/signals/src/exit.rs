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
