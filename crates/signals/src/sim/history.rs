//! Draws a [`World`] and its run instants from a seed: a year of history
//! before the first run, then activity between runs, with events put on
//! purpose in the same second as a run's instant or at its exact edge,
//! some of them seen only after a replica lag.

use super::rng::Rng;
use super::world::{BOTS, Change, Event, RepoWorld, World};

/// How big a simulated world is.
#[derive(Debug, Clone, Copy)]
pub(super) struct Size {
    /// Repositories (1 or 2 in the suite).
    pub(super) repos: usize,
    /// About this many issues and pull requests per repository, from the
    /// year before the first run.
    pub(super) items: usize,
    /// Runs of the collector.
    pub(super) runs: usize,
}

/// The first run's instant, before a seed's offset within a day (so runs
/// fall on every hour of the UTC day, its midnight included).
const ANCHOR_MS: i64 = 1_780_000_000_000;
const DAY_MS: i64 = 86_400_000;

/// Humans; the last is the one a configuration may list in
/// `ignore_users`.
pub(super) const HUMANS: [&str; 6] = [
    "alice",
    "bob",
    "carol",
    "maintainer-a",
    "maintainer-b",
    "triage-helper",
];

/// A world and the collector's run instants (true time, ms).
#[derive(Debug, Clone)]
pub(super) struct Drawn {
    pub(super) world: World,
    pub(super) runs: Vec<i64>,
}

/// The world and runs of `seed`.
pub(super) fn draw(seed: u64, size: Size) -> Drawn {
    let mut rng = Rng::new(seed, 1);
    let first = ANCHOR_MS + rng.range(0, DAY_MS - 1);
    let mut runs = vec![first];
    for _ in 1..size.runs {
        let last = *runs.last().unwrap_or(&first);
        let gap = match rng.below(5) {
            // A few seconds: the next round starts after the last
            // repository's run of this one ended.
            0 => rng.range(7_000, 12_000),
            1 => rng.range(60_000, 900_000),
            2 => rng.range(3_600_000, 5 * 3_600_000),
            3 => rng.range(20 * 3_600_000, 30 * 3_600_000),
            _ => rng.range(2 * DAY_MS, 4 * DAY_MS),
        };
        runs.push(last + gap);
    }
    let skew_ms = match rng.below(3) {
        0 => 0,
        _ => rng.range(-2_000, 2_000),
    };
    let names: Vec<String> = (0..size.repos.max(1))
        .map(|r| format!("acme/repo{r}"))
        .collect();
    let repos = names
        .iter()
        .enumerate()
        .map(|(r, name)| {
            let other = names.get((r + 1) % names.len()).filter(|o| *o != name);
            let mut rng = Rng::new(seed, 10 + r as u64);
            let discussions = !rng.one_in(3);
            let events = Gen::new(rng, r, other.cloned(), discussions).events(size, &runs);
            RepoWorld {
                name: name.clone(),
                id: 700_000 + r as u64,
                discussions,
                events,
            }
        })
        .collect();
    Drawn {
        world: World { repos, skew_ms },
        runs,
    }
}

/// What generation knows of an item, to choose valid changes.
#[derive(Debug, Clone)]
struct Known {
    number: u64,
    pull: bool,
    author: &'static str,
    open: bool,
    merged: bool,
    gone: bool,
}

struct Gen {
    rng: Rng,
    other: Option<String>,
    discussions: bool,
    items: Vec<Known>,
    discussion_numbers: Vec<u64>,
    comment_ids: Vec<u64>,
    pending: Vec<u64>,
    next_number: u64,
    next_id: u64,
    edits: u64,
}

impl Gen {
    fn new(rng: Rng, r: usize, other: Option<String>, discussions: bool) -> Gen {
        Gen {
            rng,
            other,
            discussions,
            items: vec![],
            discussion_numbers: vec![],
            comment_ids: vec![],
            pending: vec![],
            next_number: 1,
            next_id: (r as u64 + 1) * 10_000_000,
            edits: 0,
        }
    }

    /// The events of a year before `runs[0]` and between the runs, in
    /// true-time order.
    fn events(mut self, size: Size, runs: &[i64]) -> Vec<Event> {
        let first = runs[0];
        let mut times: Vec<(i64, i64)> = (0..size.items * 4)
            .map(|_| (first - self.rng.range(1_000, 365 * DAY_MS), 0))
            .collect();
        for pair in runs.windows(2) {
            let (from, to) = (pair[0], pair[1]);
            for _ in 0..self.rng.range(0, 10) {
                let at = match self.rng.below(4) {
                    // In the second of a run's instant, or at its edge.
                    0 => from + self.rng.range(-1_500, 1_500),
                    1 => to + self.rng.range(-1_500, -1),
                    _ => self.rng.range(from + 1, to - 1),
                };
                let lag = match self.rng.one_in(4) {
                    true => self.rng.range(100, 900),
                    false => 0,
                };
                times.push((at.clamp(from - 1_500, to - 1), lag));
            }
        }
        times.sort();
        times
            .into_iter()
            .map(|(at_ms, lag_ms)| Event {
                at_ms,
                lag_ms,
                change: self.change(),
            })
            .collect()
    }

