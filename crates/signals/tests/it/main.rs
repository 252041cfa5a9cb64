//! The binary's integration tests: one test binary (see STYLE.md), one module
//! per area. Every test runs the real `signals` executable against a loopback
//! server it starts itself; nothing reaches the internet.

mod api;
mod browser;
mod compact;
mod discussions;
mod e2e;
mod everyday;
mod faults;
mod health;
mod hosts;
mod house;
mod notify;
mod orgs;
mod receiver;
mod reconcile;
mod resilience;
mod scale;
mod serve;
mod support;
mod synth;
mod trends;
mod workers;
