//! What `status` says to check after a failure, naming the setting and its
//! value in the configuration (a host's `api_url`, its `token_env`, a
//! repository's `repo`), and the repositories of the configuration that no
//! run has reached yet, with why.
//!
//! A repository is in the store from its first attempt on; one the
//! configuration lists and the store lacks was never tried: either no
//! `collect` reached it yet, or the last one stopped on its host (no
//! answer, a refused token, a long rate limit) before it. That stop is the
//! latest failure of the host's repositories, recorded after every run of
//! theirs.

use std::path::PathBuf;

use signals_core::dataset::fmt_collected;
use signals_core::{SourceId, TrackedRepo};
use signals_store::{Failure, RepoStatus};

use crate::config::{Config, HostConfig};

/// What `status` takes from the configuration.
pub struct Setup {
    hosts: Vec<HostConfig>,
    /// Each repository the configuration lists: its group and its host.
    configured: Vec<(String, TrackedRepo, usize)>,
    store: PathBuf,
}

/// A repository of the configuration that no run has reached.
pub struct NotTried {
    /// Its group's id.
    pub group: String,
    /// The repository.
    pub repo: TrackedRepo,
    /// Its host's name.
    pub host: String,
    /// Why it was not collected.
    pub reason: String,
    /// What to check or do.
    pub check: String,
}

impl Setup {
    /// The hosts and repositories of `config`.
    pub fn of(config: &Config) -> Setup {
        let configured = config
            .groups
            .iter()
            .flat_map(|g| {
                g.repos
                    .iter()
                    .map(|r| (g.group.id.clone(), r.clone(), config.host_of(&g.group, r)))
            })
            .collect();
        Setup {
            hosts: config.hosts.clone(),
            configured,
            store: config.store.clone(),
        }
    }

    /// The configured host whose repositories carry `source`.
    fn host(&self, source: &SourceId) -> Option<&HostConfig> {
        self.hosts.iter().find(|h| h.signals_source == *source)
    }

    /// The setting to check after a failure of `kind` (the store's
    /// classification) with `message`, of `repo` in group `group`.
    pub fn check(&self, kind: &str, message: &str, group: &str, repo: &TrackedRepo) -> String {
        let Some(host) = self.host(&repo.source) else {
            return "the failure's message above".to_string();
        };
        let api = format!(
            "api_url = {:?} of host {:?}",
            host.api_url.trim_end_matches('/'),
            host.name
        );
        let tokens = if host.token_env.is_empty() {
            format!("token_env of host {:?}", host.name)
        } else {
            format!(
                "the token in {} (token_env of host {:?})",
                host.token_env.join(" or "),
                host.name
            )
        };
        match kind {
            "transport" => format!("the network, and {api}"),
            "http" if message.contains("answered 401 ") => tokens,
            "http" => format!("{api}; an answer 5xx is the host's own trouble: run again later"),
            "not_found" => format!(
                "repo = {:?} in group {group:?} (the name on the host), and whether {tokens} may \
                 read it",
                repo.repo.to_string()
            ),
            "rate_limited" => format!("{tokens}, or run again once the limit resets"),
            "decode" => format!(
                "{api}: it must be the API of a {} host; if it is, run again",
                host.source.display_name()
            ),
            "redirect" => api,
            "store" => format!("the store, store = {:?}", self.store.display().to_string()),
            _ => "the failure's message above".to_string(),
        }
    }

    /// The configured repositories the store does not hold, each with why
    /// no run reached it.
    pub fn not_tried(&self, stored: &[RepoStatus]) -> Vec<NotTried> {
        self.configured
            .iter()
            .filter(|(group, repo, _)| {
                !stored
                    .iter()
                    .any(|s| s.summary.group.id == *group && s.summary.repo.id == repo.id)
            })
            .map(|(group, repo, host)| {
                let host = &self.hosts[*host];
                let (reason, check) = match self.stop_of(host, stored) {
                    Some(stop) => (
                        format!(
                            "the collect of {} stopped on host {:?} before it, when {} failed \
                             ({})",
                            fmt_collected(stop.failure.at),
                            host.name,
                            stop.repo,
                            stop.failure.kind
                        ),
                        self.check(&stop.failure.kind, &stop.failure.message, group, repo),
                    ),
                    None => (
                        "no collect has reached it since it was added".to_string(),
                        "run `signals collect`".to_string(),
                    ),
                };
                NotTried {
                    group: group.clone(),
                    repo: repo.clone(),
                    host: host.name.clone(),
                    reason,
                    check,
                }
            })
            .collect()
    }

    /// The failure that stopped the latest collect on `host`, if one did:
    /// the latest failure of its repositories, when it is of a kind that
    /// stops a host (no answer, a refused token, a rate limit) and no run
    /// of them came after it.
    fn stop_of<'a>(&self, host: &HostConfig, stored: &'a [RepoStatus]) -> Option<Stop<'a>> {
        let mine = || {
            stored
                .iter()
                .filter(|s| s.summary.repo.source == host.signals_source)
        };
        let (s, f) = mine()
            .filter_map(|s| s.last_failure.as_ref().map(|f| (s, f)))
            .max_by_key(|(_, f)| f.at)?;
        let stops = f.kind == "transport"
            || f.kind == "rate_limited"
            || (f.kind == "http" && f.message.contains("answered 401 "));
        let later_run = mine().any(|s| {
            s.last_run
                .as_ref()
                .is_some_and(|l| l.record.collected_at > f.at)
        });
        (stops && !later_run).then(|| Stop {
            repo: format!("{}/{}", s.summary.group.id, s.summary.repo.id),
            failure: f,
        })
    }
}

/// The failure that stopped a collect on a host, and the repository
/// (`group/repo`) it was of.
struct Stop<'a> {
    repo: String,
    failure: &'a Failure,
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn each_failure_names_the_setting_to_check_with_its_value() {
        let config = Config::parse(
            "store = \"s.db\"\n[[hosts]]\nname = \"gh\"\nkind = \"github\"\n\
             token_env = [\"A\", \"B\"]\n\n[[groups]]\nid = \"g\"\nname = \"G\"\nrepos = [\"o/n\"]\n",
            Path::new("signals.toml"),
        )
        .unwrap();
        let setup = Setup::of(&config);
        let repo = &config.groups[0].repos[0];
        let check = |kind: &str, message: &str| setup.check(kind, message, "g", repo);
        assert_eq!(
            check("transport", "no answer"),
            "the network, and api_url = \"https://api.github.com\" of host \"gh\""
        );
        assert_eq!(
            check(
                "http",
                "GitHub answered 401 for https://api.github.com/repos/o/n: Bad credentials"
            ),
            "the token in A or B (token_env of host \"gh\")"
        );
        assert!(check("http", "GitHub answered 502 for x: y").contains("run again later"));
        assert!(check("not_found", "").starts_with("repo = \"o/n\" in group \"g\""));
        assert!(check("rate_limited", "").contains("A or B"));
        assert!(check("decode", "").contains("the API of a GitHub host"));
        assert_eq!(check("store", ""), "the store, store = \"s.db\"");
    }
}
