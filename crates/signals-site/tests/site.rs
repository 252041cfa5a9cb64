//! The site as a whole: rendered pages checked by snapshot, injection and
//! paging tests, and `write_site` on a real folder.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use jiff::{SignedDuration, Timestamp};
use signals_core::dataset::{DatasetInput, Document, build};
use signals_core::importance::{Score, Weights, score};
use signals_core::lifecycle::State;
use signals_core::lifecycle::contributors::{ContributorsSource, WeeklyContributors};
use signals_core::lifecycle::verdict::StateChange;
use signals_core::trends::{
    Contributors, ItemFacts, Rising, Trends, WEEKS, WeekTally, daily_context, first_week, rising,
};
use signals_core::{
    EventKind, Group, ItemDetail, ItemSnapshot, ItemState, Metrics, Milestone, News, RepoContext,
    RepoName, RunRecord, Source, TrackedRepo, TrailEvent,
};
use signals_site::{
    DIGEST_SIGNALS, GroupDigest, RepoDigest, RepoPage, SiteError, render_feed, render_group,
    render_index, render_repo, render_repo_pages, write_site,
};

fn ts(s: &str) -> Timestamp {
    s.parse().unwrap()
}

const NOW: &str = "2026-11-21T10:00:00.123Z";

/// Everything a `RepoPage` borrows from.
struct Fixture {
    document: Document,
    trends: Trends,
    news: News,
    trail: Vec<TrailEvent>,
    scores: HashMap<String, Score>,
    events: u64,
    health: signals_site::HealthNote,
    /// The lifecycle's changes, oldest first.
    lifecycle: Vec<StateChange>,
}

impl Fixture {
    fn page(&self) -> RepoPage<'_> {
        RepoPage {
            document: &self.document,
            trends: &self.trends,
            news: &self.news,
            license: Some("Apache-2.0"),
            trail: &self.trail,
            scores: &self.scores,
            event_count: self.events,
            collected_at: ts(NOW),
            health: &self.health,
            waiting: &[],
            verdict: None,
            lifecycle: &self.lifecycle,
        }
    }
}

fn item(repo: &RepoName, key: &str, updated: &str, detail: ItemDetail) -> ItemSnapshot {
    let kind_path = match detail {
        ItemDetail::Issue { .. } => "issues",
        ItemDetail::PullRequest { .. } => "pull",
        ItemDetail::Release { .. } => "releases/tag",
        ItemDetail::Discussion { .. } => "discussions",
        ItemDetail::Advisory { .. } => "security/advisories",
    };
    ItemSnapshot {
        repo: repo.clone(),
        key: key.to_string(),
        title: format!("Item {key}"),
        text: format!("Body of **{key}** with `code` and a [link](https://example.com/{key})."),
        url: format!("https://github.com/{repo}/{kind_path}/{key}"),
        created_at: ts("2026-11-01T08:00:00Z"),
        updated_at: ts(updated),
        metrics: Metrics {
            reactions: 2,
            comments: 3,
        },
        labels: vec![],
        author: "alice".to_string(),
        state: ItemState::Open,
        closed_at: None,
        assignees: vec![],
        detail,
    }
}

fn release(repo: &RepoName, tag: &str, at: &str, prerelease: bool, notes: &str) -> ItemSnapshot {
    let mut r = item(
        repo,
        tag,
        at,
        ItemDetail::Release {
            prerelease,
            published_at: ts(at),
        },
    );
    r.title = format!("Release {tag}");
    r.text = notes.to_string();
    r.state = ItemState::Closed;
    r.metrics = Metrics::default();
    r
}

/// A repository with `items`, news and a trail with one `discovered` per item
/// plus a `changed` for the first.
fn fixture_with(
    group: (&str, &str),
    repo_id: &str,
    repo_name: &str,
    context: impl FnOnce(&mut RepoContext),
    items: Vec<ItemSnapshot>,
    releases: Vec<ItemSnapshot>,
    milestones: Vec<Milestone>,
) -> Fixture {
    let group = Group {
        id: group.0.into(),
        name: group.1.into(),
    };
    let name = RepoName::parse(repo_name).unwrap();
    let tracked = TrackedRepo {
        id: repo_id.into(),
        source: Source::Github.into(),
        repo: name.clone(),
        name: format!("Display {repo_id}"),
        keywords: vec!["inference".into(), "gguf".into()],
    };
    let mut ctx = RepoContext {
        repository: name.clone(),
        url: format!("https://github.com/{name}"),
        description: "A fast engine.".into(),
        homepage: "https://example.org".into(),
        language: "C++".into(),
        topics: vec!["llm".into(), "ggml".into()],
        default_branch: "main".into(),
        stars: 71234,
        forks: 10456,
        open_issues: 812,
        archived: false,
        license: Some("Apache-2.0".into()),
        pushed_at: None,
        created_at: None,
    };
    context(&mut ctx);
    let now = ts(NOW);
    let runs = vec![RunRecord {
        collected_at: now,
        since: now.checked_sub(SignedDuration::from_hours(24)).unwrap(),
        observed_count: items.len() as u64,
        changed_count: items.len() as u64,
    }];
    let news = News::from_collected(&releases, &milestones);
    let mut all = items;
    all.extend(releases);
    let changed = HashSet::from([all[0].id(Source::Github)]);
    let document = build(&DatasetInput {
        group: &group,
        repo: &tracked,
        context: &ctx,
        news: &news,
        runs: &runs,
        items: &all,
        changed_in_latest: &changed,
    })
    .unwrap();
    let weights = Weights::default();
    let scores = all
        .iter()
        .map(|i| (i.id(Source::Github), score(i, now, &weights)))
        .collect();
    let mut trail: Vec<TrailEvent> = all
        .iter()
        .map(|i| TrailEvent {
            at: ts("2026-11-20T10:00:00Z"),
            item_id: i.id(Source::Github),
            title: i.title.clone(),
            url: i.url.clone(),
            kind: EventKind::Discovered,
            detail: "initial snapshot".into(),
        })
        .collect();
    trail.push(TrailEvent {
        at: now,
        kind: EventKind::Changed,
        detail: "updatedAt, metrics".into(),
        ..trail[0].clone()
    });
    let events = trail.len() as u64;
    // Trends as export makes them: the weeks from the latest snapshots, a
    // context point per run, and the items that grew (here the first one,
    // from 3 to its reactions plus comments now).
    let mut tally = WeekTally::new(now, runs[0].since);
    let mut people = WeeklyContributors::new(first_week(now), WEEKS, now);
    for i in &all {
        tally.add(&ItemFacts::of(i));
        people.add(&i.author, i.created_at);
    }
    let contributors = Contributors {
        weeks: people.finish(ContributorsSource::History),
        source: ContributorsSource::History,
    };
    let grown = &all[0];
    let trends = Trends::new(
        name.to_string(),
        now,
        runs[0].since,
        tally.finish(&contributors),
        daily_context(
            [(now, ctx.stars, ctx.forks, ctx.open_issues)],
            first_week(now),
        ),
        rising(vec![Rising {
            id: grown.id(Source::Github),
            title: grown.title.clone(),
            url: grown.url.clone(),
            from: 3,
            to: grown.metrics.reactions + grown.metrics.comments,
        }]),
    );
    Fixture {
        document,
        trends,
        news,
        trail,
        scores,
        events,
        health: signals_site::HealthNote::default(),
        lifecycle: Vec::new(),
    }
}

