//! The similarity against planted stories: the same report in several
//! repositories in other words, beside items that share only common words
//! with them, in a group of unrelated items.

use std::collections::HashMap;

use super::*;

/// `(story, repository, title, body)`: story 0 is none.
const PLANTED: &[(u32, i64, &str, &str)] = &[
    (
        1,
        1,
        "Crash when loading textures",
        "thread 'main' panicked at 'called `Option::unwrap()` on a `None` value', src/renderer/texture_cache.rs:214:38\nnote: run with `RUST_BACKTRACE=1`",
    ),
    (
        1,
        2,
        "Panic on startup with a texture pack",
        "Since 0.9 the game stops at once. Log:\nthread 'main' panicked at 'called `Option::unwrap()` on a `None` value', src/renderer/texture_cache.rs:214:38",
    ),
    (
        1,
        3,
        "Game closes right after the update",
        "It quits with: called `Option::unwrap()` on a `None` value at texture_cache.rs:214",
    ),
    (
        2,
        1,
        "Plugins fail to load",
        "TypeError: Cannot read properties of undefined (reading 'entry')\n    at Object.parseManifest (lib/manifest.js:88:13)\n    at loadPlugins (lib/plugins.js:41:5)\n    at main (bin/cli.js:12:3)",
    ),
    (
        2,
        4,
        "Startup error after installing a plugin",
        "    at Object.parseManifest (lib/manifest.js:88:13)\n    at loadPlugins (lib/plugins.js:41:5)\nTypeError: Cannot read properties of undefined",
    ),
    (
        3,
        2,
        "Window does not resize on Wayland",
        "Dragging the window border under a Wayland compositor does nothing; the surface keeps its size. XWayland works.",
    ),
    (
        3,
        5,
        "Resizing is broken under Wayland (sway)",
        "With sway the window ignores resize requests, the surface stays 800x600. Works with XWayland.",
    ),
    (
        4,
        3,
        "Audio stutters when vsync is enabled",
        "Turning on vsync makes the audio crackle and stutter every few seconds. PulseAudio, 48 kHz.",
    ),
    (
        4,
        4,
        "Sound crackling with vsync on",
        "Crackling audio as soon as vsync is on; with vsync off the sound is clean. Using PulseAudio.",
    ),
    (
        5,
        1,
        "Linking fails on Debian",
        "error: linking with `cc` failed: exit status: 1\n  = note: /usr/bin/ld: undefined reference to `SDL_GetWindowWMInfo'\n  collect2: error: ld returned 1 exit status",
    ),
    (
        5,
        5,
        "Build error: undefined reference to SDL_GetWindowWMInfo",
        "cargo build ends with undefined reference to `SDL_GetWindowWMInfo' from ld. SDL2 2.0.10 from apt.",
    ),
    (
        6,
        2,
        "DualSense gamepad not detected over Bluetooth",
        "My PS5 DualSense connects over Bluetooth but the game does not see the gamepad. Wired is fine.",
    ),
    (
        6,
        3,
        "PS5 controller (DualSense) not recognised via Bluetooth",
        "Bluetooth DualSense pairs with the system, yet no gamepad input reaches the game; USB works.",
    ),
    (
        7,
        4,
        "Shader compile error on Intel GPUs",
        "[WARN] shader compile failed: ERROR: 0:12: 'texture2D' : no matching overloaded function found\nIntel UHD 620, Mesa 21.",
    ),
    (
        7,
        5,
        "Black screen with Mesa",
        "Log shows: ERROR: 0:12: 'texture2D' : no matching overloaded function found. Mesa 21.2 on an Intel laptop.",
    ),
    (
        8,
        1,
        "Memory leak when switching scenes",
        "Each scene switch leaves the old scene's meshes in memory; after twenty switches the process uses 4 GB.",
    ),
    (
        8,
        2,
        "RAM usage grows with every scene change",
        "Memory keeps growing each time the scene changes, meshes of the old scene seem never freed.",
    ),
    // Items sharing only common words with the stories.
    (
        0,
        1,
        "Crash when saving settings",
        "The game crashes when I save the settings menu.",
    ),
    (
        0,
        2,
        "Window title is wrong",
        "The window title says the old version after the update.",
    ),
    (
        0,
        3,
        "Add an option for texture filtering",
        "Please add an option to choose texture filtering in the menu.",
    ),
    (
        0,
        4,
        "Plugin API documentation",
        "The documentation of the plugin API does not say how to load a plugin.",
    ),
    (
        0,
        5,
        "Audio volume slider",
        "A slider for the audio volume in the settings would be nice.",
    ),
    (
        0,
        1,
        "Build on Windows",
        "How do I build the game on Windows? The docs only cover Linux.",
    ),
    (
        0,
        2,
        "Startup is slow",
        "Startup takes ten seconds after the update, it used to be fast.",
    ),
    (
        0,
        3,
        "Error message is unclear",
        "When a file is missing the error message does not say which one.",
    ),
];

