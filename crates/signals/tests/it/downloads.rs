//! Release assets' downloads on the test host across three runs, the
//! third after an asset was replaced (a new id under the same name): the
//! counts kept per run, `trends.json`'s weekly `downloads` the sum of the
//! increases seen (a first sighting and a count that went down add
//! nothing), the verdict's last 4 weeks from the store, and the chart on
//! the repository page. Every document validates.

use std::path::Path;

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};
use signals_core::downloads::{LAST_4_WEEKS, last_4_weeks};
use signals_store::{Reads, TrendReads};
use signals_testhost::{Scenario, TestHost, synthetic, synthetic_forgejo};

use crate::support::{TempDir, config, read_json, run, show};

const REPO: &str = "o/dl";

/// `REPO` whose first published release carries `assets` (id, name,
/// downloads).
fn scenario(assets: &[(u64, &str, u64)]) -> Scenario {
    let mut s = synthetic(
        REPO,
        3,
        Timestamp::now() - SignedDuration::from_hours(24 * 40),
    );
    let data = s.repos.get_mut(REPO).unwrap();
    let release = data
        .releases
        .iter_mut()
        .find(|r| r["draft"] == false)
        .unwrap();
    release["assets"] = assets
        .iter()
        .map(|(id, name, count)| {
            json!({"id": id, "name": name, "download_count": count, "size": 1024,
                   "browser_download_url": format!("https://github.com/o/dl/releases/download/v/{name}")})
        })
        .collect();
    s
}

fn collect(dir: &Path) {
    let out = run(dir, &["collect"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

fn validate(dir: &Path, file: &str) -> Value {
    let path = dir.join("site/g/dl").join(file);
    let out = run(dir, &["validate", path.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    read_json(&path)
}

#[test]
fn downloads_across_three_runs_one_after_an_asset_was_replaced() {
    let host =
        TestHost::start(scenario(&[(11, "tool.tar.gz", 100), (12, "tool.zip", 40)])).unwrap();
    let dir = TempDir::new("downloads-runs");
    std::fs::write(
        dir.path().join("signals.toml"),
        config(host.base_url(), &[REPO], ""),
    )
    .unwrap();
    // First sighting: nothing counted.
    collect(dir.path());
    // +50 on the tarball.
    host.set_scenario(scenario(&[(11, "tool.tar.gz", 150), (12, "tool.zip", 40)]));
    collect(dir.path());
    // The tarball replaced (a new id, counting from 7: a first sighting),
    // +5 on the zip.
    host.set_scenario(scenario(&[(13, "tool.tar.gz", 7), (12, "tool.zip", 45)]));
    collect(dir.path());

    let out = run(dir.path(), &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    validate(dir.path(), "dataset.json");
    let trends = validate(dir.path(), "trends.json");
    let weekly: Vec<u64> = trends["weeks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["downloads"].as_u64().unwrap())
        .collect();
    assert_eq!(weekly.iter().sum::<u64>(), 55, "{weekly:?}");
    assert_eq!(*weekly.last().unwrap(), 55, "all three runs are this week");

    // The counts kept: each asset's first count, and those that moved.
    let store = signals_store_sqlite::Store::open(dir.path().join("signals.db")).unwrap();
    let key = store.repositories().unwrap()[0].key;
    let all = store.asset_sightings(key, Timestamp::UNIX_EPOCH).unwrap();
    let kept: Vec<(&str, u64)> = all.iter().map(|s| (s.asset.as_str(), s.count)).collect();
    assert_eq!(
        kept,
        vec![("11", 100), ("11", 150), ("12", 40), ("12", 45), ("13", 7)]
    );
    // What the verdict's last 4 weeks reads.
    let now = Timestamp::now();
    let span = store.asset_sightings(key, now - LAST_4_WEEKS).unwrap();
    assert_eq!(last_4_weeks(&span, now), 55);

    // The repository page charts them.
    let page = std::fs::read_to_string(dir.path().join("site/g/dl/index.html")).unwrap();
    assert!(
        page.contains("id=\"chart-downloads-h\""),
        "a downloads chart"
    );
    assert!(page.contains("Downloads of release assets per week"));
}

/// Forgejo sends the same `assets` with its releases: its downloads are
/// counted alike, and it is never asked for advisories (it has none).
#[test]
fn forgejo_downloads_are_counted_and_no_advisories_are_asked() {
    let with = |count: u64| {
        let mut s = synthetic_forgejo(
            "owner/repo",
            3,
            Timestamp::now() - SignedDuration::from_hours(24 * 40),
        );
        let data = s.repos.values_mut().next().unwrap();
        let release = data
            .releases
            .iter_mut()
            .find(|r| r["draft"] == false)
            .unwrap();
        release["assets"] = json!([{"id": 21, "name": "a.tar.gz", "download_count": count,
                                     "uuid": "u-21", "size": 10}]);
        s
    };
    let host = TestHost::start(with(10)).unwrap();
    let dir = TempDir::new("downloads-forgejo");
    let text = format!(
        "store = \"signals.db\"\nout = \"site\"\nbackfill_days = 60\n\n[[hosts]]\nname = \"h\"\nkind = \"forgejo\"\napi_url = \"{}\"\n\n[[groups]]\nid = \"g\"\nname = \"Group\"\nrepos = [\"owner/repo\"]\n",
        host.api_url()
    );
    std::fs::write(dir.path().join("signals.toml"), text).unwrap();
    collect(dir.path());
    host.set_scenario(with(17));
    collect(dir.path());
    assert!(
        host.requests()
            .iter()
            .all(|r| !r.path.contains("security-advisories"))
    );
    let out = run(dir.path(), &["export"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let path = dir.path().join("site/g/repo/trends.json");
    let out = run(dir.path(), &["validate", path.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let weekly: u64 = read_json(&path)["weeks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["downloads"].as_u64().unwrap())
        .sum();
    assert_eq!(weekly, 7);
}
