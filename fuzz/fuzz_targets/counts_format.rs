#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tokensmith_fuzz::counts_format::run(data));
