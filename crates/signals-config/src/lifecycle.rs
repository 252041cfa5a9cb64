//! The `[lifecycle]` table (the thresholds of the lifecycle rules,
//! `signals_core::lifecycle`) and the states a group or repository
//! declares (`lifecycle = "stable"`).

use serde::Deserialize;
use signals_core::lifecycle::{State, Thresholds};
use toml::Spanned;

use super::SpanError;

/// `[lifecycle]` as written: every key optional, its default from
/// [`Thresholds::default`].
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLifecycle {
    idle_days: Option<Spanned<i64>>,
    recent_weeks: Option<Spanned<i64>>,
    declining_ratio: Option<Spanned<f64>>,
    declining_min_commits: Option<Spanned<i64>>,
    active_commits: Option<Spanned<i64>>,
    release_days: Option<Spanned<i64>>,
    answer_days: Option<Spanned<i64>>,
}

/// A whole number of `key` in `range`, or `default`.
fn whole(
    v: Option<Spanned<i64>>,
    key: &str,
    range: std::ops::RangeInclusive<i64>,
    default: u64,
) -> Result<u64, SpanError> {
    let (min, max) = (*range.start(), *range.end());
    match v {
        None => Ok(default),
        Some(v) if range.contains(v.get_ref()) => Ok(*v.get_ref() as u64),
        Some(v) => Err((
            v.span(),
            format!("lifecycle.{key} must be a whole number from {min} to {max}"),
        )),
    }
}

/// Checks `[lifecycle]`.
pub(super) fn thresholds(raw: Option<RawLifecycle>) -> Result<Thresholds, SpanError> {
    let raw = raw.unwrap_or_default();
    let d = Thresholds::default();
    let days = |v: Option<Spanned<i64>>, key: &str| whole(v, key, 1..=3650, 0).map(|n| n as u32);
    let declining_ratio = match raw.declining_ratio {
        None => d.declining_ratio,
        Some(r) if (0.0..=1.0).contains(r.get_ref()) => *r.get_ref(),
        Some(r) => {
            return Err((
                r.span(),
                "lifecycle.declining_ratio must be a share from 0 to 1, such as 0.5".to_string(),
            ));
        }
    };
    let or = |v: Option<Spanned<i64>>, key, default: u32| match v {
        None => Ok(default),
        v => days(v, key),
    };
    Ok(Thresholds {
        idle_days: or(raw.idle_days, "idle_days", d.idle_days)?,
        recent_weeks: whole(
            raw.recent_weeks,
            "recent_weeks",
            1..=26,
            d.recent_weeks.into(),
        )? as u32,
        declining_ratio,
        declining_min_commits: whole(
            raw.declining_min_commits,
            "declining_min_commits",
            0..=1_000_000,
            d.declining_min_commits,
        )?,
        active_commits: whole(
            raw.active_commits,
            "active_commits",
            0..=1_000_000,
            d.active_commits,
        )?,
        release_days: or(raw.release_days, "release_days", d.release_days)?,
        answer_days: or(raw.answer_days, "answer_days", d.answer_days)?,
    })
}

/// A declared `lifecycle = "..."`: one of the six states.
pub(crate) fn declared(raw: Option<&Spanned<String>>) -> Result<Option<State>, SpanError> {
    let Some(raw) = raw else {
        return Ok(None);
    };
    State::parse(raw.get_ref()).map(Some).ok_or_else(|| {
        (
            raw.span(),
            format!(
                "lifecycle = {:?} is not a state: use one of {}",
                raw.get_ref(),
                State::ALL
                    .iter()
                    .map(|s| format!("{:?}", s.as_str()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    })
}

impl super::Config {
    /// The state declared for repository `repo` of group `group`: the
    /// repository's own, else its group's.
    pub fn declared_lifecycle(&self, group: &str, repo: &str) -> Option<State> {
        let g = self.groups.iter().find(|g| g.group.id == group)?;
        g.declared.get(repo).copied().or(g.lifecycle)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::Config;

    fn parse(extra: &str) -> Result<Config, crate::ConfigError> {
        Config::parse(
            &format!(
                "{extra}\n[[groups]]\nid = \"g\"\nname = \"G\"\nlifecycle = \"stable\"\nrepos = [\"a/b\", {{ repo = \"c/d\", lifecycle = \"active\" }}]\n\n[[groups]]\nid = \"h\"\nname = \"H\"\nrepos = [\"a/b\"]\n"
            ),
            Path::new("t.toml"),
        )
    }

    #[test]
    fn thresholds_default_and_are_read() {
        let c = parse("").unwrap();
        assert_eq!(c.lifecycle, Thresholds::default());
        let c = parse("[lifecycle]\nidle_days = 180\ndeclining_ratio = 0.25\n").unwrap();
        assert_eq!(c.lifecycle.idle_days, 180);
        assert_eq!(c.lifecycle.declining_ratio, 0.25);
        assert_eq!(c.lifecycle.recent_weeks, 13);
    }

    #[test]
    fn bad_thresholds_and_states_are_told_at_their_line() {
        let e = parse("[lifecycle]\nidle_days = 0\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("lifecycle.idle_days"), "{e}");
        let e = parse("[lifecycle]\ndeclining_ratio = 2.0\n").unwrap_err();
        assert!(e.message.contains("declining_ratio"), "{e}");
        let e = Config::parse(
            "[[groups]]\nid = \"g\"\nname = \"G\"\nlifecycle = \"alive\"\nrepos = [\"a/b\"]\n",
            Path::new("t.toml"),
        )
        .unwrap_err();
        assert!(e.message.contains("\"stable\""), "{e}");
    }

    #[test]
    fn a_repository_declares_over_its_group_and_groups_differ() {
        let c = parse("").unwrap();
        assert_eq!(c.declared_lifecycle("g", "b"), Some(State::Stable));
        assert_eq!(c.declared_lifecycle("g", "d"), Some(State::Active));
        assert_eq!(c.declared_lifecycle("h", "b"), None);
        assert_eq!(c.declared_lifecycle("nope", "b"), None);
    }
}
