//! Times `SentencePieceProcessor::with_ids`, one call per line, best of ROUNDS: a small
//! harness that builds on older trees too (for before/after instruction counts).
//! `cargo run --release --example spm_ids -- MODEL FILE [ROUNDS]`

use std::time::Instant;
use tokensmith_core::sentencepiece::SentencePieceProcessor;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, model, file, rest @ ..] = args.as_slice() else {
        eprintln!("usage: spm_ids MODEL FILE [ROUNDS]");
        std::process::exit(2);
    };
    let sp = SentencePieceProcessor::from_bytes(&std::fs::read(model).unwrap()).unwrap();
    let text = std::fs::read_to_string(file).unwrap();
    let rounds: usize = rest.first().and_then(|r| r.parse().ok()).unwrap_or(5);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let (mut best, mut sink) = (f64::MAX, 0usize);
    for _ in 0..rounds {
        let t = Instant::now();
        for line in &lines {
            sink += sp.with_ids(line, |ids| ids.iter().map(|&i| i as usize).sum::<usize>());
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{:.3} us/line, checksum {sink}",
        best * 1e6 / lines.len() as f64
    );
}
