//! The store address: `postgres://user@host:port/db`, parsed, checked, shown
//! without secrets, and completed with a password from the environment.
//!
//! The password never comes from the configuration file: an address that
//! carries one is refused. It comes from `PGPASSWORD`, or from the password
//! file (`PGPASSFILE`, else `~/.pgpass`), as libpq does; everything here
//! is pure but [`password_from_environment`], which reads those.

use std::path::PathBuf;

use postgres::config::Host;

/// A parsed address and how to show it.
#[derive(Clone)]
pub struct Address {
    /// The connection settings, password included once completed.
    pub config: postgres::Config,
    /// `postgres://user@host:port/db`, never with a password.
    pub shown: String,
}

impl std::fmt::Debug for Address {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

/// Why an address is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressError {
    /// The address as it may be shown (password removed).
    pub shown: String,
    /// What is wrong, and what to do.
    pub problem: String,
}

/// True when `store` names a PostgreSQL store rather than a SQLite file.
pub fn is_postgres(store: &str) -> bool {
    store.starts_with("postgres://") || store.starts_with("postgresql://")
}

/// Parses a `postgres://` address. Refuses one that carries a password.
pub fn parse(url: &str) -> Result<Address, AddressError> {
    let rough = redact(url);
    let config: postgres::Config = url.parse().map_err(|e| AddressError {
        shown: rough.clone(),
        problem: format!(
            "it is not a PostgreSQL address ({e}); write it as postgres://user@host:port/database"
        ),
    })?;
    let shown = show(&config);
    if config.get_password().is_some() {
        return Err(AddressError {
            shown,
            problem: "it carries a password, and the configuration file must not hold one; \
                      remove it from the address and set PGPASSWORD, or put it in ~/.pgpass"
                .into(),
        });
    }
    if config.get_user().is_none() {
        return Err(AddressError {
            shown,
            problem: "it names no user; write it as postgres://user@host:port/database".into(),
        });
    }
    if config.get_dbname().is_none() {
        return Err(AddressError {
            shown,
            problem: "it names no database; write it as postgres://user@host:port/database".into(),
        });
    }
    Ok(Address { config, shown })
}

/// The address as shown in messages: user, hosts, ports, database.
fn show(config: &postgres::Config) -> String {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .zip(config.get_ports().iter().chain(std::iter::repeat(&5432)))
        .map(|(h, p)| match h {
            Host::Tcp(h) => format!("{h}:{p}"),
            Host::Unix(path) => format!("{}:{p}", path.display()),
        })
        .collect();
    format!(
        "postgres://{}@{}/{}",
        config.get_user().unwrap_or(""),
        hosts.join(","),
        config.get_dbname().unwrap_or("")
    )
}

/// A rough redaction of an address that did not parse: whatever sits
/// between `://` and `@` loses its `:password`.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (auth, tail) = match rest.find('@') {
        Some(at) => (&rest[..at], &rest[at..]),
        None => return url.to_string(),
    };
    let user = auth.split(':').next().unwrap_or("");
    format!("{scheme}://{user}{tail}")
}

/// One line of a password file: `host:port:database:user:password`, each of
/// the first four a value or `*`; `\:` and `\\` escape.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PassLine {
    fields: [String; 4],
    password: String,
}

fn parse_pass_line(line: &str) -> Option<PassLine> {
    if line.trim_start().starts_with('#') || line.trim().is_empty() {
        return None;
    }
    let mut fields = Vec::new();
    let mut current = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => current.push(chars.next().unwrap_or('\\')),
            ':' if fields.len() < 4 => fields.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    if fields.len() != 4 {
        return None;
    }
    let fields: [String; 4] = fields.try_into().ok()?;
    Some(PassLine {
        fields,
        password: current,
    })
}

/// The password a password file gives for (host, port, database, user):
/// the first matching line, as libpq reads it.
pub fn password_from_file(
    contents: &str,
    host: &str,
    port: u16,
    database: &str,
    user: &str,
) -> Option<String> {
    let port = port.to_string();
    let wanted = [host, port.as_str(), database, user];
    contents
        .lines()
        .filter_map(parse_pass_line)
        .find(|l| l.fields.iter().zip(wanted).all(|(f, w)| f == "*" || f == w))
        .map(|l| l.password)
}

/// Completes the address with a password from `PGPASSWORD`, else from the
/// password file (`PGPASSFILE` or `~/.pgpass`; like libpq, a file that
/// others may read is ignored). No password is fine: the server may not
/// ask for one (trust, peer, certificates).
pub fn password_from_environment(address: &mut Address) {
    if let Ok(password) = std::env::var("PGPASSWORD") {
        address.config.password(password);
        return;
    }
    let file = std::env::var_os("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pgpass")));
    let Some(file) = file else { return };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        match std::fs::metadata(&file) {
            Ok(m) if m.permissions().mode() & 0o077 == 0 => {}
            _ => return,
        }
    }
    let Ok(contents) = std::fs::read_to_string(&file) else {
        return;
    };
    let config = &address.config;
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        Some(Host::Unix(_)) | None => "localhost".to_string(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let (Some(db), Some(user)) = (config.get_dbname(), config.get_user()) else {
        return;
    };
    if let Some(password) = password_from_file(&contents, &host, port, db, user) {
        address.config.password(password);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_shown_without_secrets() {
        let a = parse("postgres://signals@db.example:5433/signals").unwrap();
        assert_eq!(a.shown, "postgres://signals@db.example:5433/signals");
        assert_eq!(format!("{a:?}"), a.shown);
        let err = parse("postgres://signals:hunter2@db.example/signals").unwrap_err();
        assert!(!err.shown.contains("hunter2"), "{err:?}");
        assert!(!err.problem.contains("hunter2"), "{err:?}");
        assert!(err.problem.contains("PGPASSWORD"), "{err:?}");
        let err = parse("postgres://signals:hunter2@[bad").unwrap_err();
        assert!(!err.shown.contains("hunter2"), "{err:?}");
        assert!(parse("postgres://db.example/signals").is_err());
        assert!(parse("postgres://u@db.example").is_err());
        assert!(is_postgres("postgresql://u@h/d"));
        assert!(!is_postgres("signals.db"));
        assert!(!is_postgres("./postgres://x"));
        assert_eq!(redact("postgres://u:p@h/d"), "postgres://u@h/d");
        assert_eq!(redact("postgres://h/d"), "postgres://h/d");
    }

    #[test]
    fn password_files_match_like_libpq() {
        let file = "# comment\n\
                    other:5432:signals:signals:wrong\n\
                    db.example:*:signals:signals:it\\:s\\\\secret\n\
                    *:*:*:*:fallback\n";
        assert_eq!(
            password_from_file(file, "db.example", 5432, "signals", "signals").as_deref(),
            Some("it:s\\secret")
        );
        assert_eq!(
            password_from_file(file, "elsewhere", 5432, "x", "y").as_deref(),
            Some("fallback")
        );
        assert_eq!(password_from_file("broken line", "h", 1, "d", "u"), None);
        assert_eq!(password_from_file("", "h", 1, "d", "u"), None);
    }
}