/// Common words of the theme, and a seeded choice among them.
const COMMON: &[&str] = &[
    "game", "window", "crash", "error", "update", "build", "texture", "audio", "menu", "settings",
    "plugin", "startup", "version", "linux", "windows", "release", "option", "screen", "input",
    "load", "save", "file", "docs", "works", "broken", "after", "missing", "fast", "slow",
    "player",
];

fn background(n: usize, seed: u64) -> Vec<(String, String)> {
    let mut x = seed;
    let mut next = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) as usize
    };
    (0..n)
        .map(|i| {
            let pick = |k: usize, next: &mut dyn FnMut() -> usize| {
                (0..k)
                    .map(|_| COMMON[next() % COMMON.len()])
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let title = format!("{} topic{i}", pick(4, &mut next));
            let body = format!(
                "{} detail{i} note{} {}",
                pick(20, &mut next),
                i % 97,
                pick(10, &mut next)
            );
            (title, body)
        })
        .collect()
}

fn group() -> (Corpus, HashMap<String, Option<u32>>) {
    let mut members = Vec::new();
    let mut stories = HashMap::new();
    for (i, (story, repo, title, body)) in PLANTED.iter().enumerate() {
        let id = format!("github:acme/r{repo}:issue:{i}");
        stories.insert(id.clone(), (*story > 0).then_some(*story));
        members.push(Member {
            id,
            repo: *repo,
            open: i % 3 != 0,
            vector: profile(title, body).vector(),
        });
    }
    for (i, (title, body)) in background(400, 7).into_iter().enumerate() {
        members.push(Member {
            id: format!("gitlab:acme/bg:issue:{i}"),
            repo: 9,
            open: true,
            vector: profile(&title, &body).vector(),
        });
    }
    (Corpus::new(members), stories)
}

fn all_lists(corpus: &Corpus, ids: &[String]) -> HashMap<String, Vec<Neighbour>> {
    ids.iter()
        .map(|id| {
            let found = corpus.neighbours(id);
            let named = found.into_iter().map(|f| f.named(&Profile::default()));
            (id.clone(), named.collect())
        })
        .collect()
}

#[test]
fn planted_stories_are_found_and_common_words_do_not_pair() {
    let (corpus, stories) = group();
    let ids: Vec<String> = stories.keys().cloned().collect();
    let lists = all_lists(&corpus, &ids);
    for t in [0.2, 0.25, 0.3, 0.35, 0.4, 0.5] {
        let q = measure(&lists, &stories, t);
        println!(
            "threshold {t:.2}: recall@5 {:.2} ({}/{}), precision {:.2} ({}/{})",
            q.recall(),
            q.found,
            q.pairs,
            q.precision(),
            q.right,
            q.listed
        );
    }
    let q = measure(&lists, &stories, THRESHOLD);
    assert!(q.recall() >= 0.85, "{q:?}");
    assert!(q.precision() >= 0.9, "{q:?}");
    // An item sharing only common words has no related item.
    for (id, story) in &stories {
        if story.is_none() {
            assert_eq!(lists[id], [], "{id}");
        }
    }
}