/// The fixed dataset of the snapshots: an issue, a draft pull request, a
/// merged one, a stable release, a newer prerelease and a milestone.
fn small() -> Fixture {
    let repo = RepoName::parse("ggml-org/llama.cpp").unwrap();
    let mut bug = item(&repo, "42", "2026-11-21T08:00:00Z", ItemDetail::issue());
    bug.title = "Crash when loading Q4 model".into();
    bug.labels = vec!["bug".into(), "regression".into(), "area:loader".into()];
    bug.metrics = Metrics {
        reactions: 12,
        comments: 9,
    };
    bug.assignees = vec!["bob".into(), "carol".into()];
    let mut closed = item(&repo, "7", "2026-11-10T08:00:00Z", ItemDetail::issue());
    closed.state = ItemState::Closed;
    closed.labels = vec!["duplicate".into()];
    let mut draft = item(
        &repo,
        "100",
        "2026-11-21T09:00:00Z",
        ItemDetail::PullRequest {
            draft: true,
            merged: false,
            merged_at: None,
            association: None,
        },
    );
    draft.title = "WIP: faster sampler".into();
    let mut merged = item(
        &repo,
        "99",
        "2026-11-20T12:00:00Z",
        ItemDetail::PullRequest {
            draft: false,
            merged: true,
            merged_at: Some(ts("2026-11-20T12:00:00Z")),
            association: None,
        },
    );
    merged.state = ItemState::Closed;
    let notes = "## Highlights\n\n- Faster `Q4_K` loading ([#12](https://github.com/ggml-org/llama.cpp/pull/12))\n- **New** sampler\n\nSee the [changelog](https://example.org/changes).";
    let releases = vec![
        release(&repo, "v1.4.0", "2026-11-15T10:00:00Z", false, notes),
        release(
            &repo,
            "v1.5.0-dev.1",
            "2026-11-20T10:00:00Z",
            true,
            "- preview",
        ),
        release(&repo, "v1.3.0", "2026-10-01T10:00:00Z", false, "- old"),
    ];
    let milestone = |title: &str, due: Option<&str>, updated: Option<&str>| Milestone {
        updated_at: updated.map(ts),
        title: title.into(),
        url: format!("https://github.com/ggml-org/llama.cpp/milestone/{title}"),
        description: String::new(),
        open_issues: 4,
        closed_issues: 8,
        due_on: due.map(ts),
    };
    let mut first = milestone("v1.6", None, Some("2026-11-01T00:00:00Z"));
    first.description = "After the next".into();
    let mut milestones = vec![
        first,
        milestone("Legacy", None, Some("2014-05-01T00:00:00Z")),
        milestone("v1.2", Some("2026-01-01T00:00:00Z"), None),
        milestone("v1.5", Some("2026-12-01T00:00:00Z"), None),
    ];
    milestones[3].description = "Next minor release".into();
    let mut f = fixture_with(
        ("inference-engines", "Inference engines"),
        "llama-cpp",
        "ggml-org/llama.cpp",
        |_| {},
        vec![bug, closed, draft, merged],
        releases,
        milestones,
    );
    // The draft pull request was first seen in the latest run.
    let now = ts(NOW);
    for e in f.trail.iter_mut().filter(|e| e.item_id.ends_with(":100")) {
        e.at = now;
    }
    f.trail.sort_by_key(|e| e.at);
    f
}

fn page_named<'a>(files: &'a [(PathBuf, String)], name: &str) -> &'a str {
    files
        .iter()
        .find(|(p, _)| p.ends_with(name))
        .map(|(_, s)| s.as_str())
        .unwrap_or_else(|| {
            panic!(
                "no {name} among {:?}",
                files.iter().map(|f| &f.0).collect::<Vec<_>>()
            )
        })
}

#[test]
fn repo_page_snapshot() {
    let f = small();
    let files = render_repo_pages(&f.page()).unwrap();
    let names: Vec<_> = files.iter().map(|(p, _)| p.to_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "inference-engines/llama-cpp/index.html",
            "inference-engines/llama-cpp/trail.html"
        ]
    );
    insta::assert_snapshot!("repo_page", files[0].1);
    insta::assert_snapshot!("trail_page", files[1].1);
}

#[test]
fn index_snapshot() {
    let a = small();
    let b = fixture_with(
        ("agents", "Agent frameworks"),
        "smol",
        "acme/smol",
        |c| c.description = String::new(),
        vec![item(
            &RepoName::parse("acme/smol").unwrap(),
            "1",
            "2026-11-21T09:00:00Z",
            ItemDetail::issue(),
        )],
        vec![],
        vec![],
    );
    insta::assert_snapshot!(
        "index",
        render_index(&[sum(a.page()), sum(b.page())]).unwrap()
    );
}

#[test]
fn feed_snapshot() {
    let f = small();
    insta::assert_snapshot!("feed", render_feed(&f.page()).unwrap());
}

