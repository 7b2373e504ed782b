#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tokensmith_fuzz::tokenizer_json::run(data));
