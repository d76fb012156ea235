//! Fuzz target: see `toolmodel_fuzz::tool_id`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolmodel_fuzz::tool_id(data));
