//! The README's shell examples, run against the demo, so they
//! cannot drift from the program again.
//!
//! A fenced `sh` block right after the line
//! `<!-- ci: runs against the demo (crates/signals/tests/it/readme.rs) -->`
//! is run, command by command, in a folder where `signals demo` has just
//! written `signals-demo/`, as a newcomer runs them from a clone: `cargo
//! run --` (with or without `--release`) stands for the program under
//! test. Each command must exit 0 and write nothing to standard error. A
//! `serve` command, which runs until stopped, must answer `/api/` and is
//! then stopped. `sqlite3` examples need the `sqlite3` program (Debian's
//! `sqlite3`): without it they are skipped with a notice, unless
//! `SIGNALS_REQUIRE_SQLITE3=1` (CI installs it and sets that).

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{TempDir, run, show, signals_bin};

/// The line that marks a block to run.
const MARK: &str = "<!-- ci: runs against the demo (crates/signals/tests/it/readme.rs) -->";

/// The marked blocks of `readme`, each as its text.
fn marked_blocks(readme: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        if line.trim() != MARK {
            continue;
        }
        let fence = lines.next().unwrap_or("");
        assert_eq!(fence.trim(), "```sh", "a marked block must follow its mark");
        let mut block = String::new();
        for line in lines.by_ref() {
            if line.trim() == "```" {
                break;
            }
            block.push_str(line);
            block.push('\n');
        }
        blocks.push(block);
    }
    blocks
}

/// Whether a line of a block is a `serve` command (one line: it runs
/// until stopped, so it is started and checked apart).
fn is_serve(line: &str) -> bool {
    !line.trim_end().ends_with('\\')
        && line
            .split(" #")
            .next()
            .unwrap()
            .trim_end()
            .ends_with(" serve")
}

/// `command` as run here: `cargo run [--release] --` is the program under
/// test, as a newcomer's clone would build it.
fn as_run_here(command: &str) -> String {
    let bin = signals_bin();
    let bin = bin.to_str().unwrap();
    command
        .replace("cargo run --release --", bin)
        .replace("cargo run --", bin)
}

/// Whether the `sqlite3` program runs; a skip notice (or a failure, when
/// required) when not.
fn sqlite3_available() -> bool {
    let found = Command::new("sqlite3")
        .arg("-version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var("SIGNALS_REQUIRE_SQLITE3").as_deref() != Ok("1"),
            "SIGNALS_REQUIRE_SQLITE3=1 but there is no sqlite3 program: apt-get install sqlite3"
        );
        // Straight to stderr: the test harness captures `eprintln!`, and
        // this notice must be seen even when the test passes.
        let _ = writeln!(
            std::io::stderr(),
            "skipping the README's sqlite3 examples: no sqlite3 program (apt-get install \
             sqlite3, or set SIGNALS_REQUIRE_SQLITE3=1 to make this a failure)"
        );
    }
    found
}

/// Starts a `serve` command on a free port, checks it answers `/api/`,
/// and stops it.
pub(crate) fn run_serve(dir: &Path, command: &str) {
    let command = command.split(" #").next().unwrap().trim();
    let port = crate::serve::free_port();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("exec {command} --port {port}"))
        .current_dir(dir)
        .env("TMPDIR", dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let end = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{command}: stopped before it listened ({status})");
        }
        assert!(Instant::now() < end, "{command}: did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    let (status, index) = crate::serve::get(port, "/api/");
    assert_eq!(status, 200, "{command}: {index}");
    let (status, groups) = crate::serve::get(port, "/api/groups");
    assert_eq!(status, 200, "{command}: {groups}");
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let _ = child.wait();
}

