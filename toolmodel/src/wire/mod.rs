//! JSON on the wire: the MCP and full JSON forms of a tool, reading text with the repeated-key
//! rule, and finding tools in documents.

pub mod catalog;
pub(crate) mod json;
pub(crate) mod keys;
pub(crate) mod unique_keys;
pub(crate) mod versioned;
