//! The configuration keys of comments and first responses:
//! `comments_backfill_days` and `waiting_days` at the top of the file,
//! `ignore_users` in a group.

use toml::Spanned;

use super::SpanError;

impl super::Config {
    /// Each group's `ignore_users`, by group id.
    pub fn ignore_users(&self) -> std::collections::BTreeMap<String, Vec<String>> {
        self.groups
            .iter()
            .map(|g| (g.group.id.clone(), g.ignore_users.clone()))
            .collect()
    }
}

/// How far a repository's first run reads comments back, days.
pub const DEFAULT_COMMENTS_BACKFILL_DAYS: u32 =
    signals_core::first_response::DEFAULT_COMMENTS_BACKFILL_DAYS;

/// `comments_backfill_days`: 1 to 3,650, [`DEFAULT_COMMENTS_BACKFILL_DAYS`]
/// by default.
pub(super) fn comments_backfill_days(d: Option<Spanned<i64>>) -> Result<u32, SpanError> {
    days(
        d,
        "comments_backfill_days",
        3650,
        DEFAULT_COMMENTS_BACKFILL_DAYS,
    )
}

/// `waiting_days`: 1 to 365, 2 by default.
pub(super) fn waiting_days(d: Option<Spanned<i64>>) -> Result<u32, SpanError> {
    days(
        d,
        "waiting_days",
        365,
        signals_core::first_response::DEFAULT_WAITING_DAYS,
    )
}

fn days(d: Option<Spanned<i64>>, key: &str, max: u32, default: u32) -> Result<u32, SpanError> {
    match d {
        Some(d) => u32::try_from(*d.get_ref())
            .ok()
            .filter(|d| (1..=max).contains(d))
            .ok_or_else(|| {
                (
                    d.span(),
                    format!("{key} must be a whole number of days from 1 to {max}"),
                )
            }),
        None => Ok(default),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_bounded_with_defaults() {
        assert_eq!(comments_backfill_days(None), Ok(90));
        assert_eq!(waiting_days(None), Ok(2));
        assert_eq!(waiting_days(Some(Spanned::new(0..1, 5))), Ok(5));
        let (_, message) = waiting_days(Some(Spanned::new(0..1, 0))).unwrap_err();
        assert!(message.contains("waiting_days must be"), "{message}");
    }
}