#[test]
fn page_shows_what_the_spec_lists() {
    let f = small();
    let files = render_repo_pages(&f.page()).unwrap();
    let html = page_named(&files, "index.html");
    for want in [
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' https: data:; base-uri 'self'; form-action 'none'\">",
        "<link rel=\"stylesheet\" href=\"../../style.css\">",
        "<link rel=\"alternate\" type=\"application/atom+xml\"",
        "<p class=\"counts\">7 signals · 8 observation events</p>",
        "<a href=\"https://github.com/ggml-org/llama.cpp\">ggml-org/llama.cpp</a>",
        "<li>keyword: inference</li>",
        "<li>keyword: gguf</li>",
        "<dd>71234</dd>",
        "<dd>Apache-2.0</dd>",
        "<dd>C++</dd>",
        "<li>llm</li>",
        "Latest release <span class=\"tag\">v1.4.0</span>",
        "<li>Faster Q4_K loading (#12)</li>",
        "<a href=\"https://github.com/ggml-org/llama.cpp/releases/tag/v1.4.0\">Original release notes</a>",
        "Publicly indicated next",
        "These are public plans, not delivery commitments.",
        "<progress value=\"67\" max=\"100\">",
        "<ol class=\"trail\" start=\"1\">",
        "data-event-kind=\"discovered\">",
        "data-event-kind=\"changed\"><span class=\"ev-kind ev-changed\">changed</span> <span class=\"ev-item\">issue <span class=\"num\">#42</span> <a href=\"https://github.com/ggml-org/llama.cpp/issues/42\">Crash when loading Q4 model</a></span>: <span class=\"ev-words\">new comments or reactions</span> <span class=\"ev-meta\"><span class=\"ev-detail\">updatedAt, metrics</span>",
        "<p class=\"counter\">7 shown · 7 signals in total, by importance</p>",
        "<span class=\"kind\">pull request</span> <span class=\"num\">#100</span> <span class=\"state state-open\">open</span> <span class=\"flag\">draft</span> <span class=\"flag flag-new\">new</span>",
        "Original evidence</a>",
        // Cards: number, linked title, visible counts, assignees, standing.
        "<span class=\"kind\">issue</span> <span class=\"num\">#42</span>",
        "<h3 class=\"card-title\"><a href=\"https://github.com/ggml-org/llama.cpp/issues/42\">Crash when loading Q4 model</a></h3>",
        "<span class=\"nowrap\">9 comments</span> · <span class=\"nowrap\">12 reactions</span> · <span class=\"assignees\">assigned to bob, carol</span>",
        "importance <strong>",
        "<span class=\"nowrap\">rank 1 of 7</span> · <span class=\"nowrap\">top 15% of this repository</span>",
        "<a href=\"../../importance.html\">",
        // Milestones: due dates, sorted, the overdue and inactive set apart.
        "due <time datetime=\"2026-12-01T00:00:00Z\">",
        "2 overdue or inactive milestones, set apart",
        "overdue since 2026-01-01",
        "no activity since 2014-05-01",
        "<dt>Data as of</dt>",
    ] {
        assert!(html.contains(want), "missing {want:?}");
    }
    // Cards come right after the header and news; the trail after them.
    let news = html.find("id=\"news-h\"").unwrap();
    let cards = html.find("id=\"signals-h\"").unwrap();
    let trail = html.find("id=\"trail-h\"").unwrap();
    assert!(news < cards && cards < trail);
    // Sorted by due date: v1.5 (Dec 1) before v1.6 (no due date).
    let v15 = html.find(">v1.5</a>").unwrap();
    let v16 = html.find(">v1.6</a>").unwrap();
    assert!(v15 < v16);
    let apart = html.find("set apart").unwrap();
    assert!(v16 < apart && apart < html.find(">Legacy</a>").unwrap());
    // Only the item discovered in the latest run is new.
    assert_eq!(html.matches("flag-new").count(), 1);
    // The prerelease comes before the milestone, and only the newer one.
    let pre = html.find("v1.5.0-dev.1").unwrap();
    let milestone = html.find("next-milestone").unwrap();
    assert!(pre < milestone);
    // Releases show no state.
    let release_card = html.split("card-release").nth(1).unwrap();
    let release_card = &release_card[..release_card.find("</li>\n").unwrap()];
    assert!(!release_card.contains("class=\"state"), "{release_card}");
    // No inline style or script: the one script is our own file.
    assert!(!html.contains("style=\""));
    let lower = html.to_ascii_lowercase();
    assert_eq!(lower.matches("<script").count(), 1);
    assert!(html.contains("<script src=\"../../filter.js\" defer></script>"));
}

#[test]
fn cards_follow_importance_then_recency_then_id() {
    let f = small();
    let files = render_repo_pages(&f.page()).unwrap();
    let html = page_named(&files, "index.html");
    let cards = cards_of(html);
    let expected = {
        let mut v: Vec<_> = f
            .document
            .dataset
            .signals
            .iter()
            .map(|s| (f.scores[&s.id].total, s.updated_at.clone(), s.id.clone()))
            .collect();
        v.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        v.into_iter().map(|x| (x.2, x.0)).collect::<Vec<_>>()
    };
    assert_eq!(cards, expected);
    assert_eq!(cards[0].0, "github:ggml-org/llama.cpp:issue:42");
}

/// `(data-signal-id, data-importance)` of every card, in page order.
fn cards_of(html: &str) -> Vec<(String, u32)> {
    html.split("data-signal-id=\"")
        .skip(1)
        .map(|rest| {
            let id = &rest[..rest.find('"').unwrap()];
            let imp = rest.split("data-importance=\"").nth(1).unwrap();
            let imp = &imp[..imp.find('"').unwrap()];
            (id.replace("&amp;", "&"), imp.parse().unwrap())
        })
        .collect()
}

fn many(n: usize) -> Fixture {
    let repo = RepoName::parse("o/n").unwrap();
    let items = (0..n)
        .map(|i| {
            let mut it = item(
                &repo,
                &(i + 1).to_string(),
                "2026-11-21T00:00:00Z",
                ItemDetail::issue(),
            );
            it.metrics.comments = (i % 17) as u64;
            it.metrics.reactions = (i % 5) as u64;
            it
        })
        .collect();
    fixture_with(("g", "G"), "n", "o/n", |_| {}, items, vec![], vec![])
}

