//! Fuzz target: see `toolmodel_fuzz::schema_validate`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolmodel_fuzz::schema_validate(data));
