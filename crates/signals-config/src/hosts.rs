//! The code hosts of the configuration (`[host]`, or `[[hosts]]` for
//! several): each host's kind, name, API URL, token variables and HTTP
//! settings, over the defaults of its kind (the public instance's API URL
//! and the usual token variable, which `signals_core::Source` knows), and [`kind`], the one
//! switch over kinds' names. The domains of URLs ([`url_domain`]) are
//! here too: a pasted repository URL picks its host by them.

use std::ops::Range;

use serde::Deserialize;
use signals_core::{Source, SourceId, slugify};
use toml::Spanned;

use super::SpanError;

/// A `[host]` or `[[hosts]]` table, as serde sees it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawHost {
    name: Option<Spanned<String>>,
    kind: Option<Spanned<String>>,
    token_header: Option<Spanned<String>>,
    api_url: Option<Spanned<String>>,
    token_env: Option<TokenEnv>,
    user_agent: Option<String>,
    timeout_secs: Option<u64>,
    max_retries: Option<u32>,
    max_rate_limit_wait_secs: Option<u64>,
}

/// `token_env = "GITHUB_TOKEN"` or `token_env = ["TOKEN_A", "TOKEN_B"]`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum TokenEnv {
    One(String),
    Many(Vec<String>),
}

/// How a GitLab token is sent (other hosts have one way each).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TokenHeader {
    /// `PRIVATE-TOKEN`: GitLab personal, project and group access tokens.
    #[default]
    PrivateToken,
    /// `Authorization: Bearer`: GitLab OAuth tokens.
    Bearer,
}

/// One code host's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostConfig {
    /// The name repositories use to pick it (`host = "codeberg"`); the kind
    /// (`github`) when the configuration names none.
    pub name: String,
    /// Which API: GitHub, GitLab or Forgejo/Gitea.
    pub source: Source,
    /// The `source` of its repositories' signals: the kind for the first
    /// host of each kind, `<kind>-<name>` for every further one (so ids
    /// stay distinct across hosts holding the same `owner/name`).
    pub signals_source: SourceId,
    /// API base URL (`https://api.github.com`, `https://HOST/api/v3`,
    /// `https://gitlab.com/api/v4`, `https://codeberg.org/api/v1`).
    pub api_url: String,
    /// Names of the environment variables that hold tokens.
    pub token_env: Vec<String>,
    /// GitLab: how the token is sent.
    pub token_header: TokenHeader,
    /// User-Agent sent with every request.
    pub user_agent: String,
    /// Connect and read timeout, seconds.
    pub timeout_secs: u64,
    /// Retries of a request after a 5xx, a timeout or a reset.
    pub max_retries: u32,
    /// Longest wait for a rate limit before the run stops, seconds.
    pub max_rate_limit_wait_secs: u64,
}

impl HostConfig {
    /// The defaults of a host of `source`: its public instance
    /// (github.com, gitlab.com, codeberg.org) and its usual token variable
    /// ([`Source::public_api_url`], [`Source::token_env`]).
    pub fn of(source: Source) -> HostConfig {
        HostConfig {
            name: source.as_str().to_string(),
            source,
            signals_source: SourceId::from(source),
            api_url: source.public_api_url().to_string(),
            token_env: vec![source.token_env().to_string()],
            token_header: TokenHeader::default(),
            user_agent: concat!("repo-signals/", env!("CARGO_PKG_VERSION")).to_string(),
            timeout_secs: 30,
            max_retries: 4,
            max_rate_limit_wait_secs: 15 * 60,
        }
    }

    /// The host part of the API URL, lowercased (`api.github.com`).
    pub(super) fn api_domain(&self) -> String {
        url_domain(&self.api_url).unwrap_or_default()
    }

    /// The domain of the host's web pages, which pasted repository URLs
    /// name: its API's, without a leading `api.` (api.github.com serves
    /// github.com; gitlab.com/api/v4 serves gitlab.com).
    pub fn web_domain(&self) -> String {
        let api = self.api_domain();
        match api.strip_prefix("api.") {
            Some(web) => web.to_string(),
            None => api,
        }
    }

    /// Whether `domain` (a URL's host, as [`url_domain`] gives it)
    /// is this host's: its web or API domain, `www.` aside.
    pub fn serves(&self, domain: &str) -> bool {
        let domain = domain.strip_prefix("www.").unwrap_or(domain);
        domain == self.web_domain() || domain == self.api_domain()
    }
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig::of(Source::Github)
    }
}

