//! `signals repos add` with pasted GitHub, GitLab and Forgejo URLs: the
//! repository goes to the configured host the URL names, never into a
//! group of another host; without such a host the error gives the whole
//! `[[hosts]]` entry to add, which makes the same command work once added;
//! a new group goes after the last group, whole.

use std::path::Path;

use signals_config::Config;

use crate::support::{TempDir, run, show};

/// Each repository of the configuration at `dir` as `group/owner/name
/// host`, in file order.
fn placed(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("signals.toml")).unwrap();
    let config = Config::parse(&text, Path::new("signals.toml")).unwrap();
    config
        .groups
        .iter()
        .flat_map(|g| {
            let config = &config;
            g.repos.iter().map(move |r| {
                let host = &config.hosts[config.host_of(&g.group, r)].name;
                format!("{}/{} {host}", g.group.id, r.repo)
            })
        })
        .collect()
}

/// Runs `signals repos add ARGS` in `dir`; its exit code and its standard
/// output and error together.
fn add(dir: &Path, args: &[&str]) -> (i32, String) {
    let args: Vec<&str> = ["repos", "add"].iter().chain(args).copied().collect();
    let out = run(dir, &args, &[]);
    (out.status.code().unwrap_or(-1), show(&out))
}

/// The `[[hosts]]` lines of a refusal: everything after its first blank
/// line, as a user would copy them.
fn snippet(said: &str) -> String {
    let start = said
        .find("\n\n[[hosts]]")
        .unwrap_or_else(|| panic!("{said}"))
        + 2;
    let block: Vec<&str> = said[start..]
        .lines()
        .take_while(|l| l.is_empty() || l.starts_with('[') || l.contains(" = "))
        .collect();
    format!("\n{}\n", block.join("\n").trim_end())
}

fn append(dir: &Path, lines: &str) {
    let path = dir.join("signals.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{text}{lines}")).unwrap();
}

#[test]
fn a_gitlab_url_asks_for_its_host_then_goes_to_a_group_of_that_host_only() {
    let dir = TempDir::new("repos-add-gitlab");
    let out = run(dir.path(), &["init"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let before = std::fs::read_to_string(dir.path().join("signals.toml")).unwrap();
    // The example's one host is GitHub's, as `[host]`.
    let (code, said) = add(
        dir.path(),
        &["https://gitlab.com/a/b", "--group", "runtimes"],
    );
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains(
            "https://gitlab.com/a/b is on gitlab.com, which no host of signals.toml serves"
        ) && said
            .contains("replace the line `[host]` with `[[hosts]]` and add `name = \"github\"`"),
        "{said}"
    );
    let entry = snippet(&said);
    assert_eq!(
        entry,
        "\n[[hosts]]\nname = \"gitlab\"\nkind = \"gitlab\"\napi_url = \"https://gitlab.com/api/v4\"\ntoken_env = \"GITLAB_TOKEN\"\n"
    );
    let after = std::fs::read_to_string(dir.path().join("signals.toml")).unwrap();
    assert_eq!(before, after, "a refusal leaves the file alone");

    // Done as told.
    let path = dir.path().join("signals.toml");
    std::fs::write(
        &path,
        before.replacen("\n[host]\n", "\n[[hosts]]\nname = \"github\"\n", 1),
    )
    .unwrap();
    append(dir.path(), &entry);
    // Never into a group of GitHub repositories.
    let (code, said) = add(
        dir.path(),
        &["https://gitlab.com/a/b", "--group", "runtimes"],
    );
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("group \"runtimes\" holds the repositories of host \"github\"")
            && said.contains("--group ID --group-name NAME"),
        "{said}"
    );
    assert!(!placed(dir.path()).iter().any(|p| p.contains("a/b")));
    // Into a new group of its own host, after the last group, whole.
    let (code, said) = add(
        dir.path(),
        &[
            "https://gitlab.com/a/b/-/issues/3",
            "--group",
            "gl",
            "--group-name",
            "GitLab",
        ],
    );
    assert_eq!(code, 0, "{said}");
    let (code, said) = add(dir.path(), &["https://gitlab.com/a/c/d", "--group", "gl"]);
    assert_eq!(code, 0, "{said}");
    assert!(
        said.contains("tracking a/c/d of host \"gitlab\" in group \"gl\""),
        "{said}"
    );
    let repos = placed(dir.path());
    assert_eq!(
        &repos[repos.len() - 2..],
        ["gl/a/b gitlab", "gl/a/c/d gitlab"],
        "{repos:?}"
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let at = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle:?} in {text}"))
    };
    // The runtimes group's commented `orgs` example stays with it.
    assert!(
        at("repos = [\"https://github.com/ollama/ollama\"") < at("# orgs = [\"vllm-project\"]")
    );
    assert!(at("# exclude = [\"vllm-project/old-demo\"]") < at("id = \"gl\""));
    assert!(at("id = \"gl\"") < at("# Alerts (docs/notify.md)"));
    assert!(text.contains(
        "[[groups]]\nid = \"gl\"\nname = \"GitLab\"\nhost = \"gitlab\"\nrepos = [\"a/b\", \"a/c/d\"]\n"
    ), "{text}");
}

