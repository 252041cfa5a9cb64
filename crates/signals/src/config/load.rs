//! Loading the configuration: the file (relative paths in it follow the
//! file), then the `SIGNALS_*` environment, then the flags of commands that
//! need no repository list. Only this module reads files and the
//! environment; [`Config::parse`] stays pure.

use std::path::{Path, PathBuf};

use anyhow::Context;

use super::{Config, ConfigError, normalize_base_url};

/// What the binary adds to the configuration the `signals-config` crate
/// parses: reading its file, and the environment over it.
pub trait Load: Sized {
    /// Reads and parses a config file.
    fn load(path: &Path) -> Result<Self, ConfigError>;

    /// Makes a relative `store` and `out` relative to `dir`, the config
    /// file's folder.
    fn resolve_paths(&mut self, dir: &Path);

    /// Applies the `SIGNALS_*` variables from `env`.
    fn apply_env(&mut self, env: impl Fn(&str) -> Option<String>) -> Result<(), ConfigError>;
}

impl Load for Config {
    /// Reads and parses a config file.
    fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            path: path.to_path_buf(),
            line: None,
            message: if e.kind() == std::io::ErrorKind::NotFound {
                "no such file: run `signals init` to write an example, or pass --config".to_string()
            } else {
                format!("cannot read it: {e}")
            },
            more: Vec::new(),
        })?;
        let mut config = Config::parse(&text, path)?;
        config.resolve_paths(path.parent().unwrap_or(Path::new("")));
        Ok(config)
    }

    /// Makes a relative `store` and `out` relative to `dir`, the config
    /// file's folder: `signals --config /srv/signals/signals.toml collect`
    /// run by cron from another folder must find the same store. (Paths from
    /// `SIGNALS_*` variables and flags stay relative to the working
    /// directory, like any path typed in a shell.)
    fn resolve_paths(&mut self, dir: &Path) {
        for p in [&mut self.store, &mut self.out] {
            // A PostgreSQL address is not a path.
            if p.is_relative() && !crate::store::is_postgres(p) {
                *p = dir.join(&*p);
            }
        }
    }

    /// Applies `SIGNALS_STORE`, `SIGNALS_OUT`, `SIGNALS_BASE_URL`,
    /// `SIGNALS_API_URL` and `SIGNALS_WINDOW_HOURS` from `env` (a lookup, so
    /// tests need not touch the process environment).
    fn apply_env(&mut self, env: impl Fn(&str) -> Option<String>) -> Result<(), ConfigError> {
        let err = |message: String| ConfigError {
            path: PathBuf::from("<environment>"),
            line: None,
            message,
            more: Vec::new(),
        };
        if let Some(v) = env("SIGNALS_STORE") {
            self.store = PathBuf::from(v);
        }
        if let Some(v) = env("SIGNALS_OUT") {
            self.out = PathBuf::from(v);
        }
        if let Some(v) = env("SIGNALS_BASE_URL") {
            self.base_url =
                Some(normalize_base_url(&v).map_err(|m| err(format!("SIGNALS_BASE_URL: {m}")))?);
        }
        if let Some(v) = env("SIGNALS_API_URL")
            && let Some(first) = self.hosts.first_mut()
        {
            first.api_url = v.trim_end_matches('/').to_string();
        }
        if let Some(v) = env("SIGNALS_WINDOW_HOURS") {
            match v.parse::<i64>() {
                Ok(h) if h >= 24 => self.window_hours = h,
                _ => {
                    return Err(err(format!(
                        "SIGNALS_WINDOW_HOURS={v:?} must be a whole number of hours, at least 24"
                    )));
                }
            }
        }
        Ok(())
    }
}

/// Loads the config file and applies the environment.
pub fn load_with_env(path: &Path) -> anyhow::Result<Config> {
    let mut config = Config::load(path)?;
    config.apply_env(|k| std::env::var(k).ok())?;
    Ok(config)
}

/// The configuration of commands that need no repository list, with the
/// store and output paths given as flags: flags win; otherwise the config
/// file when there is one; otherwise the environment and the defaults.
pub fn for_command(
    config_path: &Path,
    store: Option<&Path>,
    out: Option<&Path>,
) -> anyhow::Result<Config> {
    let mut config = if config_path.exists() {
        load_with_env(config_path)?
    } else {
        let mut c = Config::parse("", Path::new("<defaults>")).context("built-in defaults")?;
        c.apply_env(|k| std::env::var(k).ok())?;
        c
    };
    if let Some(store) = store {
        config.store = store.to_path_buf();
    }
    if let Some(out) = out {
        config.out = out.to_path_buf();
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::Load;
    use crate::config::{Config, ConfigError};

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Path::new("signals.toml"))
    }

    #[test]
    fn relative_paths_follow_the_config_file() {
        let mut c = parse("store = \"data/s.db\"\n").unwrap();
        c.resolve_paths(Path::new("/srv/signals"));
        assert_eq!(c.store, PathBuf::from("/srv/signals/data/s.db"));
        assert_eq!(c.out, PathBuf::from("/srv/signals/site"));
        let mut c = parse("store = \"/var/s.db\"\n").unwrap();
        c.resolve_paths(Path::new("/srv/signals"));
        assert_eq!(c.store, PathBuf::from("/var/s.db"));
    }

    #[test]
    fn env_overrides_file() {
        let mut c = parse("store = \"a.db\"\n").unwrap();
        c.apply_env(|k| match k {
            "SIGNALS_STORE" => Some("b.db".into()),
            "SIGNALS_API_URL" => Some("https://ghe.example.com/api/v3/".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(c.store, PathBuf::from("b.db"));
        assert_eq!(c.hosts[0].api_url, "https://ghe.example.com/api/v3");
        assert!(
            c.apply_env(|k| (k == "SIGNALS_WINDOW_HOURS").then(|| "x".into()))
                .is_err()
        );
    }
}