/// Checks the hosts of `[host]` (`one`) or `[[hosts]]` (`many`), never
/// both. Without either, GitHub's public instance is the one host.
pub(super) fn parse(
    one: Option<Spanned<RawHost>>,
    many: Option<Vec<Spanned<RawHost>>>,
) -> Result<Vec<HostConfig>, SpanError> {
    let raw_hosts: Vec<Spanned<RawHost>> = match (one, many) {
        (Some(one), Some(_)) => {
            return Err((
                one.span(),
                "both [host] and [[hosts]] are set: keep one. For several hosts, move the \
                 [host] keys into a [[hosts]] entry with a `name`"
                    .to_string(),
            ));
        }
        (Some(one), None) => vec![one],
        (None, Some(list)) if !list.is_empty() => list,
        (None, _) => vec![],
    };
    let several = raw_hosts.len() > 1;
    let mut hosts: Vec<HostConfig> = Vec::new();
    for raw_host in raw_hosts {
        let span = raw_host.span();
        let host = host(raw_host.into_inner(), span, several, &hosts)?;
        hosts.push(host);
    }
    if hosts.is_empty() {
        hosts.push(HostConfig::default());
    }
    Ok(hosts)
}

/// One host over the defaults of its kind; `before` are the hosts above
/// it, whose names it must not repeat.
fn host(
    raw: RawHost,
    span: Range<usize>,
    several: bool,
    before: &[HostConfig],
) -> Result<HostConfig, SpanError> {
    let source = match &raw.kind {
        None => Source::Github,
        Some(kind) => crate::hosts::kind(kind.get_ref()).ok_or_else(|| {
            (
                kind.span(),
                format!(
                    "host kind {:?} is not known: use \"github\", \"gitlab\" or \"forgejo\" (Forgejo and Gitea)",
                    kind.get_ref()
                ),
            )
        })?,
    };
    let mut host = HostConfig::of(source);
    name(&mut host, &raw, &span, several, before)?;
    if let Some(url) = &raw.api_url {
        let u = url.get_ref().trim_end_matches('/');
        if !(u.starts_with("https://") || u.starts_with("http://")) {
            return Err((
                url.span(),
                format!(
                    "api_url = {:?} must be an http(s) URL such as {}",
                    url.get_ref(),
                    HostConfig::of(source).api_url
                ),
            ));
        }
        host.api_url = u.to_string();
    }
    if let Some(names) = raw.token_env {
        host.token_env = match names {
            TokenEnv::One(n) => vec![n],
            TokenEnv::Many(v) => v,
        };
    }
    if let Some(h) = &raw.token_header {
        host.token_header = token_header(source, h)?;
    }
    if let Some(ua) = raw.user_agent {
        host.user_agent = ua;
    }
    if let Some(t) = raw.timeout_secs {
        host.timeout_secs = t.max(1);
    }
    if let Some(r) = raw.max_retries {
        host.max_retries = r;
    }
    if let Some(w) = raw.max_rate_limit_wait_secs {
        host.max_rate_limit_wait_secs = w;
    }
    Ok(host)
}

/// The host's name (a word, unique; needed when there are several), and
/// for a further host of a kind the `source` its name qualifies.
fn name(
    host: &mut HostConfig,
    raw: &RawHost,
    span: &Range<usize>,
    several: bool,
    before: &[HostConfig],
) -> Result<(), SpanError> {
    match &raw.name {
        Some(name) => {
            let n = name.get_ref().trim();
            if n.is_empty() || n.chars().any(|c| c.is_whitespace()) {
                return Err((
                    name.span(),
                    format!(
                        "host name {:?} must be a non-empty word, such as \"codeberg\"",
                        name.get_ref()
                    ),
                ));
            }
            host.name = n.to_string();
        }
        None if several => {
            return Err((
                span.clone(),
                "every [[hosts]] entry needs a `name` (repositories pick their host by it)"
                    .to_string(),
            ));
        }
        None => {}
    }
    let name_span = raw.name.as_ref().map_or(span.clone(), |n| n.span());
    if before.iter().any(|h| h.name == host.name) {
        return Err((
            name_span,
            format!(
                "host name {:?} is used twice: give each host its own name",
                host.name
            ),
        ));
    }
    // A further host of a kind writes its name into its signals'
    // `source` and ids, so the name must fit there.
    let source = host.source;
    if before.iter().any(|h| h.source == source) {
        host.signals_source = SourceId::qualified(source, &host.name).ok_or_else(|| {
            (
                name_span,
                format!(
                    "host name {:?} is not a slug: a second {} host's name becomes part of its signal ids ({}-<name>:owner/name:...), so use lowercase letters, digits and single dashes, such as {:?}",
                    host.name,
                    source.display_name(),
                    source,
                    slugify(&host.name)
                ),
            )
        })?;
    }
    Ok(())
}

