//! Fuzz target: see `toolmodel_fuzz::tags`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolmodel_fuzz::tags(data));
