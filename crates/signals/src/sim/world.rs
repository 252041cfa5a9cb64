//! The simulated host's history: every change to a repository as an
//! [`Event`] at a true instant (milliseconds), stamped by the host's own
//! clock in whole seconds (as GitHub stamps), and visible from its instant
//! plus its replica lag. [`World::view`] folds the events visible at an
//! instant into what the host shows then ([`RepoView`]), and
//! [`RepoView::data`] writes that as the raw GitHub JSON the test host
//! serves.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde_json::{Value, json};
use signals_testhost::{RepoData, Scenario};

/// A review's state as GraphQL gives it; `None`: the node has no state.
pub(super) type ReviewState = Option<&'static str>;

/// One change on the host.
#[derive(Debug, Clone)]
pub(super) enum Change {
    /// An issue or pull request is opened.
    Open {
        number: u64,
        pull: bool,
        author: &'static str,
        title: String,
        body: String,
    },
    /// Its title and body are edited.
    Edit {
        number: u64,
        title: String,
        body: String,
    },
    /// Its labels are replaced.
    Label {
        number: u64,
        labels: Vec<String>,
    },
    Close {
        number: u64,
    },
    Reopen {
        number: u64,
    },
    /// A pull request is merged (and closed).
    Merge {
        number: u64,
    },
    /// Deleted, or transferred to another repository: no longer listed,
    /// and its comments go with it.
    Gone {
        number: u64,
    },
    /// An issue comment (`review: false`) or a review comment.
    Comment {
        id: u64,
        number: u64,
        author: &'static str,
        body: String,
        review: bool,
    },
    /// A comment's body is edited.
    EditComment {
        id: u64,
        body: String,
    },
    /// A review; a `PENDING` one has no submission instant.
    Review {
        id: u64,
        number: u64,
        author: &'static str,
        state: ReviewState,
        body: String,
    },
    /// A pending review is submitted.
    Submit {
        id: u64,
        state: &'static str,
    },
    /// A discussion is started.
    Discussion {
        number: u64,
        author: &'static str,
        title: String,
    },
    /// Someone answers in a discussion.
    DiscussionReply {
        number: u64,
    },
}

impl Change {
    /// The item (issue, pull request or discussion) the change updates
    /// (bumps `updated_at` of), if any: a comment edit does not.
    pub(super) fn bumps(&self) -> Option<u64> {
        match self {
            Change::Open { number, .. }
            | Change::Edit { number, .. }
            | Change::Label { number, .. }
            | Change::Close { number }
            | Change::Reopen { number }
            | Change::Merge { number }
            | Change::Comment { number, .. }
            | Change::Review { number, .. }
            | Change::Discussion { number, .. }
            | Change::DiscussionReply { number } => Some(*number),
            Change::Gone { .. } | Change::EditComment { .. } | Change::Submit { .. } => None,
        }
    }
}

/// A change at its true instant, with the replica lag before the host
/// shows it.
#[derive(Debug, Clone)]
pub(super) struct Event {
    pub(super) at_ms: i64,
    pub(super) lag_ms: i64,
    pub(super) change: Change,
}

impl Event {
    /// When the host starts showing it (true time, ms).
    pub(super) fn visible_ms(&self) -> i64 {
        self.at_ms + self.lag_ms
    }
}

/// One repository's history.
#[derive(Debug, Clone)]
pub(super) struct RepoWorld {
    pub(super) name: String,
    pub(super) id: u64,
    /// Whether the repository has discussions turned on.
    pub(super) discussions: bool,
    /// In true-time order.
    pub(super) events: Vec<Event>,
}

/// Everything the simulated host ever does.
#[derive(Debug, Clone)]
pub(super) struct World {
    pub(super) repos: Vec<RepoWorld>,
    /// The host's clock minus the collector's, ms.
    pub(super) skew_ms: i64,
}

/// An item's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    Open,
    Closed,
    Merged,
}

