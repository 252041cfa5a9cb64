//! Helpers shared by the integration tests: running the binary, writing a
//! configuration that points at a test host, reading datasets back.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The `signals` executable under test.
pub fn signals_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_signals"))
}

/// A fresh temporary folder, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// Creates `target/tmp/it-<name>-<pid>-<n>` (under the target folder, so
    /// nothing is left outside the build tree if a test is killed).
    pub fn new(name: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let dir = base.join(format!(
            "it-{name}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `signals` with `args` in `dir`, with a clean environment: no token
/// and no `SIGNALS_*` variable leaks in from the developer's shell.
pub fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(signals_bin());
    cmd.current_dir(dir).args(args);
    for (k, _) in std::env::vars() {
        if ["SIGNALS_", "GITHUB_", "GITLAB_", "FORGEJO_", "HOST_TOKEN"]
            .iter()
            .any(|p| k.starts_with(p))
        {
            cmd.env_remove(k);
        }
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the signals binary runs")
}

/// Both output streams, for assertion messages.
pub fn show(out: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A `signals.toml` tracking `repos` (`owner/name`) in group `g`, against
/// `api_url`, with a backfill that reaches every recorded item.
pub fn config(api_url: &str, repos: &[&str], extra: &str) -> String {
    let mut text = format!(
        "store = \"signals.db\"\nout = \"site\"\nbackfill_days = 36500\n{extra}\n[host]\napi_url = \"{api_url}\"\nmax_retries = 2\ntimeout_secs = 5\n\n[[groups]]\nid = \"g\"\nname = \"Group\"\n"
    );
    for r in repos {
        text.push_str(&format!(
            "\n[[groups.repos]]\nrepo = \"{r}\"\nkeywords = [\"{r}\"]\n"
        ));
    }
    text
}

/// Reads a JSON file.
pub fn read_json(path: &Path) -> Value {
    let bytes =
        std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap()
}

/// Sets each GitHub issue's and pull request's `comments` to the number
/// of issue comments the scenario lists for it, as GitHub counts them: a
/// count larger than the comments listed says replies were never read,
/// and their item's first response is then not known.
pub fn count_comments(scenario: &mut signals_testhost::Scenario) {
    for data in scenario.repos.values_mut() {
        let mut counts: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
        for c in &data.comments {
            if let Some(number) = c["issue_url"].as_str().and_then(|u| u.rsplit('/').next()) {
                *counts.entry(number.to_string()).or_default() += 1;
            }
        }
        for issue in &mut data.issues {
            let number = issue["number"].to_string();
            issue["comments"] = counts.get(&number).copied().unwrap_or(0).into();
        }
    }
}
