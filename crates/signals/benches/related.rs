//! The figures for related items: `cargo bench -p signals --bench
//! related`, then the table goes into docs/performance/related.md.
//!
//! A group of 10 repositories of 10,000 items each (100,000 in all;
//! `SIGNALS_RELATED_ITEMS` sets the items per repository) is generated
//! through the store API into a SQLite file: titles of 6-10 words and
//! bodies of 60-120 words drawn from a Zipf distribution over 20,000
//! words, as natural text is. 1,000 stories are planted, each told 2 or 3
//! times in different repositories in other words: half share an error
//! line or stack frames (a path, a line number, an error code), half only
//! some rare words of their story, each copy with its own title words and
//! filler. Then, with the engine `signals collect` and `signals export`
//! run (`src/related.rs`):
//!
//! 1. the full build: every item profiled and every list computed, its
//!    time and the process's peak memory during it;
//! 2. recall@5 and precision of the lists on the planted stories (every
//!    planted item and 2,000 unplanted ones measured), at the threshold
//!    and above it;
//! 3. 100 new or edited items against the rest (50 background items
//!    edited, 25 new items of no story, 25 new copies of planted
//!    stories): the catch-up after their run, and a quiet catch-up;
//! 4. what an export adds: reading every item's list in pages of 1,000
//!    and clustering the group's stories for its page.

#[path = "../src/related.rs"]
#[allow(dead_code)]
mod related;
#[path = "../tests/it/synth.rs"]
mod synth;

use std::collections::HashMap;
use std::time::Instant;

use jiff::{SignedDuration, Timestamp};
use signals_core::run::account;
use signals_core::{ItemSnapshot, News, RequestStats, RunRecord, Source};
use signals_store::{Reads, RelatedStore, RepoKey, RunCommit, RunWrites};
use signals_store_sqlite::Store;

const REPOS: usize = 10;
const VOCABULARY: usize = 20_000;
const STORIES: usize = 1_000;
const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ru", "te", "vo", "zan", "pe", "dri", "sul", "ba", "no", "qui", "fa", "ge",
    "hor", "jy", "wex",
];

/// A seeded xorshift.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Words and a Zipf sampler over them.
struct Words {
    words: Vec<String>,
    cumulative: Vec<f64>,
}

impl Words {
    fn new() -> Words {
        let mut rng = Rng(0x5eed);
        let mut seen = std::collections::HashSet::new();
        let mut words = Vec::with_capacity(VOCABULARY);
        while words.len() < VOCABULARY {
            let n = 2 + rng.below(3);
            let w: String = (0..n)
                .map(|_| SYLLABLES[rng.below(SYLLABLES.len())])
                .collect();
            if seen.insert(w.clone()) {
                words.push(w);
            }
        }
        let mut total = 0.0;
        let cumulative = (1..=VOCABULARY)
            .map(|r| {
                total += 1.0 / r as f64;
                total
            })
            .collect();
        Words { words, cumulative }
    }
    fn pick(&self, rng: &mut Rng) -> &str {
        let top = *self.cumulative.last().unwrap();
        let x = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * top;
        let i = self.cumulative.partition_point(|c| *c < x);
        &self.words[i.min(VOCABULARY - 1)]
    }
    fn text(&self, rng: &mut Rng, n: usize) -> String {
        (0..n).map(|_| self.pick(rng)).collect::<Vec<_>>().join(" ")
    }
}

/// A planted story: its rare words and, for half, its error line.
struct Story {
    words: Vec<String>,
    error: Option<String>,
}

fn stories(words: &Words, rng: &mut Rng) -> Vec<Story> {
    (0..STORIES)
        .map(|s| {
            // Rare words: from the Zipf tail.
            let picked: Vec<String> = (0..8)
                .map(|_| words.words[2_000 + rng.below(VOCABULARY - 2_000)].clone())
                .collect();
            let error = (s % 2 == 0).then(|| {
                format!(
                    "error[E{:04}]: {} failed at src/{}/{}.rs:{}:{}\n    at {}::{} (lib/{}.js:{}:{})",
                    s,
                    picked[0],
                    picked[1],
                    picked[2],
                    10 + rng.below(900),
                    1 + rng.below(80),
                    picked[3],
                    picked[4],
                    picked[5],
                    1 + rng.below(400),
                    1 + rng.below(40)
                )
            });
            Story {
                words: picked,
                error,
            }
        })
        .collect()
}

/// A copy of `story`: its own title and filler, some of its words, its
/// error line when it has one.
fn told(story: &Story, words: &Words, rng: &mut Rng) -> (String, String) {
    let mut title = words.text(rng, 4);
    for _ in 0..2 {
        title.push(' ');
        title.push_str(&story.words[rng.below(story.words.len())]);
    }
    let mut body = words.text(rng, 40);
    for w in &story.words {
        if rng.below(3) == 0 {
            continue;
        }
        body.push(' ');
        body.push_str(w);
        body.push(' ');
        body.push_str(&words.text(rng, 3));
    }
    if let Some(e) = &story.error {
        body.push('\n');
        body.push_str(e);
    }
    (title, body)
}

