//! `signals duplicates` end to end: duplicates marked on the test hosts
//! in each way a host marks them (a `Duplicate of` comment, GitHub's close
//! reason with a reference, a `duplicate` label with a reference, GitLab's
//! closed-as-duplicate link) are read back from what a first run on the
//! default windows stored, and the related items are measured against
//! them; a mark outside the first run's day is not, and nothing is sent
//! to a host to measure.

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use signals_testhost::{Scenario, TestHost, synthetic, synthetic_gitlab};

use crate::related::{LINKING, TEXTURE, plant, set};
use crate::support::{TempDir, run, show};

const ITEMS: usize = 30;
/// The newest items of each repository, an hour apart within the first
/// run's day; the others two days apart before it.
const RECENT: usize = 8;

const SOUND: &str = "ALSA lib pcm.c:8526:(snd_pcm_recover) underrun occurred\n\
                     pulseaudio: sink suspended, stream corked after resume";
const SHADER: &str = "glslang: ERROR: 0:17: 'texelFetchOffset' : no matching overloaded function \
                      found\nshader cache rebuild aborted (vulkan backend)";

fn stamp(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Re-times `repo`'s items in the order they were opened: the newest
/// [`RECENT`] an hour apart before `now`, the rest two days apart before
/// those.
fn retime(s: &mut Scenario, repo: &str, now: Timestamp) {
    let data = s.repos.get_mut(repo).unwrap();
    let items = data.issues.iter_mut().chain(data.merge_requests.iter_mut());
    let mut all: Vec<&mut Value> = items.collect();
    all.sort_by_key(|i| i["created_at"].as_str().unwrap_or_default().to_string());
    let n = all.len();
    for (i, item) in all.iter_mut().enumerate() {
        let back = n - i;
        let created = if back <= RECENT {
            now - SignedDuration::from_hours(back as i64 + 1)
        } else {
            now - SignedDuration::from_hours(24 * 2 * back as i64)
        };
        let touched = created + SignedDuration::from_mins(30);
        item["created_at"] = json!(stamp(created));
        item["updated_at"] = json!(stamp(touched));
        if item["closed_at"].is_string() {
            item["closed_at"] = json!(stamp(touched));
        }
        if let Some(merged) = item.get_mut("merged_at").filter(|m| m.is_string()) {
            *merged = json!(stamp(touched));
        }
        if let Some(merged) = item["pull_request"]
            .get_mut("merged_at")
            .filter(|m| m.is_string())
        {
            *merged = json!(stamp(touched));
        }
    }
}

/// Closes GitHub issue `n` of `repo` with `reason`, and adds `comment`
/// at its update time.
fn close_with(s: &mut Scenario, repo: &str, n: u64, reason: Option<&str>, comment: Option<&str>) {
    let data = s.repos.get_mut(repo).unwrap();
    let item = data.issues.iter_mut().find(|i| i["number"] == n).unwrap();
    let at = item["updated_at"].clone();
    item["state"] = json!("closed");
    item["closed_at"] = at.clone();
    item["state_reason"] = reason.map_or(Value::Null, |r| json!(r));
    if let Some(body) = comment {
        let id = 9_000_000 + n + 1000 * data.comments.len() as u64;
        data.comments.push(json!({
            "id": id,
            "html_url": format!("https://github.com/{repo}/issues/{n}#issuecomment-{id}"),
            "issue_url": format!("https://api.github.com/repos/{repo}/issues/{n}"),
            "user": { "login": "maintainer", "type": "User" },
            "author_association": "MEMBER",
            "created_at": at, "updated_at": at,
            "body": body,
        }));
    }
}

fn label(s: &mut Scenario, repo: &str, n: u64, name: &str) {
    let data = s.repos.get_mut(repo).unwrap();
    let item = data.issues.iter_mut().find(|i| i["number"] == n).unwrap();
    item["labels"] = json!([{ "name": name }]);
}

fn github(now: Timestamp) -> Scenario {
    let mut s = Scenario::default();
    for name in ["o/a", "o/b"] {
        s.repos
            .extend(synthetic(name, ITEMS, "2025-01-01T00:00:00Z".parse().unwrap()).repos);
    }
    plant(&mut s, &["o/a", "o/b"]);
    for name in ["o/a", "o/b"] {
        retime(&mut s, name, now);
    }
    // Issues (a multiple of 3 is a pull request on the synthetic host).
    // A comment, across repositories.
    set(&mut s, "o/a", 29, "Crash when loading textures", TEXTURE);
    let story = format!("Since 0.9 the game stops at once. Log:\n{TEXTURE}");
    set(
        &mut s,
        "o/b",
        29,
        "Panic on startup with a texture pack",
        &story,
    );
    close_with(&mut s, "o/b", 29, None, Some("Duplicate of o/a#29."));
    // GitHub's close reason, the original named by a URL.
    set(&mut s, "o/a", 28, "Linking fails on Debian", LINKING);
    let linking = "cargo build ends with undefined reference to `SDL_GetWindowWMInfo' from ld.";
    set(
        &mut s,
        "o/b",
        28,
        "Build error: undefined reference to SDL_GetWindowWMInfo",
        linking,
    );
    close_with(
        &mut s,
        "o/b",
        28,
        Some("duplicate"),
        Some("Same as https://github.com/o/a/issues/28, closing."),
    );
    // A label, the original named in the body.
    set(&mut s, "o/a", 26, "No sound after resume", SOUND);
    let sound = format!("Reported in #26 too, I think. Audio dies after suspend:\n{SOUND}");
    set(&mut s, "o/a", 25, "Audio stops after suspend", &sound);
    label(&mut s, "o/a", 25, "status: duplicate");
    // Marked, naming nothing: left out.
    label(&mut s, "o/b", 25, "duplicate");
    // Marked long before the first run's day: never read.
    set(&mut s, "o/a", 2, "Crash when loading textures", TEXTURE);
    close_with(
        &mut s,
        "o/a",
        2,
        Some("duplicate"),
        Some("Duplicate of #29"),
    );
    s
}

fn gitlab(now: Timestamp) -> Scenario {
    let mut s = synthetic_gitlab("grp/proj", ITEMS, "2025-01-01T00:00:00Z".parse().unwrap());
    plant(&mut s, &["grp/proj"]);
    retime(&mut s, "grp/proj", now);
    let data = s.repos.get_mut("grp/proj").unwrap();
    let iids: Vec<u64> = data
        .issues
        .iter()
        .filter_map(|i| i["iid"].as_u64())
        .collect();
    let (original, duplicate) = (iids[iids.len() - 2], iids[iids.len() - 1]);
    let project = "https://gitlab.example/api/v4/projects/12";
    for item in data.issues.iter_mut() {
        item["_links"] = json!({ "project": project, "closed_as_duplicate_of": null });
    }
    let item = data
        .issues
        .iter_mut()
        .find(|i| i["iid"] == duplicate)
        .unwrap();
    item["state"] = json!("closed");
    item["closed_at"] = item["updated_at"].clone();
    item["_links"]["closed_as_duplicate_of"] = json!(format!("{project}/issues/{original}"));
    set(
        &mut s,
        "grp/proj",
        original,
        "Shader cache rebuild fails on Vulkan",
        SHADER,
    );
    let shader = format!("After the driver update the shader cache breaks:\n{SHADER}");
    set(
        &mut s,
        "grp/proj",
        duplicate,
        "Vulkan shader compile error",
        &shader,
    );
    s
}

#[test]
fn duplicates_each_host_marks_are_found_on_the_default_windows_without_a_request() {
    let dir = TempDir::new("duplicates");
    marks_are_measured(dir.path(), "signals.db");
}

#[test]
fn duplicates_are_measured_alike_on_postgresql() {
    let Some(cluster) = crate::workers::cluster() else {
        return;
    };
    let url = cluster.create_database("duplicates_pg").unwrap();
    let dir = TempDir::new("duplicates-pg");
    marks_are_measured(dir.path(), &url);
}

/// Collects the marked scenario into `store` with the default windows,
/// then measures it.
fn marks_are_measured(dir: &std::path::Path, store: &str) {
    let now = Timestamp::now();
    let gh = TestHost::start(github(now)).unwrap();
    let gl = TestHost::start(gitlab(now)).unwrap();
    std::fs::write(
        dir.join("signals.toml"),
        format!(
            "store = \"{store}\"\nout = \"site\"\n\n\
             [[hosts]]\nname = \"hub\"\nkind = \"github\"\napi_url = \"{}\"\n\n\
             [[hosts]]\nname = \"lab\"\nkind = \"gitlab\"\napi_url = \"{}\"\n\n\
             [[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\n  \
             {{ repo = \"o/a\", host = \"hub\" }},\n  {{ repo = \"o/b\", host = \"hub\" }},\n  \
             {{ repo = \"grp/proj\", host = \"lab\" }},\n]\n",
            gh.api_url(),
            gl.api_url(),
        ),
    )
    .unwrap();
    let tokens = [("GITHUB_TOKEN", "tok"), ("GITLAB_TOKEN", "tok")];
    let out = run(dir, &["collect", "--no-notify"], &tokens);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let requests = gh.request_count() + gl.request_count();

    let out = run(dir, &["duplicates"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(gh.request_count() + gl.request_count(), requests, "{text}");
    // Four marks in the first run's day, one of each way; the one naming
    // nothing is left out; the one 56 days old was never read.
    assert!(
        text.contains("Group g (G): 4 duplicates marked by the hosts among "),
        "{text}"
    );
    assert!(
        text.contains("marked: 1 by comment, 1 by close reason, 1 by label, 1 by host link"),
        "{text}"
    );
    assert!(
        text.contains("(no single original among the group's items): 1\n"),
        "{text}"
    );
    // Each of the 8 ordered pairs is among the first's five best at the
    // lists' threshold, and nothing else is listed for the marked items.
    let row = text
        .lines()
        .find(|l| l.starts_with("| 0.20 |"))
        .unwrap_or_else(|| panic!("no row at 0.20: {text}"));
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    assert_eq!(cells[2], "1.000", "recall@5: {text}");
    assert_eq!(cells[4], "8 / 8", "{text}");
    let listed: Vec<&str> = cells[5].split(" / ").collect();
    assert_eq!(listed[0], listed[1], "precision: {text}");

    let out = run(dir, &["duplicates", "--group", "nope"], &[]);
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no group `nope`") && err.contains("its groups are g"),
        "{err}"
    );
}
