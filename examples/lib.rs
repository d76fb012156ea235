//! Examples of `toolmodel`; see the `[[example]]` targets.

pub mod github;
pub mod serve;
