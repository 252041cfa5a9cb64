//! A repository's security advisories: `GET /repos/{o}/{r}/security-advisories`
//! (GitHub's repository advisories, with no state filter so that withdrawn
//! ones come too), read once per run, conditionally: an unchanged list
//! answers 304, which costs no rate limit.
//!
//! Only published advisories become signals, withdrawn ones included (a
//! withdrawn advisory is a closed signal). Drafts, triage and advisories
//! closed without publication are what a token with rights on the
//! repository sees of work under embargo: they are dropped here, never
//! stored or published.

use jiff::Timestamp;
use serde::Deserialize;
use signals_core::model::{CvssScore, ItemDetail, ItemSnapshot, ItemState, Metrics, Severity};
use signals_http::de::{opt_timestamp, secs, text};
use signals_http::wire::Place;
use signals_http::{Client, Error, ResponseCache, decode};

use crate::{HOST, PER_PAGE};

/// The first page of the list: the most recently updated first, so that
/// the page holds what changed when a repository has more than a page.
pub fn advisories_url(root: &str) -> String {
    format!("{root}/security-advisories?sort=updated&direction=desc&per_page={PER_PAGE}")
}

/// An account (`publisher`, `author`).
#[derive(Debug, Deserialize)]
struct Account {
    #[serde(default, deserialize_with = "text")]
    login: String,
}

/// A CVSS object (`cvss`, `cvss_severities.cvss_v3`/`cvss_v4`).
#[derive(Debug, Deserialize)]
struct Cvss {
    #[serde(default)]
    score: Option<f64>,
}

/// `cvss_severities`: newer answers give both versions.
#[derive(Debug, Deserialize)]
struct CvssSeverities {
    #[serde(default)]
    cvss_v4: Option<Cvss>,
    #[serde(default)]
    cvss_v3: Option<Cvss>,
}

/// An element of the list.
#[derive(Debug, Deserialize)]
struct Advisory {
    #[serde(default, deserialize_with = "text")]
    ghsa_id: String,
    #[serde(default)]
    cve_id: Option<String>,
    #[serde(default, deserialize_with = "text")]
    html_url: String,
    #[serde(default, deserialize_with = "text")]
    summary: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    severity: Option<String>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default, deserialize_with = "opt_timestamp")]
    created_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "opt_timestamp")]
    updated_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "opt_timestamp")]
    published_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "opt_timestamp")]
    withdrawn_at: Option<Timestamp>,
    #[serde(default)]
    cvss: Option<Cvss>,
    #[serde(default)]
    cvss_severities: Option<CvssSeverities>,
    #[serde(default)]
    publisher: Option<Account>,
    #[serde(default)]
    author: Option<Account>,
}

impl Advisory {
    /// The signal; `None` for one never published (draft, triage, closed
    /// unpublished) or without a GHSA id.
    fn into_snapshot(self, at: &Place<'_>) -> Option<ItemSnapshot> {
        let ghsa = self.ghsa_id.trim().to_string();
        if ghsa.is_empty() || ghsa.contains(':') {
            return None;
        }
        let state = self.state.as_deref().unwrap_or("published");
        let withdrawn = state.eq_ignore_ascii_case("withdrawn") || self.withdrawn_at.is_some();
        if !withdrawn && !state.eq_ignore_ascii_case("published") {
            return None;
        }
        let published_at = secs(self.published_at?);
        let updated_at = self.updated_at.map_or(published_at, secs).max(published_at);
        let withdrawn_at = withdrawn.then(|| self.withdrawn_at.map_or(updated_at, secs));
        // The newest CVSS version given, then the legacy field.
        let score = self
            .cvss_severities
            .and_then(|c| {
                c.cvss_v4
                    .and_then(|v| v.score)
                    .or(c.cvss_v3.and_then(|v| v.score))
            })
            .or(self.cvss.and_then(|c| c.score))
            .filter(|s| *s > 0.0)
            .and_then(CvssScore::from_f64);
        let url = match self.html_url.trim() {
            u if u.starts_with("http") => u.to_string(),
            _ => format!("{}/security/advisories/{ghsa}", at.web),
        };
        let author = self.publisher.or(self.author).map(|a| a.login);
        Some(ItemSnapshot {
            repo: at.repo.clone(),
            key: ghsa,
            title: self.summary,
            text: self.description.unwrap_or_default(),
            url,
            created_at: self.created_at.map_or(published_at, secs).min(published_at),
            updated_at,
            metrics: Metrics::default(),
            labels: vec![],
            author: at.conventions.handle(author),
            state: if withdrawn {
                ItemState::Closed
            } else {
                ItemState::Open
            },
            closed_at: withdrawn_at,
            assignees: vec![],
            detail: ItemDetail::Advisory {
                severity: self.severity.as_deref().and_then(Severity::parse),
                cvss_score: score,
                cve_id: self
                    .cve_id
                    .map(|c| c.trim().to_string())
                    .filter(|c| !c.is_empty()),
                published_at,
                withdrawn_at,
            },
        })
    }
}

