//! Header values that point elsewhere: the `Link` relations a paged answer
//! carries (`next`, `last`) and the `Retry-After` of a refusal. Plain
//! text in, values out; the request loop and the host crates read them.

use jiff::Timestamp;

/// The `rel="next"` target of a `Link` header.
pub fn link_next(header: &str) -> Option<String> {
    link_rel(header, "next")
}

/// The target of relation `rel` (`next`, `last`) in a `Link` header.
pub fn link_rel(header: &str, rel: &str) -> Option<String> {
    let quoted = format!("rel=\"{rel}\"");
    let bare = format!("rel={rel}");
    header.split(',').find_map(|part| {
        let (target, params) = part.split_once(';')?;
        let target = target.trim().strip_prefix('<')?.strip_suffix('>')?;
        params
            .split(';')
            .any(|p| {
                let p = p.trim();
                p == quoted || p == bare
            })
            .then(|| target.to_string())
    })
}

/// Seconds to wait from a `Retry-After` value: delay-seconds, or an
/// HTTP-date (RFC 9110 allows both), counted from `now`.
pub fn retry_after_secs(value: &str, now: Timestamp) -> Option<u64> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(secs);
    }
    let at = jiff::fmt::rfc2822::parse(value).ok()?.timestamp();
    Some(at.duration_since(now).as_secs().max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_in_seconds_or_as_a_date() {
        let now: Timestamp = "2015-10-21T07:27:00Z".parse().unwrap();
        assert_eq!(retry_after_secs(" 120 ", now), Some(120));
        assert_eq!(
            retry_after_secs("Wed, 21 Oct 2015 07:28:00 GMT", now),
            Some(60)
        );
        // A date in the past means "now".
        assert_eq!(
            retry_after_secs("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(0)
        );
        assert_eq!(retry_after_secs("soon", now), None);
    }

    #[test]
    fn link_header_next() {
        let h = "<https://api.github.com/repositories/1/issues?page=2>; rel=\"next\", \
                 <https://api.github.com/repositories/1/issues?page=5>; rel=\"last\"";
        assert_eq!(
            link_next(h).as_deref(),
            Some("https://api.github.com/repositories/1/issues?page=2")
        );
        assert_eq!(link_next("<https://x/?page=1>; rel=\"first\""), None);
        assert_eq!(link_next("garbage"), None);
    }
}