#[test]
fn issue_30_the_readme_shell_examples_run_against_the_demo() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let blocks = marked_blocks(&readme);
    assert!(blocks.len() >= 2, "the README's marked examples are gone");
    let dir = TempDir::new("readme");
    let demo = run(dir.path(), &["demo"], &[]);
    assert_eq!(demo.status.code(), Some(0), "{}", show(&demo));
    let sqlite3 = sqlite3_available();
    let mut ran = 0;
    for block in &blocks {
        if block.contains("sqlite3 ") && !sqlite3 {
            continue;
        }
        // The block as one script, stopping at the first failure; its
        // `serve` commands after it.
        let script: String = block
            .lines()
            .filter(|l| !is_serve(l))
            .map(|l| format!("{}\n", as_run_here(l)))
            .collect();
        let out = Command::new("sh")
            .arg("-ec")
            .arg(&script)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{script}\n{}", show(&out));
        assert!(out.stderr.is_empty(), "{script}\n{}", show(&out));
        assert!(!out.stdout.is_empty(), "{script} printed nothing");
        ran += script.lines().filter(|l| !l.starts_with(' ')).count();
        for serve in block.lines().filter(|l| is_serve(l)) {
            run_serve(dir.path(), &as_run_here(serve));
            ran += 1;
        }
    }
    assert!(ran >= 3, "{ran} examples ran");
}

#[test]
fn the_readme_example_reader_finds_only_marked_blocks() {
    let text = format!("```sh\nnot marked\n```\n{MARK}\n```sh\na \\\n  b\nx serve   # note\n```\n");
    let blocks = marked_blocks(&text);
    assert_eq!(blocks, vec!["a \\\n  b\nx serve   # note\n".to_string()]);
    let serves: Vec<&str> = blocks[0].lines().filter(|l| is_serve(l)).collect();
    assert_eq!(serves, ["x serve   # note"]);
    assert_eq!(
        as_run_here("cargo run --release -- status"),
        format!("{} status", signals_bin().display())
    );
}

/// The README as written.
fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap()
}

/// A command as the README or the demo writes it, without its comment
/// and with the program as `signals`.
fn command_of(line: &str) -> String {
    let line = line.split(" #").next().unwrap().trim();
    for program in ["cargo run --release --", "cargo run --", "signals"] {
        if let Some(rest) = line.strip_prefix(program) {
            return format!("signals{rest}");
        }
    }
    line.to_string()
}

#[test]
fn the_readme_opens_with_what_it_is_for_and_its_two_commands() {
    let readme = readme();
    let first_screen: Vec<&str> = readme.lines().take(25).collect();
    let first_screen = first_screen.join("\n");
    for command in ["cargo run -- demo", "cargo test --workspace"] {
        assert!(
            first_screen.contains(command),
            "{command:?} on the README's first screen:\n{first_screen}"
        );
    }
    assert!(
        first_screen.contains("watches code repositories"),
        "{first_screen}"
    );
    // The long list of what it does comes after how to start.
    let at = |needle: &str| readme.find(needle).unwrap_or_else(|| panic!("{needle:?}"));
    assert!(at("## Try it") < at("## What it does"));
    assert!(at("cargo test --workspace") < at("## What it does"));
}

