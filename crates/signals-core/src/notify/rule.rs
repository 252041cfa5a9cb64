//! The filter part of a `[[notify]]` rule ([`Rule`]): which repositories
//! it covers, which items it selects (kinds, labels, importance,
//! keywords, authors, bots), and the trigger it matches an event by.

use crate::diff::Observation;
use crate::model::{Group, ItemKind, ItemSnapshot, TrackedRepo};

use super::{Trigger, triggers};

/// A rule's `keywords`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Keywords {
    /// No keyword filter.
    #[default]
    Any,
    /// Any of these words or phrases, case-insensitive, in title or text.
    Words(Vec<String>),
    /// The repository's own configured `keywords`.
    Repository,
}

/// What a rule's repository's first run sends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Initial {
    /// One summary of the top items the rule selects.
    #[default]
    Summary,
    /// Nothing.
    None,
}

/// The filter part of a `[[notify]]` rule: which events it asks for.
/// Empty lists mean "all".
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// Its name, unique among rules; names its messages.
    pub name: String,
    /// Group ids.
    pub groups: Vec<String>,
    /// Repository ids or `owner/name`s.
    pub repos: Vec<String>,
    /// Item kinds.
    pub kinds: Vec<ItemKind>,
    /// What happened.
    pub events: Vec<Trigger>,
    /// Any of these labels (case-insensitive).
    pub labels: Vec<String>,
    /// The least importance, at the run's instant.
    pub min_importance: Option<f64>,
    /// Words or phrases in title or text.
    pub keywords: Keywords,
    /// Author handles, `*` wildcards, case-insensitive.
    pub authors: Vec<String>,
    /// Author handles left out, `*` wildcards.
    pub exclude_authors: Vec<String>,
    /// Bots (`*[bot]`, Renovate, Dependabot) are left out unless set.
    pub include_bots: bool,
    /// What a repository's first run sends.
    pub initial: Initial,
}

impl Rule {
    /// A rule named `name` that matches every event of every repository,
    /// bots excluded.
    pub fn any(name: &str) -> Rule {
        Rule {
            name: name.to_string(),
            groups: vec![],
            repos: vec![],
            kinds: vec![],
            events: vec![],
            labels: vec![],
            min_importance: None,
            keywords: Keywords::Any,
            authors: vec![],
            exclude_authors: vec![],
            include_bots: false,
            initial: Initial::Summary,
        }
    }

    /// True when the rule covers the repository at all.
    pub fn covers(&self, group: &Group, repo: &TrackedRepo) -> bool {
        (self.groups.is_empty() || self.groups.contains(&group.id))
            && (self.repos.is_empty()
                || self
                    .repos
                    .iter()
                    .any(|r| *r == repo.id || r.eq_ignore_ascii_case(&repo.repo.to_string())))
    }

    /// True when the item passes every filter but `events` (and the
    /// repository filters, see [`Rule::covers`]).
    pub fn selects(&self, repo: &TrackedRepo, item: &ItemSnapshot, importance: u32) -> bool {
        if !self.kinds.is_empty() && !self.kinds.contains(&item.kind()) {
            return false;
        }
        if !self.labels.is_empty()
            && !item
                .labels
                .iter()
                .any(|l| self.labels.iter().any(|w| w.eq_ignore_ascii_case(l)))
        {
            return false;
        }
        if self
            .min_importance
            .is_some_and(|min| f64::from(importance) < min)
        {
            return false;
        }
        let words: &[String] = match &self.keywords {
            Keywords::Any => &[],
            Keywords::Words(w) => w,
            Keywords::Repository => &repo.keywords,
        };
        if !matches!(self.keywords, Keywords::Any) {
            let title = item.title.to_lowercase();
            let text = item.text.to_lowercase();
            let found = words.iter().any(|w| {
                let w = w.trim().to_lowercase();
                !w.is_empty() && (title.contains(&w) || text.contains(&w))
            });
            if !found {
                return false;
            }
        }
        if !self.include_bots && is_bot(&item.author) {
            return false;
        }
        if !self.authors.is_empty() && !self.authors.iter().any(|p| glob(p, &item.author)) {
            return false;
        }
        !self.exclude_authors.iter().any(|p| glob(p, &item.author))
    }

    /// The trigger this rule matches an event by (the most specific of
    /// the event's triggers the rule asks for), or `None`.
    pub fn matches(
        &self,
        repo: &TrackedRepo,
        observation: &Observation,
        item: &ItemSnapshot,
        importance: u32,
    ) -> Option<Trigger> {
        if !self.selects(repo, item, importance) {
            return None;
        }
        triggers(observation, item)
            .into_iter()
            .find(|t| self.events.is_empty() || self.events.contains(t))
    }
}

/// True for an automated account: `*[bot]` (GitHub apps), Renovate and
/// Dependabot by any of their handles.
pub fn is_bot(author: &str) -> bool {
    let a = author.to_ascii_lowercase();
    a.ends_with("[bot]")
        || a.ends_with("-bot")
        || a.starts_with("renovate")
        || a.starts_with("dependabot")
}

/// Case-insensitive match of `text` against `pattern`, where `*` stands
/// for any run of characters.
pub fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.to_lowercase().chars().collect();
    let t: Vec<char> = text.to_lowercase().chars().collect();
    // Iterative wildcard match with one backtrack point: linear enough
    // for handles, and no recursion a hostile pattern could deepen.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] != '*' && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_matches_wildcards_case_insensitively() {
        assert!(glob("*[bot]", "Renovate[BOT]"));
        assert!(glob("al*ce", "ALICE"));
        assert!(glob("*", ""));
        assert!(!glob("al*ce", "alicex"));
        assert!(glob("a*b*c", "axxbyyc"));
        assert!(!glob("a*b*c", "axxbyy"));
    }
}
