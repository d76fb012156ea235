//! Fuzz target: `toolmodel_fuzz::adapter` for `Target::Gemini`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolmodel_fuzz::adapter(toolmodel::adapters::Target::Gemini, data);
});
