//! Times the SentencePiece pipeline on a text file, one call per line, split into its stages
//! (normalize, segment, the whole `encode_ids`): a harness for profiling the core without
//! Python. `cargo run --release --example spm_segment -- MODEL FILE [ROUNDS] [STAGE]`, where
//! STAGE is `all` (default), `norm`, `normto` (into one reused buffer, as the encoder does),
//! `seg` or `ids` (only that stage, for a profiler), or `words`: the Viterbi alone on every
//! word (each `▁` and what follows it up to the next), with no word cache, as new words take
//! it. Each stage is timed chunk by chunk, each chunk's best round summed (see `time`).

use std::time::Instant;
use tokensmith_core::formats::sentencepiece_model::{self, PieceType};
use tokensmith_core::models::sentencepiece_parts::split_words;
use tokensmith_core::models::unigram::Unigram;
use tokensmith_core::sentencepiece::SentencePieceProcessor;

/// Lines (or, for `words`, words) timed together.
const CHUNK: usize = 2_000;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, model, file, rest @ ..] = args.as_slice() else {
        eprintln!("usage: spm_segment MODEL FILE [ROUNDS] [all|norm|normto|seg|ids|words]");
        std::process::exit(2);
    };
    let rounds: usize = rest.first().and_then(|r| r.parse().ok()).unwrap_or(5);
    let stage = rest.get(1).map_or("all", String::as_str);
    let bytes = std::fs::read(model).unwrap();
    let sp = SentencePieceProcessor::from_bytes(&bytes).unwrap();
    let proto = sentencepiece_model::parse(&bytes).unwrap();
    let unk = proto
        .pieces
        .iter()
        .position(|p| p.kind == PieceType::Unknown)
        .unwrap() as u32;
    let uni = Unigram::from_model_pieces(&proto.pieces, unk);
    let mut buffer = String::new();
    let text = std::fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let normalized: Vec<String> = lines.iter().map(|l| sp.normalize(l)).collect();
    let mb = lines.iter().map(|l| l.len()).sum::<usize>() as f64 / 1e6;
    let mut spans = Vec::new();
    let mut sink = 0usize;
    // Each round runs over every line in order, timed in chunks of lines (a few milliseconds
    // each); the reported time is the sum of each chunk's best round. On a shared machine a
    // whole round is rarely uninterrupted, a chunk often is, and the caches still hold what a
    // real pass leaves in them.
    let ranges = |len: usize, step: usize| -> Vec<std::ops::Range<usize>> {
        (0..len)
            .step_by(step)
            .map(|from| from..len.min(from + step))
            .collect()
    };
    let chunks = ranges(lines.len(), CHUNK);
    let mut time = |name: &str,
                    chunks: &[std::ops::Range<usize>],
                    f: &mut dyn FnMut(std::ops::Range<usize>) -> usize| {
        let mut chunk_best = vec![f64::MAX; chunks.len()];
        for _ in 0..rounds {
            for (chunk, best) in chunks.iter().zip(&mut chunk_best) {
                let t = Instant::now();
                sink += f(chunk.clone());
                *best = best.min(t.elapsed().as_secs_f64());
            }
        }
        let best: f64 = chunk_best.iter().sum();
        println!(
            "{name:>5}: {:.3} us/line, {:.1} ns/byte",
            best * 1e6 / lines.len() as f64,
            best * 1e9 / (mb * 1e6)
        );
    };
    if stage == "all" || stage == "norm" {
        time("norm", &chunks, &mut |r| {
            lines[r].iter().map(|l| sp.normalize(l).len()).sum()
        });
    }
    if stage == "all" || stage == "normto" {
        time("normto", &chunks, &mut |r| {
            lines[r]
                .iter()
                .map(|l| {
                    sp.normalize_to(l, &mut buffer);
                    buffer.len()
                })
                .sum()
        });
    }
    if stage == "all" || stage == "seg" {
        time("seg", &chunks, &mut |r| {
            normalized[r]
                .iter()
                .map(|n| {
                    uni.segment_into(n, &mut spans);
                    spans.len()
                })
                .sum()
        });
    }
    if stage == "words" {
        let words: Vec<&str> = normalized
            .iter()
            .flat_map(|n| split_words(n, false))
            .collect();
        // Timed in chunks, as the other stages, of ten times as many words as lines.
        time("words", &ranges(words.len(), CHUNK * 10), &mut |r| {
            words[r]
                .iter()
                .map(|w| {
                    uni.encode_into(w, &mut spans);
                    spans.len()
                })
                .sum()
        });
    }
    if stage == "all" || stage == "ids" {
        time("ids", &chunks, &mut |r| {
            lines[r]
                .iter()
                .map(|l| sp.with_ids(l, |ids| ids.len()))
                .sum()
        });
    }
    eprintln!("{} lines, {mb:.3} MB, checksum {sink}", lines.len());
}
