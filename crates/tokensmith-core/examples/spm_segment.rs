//! Times the SentencePiece pipeline on a text file, one call per line, split into its stages
//! (normalize, segment, the whole `encode_ids`): a harness for profiling the core without
//! Python. `cargo run --release --example spm_segment -- MODEL FILE [ROUNDS] [STAGE]`, where
//! STAGE is `all` (default), `norm`, `normto` (into one reused buffer, as the encoder does),
//! `seg` or `ids` (only that stage, for a profiler).

use std::time::Instant;
use tokensmith_core::formats::sentencepiece_model::{self, PieceType};
use tokensmith_core::models::unigram::Unigram;
use tokensmith_core::sentencepiece::SentencePieceProcessor;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, model, file, rest @ ..] = args.as_slice() else {
        eprintln!("usage: spm_segment MODEL FILE [ROUNDS] [all|norm|seg|ids]");
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
    let mut time = |name: &str, f: &mut dyn FnMut() -> usize| {
        let mut best = f64::MAX;
        for _ in 0..rounds {
            let t = Instant::now();
            sink += f();
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "{name:>5}: {:.3} us/line, {:.1} ns/byte",
            best * 1e6 / lines.len() as f64,
            best * 1e9 / (mb * 1e6)
        );
    };
    if stage == "all" || stage == "norm" {
        time("norm", &mut || {
            lines.iter().map(|l| sp.normalize(l).len()).sum()
        });
    }
    if stage == "all" || stage == "normto" {
        time("normto", &mut || {
            lines
                .iter()
                .map(|l| {
                    sp.normalize_to(l, &mut buffer);
                    buffer.len()
                })
                .sum()
        });
    }
    if stage == "all" || stage == "seg" {
        time("seg", &mut || {
            normalized
                .iter()
                .map(|n| {
                    uni.segment_into(n, &mut spans);
                    spans.len()
                })
                .sum()
        });
    }
    if stage == "all" || stage == "ids" {
        time("ids", &mut || {
            lines.iter().map(|l| sp.with_ids(l, |ids| ids.len())).sum()
        });
    }
    eprintln!("{} lines, {mb:.3} MB, checksum {sink}", lines.len());
}