#[test]
fn paging_120_signals_makes_3_pages_with_every_signal_once() {
    let f = many(120);
    let files = render_repo_pages(&f.page()).unwrap();
    let pages: Vec<_> = ["index.html", "page-2.html", "page-3.html"]
        .iter()
        .map(|n| page_named(&files, n))
        .collect();
    assert!(!files.iter().any(|(p, _)| p.ends_with("page-4.html")));
    let mut seen = Vec::new();
    for (page, (html, shown)) in pages.iter().zip([50, 50, 20]).enumerate() {
        let cards = cards_of(html);
        assert_eq!(cards.len(), shown);
        assert!(
            html.contains(&format!(
                "<p class=\"counter\">{shown} shown · 120 signals in total, by importance · page {} of 3</p>",
                page + 1
            )),
            "page {}",
            page + 1
        );
        assert!(html.contains(&format!("<ol class=\"cards\" start=\"{}\">", page * 50 + 1)));
        for other in ["index.html", "page-2.html", "page-3.html"] {
            let (i, _) = ["index.html", "page-2.html", "page-3.html"]
                .iter()
                .enumerate()
                .find(|(_, n)| **n == other)
                .unwrap();
            let linked = html.contains(&format!("<a href=\"{other}\">"));
            assert_eq!(linked, i != page, "page {} linking {other}", page + 1);
        }
        seen.extend(cards);
    }
    // Importance never rises from one card to the next, across pages too.
    assert!(seen.windows(2).all(|w| w[0].1 >= w[1].1));
    let mut ids: Vec<_> = seen.into_iter().map(|c| c.0).collect();
    ids.sort();
    let mut want: Vec<_> = f
        .document
        .dataset
        .signals
        .iter()
        .map(|s| s.id.clone())
        .collect();
    want.sort();
    assert_eq!(ids, want);
    // News and the trail preview are on the first page only.
    assert!(pages[0].contains("Observation trail"));
    assert!(!pages[1].contains("Observation trail"));
    assert!(pages[0].contains("The latest 20 of 121 events"));
    assert!(pages[0].contains("<ol class=\"trail\" start=\"102\">"));
}

#[test]
fn trail_is_numeric_within_a_run_and_folds_initial_snapshots() {
    let f = many(120);
    let files = render_repo_pages(&f.page()).unwrap();
    let t1 = page_named(&files, "trail.html");
    // The 120 discovered entries of the one run, as one folded group,
    // numbered 1..120 in numeric order (2 before 10).
    assert!(t1.contains("<li class=\"trail-group\" value=\"1\"><details><summary><span class=\"ev-kind ev-discovered\">discovered</span> 120 items first seen in the run of"));
    let pos = |n: &str| {
        t1.find(&format!("<span class=\"num\">#{n}</span>"))
            .unwrap()
    };
    assert!(pos("1") < pos("2") && pos("2") < pos("10") && pos("10") < pos("100"));
    assert!(t1.contains("<li value=\"2\" data-event-kind=\"discovered\"><span class=\"ev-kind ev-discovered\">discovered</span> <span class=\"ev-item\">issue <span class=\"num\">#2</span>"));
    assert_eq!(t1.matches("data-event-kind=").count(), 121);
    // The changed entry of the later run stays in view, after the group.
    assert!(t1.find("trail-group").unwrap() < t1.find("data-event-kind=\"changed\"").unwrap());
}

#[test]
fn the_site_has_an_importance_page_and_a_feed_of_everything() {
    let a = small();
    let b = many(3);
    let page = signals_site::render_importance().unwrap();
    assert!(page.contains("<h2>The rule</h2>"), "{page}");
    assert!(page.contains("<table>"));
    assert!(page.contains("half_life_hours"));
    let feed = signals_site::render_site_feed(&[a.page(), b.page()]).unwrap();
    assert_eq!(feed.matches("<entry>").count(), 7 + 3);
    assert!(feed.contains("urn:signals:github:o/n:issue:1"));
    assert!(feed.contains("urn:signals:github:ggml-org/llama.cpp:issue:42"));
    let index = render_index(&[sum(a.page()), sum(b.page())]).unwrap();
    for want in [
        "<a href=\"feed.atom\">Atom feed of every repository</a>",
        "<a href=\"inference-engines/llama-cpp/feed.atom\">Atom feed</a>",
        "<a href=\"https://github.com/ggml-org/llama.cpp/releases/tag/v1.4.0\">v1.4.0</a>",
        "<strong>1 new</strong>, 3 changed",
    ] {
        assert!(index.contains(want), "missing {want:?} in {index}");
    }
}

#[test]
fn long_trails_are_paged_and_numbered_throughout() {
    let f = many(450);
    let files = render_repo_pages(&f.page()).unwrap();
    // 451 events: 200 + 200 + 51.
    let t1 = page_named(&files, "trail.html");
    let t3 = page_named(&files, "trail-3.html");
    assert!(t1.contains("<ol class=\"trail\" start=\"1\">"));
    assert!(t3.contains("<ol class=\"trail\" start=\"401\">"));
    assert_eq!(t1.matches("data-event-kind=").count(), 200);
    assert_eq!(t3.matches("data-event-kind=").count(), 51);
    assert!(t3.contains("Events 401–451 of 451, oldest first;"));
    assert!(t1.contains("<a rel=\"next\" href=\"trail-2.html\">"));
}

#[test]
fn lifecycle_changes_are_trail_entries_after_their_runs_events() {
    let mut f = many(450);
    // 450 items first seen in the first run, judged after it; one changed
    // in the latest run, whose judgement changed the state.
    f.lifecycle = vec![
        StateChange {
            at: ts("2026-11-20T10:00:00Z"),
            from: None,
            to: State::Active,
        },
        StateChange {
            at: ts(NOW),
            from: Some(State::Active),
            to: State::Declining,
        },
    ];
    let files = render_repo_pages(&f.page()).unwrap();
    let entry = |n: usize, words: &str| {
        format!(
            "<li value=\"{n}\" data-event-kind=\"lifecycle\"><span class=\"ev-kind ev-lifecycle\">lifecycle</span> <span class=\"ev-words\">{words}</span>"
        )
    };
    let judged = entry(451, "Lifecycle judged: active");
    let changed = entry(453, "Lifecycle: active → declining");
    // 453 entries: 200 + 200 + 53, each change once.
    let t3 = page_named(&files, "trail-3.html");
    assert!(t3.contains("Events 401–453 of 453, oldest first;"), "{t3}");
    assert_eq!(t3.matches("data-event-kind=").count(), 53);
    for name in ["trail.html", "trail-2.html"] {
        let page = page_named(&files, name);
        assert_eq!(page.matches("data-event-kind=").count(), 200);
        assert!(!page.contains("data-event-kind=\"lifecycle\""), "{name}");
    }
    let (j, c) = (t3.find(&judged).unwrap(), t3.find(&changed).unwrap());
    assert_eq!(
        (t3.matches(&judged).count(), t3.matches(&changed).count()),
        (1, 1)
    );
    // The first run's last item, the judgement, the latest run's event,
    // its judgement.
    let changed_event = t3.find("data-event-kind=\"changed\"").unwrap();
    assert!(
        t3.find("value=\"450\" data-event-kind=\"discovered\"")
            .unwrap()
            < j
    );
    assert!(j < changed_event && changed_event < c);
    // No item, so no link: the entry is its words and its time.
    let li = &t3[j..j + t3[j..].find("</li>").unwrap()];
    assert!(!li.contains("href"), "{li}");
    // The first page's latest entries hold both, numbered alike.
    let index = page_named(&files, "index.html");
    assert!(index.contains("The latest 20 of 453 events"), "{index}");
    assert!(index.contains(&judged) && index.contains(&changed));
}

