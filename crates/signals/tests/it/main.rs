//! The binary's integration tests: one test binary (see STYLE.md), one module
//! per area. Every test runs the real `signals` executable against a loopback
//! server it starts itself; nothing reaches the internet.

mod a11y;
mod advisories;
mod api;
mod browser;
mod compact;
mod conversation;
mod defaults;
mod deploy;
mod discussions;
mod downloads;
mod e2e;
mod everyday;
mod faults;
mod first_hour;
mod first_kill;
mod full_disk;
mod health;
mod hosts;
mod house;
mod notify;
mod open_pulls;
mod orgs;
mod pages;
mod readme;
mod receiver;
mod reconcile;
mod recorded;
mod references;
mod repos_add;
mod resilience;
mod round;
mod scale;
mod search;
mod serve;
mod site_search;
mod site_search_group;
mod sites;
mod statements;
mod support;
mod synth;
mod trends;
mod wordy;
mod workers;
