//! Fuzz target: see `vato::fuzzing::turn_text` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| vato::fuzzing::turn_text(data));
