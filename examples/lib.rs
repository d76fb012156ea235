//! Examples of `toolmodel`; see the `[[example]]` targets.
