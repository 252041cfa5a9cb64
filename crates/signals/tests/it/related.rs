//! Related items, end to end: stories planted on the test host across
//! repositories and hosts of one group (the same error text, the same
//! stack frames, paraphrased titles), beside items sharing only common
//! words and a copy of a story in another group; the dataset, the API's
//! list and its `related` endpoint agree, nothing costs a request, an edit
//! moves an item's neighbours and a purge takes it out of other lists.

use jiff::Timestamp;
use serde_json::{Value, json};
use signals_testhost::{Scenario, TestHost, synthetic, synthetic_gitlab};

use crate::serve::{get, serve_with};
use crate::support::{TempDir, read_json, run, show};

/// Items per repository (single-digit numbers: a number is no word).
const ITEMS: usize = 9;

pub(crate) const TEXTURE: &str = "thread 'main' panicked at 'called `Option::unwrap()` on a `None` value', \
                       src/renderer/texture_cache.rs:214:38\nnote: run with `RUST_BACKTRACE=1`";
pub(crate) const LINKING: &str = "error: linking with `cc` failed: exit status: 1\n  = note: /usr/bin/ld: \
                       undefined reference to `SDL_GetWindowWMInfo'\n  collect2: error: ld returned 1";

const COMMON: &[&str] = &[
    "game", "window", "crash", "error", "update", "build", "menu", "settings", "plugin", "startup",
    "version", "linux", "release", "option", "screen", "input", "load", "save", "file", "docs",
    "works", "broken", "missing", "fast", "slow", "player", "sound", "level", "server",
];