/// How a GitLab host sends its token; an error on other hosts.
fn token_header(source: Source, h: &Spanned<String>) -> Result<TokenHeader, SpanError> {
    match (source, h.get_ref().to_ascii_lowercase().as_str()) {
        (Source::Gitlab, "private-token") => Ok(TokenHeader::PrivateToken),
        (Source::Gitlab, "bearer") => Ok(TokenHeader::Bearer),
        (Source::Gitlab, _) => Err((
            h.span(),
            format!(
                "token_header {:?} is not known: use \"private-token\" (access tokens) or \"bearer\" (OAuth tokens)",
                h.get_ref()
            ),
        )),
        _ => Err((
            h.span(),
            "token_header applies to GitLab hosts only".to_string(),
        )),
    }
}

/// The lowercased host of an http(s), ssh or scp-like URL (`None` for
/// `owner/name`).
pub fn url_domain(input: &str) -> Option<String> {
    let s = input.trim();
    let rest = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"))
        .or_else(|| s.strip_prefix("ssh://"));
    let host = match rest {
        Some(rest) => {
            let rest = rest.split(['/', '?', '#']).next().unwrap_or(rest);
            rest.rsplit_once('@').map_or(rest, |(_, h)| h)
        }
        None => {
            let (user_host, _) = s.split_once(':')?;
            user_host.rsplit_once('@').map(|(_, h)| h)?
        }
    };
    let host = host.split(':').next().unwrap_or(host).to_ascii_lowercase();
    (!host.is_empty()).then_some(host)
}