/// Commits one run of repository `n` that observed `observed`, as the
/// pipeline does (no word index: this measures related items alone).
fn commit(store: &mut Store, key: RepoKey, n: usize, at: Timestamp, observed: Vec<ItemSnapshot>) {
    let ids: Vec<String> = observed.iter().map(|i| i.id(Source::Github)).collect();
    let previous = store.latest_snapshots_for(key, &ids).unwrap();
    let delta = account(Source::Github, observed, &previous);
    let run = RunCommit {
        record: RunRecord {
            collected_at: at,
            since: at - SignedDuration::from_hours(24),
            observed_count: delta.observed_count,
            changed_count: delta.changed_count(),
        },
        context: synth::context(n),
        news: News::default(),
        snapshots: delta.snapshots,
        events: delta.events,
        references: vec![],
        stats: RequestStats::default(),
        renamed_to: None,
        messages: vec![],
        reconciled: false,
        open_pulls: Default::default(),
        downloads: vec![],
        gone: vec![],
    };
    store.commit_run(key, &run).unwrap();
}

fn with_text(n: usize, k: usize, at: Timestamp, text: (String, String)) -> ItemSnapshot {
    let mut item = synth::item(n, k, 16, at);
    item.title = text.0;
    item.text = text.1;
    item
}

/// Peak resident memory since the last reset, in MiB.
fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

struct Generated {
    keys: Vec<RepoKey>,
    /// Each planted item's story, by signal id, and 2,000 of no story.
    measured: HashMap<String, Option<u32>>,
}

fn generate(store: &mut Store, per_repo: usize, at: Timestamp) -> Generated {
    let words = Words::new();
    let mut rng = Rng(0xdecaf);
    let planted = stories(&words, &mut rng);
    // Story s is told in repositories s % 10, (s + 3) % 10 and, for a
    // third of them, (s + 7) % 10, as the items numbered from 1 upwards.
    let mut told_in: Vec<Vec<(usize, u32)>> = vec![Vec::new(); REPOS];
    for s in 0..STORIES {
        let copies = if s % 3 == 0 { 3 } else { 2 };
        for c in [0, 3, 7].iter().take(copies) {
            told_in[(s + c) % REPOS].push((s, s as u32 + 1));
        }
    }
    let mut measured = HashMap::new();
    let mut keys = Vec::new();
    for (n, stories_here) in told_in.iter().enumerate() {
        let key = store
            .ensure_repository(&synth::group(), &synth::tracked(n))
            .unwrap();
        keys.push(key);
        let mut items = Vec::with_capacity(per_repo);
        for k in 1..=per_repo {
            let text = match stories_here.get(k - 1) {
                Some((s, story)) => {
                    let item = with_text(n, k, at, told(&planted[*s], &words, &mut rng));
                    measured.insert(item.id(Source::Github), Some(*story));
                    item
                }
                None => {
                    let (t, b) = (6 + rng.below(5), 60 + rng.below(61));
                    let title = words.text(&mut rng, t);
                    let body = words.text(&mut rng, b);
                    let item = with_text(n, k, at, (title, body));
                    if k % 50 == 0 {
                        measured.insert(item.id(Source::Github), None);
                    }
                    item
                }
            };
            items.push(text);
            if items.len() == 10_000 {
                commit(store, key, n, at, std::mem::take(&mut items));
            }
        }
        if !items.is_empty() {
            commit(store, key, n, at, items);
        }
    }
    Generated { keys, measured }
}

fn lists(
    store: &Store,
    keys: &[RepoKey],
    ids: &[String],
) -> HashMap<String, Vec<signals_core::related::Neighbour>> {
    let mut out = HashMap::new();
    for key in keys {
        for (id, list) in store.related_of(*key, ids).unwrap() {
            let neighbours = list
                .into_iter()
                .map(|e| signals_core::related::Neighbour {
                    id: e.item.id,
                    repo: e.item.repo.raw(),
                    open: e.open,
                    score: e.score,
                    shared: e.shared,
                })
                .collect();
            out.insert(id, neighbours);
        }
    }
    out
}

/// The catch-up after a run of 100 new or edited items, and a quiet one.
struct Step {
    time: std::time::Duration,
    caught: related::CaughtUp,
    quiet: std::time::Duration,
    quiet_profiled: usize,
}

fn incremental(store: &mut Store, generated: &Generated, per_repo: usize, at: Timestamp) -> Step {
    let words = Words::new();
    let mut rng = Rng(0xbeef);
    let planted = stories(&words, &mut Rng(0xdecaf));
    let later = at + SignedDuration::from_hours(1);
    let mut observed = Vec::new();
    for k in 0..50 {
        // Background items of repository 0 (after its stories), edited.
        let text = (words.text(&mut rng, 7), words.text(&mut rng, 80));
        let mut item = with_text(0, STORIES + 10 + k, later, text);
        item.updated_at = later;
        observed.push(item);
    }
    for k in 0..50 {
        let text = if k < 25 {
            (words.text(&mut rng, 7), words.text(&mut rng, 80))
        } else {
            told(&planted[k * 7], &words, &mut rng)
        };
        let mut item = with_text(0, per_repo + 1 + k, later, text);
        item.updated_at = later;
        observed.push(item);
    }
    commit(store, generated.keys[0], 0, later, observed);
    let started = Instant::now();
    let step = related::catch_up(store, "g").unwrap();
    let incremental = started.elapsed();
    let started = Instant::now();
    let quiet = related::catch_up(store, "g").unwrap();
    let quiet_time = started.elapsed();

    Step {
        time: incremental,
        caught: step,
        quiet: quiet_time,
        quiet_profiled: quiet.profiled,
    }
}