/// A text of `words` words, every third a common one and the others made
/// up for this `seed` alone: items of other stories share common words
/// only.
fn filler(seed: u64, words: usize) -> String {
    const SYLLABLES: &[&str] = &[
        "ka", "lo", "mi", "ru", "te", "vo", "zan", "pe", "dri", "sul",
    ];
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(1);
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..words)
        .map(|i| {
            if i % 3 == 0 {
                COMMON[(next() % COMMON.len() as u64) as usize].to_string()
            } else {
                (0..4)
                    .map(|_| SYLLABLES[(next() % SYLLABLES.len() as u64) as usize])
                    .collect()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Sets the title and body of item `n` of `repo` (GitHub's `number` and
/// `body`, GitLab's `iid` and `description`).
pub(crate) fn set(s: &mut Scenario, repo: &str, n: u64, title: &str, body: &str) {
    let data = s.repos.get_mut(repo).unwrap();
    let gitlab = data.issues.iter().any(|i| i.get("iid").is_some());
    let (number, text) = if gitlab {
        ("iid", "description")
    } else {
        ("number", "body")
    };
    let item = data.issues.iter_mut().find(|i| i[number] == n).unwrap();
    item["title"] = json!(title);
    item[text] = json!(body);
}

/// Every item's text made of common words and words of its own, then
/// the planted stories.
pub(crate) fn plant(s: &mut Scenario, repos: &[&str]) {
    for repo in repos {
        let base = repo
            .bytes()
            .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
        let data = s.repos.get_mut(*repo).unwrap();
        let items = data.issues.iter_mut().chain(data.merge_requests.iter_mut());
        for (i, item) in items.enumerate() {
            let seed = base.wrapping_mul(1000).wrapping_add(i as u64 * 2);
            let text = if item.get("iid").is_some() {
                "description"
            } else {
                "body"
            };
            item["title"] = json!(filler(seed, 5));
            item[text] = json!(filler(seed + 1, 30));
        }
    }
}

fn github() -> Scenario {
    let start: Timestamp = "2026-11-01T00:00:00Z".parse().unwrap();
    let mut all = Scenario::default();
    for name in ["o/a", "o/b", "o/c", "o/d"] {
        all.repos.extend(synthetic(name, ITEMS, start).repos);
    }
    plant(&mut all, &["o/a", "o/b", "o/c", "o/d"]);
    set(&mut all, "o/a", 1, "Crash when loading textures", TEXTURE);
    set(
        &mut all,
        "o/b",
        1,
        "Panic on startup with a texture pack",
        &format!("Since 0.9 the game stops at once. Log:\n{TEXTURE}"),
    );
    set(&mut all, "o/a", 2, "Linking fails on Debian", LINKING);
    set(
        &mut all,
        "o/c",
        2,
        "Build error: undefined reference to SDL_GetWindowWMInfo",
        "cargo build ends with undefined reference to `SDL_GetWindowWMInfo' from ld.",
    );
    // The same story in another group: never related.
    set(&mut all, "o/d", 1, "Crash when loading textures", TEXTURE);
    // Common words of the stories, another story.
    set(
        &mut all,
        "o/c",
        1,
        "Crash when saving settings",
        "The game crashes when I save the settings menu.",
    );
    all
}

fn gitlab() -> Scenario {
    let start: Timestamp = "2026-11-01T00:00:00Z".parse().unwrap();
    let mut s = synthetic_gitlab("grp/proj", ITEMS, start);
    plant(&mut s, &["grp/proj"]);
    set(
        &mut s,
        "grp/proj",
        1,
        "Game closes right after the update",
        &format!("It quits with:\n{TEXTURE}"),
    );
    s
}

const A1: &str = "github:o/a:issue:1";
const A2: &str = "github:o/a:issue:2";
const B1: &str = "github:o/b:issue:1";
const C1: &str = "github:o/c:issue:1";
const C2: &str = "github:o/c:issue:2";
const D1: &str = "github:o/d:issue:1";
const L1: &str = "gitlab:grp/proj:issue:1";

fn configure(dir: &std::path::Path, gh: &TestHost, gl: &TestHost) {
    configure_store(dir, "signals.db", gh, gl);
}

fn configure_store(dir: &std::path::Path, store: &str, gh: &TestHost, gl: &TestHost) {
    let mut text = format!("store = \"{store}\"\nout = \"site\"\nbackfill_days = 36500\n");
    for (name, kind, host) in [("hub", "github", gh), ("lab", "gitlab", gl)] {
        text.push_str(&format!(
            "\n[[hosts]]\nname = \"{name}\"\nkind = \"{kind}\"\napi_url = \"{}\"\n\
             max_retries = 0\ntimeout_secs = 5\n",
            host.api_url()
        ));
    }
    text.push_str(
        "\n[[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\n  { repo = \"o/a\", host = \"hub\" },\n  \
         { repo = \"o/b\", host = \"hub\" },\n  { repo = \"o/c\", host = \"hub\" },\n  \
         { repo = \"grp/proj\", host = \"lab\" },\n]\n\n[[groups]]\nid = \"h\"\nname = \"H\"\n\
         repos = [{ repo = \"o/d\", host = \"hub\" }]\n",
    );
    std::fs::write(dir.join("signals.toml"), text).unwrap();
}

fn collect(dir: &std::path::Path) {
    let out = run(dir, &["collect", "--no-notify"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

/// Every signal of the group's datasets, by id.
fn signals(dir: &std::path::Path) -> std::collections::BTreeMap<String, Value> {
    signals_of(dir, &[])
}

/// Every signal of the group's datasets exported with `args` added
/// (`--out` among them when given), by id.
fn signals_of(dir: &std::path::Path, args: &[&str]) -> std::collections::BTreeMap<String, Value> {
    let out = run(dir, &[&["export"], args].concat(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let site = match args.iter().position(|a| *a == "--out") {
        Some(i) => dir.join(args[i + 1]),
        None => dir.join("site"),
    };
    let mut all = std::collections::BTreeMap::new();
    for group in ["g", "h"] {
        for repo in std::fs::read_dir(site.join(group)).unwrap() {
            let path = repo.unwrap().path().join("dataset.json");
            if !path.exists() {
                continue;
            }
            let out = run(dir, &["validate", path.to_str().unwrap()], &[]);
            assert_eq!(out.status.code(), Some(0), "{}", show(&out));
            for s in read_json(&path)["dataset"]["signals"].as_array().unwrap() {
                all.insert(s["id"].as_str().unwrap().to_string(), s.clone());
            }
        }
    }
    all
}

pub(crate) fn related_ids(s: &Value) -> Vec<String> {
    s.get("related")
        .and_then(Value::as_array)
        .map(|l| {
            l.iter()
                .map(|r| r["id"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn planted_stories_are_related_across_repositories_and_hosts_and_nothing_else() {
    let (gh, gl) = (
        TestHost::start(github()).unwrap(),
        TestHost::start(gitlab()).unwrap(),
    );
    let dir = TempDir::new("related");
    configure(dir.path(), &gh, &gl);
    collect(dir.path());
    let all = signals(dir.path());

    // The story in three repositories on two hosts.
    let mut a1 = related_ids(&all[A1]);
    a1.sort();
    assert_eq!(a1, [B1, L1], "{}", all[A1]);
    assert!(related_ids(&all[L1]).contains(&A1.to_string()));
    assert_eq!(related_ids(&all[A2]), [C2]);
    let pair = &all[A2]["related"][0];
    assert!(pair["score"].as_f64().unwrap() >= 0.3, "{pair}");
    assert!(
        pair["shared"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("sdl")),
        "{pair}"
    );
    // Never itself, never another group, never for common words alone.
    for (id, s) in &all {
        assert!(!related_ids(s).contains(id), "{id}");
    }
    assert!(related_ids(&all[D1]).is_empty(), "{}", all[D1]);
    assert!(related_ids(&all[C1]).is_empty(), "{}", all[C1]);
    let paired: Vec<&String> = all
        .keys()
        .filter(|id| !related_ids(&all[*id]).is_empty())
        .collect();
    let pairs: Vec<(&String, &Value)> = paired
        .iter()
        .map(|id| (*id, &all[*id]["related"]))
        .collect();
    assert_eq!(
        paired,
        [A1, A2, B1, C2, L1],
        "only the planted stories pair: {pairs:?}"
    );

    // The card, the history page and the group page say the same.
    let site = dir.path().join("site");
    let page = std::fs::read_to_string(site.join("g/a/index.html")).unwrap();
    let score = |id: &str| {
        let list = all[A1]["related"].as_array().unwrap();
        let r = list.iter().find(|r| r["id"] == id).unwrap();
        format!("{:.2}", r["score"].as_f64().unwrap())
    };
    assert!(page.contains("similar: "), "{page}");
    assert!(page.contains(&format!("o/b#1 ({}: ", score(B1))), "{page}");
    assert!(
        page.contains(&format!("grp/proj#1 ({}: ", score(L1))),
        "{page}"
    );
    let history = std::fs::read_to_string(site.join("g/a/history/issue-1.html")).unwrap();
    assert!(history.contains("Related items"), "{history}");
    assert!(
        history.contains("href=\"../../b/history/issue-1.html\""),
        "{history}"
    );
    let group = std::fs::read_to_string(site.join("g/index.html")).unwrap();
    let stories = group
        .split("The same story in several repositories")
        .nth(1)
        .expect("the group page's section");
    assert!(stories.contains("3 items in 3 repositories"), "{stories}");
    assert!(stories.contains("2 items in 2 repositories"), "{stories}");
    assert!(
        stories.find("3 items in 3").unwrap() < stories.find("2 items in 2").unwrap(),
        "largest first"
    );
    let other = std::fs::read_to_string(site.join("h/index.html")).unwrap();
    assert!(!other.contains("The same story in several repositories"));

    // The API agrees with the dataset, and lists the whole list.
    let served = serve_with(dir.path(), &[], &[]);
    let (status, list) = get(served.port, "/api/repos/g/a/signals");
    assert_eq!(status, 200, "{list}");
    let listed = list["signals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == A1)
        .unwrap();
    assert_eq!(listed["related"], all[A1]["related"]);
    // Importance counts the two other repositories telling the story, on
    // the page and in the API alike.
    let card = format!(
        "data-signal-id=\"{A1}\" data-importance=\"{}\"",
        listed["importance"]
    );
    assert!(page.contains(&card), "{card}");
    assert!(
        page.contains("told in 2 other repositories of the group"),
        "the card's importance explains the echo term"
    );
    let (status, full) = get(served.port, &format!("/api/signals/{A1}/related"));
    assert_eq!(status, 200, "{full}");
    assert_eq!(full["group"], "g");
    let ids: Vec<&str> = full["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 2, "{full}");
    let (status, _) = get(served.port, "/api/signals/github:o/zz:issue:1/related");
    assert_eq!(status, 404);
    drop(served);
}

/// The same stories pair on PostgreSQL, and `signals migrate` carries the
/// lists over as they are: the copy's datasets list the same related
/// items with the same scores and shared words, and its next catch-up
/// has nothing left to do.
#[test]
fn planted_stories_pair_on_postgresql_and_a_migrated_copy_keeps_the_lists() {
    let Some(cluster) = crate::workers::cluster() else {
        return;
    };
    let url = cluster.create_database("related_pg").unwrap();
    let (gh, gl) = (
        TestHost::start(github()).unwrap(),
        TestHost::start(gitlab()).unwrap(),
    );
    let dir = TempDir::new("related-pg");
    configure_store(dir.path(), &url, &gh, &gl);
    collect(dir.path());
    let all = signals(dir.path());
    let mut a1 = related_ids(&all[A1]);
    a1.sort();
    assert_eq!(a1, [B1, L1], "{}", all[A1]);
    assert_eq!(related_ids(&all[A2]), [C2]);
    assert!(related_ids(&all[D1]).is_empty(), "{}", all[D1]);

    let out = run(
        dir.path(),
        &["migrate", "--from", &url, "--to", "copy.db"],
        &[],
    );
    assert!(out.status.success(), "{}", show(&out));
    let copy = signals_of(dir.path(), &["--store", "copy.db", "--out", "copied"]);
    for (id, s) in &all {
        assert_eq!(copy[id].get("related"), s.get("related"), "{id}");
    }
    assert!(!related_ids(&copy[A1]).is_empty());
}

#[test]
fn an_edit_moves_neighbours_and_a_purge_takes_an_item_out_of_lists() {
    let (gh, gl) = (
        TestHost::start(github()).unwrap(),
        TestHost::start(gitlab()).unwrap(),
    );
    let dir = TempDir::new("related-edit");
    configure(dir.path(), &gh, &gl);
    collect(dir.path());
    let before = gh.request_count();

    // o/c#2 is edited into the texture story: it leaves o/a#2's list and
    // joins o/a#1's.
    let mut edited = github();
    set(
        &mut edited,
        "o/c",
        2,
        "Texture cache panic",
        &format!("Same here:\n{TEXTURE}"),
    );
    let item = edited
        .repos
        .get_mut("o/c")
        .unwrap()
        .issues
        .iter_mut()
        .find(|i| i["number"] == 2)
        .unwrap();
    item["updated_at"] = json!(Timestamp::now().to_string());
    gh.set_scenario(edited);
    collect(dir.path());
    let all = signals(dir.path());
    assert!(related_ids(&all[A2]).is_empty(), "{}", all[A2]);
    assert!(
        related_ids(&all[A1]).contains(&C2.to_string()),
        "{}",
        all[A1]
    );
    assert!(related_ids(&all[C2]).contains(&A1.to_string()));
    // Related items cost no request beyond the runs'.
    assert!(gh.request_count() > before);

    // The repository o/b is removed and purged: B1 leaves every list.
    let out = run(dir.path(), &["repos", "remove", "o/b", "--purge"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let all = signals(dir.path());
    assert!(!all.contains_key(B1));
    for s in all.values() {
        assert!(!related_ids(s).contains(&B1.to_string()), "{s}");
    }
}

/// The `echo` messages waiting in the outbox, as JSON payloads.
fn echoes(dir: &std::path::Path) -> Vec<Value> {
    use signals_store::Outbox;
    let store = signals_store_sqlite::Store::open(dir.join("signals.db")).unwrap();
    store
        .outbox_messages(signals_store::MessageState::Pending, Some("echo"))
        .unwrap()
        .into_iter()
        .map(|m| serde_json::to_value(&m.payload).unwrap())
        .collect()
}

#[test]
fn a_new_item_told_in_other_repositories_fires_echo_once() {
    let (gh, gl) = (
        TestHost::start(github()).unwrap(),
        TestHost::start(gitlab()).unwrap(),
    );
    let dir = TempDir::new("related-echo");
    configure(dir.path(), &gh, &gl);
    let config = dir.path().join("signals.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(
        "\n[[notify]]\nname = \"echo\"\nkind = \"webhook\"\nurl = \"http://127.0.0.1:9/h\"\n\
         events = [\"echo\"]\ninitial = \"none\"\n",
    );
    std::fs::write(&config, text).unwrap();
    // A first run sends no echo, though its items are related.
    collect(dir.path());
    assert!(echoes(dir.path()).is_empty());

    // A new issue of o/c tells the texture story of o/a, o/b and grp/proj.
    let mut more = github();
    let issues = &mut more.repos.get_mut("o/c").unwrap().issues;
    let mut new = issues[0].clone();
    let now = Timestamp::now().to_string();
    new["number"] = json!(10);
    new["id"] = json!(1_000_010);
    new["url"] = json!("https://api.github.com/repos/o/c/issues/10");
    new["html_url"] = json!("https://github.com/o/c/issues/10");
    new["state"] = json!("open");
    new["closed_at"] = Value::Null;
    new["created_at"] = json!(now);
    new["updated_at"] = json!(now);
    new["title"] = json!("Crash on launch since the texture update");
    new["body"] = json!(format!("Crash log:\n{TEXTURE}"));
    issues.push(new);
    gh.set_scenario(more);
    collect(dir.path());
    let sent = echoes(dir.path());
    assert_eq!(sent.len(), 1, "{sent:?}");
    let listed = sent[0]["signals"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{sent:?}");
    assert_eq!(listed[0]["signal"]["id"], "github:o/c:issue:10", "{sent:?}");
    assert_eq!(listed[0]["event"], "echo");
    let mut others: Vec<&str> = listed[0]["signal"]["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    others.sort_unstable();
    assert_eq!(others, [A1, B1, L1], "{sent:?}");
    assert!(
        !listed[0]["signal"]["related"][0]["shared"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // Once: the next run, quiet, sends no other.
    collect(dir.path());
    assert_eq!(echoes(dir.path()).len(), 1);
    // The card of the new item says the same.
    let all = signals(dir.path());
    let mut card = related_ids(&all["github:o/c:issue:10"]);
    card.sort();
    assert_eq!(card, [A1, B1, L1]);
}

/// Every item of `repo` re-timed as a year of history, one a day, the
/// newest opened 23 hours before `now`.
pub(crate) fn a_year_of(s: &mut Scenario, repo: &str, now: Timestamp) {
    let day = jiff::SignedDuration::from_hours(24);
    let items = s.repos[repo].issues.len() as i32;
    let start = now - day * items + jiff::SignedDuration::from_hours(1);
    let at = |t: Timestamp| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
    for (i, item) in s.repos.get_mut(repo).unwrap().issues.iter_mut().enumerate() {
        let created = start + day * (i as i32);
        let touched = created + jiff::SignedDuration::from_hours(1);
        item["created_at"] = json!(at(created));
        item["updated_at"] = json!(at(touched));
        if item["closed_at"].is_string() {
            item["closed_at"] = json!(at(touched));
        }
        if let Some(merged) = item["pull_request"].get_mut("merged_at")
            && merged.is_string()
        {
            *merged = json!(at(touched));
        }
    }
}

/// On the defaults (only a host, a token and a group) against a year of
/// history: a first run reads the last day only, and the story told in
/// both repositories within it is related; the copy told 300 days ago
/// was not read, so nothing lists it.
#[test]
fn on_the_defaults_a_story_of_the_first_day_is_related_across_repositories() {
    const DAYS: usize = 365;
    let now = Timestamp::now();
    let mut s = Scenario::default();
    for name in ["o/a", "o/b"] {
        s.repos
            .extend(synthetic(name, DAYS, "2025-01-01T00:00:00Z".parse().unwrap()).repos);
    }
    plant(&mut s, &["o/a", "o/b"]);
    let newest = DAYS as u64;
    set(
        &mut s,
        "o/a",
        newest,
        "Crash when loading textures",
        TEXTURE,
    );
    set(
        &mut s,
        "o/b",
        newest,
        "Panic on startup with a texture pack",
        &format!("Since 0.9 the game stops at once. Log:\n{TEXTURE}"),
    );
    set(&mut s, "o/b", 65, "Crash when loading textures", TEXTURE);
    for name in ["o/a", "o/b"] {
        a_year_of(&mut s, name, now);
    }
    let host = TestHost::start(s).unwrap();
    let dir = TempDir::new("related-defaults");
    std::fs::write(
        dir.path().join("signals.toml"),
        format!(
            "store = \"signals.db\"\nout = \"site\"\n\n[host]\napi_url = \"{}\"\n\n\
             [[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\"o/a\", \"o/b\"]\n",
            host.api_url()
        ),
    )
    .unwrap();
    let token = [("GITHUB_TOKEN", "tok")];
    let out = run(dir.path(), &["collect", "--no-notify"], &token);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = run(dir.path(), &["export"], &token);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let mut all = std::collections::BTreeMap::new();
    for repo in ["a", "b"] {
        let path = dir.path().join("site/g").join(repo).join("dataset.json");
        for s in read_json(&path)["dataset"]["signals"].as_array().unwrap() {
            all.insert(s["id"].as_str().unwrap().to_string(), s.clone());
        }
    }
    // The synthetic host makes item `n` an issue or a pull request alike
    // in every repository.
    let suffix = format!(":{newest}");
    let Some(a) = all
        .keys()
        .find(|id| id.starts_with("github:o/a:") && id.ends_with(&suffix))
        .cloned()
    else {
        panic!("o/a's newest item was not collected: {:?}", all.keys());
    };
    let k = a.split(':').nth(2).unwrap().to_string();
    let b = format!("github:o/b:{k}:{newest}");
    assert!(
        all.len() < 2 * DAYS / 10,
        "a first run reads the last day: {}",
        all.len()
    );
    assert!(related_ids(&all[&a]).contains(&b), "{:?}", all[&a]);
    assert!(related_ids(&all[&b]).contains(&a), "{:?}", all[&b]);
    let old = format!("github:o/b:{k}:65");
    assert!(
        !all.contains_key(&old),
        "the old copy is outside the default window"
    );
    for s in all.values() {
        assert!(!related_ids(s).contains(&old), "{s}");
    }
}