/// The host kind a configuration's `kind` names (`gitea` is Forgejo's).
pub fn kind(name: &str) -> Option<Source> {
    match name.trim().to_ascii_lowercase().as_str() {
        "github" => Some(Source::Github),
        "gitlab" => Some(Source::Gitlab),
        "forgejo" | "gitea" => Some(Source::Forgejo),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use signals_core::Source;

    use super::TokenHeader;
    use crate::{Config, ConfigError};

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Path::new("signals.toml"))
    }

    #[test]
    fn several_hosts_and_how_repositories_pick_one() {
        let c = parse(
            r#"
[[hosts]]
name = "github"
kind = "github"

[[hosts]]
name = "gnome"
kind = "gitlab"
api_url = "https://gitlab.gnome.org/api/v4/"
token_env = "GNOME_TOKEN"
token_header = "bearer"

[[hosts]]
name = "codeberg"
kind = "forgejo"

[[groups]]
id = "g"
name = "G"
repos = [
  "o/plain",
  "https://codeberg.org/forgejo/forgejo",
  { repo = "gnome/world/podcasts", host = "gnome" },
  "https://gitlab.gnome.org/GNOME/gtk/-/issues/1",
]

[[groups]]
id = "h"
name = "H"
host = "codeberg"
repos = ["a/b"]
"#,
        )
        .unwrap();
        // One host per kind: every source is the bare kind, as always.
        let hosts: Vec<(&str, &str, String)> = c
            .select(None, None)
            .into_iter()
            .map(|(g, r)| {
                let h = &c.hosts[c.host_of(g, r)];
                (h.name.as_str(), r.source.as_str(), r.repo.to_string())
            })
            .collect();
        assert_eq!(
            hosts,
            vec![
                ("github", "github", "o/plain".to_string()),
                ("codeberg", "forgejo", "forgejo/forgejo".to_string()),
                ("gnome", "gitlab", "gnome/world/podcasts".to_string()),
                ("gnome", "gitlab", "GNOME/gtk".to_string()),
                ("codeberg", "forgejo", "a/b".to_string()),
            ]
        );
        let gnome = &c.hosts[1];
        assert_eq!(gnome.api_url, "https://gitlab.gnome.org/api/v4");
        assert_eq!(gnome.token_env, vec!["GNOME_TOKEN"]);
        assert_eq!(gnome.token_header, TokenHeader::Bearer);
        assert_eq!(c.hosts[2].api_url, "https://codeberg.org/api/v1");
        assert_eq!(c.hosts[2].token_env, vec!["FORGEJO_TOKEN"]);
    }

    #[test]
    fn a_further_host_of_a_kind_qualifies_its_source() {
        let c = parse(
            "[[hosts]]\nname = \"dotcom\"\nkind = \"github\"\n\
             [[hosts]]\nname = \"ghe\"\nkind = \"github\"\napi_url = \"https://ghe.example.com/api/v3\"\n\
             [[hosts]]\nname = \"gitlab\"\nkind = \"gitlab\"\n\
             [[groups]]\nid = \"g\"\nname = \"G\"\n\
             [[groups.repos]]\nrepo = \"o/n\"\n\
             [[groups.repos]]\nrepo = \"o/n\"\nid = \"n-ghe\"\nhost = \"ghe\"\n",
        )
        .unwrap();
        let sources: Vec<&str> = c.hosts.iter().map(|h| h.signals_source.as_str()).collect();
        assert_eq!(sources, ["github", "github-ghe", "gitlab"]);
        let repos: Vec<(&str, &str)> = c.groups[0]
            .repos
            .iter()
            .map(|r| (r.id.as_str(), r.source.as_str()))
            .collect();
        assert_eq!(repos, [("n", "github"), ("n-ghe", "github-ghe")]);
        // The name of a further host becomes part of ids: it must be a slug.
        let e = parse(
            "[[hosts]]\nname = \"a\"\nkind = \"gitlab\"\n\
             [[hosts]]\nname = \"Gnome.org\"\nkind = \"gitlab\"\n",
        )
        .unwrap_err();
        let m = e.to_string();
        assert!(m.starts_with("signals.toml:5: "), "{m}");
        assert!(
            m.contains("\"Gnome.org\" is not a slug") && m.contains("\"gnome-org\""),
            "{m}"
        );
        // The first host of a kind may keep any name: it is not in ids.
        assert!(parse("[[hosts]]\nname = \"Gnome.org\"\nkind = \"gitlab\"\n").is_ok());
    }

    #[test]
    fn old_single_host_configs_keep_working() {
        let c = parse("[host]\nkind = \"gitlab\"\n[[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\"a/b/c\"]\n").unwrap();
        assert_eq!(c.hosts.len(), 1);
        assert_eq!(c.hosts[0].name, "gitlab");
        assert_eq!(c.hosts[0].api_url, "https://gitlab.com/api/v4");
        assert_eq!(c.groups[0].repos[0].source, Source::Gitlab);
        assert_eq!(c.groups[0].repos[0].id, "c");
    }

    #[test]
    fn host_errors_say_what_to_change() {
        let e = parse("[host]\nkind = \"github\"\n[[hosts]]\nname = \"a\"\n").unwrap_err();
        assert!(e.to_string().contains("keep one"), "{e}");
        let e = parse("[[hosts]]\nkind = \"github\"\n[[hosts]]\nname = \"b\"\nkind = \"gitlab\"\n")
            .unwrap_err();
        assert!(e.to_string().contains("needs a `name`"), "{e}");
        let e = parse("[host]\nkind = \"bitbucket\"\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.to_string().contains("\"forgejo\""), "{e}");
        let e = parse("[[groups]]\nid = \"g\"\nname = \"G\"\n[[groups.repos]]\nrepo = \"a/b\"\nhost = \"nope\"\n").unwrap_err();
        assert_eq!(e.line, Some(6));
        assert!(e.to_string().contains("use one of \"github\""), "{e}");
        // A nested path on GitHub is a mistake the error explains.
        let e = parse("[[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\"a/b/c\"]\n").unwrap_err();
        assert!(e.to_string().contains("only GitLab projects"), "{e}");
        let e = parse("[host]\ntoken_header = \"bearer\"\n").unwrap_err();
        assert!(e.to_string().contains("GitLab hosts only"), "{e}");
    }
}
