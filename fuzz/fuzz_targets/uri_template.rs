//! Fuzz target: see `toolmodel_fuzz::uri_template`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolmodel_fuzz::uri_template(data));
