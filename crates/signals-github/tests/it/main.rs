//! The one integration test binary of signals-github: the real client
//! against a loopback `signals_testhost::TestHost` serving recorded or
//! synthetic GitHub data. Nothing here touches the internet.

mod collect;
mod faults;
mod fixtures;
mod tokens;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use signals_core::model::RepoName;
use signals_github::{Client, Config, Token};
use signals_testhost::{Scenario, TestHost, synthetic};

/// Waits the client asked for; nothing actually sleeps.
#[derive(Clone, Default)]
pub struct Sleeps(Arc<Mutex<Vec<Duration>>>);

impl Sleeps {
    pub fn all(&self) -> Vec<Duration> {
        self.0.lock().unwrap().clone()
    }
}

/// A config for `host` whose waits are recorded instead of slept.
pub fn config(host: &TestHost, tokens: &[(&str, &str)]) -> (Config, Sleeps) {
    let sleeps = Sleeps::default();
    let record = sleeps.clone();
    let config = Config {
        base_url: host.base_url().to_string(),
        tokens: tokens.iter().map(|(env, t)| Token::new(*env, *t)).collect(),
        timeout: Duration::from_secs(5),
        retry_base: Duration::from_millis(10),
        secondary_min_wait: Duration::from_secs(2),
        sleeper: Arc::new(move |d| record.0.lock().unwrap().push(d)),
        ..Config::default()
    };
    (config, sleeps)
}

pub fn client(host: &TestHost, tokens: &[(&str, &str)]) -> (Client, Sleeps) {
    let (config, sleeps) = config(host, tokens);
    (Client::new(config).unwrap(), sleeps)
}

pub fn name(s: &str) -> RepoName {
    RepoName::parse(s).unwrap()
}

pub fn ts(s: &str) -> jiff::Timestamp {
    s.parse().unwrap()
}

/// `o/n` with `items` synthetic issues and pull requests.
pub fn synthetic_host(items: usize) -> TestHost {
    TestHost::start(scenario(items)).unwrap()
}

pub fn scenario(items: usize) -> Scenario {
    synthetic("o/n", items, ts("2025-01-01T00:00:00Z"))
}