#[test]
fn zero_signals_still_render() {
    let repo = RepoName::parse("o/n").unwrap();
    let mut f = fixture_with(
        ("g", "G"),
        "n",
        "o/n",
        |_| {},
        vec![item(
            &repo,
            "1",
            "2026-11-21T00:00:00Z",
            ItemDetail::issue(),
        )],
        vec![],
        vec![],
    );
    f.document.dataset.signals.clear();
    f.trail.clear();
    f.events = 0;
    let files = render_repo_pages(&f.page()).unwrap();
    let html = page_named(&files, "index.html");
    assert!(html.contains("0 signals · 0 observation events"));
    assert!(html.contains("0 shown · 0 signals in total"));
    assert!(html.contains("No signals collected yet."));
    assert!(html.contains("No stable release published yet."));
    assert!(html.contains("Nothing announced."));
}

#[test]
fn a_missing_score_is_an_error_naming_the_signal() {
    let mut f = small();
    f.scores.remove("github:ggml-org/llama.cpp:issue:7");
    let err = render_repo(&f.page()).unwrap_err();
    assert!(matches!(err, SiteError::MissingScore { .. }));
    assert!(
        err.to_string()
            .contains("github:ggml-org/llama.cpp:issue:7"),
        "{err}"
    );
}

#[test]
fn ids_that_are_not_slugs_cannot_name_folders() {
    let mut f = small();
    f.document.dataset.repository.id = "../../etc".into();
    let err = render_repo(&f.page()).unwrap_err();
    assert!(
        matches!(
            err,
            SiteError::BadId {
                what: "repository",
                ..
            }
        ),
        "{err}"
    );
}

const EVIL: &[&str] = &[
    "<script>alert(1)</script>",
    "</script><script>alert(1)</script>\u{2028}\u{2029}",
    "<img src=x onerror=alert(1)>",
    "\"><svg onload=alert(1)>",
    "' onmouseover='alert(1)",
    "javascript:alert(1)",
    "<a href=\"javascript:alert(1)\">x</a>",
    "</textarea></title><b",
    "<iframe src=https://evil.example>",
    "<style>body{display:none}</style>",
    "[click](javascript:alert(1)) ![x](javascript:alert(2)) <div onclick=\"x()\">",
];

fn evil(i: usize) -> String {
    EVIL[i % EVIL.len()].to_string()
}

fn hostile() -> Fixture {
    let repo = RepoName::parse("o/n").unwrap();
    let items: Vec<_> = (0..EVIL.len())
        .map(|i| {
            let mut it = item(
                &repo,
                &(i + 1).to_string(),
                "2026-11-21T00:00:00Z",
                ItemDetail::issue(),
            );
            it.title = evil(i);
            it.text = format!("{}\n\n{}\n\n- {}", evil(i + 1), evil(i + 2), evil(i + 3));
            it.labels = vec![evil(i + 4), evil(i + 5)];
            it.author = evil(i + 6);
            it.url = if i % 2 == 0 {
                "javascript:alert(1)".into()
            } else {
                "JaVaScRiPt:alert(1)//https://x".into()
            };
            it
        })
        .collect();
    let notes = EVIL.join("\n\n- ");
    let mut stable = release(&repo, "v1.0.0", "2026-11-01T00:00:00Z", false, &notes);
    stable.title = evil(0);
    stable.url = "javascript:alert(3)".into();
    let mut pre = release(&repo, "v1.1.0-dev.1", "2026-11-02T00:00:00Z", true, &notes);
    pre.title = evil(1);
    pre.url = "data:text/html,<script>alert(1)</script>".into();
    let milestones = vec![Milestone {
        updated_at: None,
        title: evil(2),
        url: "javascript:alert(4)".into(),
        description: evil(3),
        open_issues: 1,
        closed_issues: 1,
        due_on: None,
    }];
    let mut f = fixture_with(
        ("g", "<script>alert('group')</script>"),
        "n",
        "o/n",
        |c| {
            c.description = evil(1);
            c.topics = EVIL.iter().map(|s| s.to_string()).collect();
            c.url = "javascript:alert(5)".into();
            c.homepage = "javascript:alert(6)".into();
            c.language = evil(0);
        },
        items,
        vec![stable, pre],
        milestones,
    );
    f.document.dataset.repository.name = evil(0);
    f.document.dataset.repository.keywords = EVIL.iter().map(|s| s.to_string()).collect();
    for e in &mut f.trail {
        e.title = evil(2);
        e.detail = evil(1);
        e.url = "javascript:alert(7)".into();
    }
    for s in f.scores.values_mut() {
        for t in &mut s.terms {
            t.why = evil(0);
            t.name = evil(1);
        }
    }
    f.health = stale_note(&evil(3));
    f
}

/// A repository whose last success is old and whose last error says
/// `message`.
fn stale_note(message: &str) -> signals_site::HealthNote {
    signals_site::HealthNote {
        state: "stale".into(),
        last_success: Some(ts("2026-11-20T09:00:00Z")),
        failures_in_row: 3,
        last_error: Some((ts("2026-11-21T09:00:00Z"), message.to_string())),
        interval_secs: 3600,
        last_reconcile: None,
        left_out: None,
    }
}

