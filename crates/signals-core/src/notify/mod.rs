//! Alerts: which of a run's events a `[[notify]]` rule asks for, and the
//! messages a committed run leaves in the outbox.
//!
//! Pure like the rest of the core: a run's events and snapshots in, the
//! messages out. Where a message goes (webhook, chat, email) and how it is
//! sent are not decided here; the binary's configuration holds the
//! channels, `signals-notify` speaks them, and the store keeps the
//! messages in the run's own transaction.
//!
//! One rule makes at most one message per repository run, holding its
//! matching signals ranked by importance, at most [`MAX_SIGNALS`] of them
//! and the count of the rest. A repository's first run discovers
//! everything, so it makes no per-item alerts: at most one summary (the top
//! items the rule's filters other than `events` select), or nothing with
//! `initial = "none"`.

mod digest;
mod echo;
mod lifecycle;
mod message;
mod one_event;
mod rule;
mod schedule;
mod summary;
mod trigger;
mod waiting;

pub use digest::digest;
pub use echo::{Echoed, echo_messages};
pub use lifecycle::{LifecycleNote, lifecycle_messages};
pub use message::{
    GroupRef, MAX_SIGNALS, MessageKind, MessageSignal, Outgoing, Payload, RepoRef, RuleRef,
    RunInput, delivery_id, messages, rank,
};
pub use rule::{Initial, Keywords, Rule, glob, is_bot};
pub use schedule::Schedule;
pub use summary::Summaries;
pub use trigger::{Trigger, triggers};
pub use waiting::{crossed, waiting_messages};

#[cfg(test)]
mod tests;
