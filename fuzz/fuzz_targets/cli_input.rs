//! Fuzz target: see `toolmodel_fuzz::cli_input`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolmodel_fuzz::cli_input(data));
