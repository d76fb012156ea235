//! Examples of `toolmodel`; see the `[[example]]` targets.

pub mod conformance_fixtures;
pub mod github;
pub mod serve;
pub mod task_fixtures;
