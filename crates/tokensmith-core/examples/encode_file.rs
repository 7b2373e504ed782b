//! Encodes a text file in ~4 KB documents and prints MB/s: a harness for profiling the core
//! without Python. `cargo run --release --example encode_file -- VOCAB PATTERN_NAME FILE [ROUNDS]`

use std::time::Instant;
use tokensmith_core::formats::tiktoken_file;
use tokensmith_core::pre_tokenizers::{CL100K_PATTERN, O200K_PATTERN};
use tokensmith_core::{Encoding, SpecialPolicy};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, vocab, pattern, file, rest @ ..] = args.as_slice() else {
        eprintln!("usage: encode_file VOCAB cl100k|o200k FILE [ROUNDS]");
        std::process::exit(2);
    };
    let pattern = if pattern == "cl100k" {
        CL100K_PATTERN
    } else {
        O200K_PATTERN
    };
    let rounds: usize = rest.first().and_then(|r| r.parse().ok()).unwrap_or(5);
    let start = Instant::now();
    let enc = Encoding::new(
        tiktoken_file::read(vocab.as_ref()).unwrap(),
        vec![],
        pattern,
    )
    .unwrap();
    eprintln!("load: {:.3} s", start.elapsed().as_secs_f64());
    let text = std::fs::read_to_string(file).unwrap();
    let mut docs = Vec::new();
    let mut cur = String::new();
    for line in text.split_inclusive('\n') {
        cur.push_str(line);
        if cur.len() > 4000 {
            docs.push(std::mem::take(&mut cur));
        }
    }
    docs.push(cur);
    let policy = SpecialPolicy::ordinary();
    let mut best = f64::MAX;
    let mut tokens = 0;
    for _ in 0..rounds {
        let t = Instant::now();
        tokens = docs
            .iter()
            .map(|d| enc.encode(d, &policy).unwrap().len())
            .sum::<usize>();
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{:.1} MB/s, {tokens} tokens",
        text.len() as f64 / best / 1e6
    );
    for threads in [1, 2] {
        let mut best = f64::MAX;
        for _ in 0..rounds {
            let t = Instant::now();
            let r = tokensmith_core::parallel::map(&docs, threads, |d| {
                enc.encode(d, &policy).unwrap().len()
            });
            std::hint::black_box(r);
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "batch on {threads} threads: {:.1} MB/s",
            text.len() as f64 / best / 1e6
        );
    }
    let mut best = f64::MAX;
    for _ in 0..rounds {
        let t = Instant::now();
        let mut pieces = 0usize;
        for d in &docs {
            enc.pre_tokenizer()
                .for_each_piece(d, |_, _| pieces += 1)
                .unwrap();
        }
        std::hint::black_box(pieces);
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "pre-tokenize only: {:.1} MB/s",
        text.len() as f64 / best / 1e6
    );
}
