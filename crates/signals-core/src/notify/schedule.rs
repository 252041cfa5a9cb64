//! When an email digest is due ([`Schedule`]): `daily 08:00` or
//! `weekly mon 08:00`, parsed from the rule and placed in its time zone.

use jiff::Timestamp;

/// When an email digest is due: `daily 08:00` or `weekly mon 08:00`, in
/// the rule's time zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// Every day at this time.
    Daily {
        /// Hour, 0-23.
        hour: i8,
        /// Minute, 0-59.
        minute: i8,
    },
    /// Every week on this day at this time.
    Weekly {
        /// The day.
        weekday: jiff::civil::Weekday,
        /// Hour, 0-23.
        hour: i8,
        /// Minute, 0-59.
        minute: i8,
    },
}

impl Schedule {
    /// Parses `daily HH:MM` or `weekly <mon|tue|...> HH:MM`.
    pub fn parse(text: &str) -> Result<Schedule, String> {
        use jiff::civil::Weekday;
        let bad = || {
            format!(
                "digest = {text:?} is not a schedule: write \"daily 08:00\" or \"weekly mon 08:00\""
            )
        };
        let words: Vec<&str> = text.split_whitespace().collect();
        let time = |t: &str| -> Result<(i8, i8), String> {
            let (h, m) = t.split_once(':').ok_or_else(bad)?;
            let h: i8 = h.parse().map_err(|_| bad())?;
            let m: i8 = m.parse().map_err(|_| bad())?;
            if !(0..24).contains(&h) || !(0..60).contains(&m) {
                return Err(bad());
            }
            Ok((h, m))
        };
        match words.as_slice() {
            [d, t] if d.eq_ignore_ascii_case("daily") => {
                let (hour, minute) = time(t)?;
                Ok(Schedule::Daily { hour, minute })
            }
            [w, day, t] if w.eq_ignore_ascii_case("weekly") => {
                let weekday = match day.to_ascii_lowercase().get(..3) {
                    Some("mon") => Weekday::Monday,
                    Some("tue") => Weekday::Tuesday,
                    Some("wed") => Weekday::Wednesday,
                    Some("thu") => Weekday::Thursday,
                    Some("fri") => Weekday::Friday,
                    Some("sat") => Weekday::Saturday,
                    Some("sun") => Weekday::Sunday,
                    _ => return Err(bad()),
                };
                let (hour, minute) = time(t)?;
                Ok(Schedule::Weekly {
                    weekday,
                    hour,
                    minute,
                })
            }
            _ => Err(bad()),
        }
    }

    /// The first scheduled instant strictly after `after`, in `tz`. A
    /// time a clock change skips is taken as the instant after the gap.
    pub fn next_after(&self, after: Timestamp, tz: &jiff::tz::TimeZone) -> Timestamp {
        let (weekday, hour, minute) = match *self {
            Schedule::Daily { hour, minute } => (None, hour, minute),
            Schedule::Weekly {
                weekday,
                hour,
                minute,
            } => (Some(weekday), hour, minute),
        };
        let mut day = after.to_zoned(tz.clone()).date();
        // At most 8 days ahead: a week plus the day itself.
        for _ in 0..9 {
            if weekday.is_none_or(|w| day.weekday() == w)
                && let Ok(at) = day.at(hour, minute, 0, 0).to_zoned(tz.clone())
                && at.timestamp() > after
            {
                return at.timestamp();
            }
            day = day.tomorrow().unwrap_or(day);
        }
        after
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_fall_on_their_local_time() {
        let tz = jiff::tz::TimeZone::fixed(jiff::tz::offset(2));
        let daily = Schedule::parse("daily 08:00").unwrap();
        let t: Timestamp = "2026-11-24T05:59:00Z".parse().unwrap();
        assert_eq!(daily.next_after(t, &tz).to_string(), "2026-11-24T06:00:00Z");
        let t: Timestamp = "2026-11-24T06:00:00Z".parse().unwrap();
        assert_eq!(daily.next_after(t, &tz).to_string(), "2026-11-25T06:00:00Z");
        // 2026-11-24 is a Tuesday.
        let weekly = Schedule::parse("weekly MON 08:30").unwrap();
        assert_eq!(
            weekly.next_after(t, &tz).to_string(),
            "2026-11-30T06:30:00Z"
        );
        for bad in [
            "daily",
            "daily 24:00",
            "weekly 08:00",
            "weekly xyz 08:00",
            "hourly 1:00",
        ] {
            assert!(Schedule::parse(bad).is_err(), "{bad}");
        }
    }
}