/// What an export adds: every list read, the stories clustered.
struct ExportCost {
    reads: std::time::Duration,
    lists: usize,
    clustering: std::time::Duration,
    pairs: usize,
    clusters: usize,
}

fn export_cost(store: &Store, generated: &Generated, per_repo: usize) -> ExportCost {
    let started = Instant::now();
    let mut read = 0usize;
    for (n, key) in generated.keys.iter().enumerate() {
        let all: Vec<String> = (1..=per_repo + 50)
            .map(|k| format!("github:o/r{n}:issue:{k}"))
            .chain((1..=per_repo + 50).map(|k| format!("github:o/r{n}:pull_request:{k}")))
            .collect();
        for page in all.chunks(1000) {
            read += store.related_of(*key, page).unwrap().len();
        }
    }
    let reads = started.elapsed();
    let started = Instant::now();
    let across = store.related_across("g").unwrap();
    let edges: Vec<signals_core::related::Edge<'_>> = across
        .iter()
        .flat_map(|(item, list)| {
            list.iter().map(move |e| signals_core::related::Edge {
                a: (item.id.as_str(), item.repo.raw()),
                b: (e.item.id.as_str(), e.item.repo.raw()),
                shared: &e.shared,
            })
        })
        .collect();
    let clusters = signals_core::related::clusters(&edges, 100);
    let clustering = started.elapsed();
    ExportCost {
        reads,
        lists: read,
        clustering,
        pairs: edges.len(),
        clusters: clusters.len(),
    }
}

fn main() {
    let per_repo: usize = std::env::var("SIGNALS_RELATED_ITEMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let dir = std::env::temp_dir().join(format!("signals-bench-related-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut store = Store::open(dir.join("signals.db")).unwrap();
    let at: Timestamp = "2026-11-20T10:00:00Z".parse().unwrap();
    let started = Instant::now();
    let generated = generate(&mut store, per_repo, at);
    let generation = started.elapsed();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();

    // 1. The full build.
    reset_peak();
    let started = Instant::now();
    let full = related::catch_up(&mut store, "g").unwrap();
    let build = started.elapsed();
    let build_peak = peak_mib();

    // 2. Quality.
    let ids: Vec<String> = generated.measured.keys().cloned().collect();
    let lists = lists(&store, &generated.keys, &ids);
    let mut quality = Vec::new();
    let at_least = signals_core::related::THRESHOLD;
    for t in [0.2, 0.25, 0.3, 0.35, 0.4, 0.5]
        .into_iter()
        .filter(|t| *t >= at_least)
    {
        quality.push((
            t,
            signals_core::related::measure(&lists, &generated.measured, t),
        ));
    }

    let step = incremental(&mut store, &generated, per_repo, at);
    let export = export_cost(&store, &generated, per_repo);
    let size = std::fs::metadata(dir.join("signals.db")).map_or(0, |m| m.len());
    println!(
        "Related items: {REPOS} repositories, {} items, {STORIES} stories planted",
        REPOS * per_repo
    );
    println!("load average at the start: {}", load.trim());
    println!(
        "generation (not measured below): {:.1} s, store {:.0} MiB",
        generation.as_secs_f64(),
        size as f64 / 1048576.0
    );
    println!();
    println!("| measure | figure |");
    println!("|---|---|");
    println!(
        "| full build: items profiled, lists written | {}, {} |",
        full.profiled, full.lists
    );
    println!("| full build: time | {:.1} s |", build.as_secs_f64());
    println!("| full build: peak memory of the process | {build_peak:.0} MiB |");
    println!(
        "| 100 new or edited items: catch-up after their run | {:.2} s ({} profiled, {} changed, {} lists) |",
        step.time.as_secs_f64(),
        step.caught.profiled,
        step.caught.changed,
        step.caught.lists
    );
    println!(
        "| a quiet run's catch-up | {:.1} ms ({} profiled) |",
        step.quiet.as_secs_f64() * 1000.0,
        step.quiet_profiled
    );
    println!(
        "| export: every item's list read in pages of 1,000 | {:.2} s ({} lists) |",
        export.reads.as_secs_f64(),
        export.lists
    );
    println!(
        "| export: the group's stories clustered | {:.2} s ({} pairs across repositories, {} clusters listed) |",
        export.clustering.as_secs_f64(),
        export.pairs,
        export.clusters
    );
    println!();
    print!("{}", signals_core::related::table("planted", &quality));
    let _ = std::fs::remove_dir_all(&dir);
}
