//! Runs only the pre-tokenizer over a text file and prints the piece count and MB/s: a
//! harness for counting the splitter's instructions per byte (callgrind, `perf stat`).
//! `cargo run --release --example split_file -- cl100k|o200k|r50k FILE [ROUNDS]`

use std::time::Instant;
use tokensmith_core::pre_tokenizers::{PreTokenizer, CL100K_PATTERN, O200K_PATTERN, R50K_PATTERN};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, pattern, file, rest @ ..] = args.as_slice() else {
        eprintln!("usage: split_file cl100k|o200k|r50k FILE [ROUNDS]");
        std::process::exit(2);
    };
    let pattern = match pattern.as_str() {
        "cl100k" => CL100K_PATTERN,
        "o200k" => O200K_PATTERN,
        "r50k" => R50K_PATTERN,
        other => {
            eprintln!("unknown pattern {other}");
            std::process::exit(2);
        }
    };
    let rounds: usize = rest.first().and_then(|r| r.parse().ok()).unwrap_or(1);
    let pre = PreTokenizer::new(pattern).unwrap();
    let text = std::fs::read_to_string(file).unwrap();
    // Warm the class table outside the measured loop.
    pre.for_each_piece("warm é", |_, _| {}).unwrap();
    let mut best = f64::MAX;
    let mut pieces = 0usize;
    for _ in 0..rounds {
        let t = Instant::now();
        pieces = 0;
        pre.for_each_piece(&text, |_, _| pieces += 1).unwrap();
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{pieces} pieces, {} bytes, {:.1} MB/s",
        text.len(),
        text.len() as f64 / best / 1e6
    );
}