/// A stale repository says so in its header, with its last
/// success and error, and is flagged on the index; a healthy one shows
/// neither.
#[test]
fn a_stale_repository_is_flagged_on_its_page_and_the_index() {
    let mut f = small();
    let page = render_repo(&f.page()).unwrap();
    let first = page_named(&page, "index.html");
    assert!(!first.contains("class=\"health"), "{first}");
    assert!(!render_index(&[sum(f.page())]).unwrap().contains("health-"));

    f.health = stale_note("GET /repos/o/n/issues: 502 Bad Gateway");
    let page = render_repo(&f.page()).unwrap();
    for name in ["index.html", "trail.html"] {
        let html = page_named(&page, name);
        let notice = html
            .split("<p class=\"health health-stale\" role=\"status\">")
            .nth(1)
            .unwrap_or_else(|| panic!("no notice in {name}"));
        let notice = &notice[..notice.find("</p>").unwrap()];
        assert!(notice.contains("Stale data:"), "{notice}");
        assert!(notice.contains("more than 3 intervals of 1 h"), "{notice}");
        assert!(notice.contains("3 attempts have failed"), "{notice}");
        assert!(
            notice.contains("datetime=\"2026-11-20T09:00:00Z\""),
            "{notice}"
        );
        assert!(
            notice.contains("<code>GET /repos/o/n/issues: 502 Bad Gateway</code>"),
            "{notice}"
        );
    }
    let index = render_index(&[sum(f.page())]).unwrap();
    assert!(
        index.contains("<span class=\"badge health-stale\""),
        "{index}"
    );
    // The group page says it too, under the repository's news.
    let group = group_files(&[&f]);
    let html = page_named(&group, "index.html");
    assert!(
        html.contains(
            "<p class=\"health health-stale\" role=\"status\"><strong>Stale data:</strong>"
        ),
        "{html}"
    );
    assert!(
        html.contains("<code>GET /repos/o/n/issues: 502 Bad Gateway</code>"),
        "{html}"
    );
}

/// Every tag of `markup` as (name, attributes). Output text never holds a
/// literal `<` (it is escaped), so each `<` starts a real tag.
fn tags(markup: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    for chunk in markup.split('<').skip(1) {
        let body = &chunk[..chunk.find('>').expect("an unclosed tag")];
        let body = body.trim_end_matches('/').trim_end_matches('?');
        let mut chars = body.chars().peekable();
        let name: String = chars
            .by_ref()
            .take_while(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        let mut attrs = Vec::new();
        loop {
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
            let attr: String =
                std::iter::from_fn(|| chars.next_if(|c| *c != '=' && !c.is_whitespace())).collect();
            if attr.is_empty() {
                break;
            }
            let mut value = String::new();
            if chars.next_if_eq(&'=').is_some() {
                match chars.next() {
                    Some(q @ ('"' | '\'')) => {
                        value = chars.by_ref().take_while(|c| *c != q).collect()
                    }
                    Some(c) => {
                        value.push(c);
                        value.extend(std::iter::from_fn(|| chars.next_if(|c| !c.is_whitespace())));
                    }
                    None => {}
                }
            }
            attrs.push((attr.to_ascii_lowercase(), value));
        }
        out.push((name, attrs));
    }
    out
}

fn assert_inert(path: &str, markup: &str) {
    let ours = [
        "!doctype",
        "html",
        "head",
        "meta",
        "title",
        "link",
        "body",
        "div",
        "nav",
        "main",
        "a",
        "footer",
        "p",
        "header",
        "h1",
        "h2",
        "h3",
        "span",
        "code",
        "dl",
        "dt",
        "dd",
        "time",
        "ul",
        "li",
        "ol",
        "section",
        "details",
        "summary",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "strong",
        "br",
        "progress",
        "em",
        "img",
        "caption",
        // A folder's index page: its own address (the ids are slugs).
        "base",
        // Trends: the figures and their SVG (every text escaped).
        "aside",
        "figure",
        "figcaption",
        "svg",
        "desc",
        "line",
        "text",
        "rect",
        "path",
        "circle",
        // Atom.
        "?xml",
        "feed",
        "id",
        "updated",
        "generator",
        "entry",
        "published",
        "author",
        "name",
        "category",
        "summary",
    ];
    for (name, attrs) in tags(markup) {
        let name = name.trim_start_matches('/');
        assert!(ours.contains(&name), "{path}: unexpected tag <{name}>");
        for (attr, value) in attrs {
            assert!(
                !attr.starts_with("on"),
                "{path}: event handler {attr}={value:?} on <{name}>"
            );
            assert!(attr != "style", "{path}: inline style on <{name}>");
            let v = value.to_ascii_lowercase();
            // Text attributes (an Atom category term) may hold any text;
            // attributes a browser follows must never hold a script URL.
            if matches!(
                attr.as_str(),
                "href" | "src" | "action" | "formaction" | "xlink:href"
            ) {
                assert!(
                    !v.contains("javascript:"),
                    "{path}: {attr}={value:?} on <{name}>"
                );
                let scheme = v.split_once(':').map(|(s, _)| s);
                let relative = !v.contains(':') && !v.starts_with("//");
                assert!(
                    relative || matches!(scheme, Some("http" | "https")),
                    "{path}: {attr}={value:?} on <{name}>"
                );
            }
        }
    }
}

#[test]
fn injection_never_reaches_the_output_as_markup() {
    let f = hostile();
    let page = f.page();
    let mut files = render_repo(&page).unwrap();
    files.push(("index.html".into(), render_index(&[sum(page)]).unwrap()));
    for (path, content) in &files {
        let path = path.to_str().unwrap();
        if path.ends_with("signals.json")
            || path.contains("signals-text-")
            || path.ends_with("digest.json")
        {
            // The filter index is data for the script; it holds the hostile
            // text exactly, and no `<`, `>`, `&` or U+2028 even escaped as
            // JSON would, so it stays inert served as anything.
            for bad in ['<', '>', '&', '\u{2028}', '\u{2029}'] {
                assert!(!content.contains(bad), "{path}: {bad:?}");
            }
            if path.ends_with("digest.json") {
                assert!(RepoDigest::parse(content.as_bytes()).is_some());
            }
            if !path.ends_with("signals.json") {
                continue;
            }
            // Decoded as the script decodes it, with its text parts.
            let texts: Vec<Option<&str>> = files
                .iter()
                .filter(|(p, _)| p.to_str().unwrap().contains("signals-text-"))
                .map(|(_, c)| Some(c.as_str()))
                .collect();
            assert_eq!(texts.len(), 1, "one text part for a few signals");
            let signals = signals_site::read_index(content, &texts).unwrap();
            assert_eq!(signals.len(), f.document.dataset.signals.len());
            for s in &f.document.dataset.signals {
                let entry = signals.iter().find(|e| e.id == s.id).unwrap();
                assert_eq!(entry.title, s.title, "{path}");
                assert_eq!(entry.labels, s.labels, "{path}");
                assert_eq!(entry.author, s.author, "{path}");
                assert_eq!(entry.excerpt, signals_site::excerpt(&s.text), "{path}");
                let url = entry.url.as_deref().unwrap_or("https:");
                assert!(
                    url.starts_with("https:") || url.starts_with("http:"),
                    "{url}"
                );
            }
            continue;
        }
        if path.ends_with("trends.json") {
            // Data too: hostile titles of rising items come back exactly.
            let back: serde_json::Value = serde_json::from_str(content).unwrap();
            assert_eq!(back, serde_json::to_value(&f.trends).unwrap());
            continue;
        }
        if path.ends_with(".json") {
            // The dataset is data, not markup; it round-trips exactly.
            let back: Document = serde_json::from_str(content).unwrap();
            assert_eq!(back, f.document);
            continue;
        }
        // The only script is our own file, never inline.
        let stripped = content.replace("<script src=\"../../filter.js\" defer></script>", "");
        let lower = stripped.to_ascii_lowercase();
        assert!(!lower.contains("<script"), "{path}");
        assert!(!lower.contains("<iframe"), "{path}");
        // The only SVG is the export's own charts, whose texts are escaped.
        assert_only_our_svg(path, &stripped);
        assert_inert(path, &stripped);
    }
    // The hostile text is still there, as text.
    let html = page_named(&files, "n/index.html");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("<li>keyword: &lt;img src=x onerror=alert(1)&gt;</li>"));
    // The document already replaced the items' non-http URLs by the
    // repository's (signals_core::hostile); URLs that reach the page raw
    // (the trail's, a prerelease's) are never links (assert_inert above).
    assert!(!html.contains("href=\"javascript:"), "{html}");
    assert!(html.contains("href=\"https://github.com/o/n\""));
}

