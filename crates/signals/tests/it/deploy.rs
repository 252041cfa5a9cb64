//! The systemd units of `docs/deploy/`: each is shown in
//! `docs/deploy.md` exactly as its file holds it, none has a comment at the
//! end of a setting's line (systemd reads it as part of the value, and
//! `systemd-analyze verify` does not notice), and `systemd-analyze verify`
//! accepts them without a word.
//!
//! `verify` requires each command of `ExecStart=` to exist and be
//! executable, so it checks copies whose `/usr/local/bin/signals` (where
//! `docs/deploy.md` installs it) is replaced by the binary under test.
//! Without `systemd-analyze` the test prints "skipped: ..." after the other
//! checks and passes, unless `SIGNALS_REQUIRE_SYSTEMD=1` (set in CI), where
//! it fails.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{self, TempDir};

/// Where `docs/deploy.md` installs the binary, as the units name it.
const INSTALLED: &str = "/usr/local/bin/signals";

fn docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs")
}

/// `(file name, text)` of every unit in `docs/deploy/`, sorted.
fn units() -> Vec<(String, String)> {
    let mut units: Vec<(String, String)> = std::fs::read_dir(docs().join("deploy"))
        .expect("docs/deploy/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x == "service" || x == "timer")
        })
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    units.sort();
    units
}

#[test]
fn deploy_md_shows_each_unit_as_its_file_holds_it() {
    let doc = std::fs::read_to_string(docs().join("deploy.md")).unwrap();
    let units = units();
    assert!(
        units.len() >= 6,
        "docs/deploy/ should hold the timer, worker, export and serve units: {:?}",
        units.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
    for (name, text) in &units {
        assert!(
            doc.contains(&format!("`docs/deploy/{name}`")),
            "docs/deploy.md does not name docs/deploy/{name}"
        );
        assert!(
            doc.contains(&format!("```ini\n{text}```")),
            "docs/deploy.md does not show docs/deploy/{name} as the file holds it"
        );
    }
}

#[test]
fn deploy_units_have_no_comment_after_a_setting() {
    for (name, text) in units() {
        for (n, line) in text.lines().enumerate() {
            let line = line.trim_start();
            if line.is_empty() || line.starts_with(['#', ';', '[']) {
                continue;
            }
            assert!(
                !line.contains(" #") && !line.contains("\t#"),
                "{name}:{}: a comment after a setting is part of its value for systemd: {line}",
                n + 1
            );
        }
    }
}

#[test]
fn deploy_units_pass_systemd_analyze_verify() {
    let Some(analyze) = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"]
        .map(PathBuf::from)
        .into_iter()
        .find(|p| p.is_file())
    else {
        if std::env::var("SIGNALS_REQUIRE_SYSTEMD").as_deref() == Ok("1") {
            panic!(
                "systemd-analyze not found and SIGNALS_REQUIRE_SYSTEMD=1; install it \
                 (Debian: apt-get install systemd)"
            );
        }
        // Straight to stderr: the test harness captures `eprintln!`.
        let _ = writeln!(
            std::io::stderr(),
            "skipped: systemd-analyze not found, the units of docs/deploy/ were not verified \
             (set SIGNALS_REQUIRE_SYSTEMD=1 to make this a failure)"
        );
        return;
    };
    let dir = TempDir::new("deploy");
    let bin = support::signals_bin();
    let bin = bin.to_str().expect("the binary's path is UTF-8");
    assert!(
        !bin.contains(char::is_whitespace),
        "the unit copies cannot name a binary whose path has spaces: {bin}"
    );
    let mut paths = Vec::new();
    for (name, text) in units() {
        let path = dir.path().join(&name);
        std::fs::write(&path, text.replace(INSTALLED, bin)).unwrap();
        paths.push(path);
    }
    let out = Command::new(&analyze)
        .arg("verify")
        // Documentation= is not checked against installed man pages.
        .arg("--man=no")
        .args(&paths)
        .output()
        .expect("systemd-analyze runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // Anything it says of our units is a fault (an unknown key, a value it
    // ignores, a missing command): it exits 0 on most of them. Lines about
    // the machine itself are not ours to judge.
    let ours: Vec<&str> = said
        .lines()
        .filter(|l| {
            units()
                .iter()
                .any(|(n, _)| l.contains(n.as_str()) || l.contains(&n.replace("@.", "@i.")))
        })
        .collect();
    assert!(
        out.status.success() && ours.is_empty(),
        "systemd-analyze verify {}: {}\n{said}",
        paths
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy())
            .collect::<Vec<_>>()
            .join(" "),
        out.status
    );
}