#[test]
fn an_item_is_never_its_own_neighbour_and_lists_are_ordered() {
    let (corpus, stories) = group();
    for id in stories.keys() {
        let list = corpus.neighbours(id);
        assert!(list.iter().all(|n| &n.id != id));
        assert!(list.len() <= LISTED);
        assert!(list.windows(2).all(|w| w[0].score >= w[1].score));
        assert!(list.iter().all(|n| n.score >= THRESHOLD && n.score <= 1.0));
        assert!(list.iter().all(|n| !n.shared.is_empty()));
        let list: Vec<Neighbour> = list
            .into_iter()
            .map(|f| f.named(&Profile::default()))
            .collect();
        let shown = shown(&list);
        assert!(shown.len() <= SHOWN);
        assert!(shown.windows(2).all(|w| w[0].open >= w[1].open));
    }
    assert!(corpus.neighbours("github:acme/nowhere:issue:1").is_empty());
}

#[test]
fn shared_words_explain_a_pair() {
    let (corpus, _) = group();
    let list = corpus.neighbours("github:acme/r1:issue:9");
    let own = profile(PLANTED[9].2, PLANTED[9].3);
    let other = list
        .into_iter()
        .map(|f| f.named(&own))
        .find(|n| n.id == "github:acme/r5:issue:10")
        .expect("the linking error is found in the other repository");
    assert!(other.shared.iter().any(|w| w.contains("sdl")), "{other:?}");
}

#[test]
fn an_edit_moves_neighbours_and_a_removal_leaves_lists() {
    let (corpus, _) = group();
    let mut members: Vec<Member> = Vec::new();
    for (i, (story, repo, title, body)) in PLANTED.iter().enumerate() {
        let _ = story;
        members.push(Member {
            id: format!("github:acme/r{repo}:issue:{i}"),
            repo: *repo,
            open: true,
            vector: profile(title, body).vector(),
        });
    }
    let before = corpus.neighbours("github:acme/r2:issue:5");
    assert!(before.iter().any(|n| n.id == "github:acme/r5:issue:6"));
    // Item 5 is edited into the audio story; item 6 is deleted.
    members[5].vector = profile(PLANTED[7].2, PLANTED[7].3).vector();
    let listing: Vec<String> = vec!["github:acme/r5:issue:6".into()];
    members.remove(6);
    let after = Corpus::new(members);
    let changed = vec!["github:acme/r2:issue:5".to_string()];
    let lists = recompute(&after, &changed, &listing);
    let moved = &lists["github:acme/r2:issue:5"];
    assert!(
        moved.iter().any(|n| n.id == "github:acme/r3:issue:7"),
        "{moved:?}"
    );
    assert!(moved.iter().all(|n| n.id != "github:acme/r5:issue:6"));
    // Its new neighbours' lists are recomputed and name it.
    assert!(
        lists["github:acme/r3:issue:7"]
            .iter()
            .any(|n| n.id == "github:acme/r2:issue:5")
    );
    // The deleted item has no list, and none names it.
    assert!(!lists.contains_key("github:acme/r5:issue:6"));
    assert!(
        lists
            .values()
            .flatten()
            .all(|n| n.id != "github:acme/r5:issue:6")
    );
}

#[test]
fn an_empty_group_and_empty_items_relate_nothing() {
    let corpus = Corpus::new(Vec::new());
    assert!(corpus.is_empty());
    let corpus = Corpus::new(vec![
        Member {
            id: "a".into(),
            repo: 1,
            open: true,
            vector: profile("", "").vector(),
        },
        Member {
            id: "b".into(),
            repo: 2,
            open: true,
            vector: profile("", "").vector(),
        },
    ]);
    assert!(corpus.neighbours("a").is_empty());
}

#[test]
fn only_issues_pull_requests_and_discussions_are_compared() {
    use crate::ItemKind;
    assert!(compared(ItemKind::Issue));
    assert!(compared(ItemKind::PullRequest));
    assert!(compared(ItemKind::Discussion));
    assert!(!compared(ItemKind::Release));
    let named: Vec<&str> = [
        ItemKind::Issue,
        ItemKind::PullRequest,
        ItemKind::Release,
        ItemKind::Discussion,
    ]
    .into_iter()
    .filter(|k| compared(*k))
    .map(|k| k.as_str())
    .collect();
    assert_eq!(named, COMPARED_KINDS);
}
