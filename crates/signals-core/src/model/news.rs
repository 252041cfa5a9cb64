//! A repository's news at one collection: the latest stable release, the
//! prereleases after it and the open milestones, with the highlights of
//! release notes as plain text.

use serde::{Deserialize, Serialize};

use super::{CommunityDiscussion, DiscussionsOff, ItemDetail, ItemSnapshot, Milestone};

/// Project news at one collection: the latest stable release and the public
/// plans after it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct News {
    /// The newest published release that is not a prerelease.
    pub latest_release: Option<ItemSnapshot>,
    /// Prereleases published after the latest stable release, newest first.
    pub next_prereleases: Vec<ItemSnapshot>,
    /// Open milestones, in the host's order.
    pub milestones: Vec<Milestone>,
    /// The most recently updated open discussions, newest first (issue
    /// 26); empty in runs stored before.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub discussions: Vec<CommunityDiscussion>,
    /// Why the run read no discussions, when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discussions_off: Option<DiscussionsOff>,
}

impl News {
    /// Computes news from all listed releases (drafts already excluded) and
    /// the open milestones.
    pub fn from_collected(releases: &[ItemSnapshot], milestones: &[Milestone]) -> News {
        let published = |r: &ItemSnapshot| match r.detail {
            ItemDetail::Release {
                published_at,
                prerelease,
            } => Some((published_at, prerelease)),
            _ => None,
        };
        let latest_release = releases
            .iter()
            .filter(|r| matches!(published(r), Some((_, false))))
            .max_by_key(|r| (published(r).map(|p| p.0), r.key.clone()))
            .cloned();
        let stable_at = latest_release.as_ref().and_then(published).map(|p| p.0);
        let mut next_prereleases: Vec<ItemSnapshot> = releases
            .iter()
            .filter(|r| match published(r) {
                Some((at, true)) => stable_at.is_none_or(|stable| at > stable),
                _ => false,
            })
            .cloned()
            .collect();
        next_prereleases.sort_by(|a, b| {
            published(b)
                .map(|p| p.0)
                .cmp(&published(a).map(|p| p.0))
                .then(a.key.cmp(&b.key))
        });
        News {
            latest_release,
            next_prereleases,
            milestones: milestones.to_vec(),
            discussions: Vec::new(),
            discussions_off: None,
        }
    }
}

/// The bullet lines (`-`, `*`, `+` items) of Markdown release notes, as plain
/// text, in order. Inline code marks, emphasis marks and link targets are
/// dropped; link texts are kept.
pub fn highlights(notes: &str) -> Vec<String> {
    notes
        .lines()
        .filter_map(|line| {
            let t = line.trim_start();
            let rest = t
                .strip_prefix("- ")
                .or_else(|| t.strip_prefix("* "))
                .or_else(|| t.strip_prefix("+ "))?;
            let plain = markdown_inline_to_plain(rest.trim());
            (!plain.is_empty()).then_some(plain)
        })
        .collect()
}

/// Strips the common inline Markdown marks from one line.
fn markdown_inline_to_plain(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '`' => {}
            '*' => {}
            '_' if out.is_empty()
                || out.ends_with(' ')
                || chars.peek().is_none_or(|n| *n == ' ' || *n == '_') => {}
            '[' => {
                // `[text](target)`: keep text, drop target.
                let mut text = String::new();
                let mut closed = false;
                for n in chars.by_ref() {
                    if n == ']' {
                        closed = true;
                        break;
                    }
                    text.push(n);
                }
                if closed && chars.peek() == Some(&'(') {
                    for n in chars.by_ref() {
                        if n == ')' {
                            break;
                        }
                    }
                    out.push_str(&markdown_inline_to_plain(&text));
                } else {
                    out.push('[');
                    out.push_str(&text);
                    if closed {
                        out.push(']');
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out.trim().to_string()
}
