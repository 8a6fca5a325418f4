//! Fuzz target: see `vato::fuzzing::protocol_lines` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| vato::fuzzing::protocol_lines(data));
