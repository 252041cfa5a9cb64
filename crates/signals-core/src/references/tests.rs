//! The reference parser: both forms on every host, what is ignored, and
//! hostile input.

use super::*;

fn gh() -> Place {
    place_of("https://github.com/Acme/Engine/issues/7").unwrap()
}

fn keys(text: &str) -> Vec<String> {
    extract(text, &gh())
}

#[test]
fn own_keys_and_places_on_every_host() {
    for (url, key, repo) in [
        (
            "https://github.com/Acme/Engine/issues/7",
            Some("github.com/acme/engine#7"),
            "acme/engine",
        ),
        (
            "https://github.com/acme/engine/pull/8",
            Some("github.com/acme/engine#8"),
            "acme/engine",
        ),
        (
            "https://ghe.corp.example/team/tool/pull/3",
            Some("ghe.corp.example/team/tool#3"),
            "team/tool",
        ),
        (
            "https://codeberg.org/o/n/pulls/4",
            Some("codeberg.org/o/n#4"),
            "o/n",
        ),
        (
            "https://gitlab.example/group/sub/proj/-/issues/5",
            Some("gitlab.example/group/sub/proj#5"),
            "group/sub/proj",
        ),
        (
            "https://gitlab.example/g/p/-/merge_requests/6",
            Some("gitlab.example/g/p!6"),
            "g/p",
        ),
        (
            "http://127.0.0.1:8080/o/n/issues/9",
            Some("127.0.0.1:8080/o/n#9"),
            "o/n",
        ),
        ("https://github.com/o/n/releases/tag/v1.0", None, "o/n"),
        ("https://gitlab.example/g/p/-/releases/v1", None, "g/p"),
        (
            "https://git.example/forge/o/n/issues/2",
            Some("git.example/forge/o/n#2"),
            "forge/o/n",
        ),
    ] {
        assert_eq!(own_key(url).as_deref(), key, "{url}");
        assert_eq!(place_of(url).unwrap().repo, repo, "{url}");
    }
    for url in [
        "",
        "ftp://x/o/n/issues/1",
        "https://github.com/o",
        "https://github.com/o/n/issues/x",
        "https://github.com/o/n/issues/0",
        "https://user@github.com/o/n/issues/1",
        "https://github.com//n/issues/1",
    ] {
        assert_eq!(own_key(url), None, "{url}");
    }
}

#[test]
fn shorthand_and_plain_numbers_resolve_against_the_text_s_place() {
    assert_eq!(
        keys("See other/lib#12, also #3 and (#4)."),
        [
            "github.com/acme/engine#3",
            "github.com/acme/engine#4",
            "github.com/other/lib#12"
        ]
    );
    // GitLab's nested paths and merge requests.
    let gl = place_of("https://gitlab.example/g/p/-/issues/1").unwrap();
    assert_eq!(
        extract("g/sub/q#2 and g/q!3 and !4", &gl),
        [
            "gitlab.example/g/p!4",
            "gitlab.example/g/q!3",
            "gitlab.example/g/sub/q#2"
        ]
    );
}

#[test]
fn urls_of_every_host_are_recognised_in_text() {
    let text = "- https://github.com/Other/Lib/issues/1\n\
        - [fix](https://github.com/other/lib/pull/2/files)\n\
        - <https://codeberg.org/x/y/pulls/3#issuecomment-9>\n\
        - https://gitlab.example/a/b/c/-/merge_requests/4?tab=diffs\n\
        - https://gitlab.example/a/b/-/issues/5.\n\
        - https://github.com/o/n/commit/abc and https://github.com/o/n/releases/tag/v1";
    assert_eq!(
        keys(text),
        [
            "codeberg.org/x/y#3",
            "github.com/other/lib#1",
            "github.com/other/lib#2",
            "gitlab.example/a/b#5",
            "gitlab.example/a/b/c!4",
        ]
    );
}

#[test]
fn glued_references_and_entities_are_not_references() {
    assert!(keys("abc#1 a/b#x &#123; x/#5 issue#7 #12abc #1234567890 #0 /o/n#3").is_empty());
    // A URL path is not read as shorthand.
    assert!(keys("https://example.com/o/n#3").is_empty());
}