/// An issue or pull request as the host shows it at one instant.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ItemView {
    pub(super) number: u64,
    pub(super) pull: bool,
    pub(super) author: &'static str,
    pub(super) title: String,
    pub(super) body: String,
    pub(super) labels: Vec<String>,
    pub(super) state: State,
    pub(super) created: i64,
    pub(super) updated: i64,
    pub(super) closed: Option<i64>,
    pub(super) merged: Option<i64>,
    /// Issue comments (GitHub's `comments` count).
    pub(super) comments: u64,
    pub(super) gone: bool,
}

/// A comment, review comment or review as the host shows it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ReplyView {
    pub(super) id: u64,
    pub(super) number: u64,
    pub(super) kind: ReplyKind,
    pub(super) author: &'static str,
    pub(super) body: String,
    pub(super) state: ReviewState,
    pub(super) created: i64,
    pub(super) updated: i64,
    /// A review's submission; `None` while pending.
    pub(super) submitted: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ReplyKind {
    Comment,
    ReviewComment,
    Review,
}

/// A discussion as the host shows it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct DiscussionView {
    pub(super) number: u64,
    pub(super) author: &'static str,
    pub(super) title: String,
    pub(super) created: i64,
    pub(super) updated: i64,
    pub(super) replies: u64,
}

/// What the host shows of one repository at one instant.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct RepoView {
    pub(super) items: BTreeMap<u64, ItemView>,
    pub(super) replies: BTreeMap<u64, ReplyView>,
    pub(super) discussions: BTreeMap<u64, DiscussionView>,
}

/// Bots by the host's account type (no `[bot]` in the login of the
/// second).
pub(super) const BOTS: [&str; 2] = ["dependabot[bot]", "ci-runner"];

impl World {
    /// The host's stamp of an instant: its clock, in whole seconds.
    pub(super) fn stamp(&self, at_ms: i64) -> i64 {
        (at_ms + self.skew_ms).div_euclid(1000)
    }

    /// What the host shows of repository `r` at true instant `t_ms`.
    pub(super) fn view(&self, r: usize, t_ms: i64) -> RepoView {
        let mut view = RepoView::default();
        for e in self.repos[r]
            .events
            .iter()
            .filter(|e| e.visible_ms() <= t_ms)
        {
            view.apply(&e.change, self.stamp(e.at_ms));
        }
        view
    }

    /// The test host's scenario at true instant `t_ms`.
    pub(super) fn scenario(&self, t_ms: i64) -> Scenario {
        let mut scenario = Scenario::default();
        for (r, repo) in self.repos.iter().enumerate() {
            let data = self.view(r, t_ms).data(repo);
            scenario.repos.insert(repo.name.clone(), data);
        }
        scenario
    }
}

impl RepoView {
    fn apply(&mut self, change: &Change, at: i64) {
        if let Some(n) = change.bumps() {
            if let Some(item) = self.items.get_mut(&n) {
                item.updated = item.updated.max(at);
            }
            if let Some(d) = self.discussions.get_mut(&n) {
                d.updated = d.updated.max(at);
            }
        }
        match change {
            Change::Open {
                number,
                pull,
                author,
                title,
                body,
            } => {
                self.items.insert(
                    *number,
                    ItemView {
                        number: *number,
                        pull: *pull,
                        author,
                        title: title.clone(),
                        body: body.clone(),
                        labels: vec![],
                        state: State::Open,
                        created: at,
                        updated: at,
                        closed: None,
                        merged: None,
                        comments: 0,
                        gone: false,
                    },
                );
            }
            Change::Discussion {
                number,
                author,
                title,
            } => {
                self.discussions.insert(
                    *number,
                    DiscussionView {
                        number: *number,
                        author,
                        title: title.clone(),
                        created: at,
                        updated: at,
                        replies: 0,
                    },
                );
            }
            Change::DiscussionReply { number } => {
                if let Some(d) = self.discussions.get_mut(number) {
                    d.replies += 1;
                }
            }
            Change::Comment {
                id,
                number,
                author,
                body,
                review,
            } => {
                if let Some(item) = self.items.get_mut(number)
                    && !review
                {
                    item.comments += 1;
                }
                let kind = match review {
                    true => ReplyKind::ReviewComment,
                    false => ReplyKind::Comment,
                };
                self.replies
                    .insert(*id, reply(*id, *number, kind, author, body, at));
            }
            Change::Review {
                id,
                number,
                author,
                state,
                body,
            } => {
                let mut r = reply(*id, *number, ReplyKind::Review, author, body, at);
                r.state = *state;
                r.submitted = (*state != Some("PENDING")).then_some(at);
                self.replies.insert(*id, r);
            }
            Change::Submit { id, state } => {
                if let Some(r) = self.replies.get_mut(id) {
                    r.state = Some(state);
                    r.submitted = Some(at);
                    r.updated = at;
                    let n = r.number;
                    if let Some(item) = self.items.get_mut(&n) {
                        item.updated = item.updated.max(at);
                    }
                }
            }
            Change::EditComment { id, body } => {
                if let Some(r) = self.replies.get_mut(id) {
                    r.body = body.clone();
                    r.updated = at;
                }
            }
            _ => self.apply_to_item(change, at),
        }
    }