/// An output path of its own, with what an earlier run left removed (the
/// site link and the generations beside it).
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("site-{name}"));
    let _ = fs::remove_dir_all(&dir);
    let _ = fs::remove_dir_all(dir.with_file_name(format!(".site-{name}.signals")));
    dir
}

fn all_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        // Follows links: a published site links each repository's folder.
        if entry.path().is_dir() {
            out.extend(all_files(&entry.path()));
        } else {
            out.push(entry.path().to_str().unwrap().to_string());
        }
    }
    out.sort();
    out
}

#[test]
fn write_site_lays_out_files_atomically_and_removes_stale_pages() {
    let out = scratch("write");
    let big = many(120);
    let other = small();
    let report = write_site(&out, &[big.page(), other.page()]).unwrap();
    let rel = |p: &str| p.strip_prefix(out.to_str().unwrap()).unwrap().to_string();
    let files: Vec<_> = all_files(&out).iter().map(|p| rel(p)).collect();
    assert_eq!(
        files,
        [
            "/.manifest.json",
            "/feed.atom",
            "/filter.js",
            "/g/feed.atom",
            "/g/index.html",
            "/g/n/dataset.json",
            "/g/n/digest.json",
            "/g/n/feed.atom",
            "/g/n/index.html",
            "/g/n/page-2.html",
            "/g/n/page-3.html",
            "/g/n/signals-text-1.json",
            "/g/n/signals.json",
            "/g/n/trail.html",
            "/g/n/trends.json",
            "/g/repos-1.html",
            "/g/signals.json",
            "/importance.html",
            "/index.html",
            "/inference-engines/feed.atom",
            "/inference-engines/index.html",
            "/inference-engines/llama-cpp/dataset.json",
            "/inference-engines/llama-cpp/digest.json",
            "/inference-engines/llama-cpp/feed.atom",
            "/inference-engines/llama-cpp/index.html",
            "/inference-engines/llama-cpp/signals-text-1.json",
            "/inference-engines/llama-cpp/signals.json",
            "/inference-engines/llama-cpp/trail.html",
            "/inference-engines/llama-cpp/trends.json",
            "/inference-engines/repos-1.html",
            "/inference-engines/signals.json",
            "/repos-1.html",
            "/style.css",
        ]
    );
    assert_eq!(report.files, files.len() - 1, "all but the manifest");
    assert_eq!(report.repositories, 2);
    assert_eq!(report.removed, 0);
    let dataset = fs::read_to_string(out.join("g/n/dataset.json")).unwrap();
    assert_eq!(
        serde_json::from_str::<Document>(&dataset).unwrap(),
        big.document
    );
    let index = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("<a href=\"g/n/index.html\">"));
    assert!(index.contains("<td class=\"num\" data-label=\"Signals\">120</td>"));

    // Fewer signals later: page 3 goes away, nothing temporary is left;
    // a repository no longer given is no longer published.
    let smaller = many(60);
    let report = write_site(&out, &[smaller.page()]).unwrap();
    assert_eq!(report.removed, 1);
    assert!(!out.join("g/n/page-3.html").exists());
    assert!(out.join("g/n/page-2.html").exists());
    assert!(!out.join("inference-engines/llama-cpp").exists());
    assert!(
        all_files(&out).iter().all(|p| {
            let name = Path::new(p).file_name().unwrap().to_str().unwrap();
            name == ".manifest.json" || !name.starts_with('.')
        }),
        "{:?}",
        all_files(&out)
    );
    fs::remove_file(&out).unwrap();
    fs::remove_dir_all(out.with_file_name(".site-write.signals")).unwrap();
}

#[test]
fn write_site_refuses_duplicates_before_writing() {
    let out = scratch("dup");
    let f = small();
    let err = write_site(&out, &[f.page(), f.page()]).unwrap_err();
    assert!(matches!(err, SiteError::DuplicateRepository(_)), "{err}");
    assert!(!out.exists());
}

/// The summary the index and the site feed are built from.
fn sum(page: signals_site::RepoPage<'_>) -> signals_site::RepoSummary {
    signals_site::RepoSummary::of(&page).unwrap()
}