#[test]
fn code_blocks_and_inline_code_are_ignored() {
    let text = "before #1\n```\n#2 o/n#3\n```\nafter `#4` and ``x ` #5`` but #6\n\
        ~~~~ rust\n#7\n~~~\n#8\n~~~~\n#9\n    #10 indented code is read\n`unclosed #11";
    assert_eq!(
        keys(text),
        [
            "github.com/acme/engine#1",
            "github.com/acme/engine#10",
            "github.com/acme/engine#11",
            "github.com/acme/engine#6",
            "github.com/acme/engine#9"
        ]
    );
}

#[test]
fn an_item_never_references_itself() {
    let r = of_text(
        "github:acme/engine:issue:7",
        "https://github.com/acme/engine/issues/7",
        BODY,
        "#7 and https://github.com/ACME/engine/issues/7 and acme/engine#7 but #8",
    );
    assert_eq!(r.own.as_deref(), Some("github.com/acme/engine#7"));
    assert_eq!(r.targets, ["github.com/acme/engine#8"]);
    assert_eq!(r.text, "body");
}

#[test]
fn an_item_without_an_http_url_keeps_only_full_urls() {
    let r = of_text(
        "github:o/n:issue:1",
        "",
        BODY,
        "#2 o/x#3 https://github.com/o/x/issues/4",
    );
    assert_eq!(r.own, None);
    assert_eq!(r.targets, ["github.com/o/x#4"]);
}

#[test]
fn work_is_bounded() {
    // Many distinct references: at most MAX_TARGETS kept.
    let many: String = (1..5000).map(|n| format!("#{n} ")).collect();
    assert_eq!(keys(&many).len(), MAX_TARGETS);
    // Beyond MAX_SCAN nothing is read, and a cut in a character is fine.
    let long = format!("{}é #1", "x".repeat(MAX_SCAN - 1));
    assert!(keys(&long).is_empty());
    // Unmatched backtick runs of many lengths on one long line.
    let ticks: String = (1..400)
        .map(|n| format!("{} #{n} ", "`".repeat(n)))
        .collect();
    let found = keys(&ticks);
    assert!(found.len() <= MAX_TARGETS);
}

#[test]
fn hostile_text_never_panics() {
    for text in [
        "#",
        "!",
        "/#1",
        "a/#1",
        "#\u{0}1",
        "https://",
        "https:///o/n/issues/1",
        "http://é/o/n/issues/1",
        "https://x/-/issues/1",
        "x/y#",
        "x/y!99999999999",
        "`",
        "```",
        "~~~\n#1",
        "é#1 ü/ö#2 #٣",
        "https://github.com/o/n/issues/1\u{200b}",
        "\r\n#1\r\n",
        "[#1](#2)",
    ] {
        let _ = keys(text);
        let _ = of_text("x", text, BODY, text);
    }
    assert_eq!(keys("\r\n#1\r\n"), ["github.com/acme/engine#1"]);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_text_parses_within_the_limits(text in "\\PC{0,400}") {
            let found = keys(&text);
            prop_assert!(found.len() <= MAX_TARGETS);
            prop_assert!(found.windows(2).all(|w| w[0] < w[1]));
        }

        #[test]
        fn reference_like_text_parses(text in "[a-z/#!`~ \\n0-9:.()-]{0,300}") {
            let _ = keys(&text);
        }
    }
}

#[test]
fn a_repository_url_gives_its_place() {
    let place = |url| place_of_repo(url).map(|p| (p.host, p.repo));
    assert_eq!(
        place("https://GitHub.com/O/n/"),
        Some(("github.com".into(), "o/n".into()))
    );
    assert_eq!(
        place("https://gitlab.example/g/sub/p?x=1"),
        Some(("gitlab.example".into(), "g/sub/p".into()))
    );
    for url in [
        "",
        "https://github.com/o",
        "ftp://h/o/n",
        "https://u@h/o/n",
        "https://h//n",
    ] {
        assert_eq!(place(url), None, "{url}");
    }
}
