//! A token, and the one rule about where it may go: only to the base
//! URL's origin. A `Link` or `Location` pointing elsewhere is fetched
//! anonymously, so a hostile answer cannot lure the secret away.

use std::fmt;

use crate::cache::token_fingerprint;

/// A token and the name of the environment variable it came from. `Debug`
/// shows only the variable name; the secret never leaves this type except
/// through [`Protocol::auth_header`](crate::Protocol::auth_header), and
/// only towards the base URL's origin.
#[derive(Clone)]
pub struct Token {
    env: String,
    secret: String,
}

impl Token {
    /// A token read by the caller from the environment variable `env`.
    pub fn new(env: impl Into<String>, secret: impl Into<String>) -> Token {
        Token {
            env: env.into(),
            secret: secret.into(),
        }
    }

    /// The environment variable name, for messages and logs.
    pub fn env(&self) -> &str {
        &self.env
    }

    /// The fingerprint under which cache entries for this token are kept.
    pub fn fingerprint(&self) -> String {
        token_fingerprint(Some(&self.secret))
    }

    /// The secret, for the auth header and fingerprints; never for a
    /// message.
    pub(crate) fn secret(&self) -> &str {
        &self.secret
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Token")
            .field("env", &self.env)
            .field("secret", &"<redacted>")
            .finish()
    }
}

/// `scheme://host[:port]` of an absolute URL.
pub(crate) fn origin(url: &str) -> Option<&str> {
    let start = url.find("://")? + 3;
    let end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| start + i);
    Some(&url[..end])
}

/// True when `url` is on the same scheme, host and port as `base`: the
/// only URLs a token is sent to.
pub(crate) fn same_origin(base: &str, url: &str) -> bool {
    match (origin(base), origin(url)) {
        (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_compare_scheme_host_and_port() {
        let base = "https://gitlab.example/api/v4";
        assert!(same_origin(
            base,
            "https://gitlab.example/api/v4/projects?page=2"
        ));
        assert!(same_origin(base, "https://GITLAB.example/other"));
        assert!(!same_origin(base, "http://gitlab.example/api/v4"));
        assert!(!same_origin(base, "https://gitlab.example:8443/api/v4"));
        assert!(!same_origin(base, "https://gitlab.example.evil/api/v4"));
        assert!(!same_origin(
            base,
            "https://evil.example/?u=https://gitlab.example"
        ));
        assert_eq!(origin("http://127.0.0.1:80?x"), Some("http://127.0.0.1:80"));
    }
}