/// The published advisories of a list's body, in its order; `url` names
/// the answer in a decoding error.
pub fn parse_advisories(
    url: &str,
    body: &[u8],
    at: &Place<'_>,
) -> Result<Vec<ItemSnapshot>, Error> {
    Ok(decode::<Vec<Advisory>>(HOST, url, body)?
        .into_iter()
        .filter_map(|a| a.into_snapshot(at))
        .collect())
}

/// One conditional request. A 404 (no such feature on an older GitHub
/// Enterprise server), 403 (a token or an instance that may not read
/// them) or 410 is no advisories, not a failed run; a rate limit or
/// another status is the run's error, as for every request.
pub(crate) fn read(
    http: &mut Client,
    root: &str,
    at: &Place<'_>,
    cache: &mut dyn ResponseCache,
) -> Result<Vec<ItemSnapshot>, Error> {
    let fetched = match http.get(&advisories_url(root), cache) {
        Err(Error::Http {
            status: 403 | 404 | 410,
            ..
        }) => return Ok(Vec::new()),
        r => r?,
    };
    parse_advisories(&fetched.url, &fetched.body, at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use signals_core::model::RepoName;
    use signals_http::wire::Conventions;

    fn parse(body: &str) -> Vec<ItemSnapshot> {
        let repo = RepoName::parse("o/n").unwrap();
        let conventions = Conventions {
            ghost: "ghost",
            wip_prefixes: &[],
        };
        let at = Place {
            repo: &repo,
            web: "https://github.com/o/n",
            conventions: &conventions,
        };
        parse_advisories("u", body.as_bytes(), &at).unwrap()
    }

    #[test]
    fn published_and_withdrawn_are_signals_drafts_are_not() {
        let got = parse(
            r#"[
            {"ghsa_id": "GHSA-1111-2222-3333", "cve_id": "CVE-2026-1", "summary": "Heap overflow",
             "description": "Bad.", "severity": "high", "state": "published",
             "html_url": "https://github.com/o/n/security/advisories/GHSA-1111-2222-3333",
             "created_at": "2026-10-01T00:00:00Z", "updated_at": "2026-10-03T00:00:00Z",
             "published_at": "2026-10-02T00:00:00Z", "withdrawn_at": null,
             "cvss": {"vector_string": "x", "score": 7.5},
             "cvss_severities": {"cvss_v3": {"score": 8.1}, "cvss_v4": null},
             "publisher": {"login": "maint"}},
            {"ghsa_id": "GHSA-4444-5555-6666", "summary": "Withdrawn", "severity": null,
             "state": "withdrawn", "published_at": "2026-09-01T00:00:00Z",
             "updated_at": "2026-09-05T00:00:00Z", "withdrawn_at": "2026-09-05T00:00:00Z",
             "cvss": null},
            {"ghsa_id": "GHSA-7777-8888-9999", "summary": "Embargoed", "severity": "critical",
             "state": "draft", "published_at": null},
            {"ghsa_id": "GHSA-aaaa-bbbb-cccc", "summary": "Closed unpublished", "state": "closed"}
        ]"#,
        );
        assert_eq!(got.len(), 2);
        let (a, w) = (&got[0], &got[1]);
        assert_eq!(
            (a.key.as_str(), a.title.as_str()),
            ("GHSA-1111-2222-3333", "Heap overflow")
        );
        assert_eq!(a.state, ItemState::Open);
        assert_eq!(a.author, "maint");
        let ItemDetail::Advisory {
            severity,
            cvss_score,
            cve_id,
            withdrawn_at,
            ..
        } = &a.detail
        else {
            panic!("{a:?}")
        };
        assert_eq!(*severity, Some(Severity::High));
        assert_eq!(
            cvss_score.map(|s| s.value()),
            Some(8.1),
            "the newest CVSS version"
        );
        assert_eq!(cve_id.as_deref(), Some("CVE-2026-1"));
        assert_eq!(*withdrawn_at, None);
        assert_eq!(w.state, ItemState::Closed);
        assert_eq!(
            w.url,
            "https://github.com/o/n/security/advisories/GHSA-4444-5555-6666"
        );
        assert!(matches!(
            w.detail,
            ItemDetail::Advisory {
                severity: None,
                withdrawn_at: Some(_),
                ..
            }
        ));
    }

    #[test]
    fn odd_entries_do_not_fail_the_list() {
        let got = parse(
            r#"[{"ghsa_id": null}, {}, {"ghsa_id": "GHSA-x", "published_at": "2026-01-01T00:00:00Z",
                 "severity": "unknown", "cvss": {"score": 99}, "cve_id": " "}]"#,
        );
        assert_eq!(got.len(), 1);
        assert!(matches!(
            got[0].detail,
            ItemDetail::Advisory {
                severity: None,
                cvss_score: None,
                cve_id: None,
                ..
            }
        ));
    }
}
