//! `#[derive(Tool)]` for [`toolmodel`](https://docs.rs/toolmodel).
//!
//! This crate is a placeholder in this release: the derive macro arrives with the next one.
