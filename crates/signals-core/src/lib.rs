//! The domain of Repo Signals.
//!
//! This crate holds the types that make up the domain (repositories, items and
//! their snapshots, runs, observation events), the pure logic on them
//! (snapshot diffing, run accounting, importance scoring) and the v3 dataset
//! document that is published.
//!
//! It must not do I/O: every function takes values and returns values, so it
//! cannot fail on a network, a disk or a database. The host, store and site
//! crates do the I/O around it.

#![warn(missing_docs)]

pub mod advisories;
pub mod api;
pub mod dataset;
pub mod diff;
pub mod downloads;
pub mod first_response;
pub mod health;
pub mod history;
pub mod hostile;
pub mod importance;
pub mod lifecycle;
pub mod model;
pub mod notify;
pub mod owners;
pub mod reconcile;
pub mod references;
pub mod related;
pub mod run;
pub mod search;
pub mod trends;

pub use diff::{Observation, TrackedField, observe};
pub use model::*;