#[test]
fn a_github_url_goes_to_the_github_host_or_asks_for_it() {
    let dir = TempDir::new("repos-add-github");
    std::fs::write(
        dir.path().join("signals.toml"),
        "[[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\"o/one\"]\n",
    )
    .unwrap();
    // No host configured: GitHub's public instance is the one host.
    let (code, said) = add(dir.path(), &["https://github.com/o/two/pull/4"]);
    assert_eq!(code, 0, "{said}");
    let (code, said) = add(dir.path(), &["git@github.com:o/three.git"]);
    assert_eq!(code, 0, "{said}");
    assert_eq!(
        placed(dir.path()),
        ["g/o/one github", "g/o/two github", "g/o/three github"]
    );

    // A GitLab-only configuration: GitHub is the entry to add.
    let dir = TempDir::new("repos-add-github-missing");
    std::fs::write(
        dir.path().join("signals.toml"),
        "[[hosts]]\nname = \"gitlab\"\nkind = \"gitlab\"\n\n[[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\"a/b/c\"]\n",
    )
    .unwrap();
    let (code, said) = add(
        dir.path(),
        &[
            "https://github.com/o/n",
            "--group",
            "gh",
            "--group-name",
            "GH",
        ],
    );
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("1. add the entry below at the end of signals.toml"),
        "{said}"
    );
    let entry = snippet(&said);
    assert_eq!(
        entry,
        "\n[[hosts]]\nname = \"github\"\nkind = \"github\"\napi_url = \"https://api.github.com\"\ntoken_env = \"GITHUB_TOKEN\"\n"
    );
    append(dir.path(), &entry);
    // Not into the GitLab group; into a new one, which names its host.
    let (code, said) = add(dir.path(), &["https://github.com/o/n", "--group", "g"]);
    assert_eq!(code, 1, "{said}");
    let (code, said) = add(
        dir.path(),
        &[
            "https://github.com/o/n",
            "--group",
            "gh",
            "--group-name",
            "GH",
        ],
    );
    assert_eq!(code, 0, "{said}");
    assert_eq!(placed(dir.path()), ["g/a/b/c gitlab", "gh/o/n github"]);
}

#[test]
fn a_forgejo_url_goes_to_its_host_in_a_mixed_group_or_asks_for_it() {
    let dir = TempDir::new("repos-add-forgejo");
    // Implicit GitHub, and a group of GitHub repositories.
    std::fs::write(
        dir.path().join("signals.toml"),
        "store = \"s.db\"\n\n[[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\"o/one\"]\n",
    )
    .unwrap();
    let (code, said) = add(
        dir.path(),
        &["https://codeberg.org/forgejo/forgejo", "--group", "g"],
    );
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("the first keeps github.com"), "{said}");
    let entries = snippet(&said);
    assert_eq!(
        entries,
        "\n[[hosts]]\nname = \"github\"\nkind = \"github\"\n\n[[hosts]]\nname = \"codeberg\"\nkind = \"forgejo\"\napi_url = \"https://codeberg.org/api/v1\"\ntoken_env = \"FORGEJO_TOKEN\"\n"
    );
    append(dir.path(), &entries);
    // The repositories already there keep their host.
    assert_eq!(placed(dir.path()), ["g/o/one github"]);
    let (code, said) = add(
        dir.path(),
        &["https://codeberg.org/forgejo/forgejo", "--group", "g"],
    );
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("holds the repositories of host \"github\""),
        "{said}"
    );

    // A group that mixes hosts already takes any, each entry naming its
    // host where the group's default would be another; the same
    // `owner/name` on two hosts is two repositories.
    std::fs::write(
        dir.path().join("signals.toml"),
        "[[hosts]]\nname = \"github\"\nkind = \"github\"\n\n\
         [[hosts]]\nname = \"codeberg\"\nkind = \"forgejo\"\n\n\
         [[groups]]\nid = \"mixed\"\nname = \"M\"\nrepos = [\"o/one\", { repo = \"c/two\", host = \"codeberg\" }]\n",
    )
    .unwrap();
    let (code, said) = add(
        dir.path(),
        &["https://codeberg.org/o/n", "--id", "n-codeberg"],
    );
    assert_eq!(code, 0, "{said}");
    let (code, said) = add(dir.path(), &["https://github.com/o/n"]);
    assert_eq!(code, 0, "{said}");
    let (code, said) = add(dir.path(), &["https://codeberg.org/o/n"]);
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("o/n is already tracked in group \"mixed\""),
        "{said}"
    );
    assert_eq!(
        placed(dir.path()),
        [
            "mixed/o/one github",
            "mixed/c/two codeberg",
            "mixed/o/n codeberg",
            "mixed/o/n github"
        ]
    );
    // A group whose `host` says codeberg takes no GitHub repository.
    append(
        dir.path(),
        "\n[[groups]]\nid = \"cb\"\nname = \"CB\"\nhost = \"codeberg\"\n",
    );
    let (code, said) = add(dir.path(), &["https://github.com/o/x", "--group", "cb"]);
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("group \"cb\" holds the repositories of host \"codeberg\""),
        "{said}"
    );
    let (code, said) = add(dir.path(), &["https://codeberg.org/o/x", "--group", "cb"]);
    assert_eq!(code, 0, "{said}");
    assert!(placed(dir.path()).contains(&"cb/o/x codeberg".to_string()));
}
