//! Encodes text files one after another, each document once, on one thread whose caches were
//! set up by one warm-up call on a one-digit text: the benchmark's cold section
//! (`benchmarks/encode.py --sections cold`), where each round meets text never seen before.
//! Documents in a file are separated by the byte 0x1E.
//! `cargo run --release --example encode_cold -- VOCAB cl100k|o200k FILE...`
//!
//! Each file is encoded by its own call of `pass_1`, `pass_2`, ... (`pass_N` for the N-th
//! file), so `valgrind --tool=callgrind --toggle-collect='*pass_2*'` counts one round alone.

use tokensmith_core::formats::tiktoken_file;
use tokensmith_core::pre_tokenizers::{CL100K_PATTERN, O200K_PATTERN};
use tokensmith_core::{Encoding, SpecialPolicy};

fn encode_docs(enc: &Encoding, text: &str) -> usize {
    let policy = SpecialPolicy::ordinary();
    text.split('\x1e')
        .map(|d| enc.encode(d, &policy).unwrap().len())
        .sum()
}

macro_rules! passes {
    ($($name:ident = $n:literal),*) => {
        $(
            // Each adds its own number, so that no two are folded into one function.
            #[inline(never)]
            fn $name(enc: &Encoding, text: &str) -> usize {
                encode_docs(enc, text) + std::hint::black_box($n) - $n
            }
        )*
        const PASSES: &[fn(&Encoding, &str) -> usize] = &[$($name),*];
    };
}

passes!(
    pass_1 = 1,
    pass_2 = 2,
    pass_3 = 3,
    pass_4 = 4,
    pass_5 = 5,
    pass_6 = 6,
    pass_7 = 7,
    pass_8 = 8
);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = || -> ! {
        eprintln!(
            "usage: encode_cold VOCAB cl100k|o200k FILE... (at most {} files)",
            PASSES.len()
        );
        std::process::exit(2);
    };
    let [_, vocab, pattern, files @ ..] = args.as_slice() else {
        usage()
    };
    let pattern = match pattern.as_str() {
        "cl100k" => CL100K_PATTERN,
        "o200k" => O200K_PATTERN,
        _ => usage(),
    };
    if files.len() > PASSES.len() {
        usage();
    }
    let enc = Encoding::new(
        tiktoken_file::read(vocab.as_ref()).unwrap(),
        vec![],
        pattern,
    )
    .unwrap();
    let texts: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    encode_docs(&enc, "0");
    for (text, pass) in texts.iter().zip(PASSES) {
        let start = std::time::Instant::now();
        let tokens = pass(&enc, text);
        let us = start.elapsed().as_secs_f64() * 1e6;
        println!(
            "{tokens} tokens, {:.1} us/KB",
            us / (text.len() as f64 / 1e3)
        );
    }
}