    fn apply_to_item(&mut self, change: &Change, at: i64) {
        let number = match change {
            Change::Edit { number, .. }
            | Change::Label { number, .. }
            | Change::Close { number }
            | Change::Reopen { number }
            | Change::Merge { number }
            | Change::Gone { number } => *number,
            _ => return,
        };
        let Some(item) = self.items.get_mut(&number) else {
            return;
        };
        match change {
            Change::Edit { title, body, .. } => {
                item.title = title.clone();
                item.body = body.clone();
            }
            Change::Label { labels, .. } => item.labels = labels.clone(),
            Change::Close { .. } => {
                item.state = State::Closed;
                item.closed = Some(at);
            }
            Change::Reopen { .. } => {
                item.state = State::Open;
                item.closed = None;
            }
            Change::Merge { .. } => {
                item.state = State::Merged;
                item.closed = Some(at);
                item.merged = Some(at);
            }
            Change::Gone { .. } => item.gone = true,
            _ => {}
        }
    }

    /// The raw GitHub JSON of this view: what the host lists (gone items
    /// and their comments are not).
    pub(super) fn data(&self, repo: &RepoWorld) -> RepoData {
        let name = &repo.name;
        let listed = |n: &u64| self.items.get(n).is_some_and(|i| !i.gone);
        let issues: Vec<Value> = self
            .items
            .values()
            .filter(|i| !i.gone)
            .map(|i| item_json(name, i))
            .collect();
        let mut comments = vec![];
        let mut review_comments = vec![];
        let mut reviews: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        for r in self.replies.values().filter(|r| listed(&r.number)) {
            let pull = self.items.get(&r.number).is_some_and(|i| i.pull);
            match r.kind {
                ReplyKind::Comment => comments.push(comment_json(name, r, pull)),
                ReplyKind::ReviewComment => review_comments.push(comment_json(name, r, pull)),
                ReplyKind::Review => reviews
                    .entry(r.number.to_string())
                    .or_default()
                    .push(review_json(r)),
            }
        }
        let open = self
            .items
            .values()
            .filter(|i| !i.gone && i.state == State::Open);
        let discussions = repo.discussions.then(|| {
            self.discussions
                .values()
                .map(|d| discussion_json(name, d))
                .collect()
        });
        RepoData {
            repo: json!({
                "id": repo.id,
                "name": name.split('/').nth(1).unwrap_or(name),
                "full_name": name,
                "owner": { "login": name.split('/').next().unwrap_or(name) },
                "html_url": format!("https://github.com/{name}"),
                "description": "A simulated repository",
                "default_branch": "main",
                "stargazers_count": 10,
                "forks_count": 2,
                "open_issues_count": open.count(),
                "archived": false,
                "has_discussions": repo.discussions,
                "created_at": "2020-01-01T00:00:00Z",
            }),
            issues,
            comments,
            review_comments,
            reviews,
            discussions,
            ..RepoData::default()
        }
    }
}

