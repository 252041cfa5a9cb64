//! Configuration: the file's text is parsed and checked by the
//! `signals-config` crate (pure: text in, config or error out, so it can be
//! tested and fuzzed); this module only loads it (`load.rs`: the file, the
//! `SIGNALS_*` environment, the flags). Parse apart from load.

pub use signals_config::*;

mod load;
#[cfg(test)]
pub(crate) use load::Load;
pub use load::{for_command, load_with_env};