#[test]
fn the_demo_prints_the_next_steps_the_readme_gives_and_its_help_names_its_hosts() {
    let readme = readme();
    let blocks = marked_blocks(&readme);
    let readme_steps: Vec<String> = blocks[0].lines().map(command_of).collect();
    let dir = TempDir::new("readme-steps");
    let demo = run(dir.path(), &["demo"], &[]);
    assert_eq!(demo.status.code(), Some(0), "{}", show(&demo));
    let printed = String::from_utf8_lossy(&demo.stdout);
    let steps = printed
        .split_once("Next steps:\n")
        .unwrap_or_else(|| panic!("{printed}"))
        .1;
    let demo_steps: Vec<String> = steps
        .lines()
        .filter(|l| l.starts_with("  "))
        .map(command_of)
        .collect();
    assert_eq!(readme_steps, demo_steps, "{printed}");
    let count = ["none", "one", "two", "three", "four", "five"][demo_steps.len()];
    for said in [
        format!("prints its {count} next steps:"),
        format!("{count} next steps\n"),
    ] {
        assert!(readme.contains(&said), "{said:?} in the README");
    }
    // The health the README says `status` shows is a column of it.
    let status = run(
        dir.path(),
        &["--config", "signals-demo/signals.toml", "status"],
        &[],
    );
    let header = String::from_utf8_lossy(&status.stdout);
    let header = header.lines().next().unwrap_or_default();
    assert!(header.split_whitespace().any(|w| w == "health"), "{header}");
    assert!(readme.contains("signals status                # each repository's health"));
    // The demo records three hosts, and its help says so.
    let help = run(dir.path(), &["demo", "--help"], &[]);
    let help = String::from_utf8_lossy(&help.stdout).replace('\n', " ");
    for host in ["GitHub", "GitLab", "Forgejo"] {
        assert!(help.contains(host), "{host} in {help}");
        assert!(
            printed.contains(&host.to_lowercase().replace("forgejo", "gitea")),
            "{printed}"
        );
    }
}

#[test]
fn the_readme_and_the_example_configuration_name_every_environment_variable() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let load = std::fs::read_to_string(root.join("src/config/load.rs")).unwrap();
    let mut applied: Vec<&str> = load
        .match_indices("env(\"SIGNALS_")
        .map(|(at, _)| {
            let name = &load[at + 5..];
            &name[..name.find('"').unwrap()]
        })
        .collect();
    applied.sort();
    applied.dedup();
    assert!(applied.len() >= 5, "{applied:?}");
    let example = signals_config::EXAMPLE;
    let readme = readme();
    for name in &applied {
        assert!(example.contains(name), "{name} in the file `init` writes");
        assert!(
            readme.contains(&format!("`{name}`")),
            "{name} in the README"
        );
    }
    // And the README names no other (but CI's SIGNALS_REQUIRE_* and the
    // file's own SIGNALS_CONFIG).
    let cli = std::fs::read_to_string(root.join("src/cli.rs")).unwrap();
    assert!(cli.contains("env = \"SIGNALS_CONFIG\""));
    for (at, _) in readme.match_indices("SIGNALS_") {
        let name: String = readme[at..]
            .chars()
            .take_while(|c| c.is_ascii_uppercase() || *c == '_' || c.is_ascii_digit())
            .collect();
        assert!(
            name.starts_with("SIGNALS_REQUIRE_")
                || name == "SIGNALS_CONFIG"
                || applied.contains(&name.as_str()),
            "the README names {name}, which nothing reads"
        );
    }
}

#[test]
fn the_readme_repos_add_examples_say_when_the_group_must_exist() {
    let readme = readme();
    let adds: Vec<&str> = readme
        .lines()
        .filter(|l| l.starts_with("signals repos add") && l.contains("--group "))
        .collect();
    assert!(adds.len() >= 2, "{adds:?}");
    let dir = TempDir::new("readme-repos-add");
    let out = run(dir.path(), &["init"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    for line in adds {
        let (command, comment) = line.split_once(" #").unwrap_or((line, ""));
        let args: Vec<String> = shell_words(command.trim_start_matches("signals "));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(dir.path(), &args, &[]);
        if line.contains("--group-name") {
            assert!(comment.contains("creates"), "{line}");
            assert_eq!(out.status.code(), Some(0), "{line}: {}", show(&out));
        } else {
            // The example's groups are not `g`: as the README says, it
            // fails, and the error says how to create it.
            assert!(comment.contains("must exist"), "{line}");
            assert_eq!(out.status.code(), Some(1), "{line}: {}", show(&out));
            assert!(
                String::from_utf8_lossy(&out.stderr)
                    .contains("pass --group-name NAME to create it"),
                "{}",
                show(&out)
            );
        }
    }
}

/// `command`'s words, with double-quoted words kept whole.
fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in command.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}