fn reply(
    id: u64,
    number: u64,
    kind: ReplyKind,
    author: &'static str,
    body: &str,
    at: i64,
) -> ReplyView {
    ReplyView {
        id,
        number,
        kind,
        author,
        body: body.to_string(),
        state: None,
        created: at,
        updated: at,
        submitted: None,
    }
}

/// `YYYY-MM-DDThh:mm:ssZ` of whole seconds, as GitHub writes.
pub(super) fn fmt(secs: i64) -> String {
    Timestamp::from_second(secs)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default()
}

fn user(login: &str) -> Value {
    let kind = if BOTS.contains(&login) { "Bot" } else { "User" };
    json!({ "login": login, "type": kind })
}

fn item_json(name: &str, i: &ItemView) -> Value {
    let api = format!("https://api.github.com/repos/{name}");
    let web = format!("https://github.com/{name}");
    let n = i.number;
    let mut entry = json!({
        "url": format!("{api}/issues/{n}"),
        "html_url": format!("{web}/{}/{n}", if i.pull { "pull" } else { "issues" }),
        "id": 5_000_000 + n,
        "number": n,
        "title": i.title,
        "user": user(i.author),
        "labels": i.labels.iter().map(|l| json!({ "name": l })).collect::<Vec<_>>(),
        "state": if i.state == State::Open { "open" } else { "closed" },
        "locked": false,
        "assignees": [],
        "comments": i.comments,
        "created_at": fmt(i.created),
        "updated_at": fmt(i.updated),
        "closed_at": i.closed.map(fmt),
        "author_association": "CONTRIBUTOR",
        "body": i.body,
    });
    if i.pull {
        entry["draft"] = json!(false);
        entry["pull_request"] = json!({
            "url": format!("{api}/pulls/{n}"),
            "html_url": format!("{web}/pull/{n}"),
            "merged_at": i.merged.map(fmt),
        });
    }
    entry
}

fn comment_json(name: &str, r: &ReplyView, pull: bool) -> Value {
    let n = r.number;
    let mut c = json!({
        "id": r.id,
        "user": user(r.author),
        "author_association": "NONE",
        "created_at": fmt(r.created),
        "updated_at": fmt(r.updated),
        "body": r.body,
    });
    if r.kind == ReplyKind::ReviewComment {
        c["pull_request_url"] = json!(format!("https://api.github.com/repos/{name}/pulls/{n}"));
        c["html_url"] = json!(format!(
            "https://github.com/{name}/pull/{n}#discussion_r{}",
            r.id
        ));
    } else {
        c["issue_url"] = json!(format!("https://api.github.com/repos/{name}/issues/{n}"));
        let page = if pull { "pull" } else { "issues" };
        c["html_url"] = json!(format!(
            "https://github.com/{name}/{page}/{n}#issuecomment-{}",
            r.id
        ));
    }
    c
}

fn review_json(r: &ReplyView) -> Value {
    let typename = if BOTS.contains(&r.author) {
        "Bot"
    } else {
        "User"
    };
    json!({
        "databaseId": r.id,
        "state": r.state,
        "body": r.body,
        "submittedAt": r.submitted.map(fmt),
        "createdAt": fmt(r.created),
        "updatedAt": fmt(r.updated),
        "authorAssociation": "MEMBER",
        "author": { "login": r.author, "__typename": typename },
    })
}

fn discussion_json(name: &str, d: &DiscussionView) -> Value {
    json!({
        "number": d.number,
        "title": d.title,
        "body": format!("What do you think of idea {}?", d.number),
        "url": format!("https://github.com/{name}/discussions/{}", d.number),
        "createdAt": fmt(d.created),
        "updatedAt": fmt(d.updated),
        "closed": false,
        "closedAt": null,
        "isAnswered": null,
        "upvoteCount": 0,
        "author": { "login": d.author },
        "category": { "name": "Ideas" },
        "labels": { "nodes": [] },
        "comments": { "totalCount": d.replies },
    })
}