    fn who(&mut self) -> &'static str {
        match self.rng.below(8) {
            0 => BOTS[self.rng.below(2) as usize],
            _ => HUMANS[self.rng.below(HUMANS.len() as u64) as usize],
        }
    }

    /// A body naming other items of this repository or of the other one.
    fn text(&mut self, what: &str) -> String {
        let mut body = format!("{what}.");
        if !self.items.is_empty() && self.rng.one_in(3) {
            let k = self.rng.range(1, self.next_number as i64 - 1);
            body.push_str(&format!(" See #{k}."));
        }
        if let Some(other) = &self.other
            && self.rng.one_in(5)
        {
            let k = self.rng.range(1, 20);
            body.push_str(&format!(" Same as {other}#{k}."));
        }
        body
    }

    /// An item to change: one of the last twenty half the time, as
    /// activity clusters on recent items.
    fn target(&mut self, want: impl Fn(&Known) -> bool) -> Option<Known> {
        let live: Vec<&Known> = self.items.iter().filter(|k| !k.gone && want(k)).collect();
        if live.is_empty() {
            return None;
        }
        let n = live.len() as u64;
        let i = match self.rng.one_in(2) {
            true => n.saturating_sub(1 + self.rng.below(20.min(n))),
            false => self.rng.below(n),
        };
        Some(live[i as usize].clone())
    }

    fn change(&mut self) -> Change {
        for _ in 0..8 {
            if let Some(c) = self.try_change() {
                return c;
            }
        }
        self.open()
    }

    fn open(&mut self) -> Change {
        let number = self.next_number;
        self.next_number += 1;
        let pull = self.rng.one_in(3);
        let author = self.who();
        self.items.push(Known {
            number,
            pull,
            author,
            open: true,
            merged: false,
            gone: false,
        });
        Change::Open {
            number,
            pull,
            author,
            title: format!("Item {number}"),
            body: self.text(&format!("Body of item {number}")),
        }
    }

    fn set(&mut self, number: u64, f: impl FnOnce(&mut Known)) {
        if let Some(k) = self.items.iter_mut().find(|k| k.number == number) {
            f(k);
        }
    }

    fn try_change(&mut self) -> Option<Change> {
        let roll = self.rng.below(100);
        Some(match roll {
            0..25 => self.open(),
            25..52 => {
                let item = self.target(|_| true)?;
                let review = item.pull && self.rng.one_in(4);
                self.next_id += 1;
                self.comment_ids.push(self.next_id);
                let author = match self.rng.one_in(6) {
                    true => item.author,
                    false => self.who(),
                };
                Change::Comment {
                    id: self.next_id,
                    number: item.number,
                    author,
                    body: self.text(&format!("Reply {}", self.next_id)),
                    review,
                }
            }
            52..58 => {
                let ids = self.comment_ids.clone().or_none()?;
                let id = *self.rng.pick(&ids);
                self.edits += 1;
                Change::EditComment {
                    id,
                    body: self.text(&format!("Edited reply {id} ({})", self.edits)),
                }
            }
            58..64 => {
                let item = self.target(|_| true)?;
                self.edits += 1;
                Change::Edit {
                    number: item.number,
                    title: format!("Item {} (edit {})", item.number, self.edits),
                    body: self.text(&format!("Edited body {}", self.edits)),
                }
            }
            64..71 => {
                let item = self.target(|_| true)?;
                let all = ["bug", "enhancement", "question", "regression"];
                let labels = all
                    .iter()
                    .filter(|_| self.rng.one_in(2))
                    .map(|l| l.to_string())
                    .collect();
                Change::Label {
                    number: item.number,
                    labels,
                }
            }
            71..78 => {
                let item = self.target(|k| k.open)?;
                if item.pull && self.rng.one_in(2) {
                    self.set(item.number, |k| (k.open, k.merged) = (false, true));
                    return Some(Change::Merge {
                        number: item.number,
                    });
                }
                self.set(item.number, |k| k.open = false);
                Change::Close {
                    number: item.number,
                }
            }
            78..81 => {
                let item = self.target(|k| !k.open && !k.merged)?;
                self.set(item.number, |k| k.open = true);
                Change::Reopen {
                    number: item.number,
                }
            }
            81..91 => self.review()?,
            91..94 => {
                let id = self.pending.pop()?;
                let state = *self.rng.pick(&["APPROVED", "COMMENTED"]);
                Change::Submit { id, state }
            }
            94..95 => {
                let item = self.target(|_| true)?;
                self.set(item.number, |k| k.gone = true);
                Change::Gone {
                    number: item.number,
                }
            }
            95..97 if self.discussions => {
                let number = self.next_number;
                self.next_number += 1;
                self.discussion_numbers.push(number);
                Change::Discussion {
                    number,
                    author: self.who(),
                    title: format!("Discussion {number}"),
                }
            }
            _ if self.discussions => {
                let number = *self.rng.pick(&self.discussion_numbers.clone().or_none()?);
                Change::DiscussionReply { number }
            }
            _ => return None,
        })
    }

    fn review(&mut self) -> Option<Change> {
        let item = self.target(|k| k.pull)?;
        self.next_id += 1;
        let state = match self.rng.below(8) {
            0 => Some("PENDING"),
            1 => None,
            2 => Some("CHANGES_REQUESTED"),
            3 => Some("DISMISSED"),
            4 | 5 => Some("COMMENTED"),
            _ => Some("APPROVED"),
        };
        if state == Some("PENDING") {
            self.pending.push(self.next_id);
        }
        Some(Change::Review {
            id: self.next_id,
            number: item.number,
            author: self.who(),
            state,
            body: self.text("Review"),
        })
    }
}

/// `None` for an empty list: a change that needs one is not possible yet.
trait OrNone: Sized {
    fn or_none(self) -> Option<Self>;
}

impl<T> OrNone for Vec<T> {
    fn or_none(self) -> Option<Self> {
        (!self.is_empty()).then_some(self)
    }
}