/// The group page of `fixtures`, folded one repository at a time.
fn group_files(fixtures: &[&Fixture]) -> Vec<(PathBuf, String)> {
    let mut digest = GroupDigest::new("inference-engines", "Inference engines");
    for f in fixtures {
        // Through JSON, as export reads digests back from disk.
        let json = RepoDigest::of(&f.page()).unwrap().to_json().unwrap();
        digest.add(RepoDigest::parse(json.as_bytes()).unwrap());
    }
    render_group(&digest, None).unwrap()
}

#[test]
fn group_digest_snapshot() {
    let (a, b) = (small(), many(4));
    let files = group_files(&[&a, &b]);
    let names: Vec<_> = files.iter().map(|(p, _)| p.to_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "inference-engines/index.html",
            "inference-engines/feed.atom",
            "inference-engines/signals.json"
        ]
    );
    // The group's trail entries and cards link to the items'
    // history pages, as the repository pages do.
    let page = &files[0].1;
    for (class, file) in [
        ("ev-history", "pull_request-100.html"),
        ("ev-history", "issue-42.html"),
        ("history", "issue-42.html"),
        ("history", "issue-4.html"),
    ] {
        let repo = if file == "issue-4.html" {
            "n"
        } else {
            "llama-cpp"
        };
        let link = format!("<a class=\"{class}\" href=\"{repo}/history/{file}\">history</a>");
        assert!(page.contains(&link), "{link}");
    }
    insta::assert_snapshot!("group_page", files[0].1);
    insta::assert_snapshot!("group_feed", files[1].1);
    insta::assert_snapshot!("group_index", files[2].1);
}

#[test]
fn group_digest_keeps_only_the_best_signals_across_repositories() {
    let (a, b) = (small(), many(120));
    let files = group_files(&[&a, &b]);
    let index: serde_json::Value = serde_json::from_str(&files[2].1).unwrap();
    assert_eq!(
        index["total"].as_u64().unwrap() as usize,
        a.document.dataset.signals.len() + b.document.dataset.signals.len()
    );
    // The filter index names each repository's own index (the script merges
    // them, so the group's filters cover all of its signals), each with the
    // prefix of its links and the repository's name.
    assert!(index.get("signals").is_none());
    let parts: Vec<(String, String, String)> = index["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["index"].as_str().unwrap().to_string(),
                p["prefix"].as_str().unwrap().to_string(),
                p["repo"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        parts,
        [
            (
                "llama-cpp/signals.json".to_string(),
                "llama-cpp/".to_string(),
                "Display llama-cpp".to_string()
            ),
            (
                "n/signals.json".to_string(),
                "n/".to_string(),
                "Display n".to_string()
            ),
        ]
    );
    // The cards: the best of both repositories, in importance order.
    let mut all: Vec<u32> = [&a, &b]
        .iter()
        .flat_map(|f| f.scores.values().map(|s| s.total))
        .collect();
    all.sort_unstable_by(|x, y| y.cmp(x));
    let got: Vec<u32> = files[0]
        .1
        .split("data-importance=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(got, all[..DIGEST_SIGNALS]);
    let html = &files[0].1;
    assert_eq!(html.matches("data-digest-id=").count(), DIGEST_SIGNALS);
    assert!(html.contains("Display llama-cpp"));
    assert!(html.contains("Display n"));
}

#[test]
fn injection_never_reaches_the_group_page_as_markup() {
    let (f, s) = (hostile(), small());
    for (path, content) in group_files(&[&f, &s]) {
        let path = path.to_str().unwrap();
        if path.ends_with(".json") {
            for bad in ['<', '>', '&', '\u{2028}', '\u{2029}'] {
                assert!(!content.contains(bad), "{path}: {bad:?}");
            }
            // The group's index names only its repositories' own indexes,
            // by relative paths the script fetches from the same origin.
            let index: serde_json::Value = serde_json::from_str(&content).unwrap();
            for p in index["parts"].as_array().unwrap() {
                for link in [&p["index"], &p["prefix"]] {
                    let link = link.as_str().unwrap();
                    assert!(
                        !link.contains(':') && !link.starts_with('/') && !link.contains(".."),
                        "{path}: {link}"
                    );
                }
            }
            continue;
        }
        let stripped = content.replace("<script src=\"../filter.js\" defer></script>", "");
        let lower = stripped.to_ascii_lowercase();
        for bad in ["<script", "<iframe", "<img", "<style"] {
            assert!(!lower.contains(bad), "{path}: {bad}");
        }
        assert_only_our_svg(path, &stripped);
        assert_inert(path, &stripped);
    }
}

/// Every `<svg` of a page is one of the export's own charts or sparklines.
fn assert_only_our_svg(path: &str, markup: &str) {
    for (at, _) in markup.to_ascii_lowercase().match_indices("<svg") {
        let tag = &markup[at..];
        assert!(
            tag.starts_with("<svg class=\"chart\" viewBox=")
                || tag.starts_with("<svg class=\"spark\" viewBox="),
            "{path}: {}",
            &tag[..tag.len().min(80)]
        );
    }
}

/// `dataset.json` written a signal at a time is byte for byte
/// the whole document's, and the filter index fed entry by entry is the
/// whole index's, with no signal, one, and many (hostile text included).
#[test]
fn streamed_dataset_and_filter_index_equal_the_whole_ones() {
    let mut empty = small();
    empty.document.dataset.signals.clear();
    empty.scores.clear();
    for f in [small(), many(120), hostile(), empty] {
        let mut head = f.document.clone();
        head.dataset.signals.clear();
        let mut writer = signals_site::DatasetWriter::begin(Vec::new(), &head).unwrap();
        for s in &f.document.dataset.signals {
            writer.push(s).unwrap();
        }
        let streamed = String::from_utf8(writer.finish().unwrap()).unwrap();
        assert_eq!(streamed, signals_site::render_dataset(&f.document).unwrap());
        // A head with signals is refused, not written wrong.
        if !f.document.dataset.signals.is_empty() {
            assert!(signals_site::DatasetWriter::begin(Vec::new(), &f.document).is_err());
        }

        // Every file of the filter index (`signals.json` and its text
        // parts), as the page recipe feeds it, equals the whole index.
        let files = render_repo(&f.page()).unwrap();
        for (name, json) in signals_site::render_filter_index(&f.page()).unwrap() {
            let fed = files
                .iter()
                .find(|(p, _)| p.ends_with(&name))
                .map(|(_, c)| c.as_str())
                .unwrap_or_else(|| panic!("no {name}"));
            assert_eq!(fed, json, "{name}");
        }
    }
}
