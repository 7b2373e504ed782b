//! Encodes a text file's ~4 KB documents on one thread, `ROUNDS` times after one warm-up pass,
//! and prints the token count: a fixed workload for `valgrind --tool=callgrind` and `perf`,
//! whose instruction count does not depend on the machine's load.
//! `cargo run --release --example encode_rounds -- VOCAB cl100k|o200k|r50k FILE [ROUNDS] [cold|count|pieces]`
//!
//! With `cold`, each round runs on a fresh thread, so the per-thread piece and pair caches start
//! empty (the cost of text never seen before); otherwise the caches stay warm across rounds, as
//! in a benchmark that encodes the same documents again. With `count`, the rounds count the
//! tokens (`Encoding::count`) instead of building them; with `pieces`, they only pre-tokenize
//! and count the pieces (the splitter alone). `r50k` runs the GPT-2 pattern over the given
//! vocabulary (no r50k vocabulary is needed to time its splitter). A VOCAB named `vocab.bpe` or
//! `vocab.bpe.gz` is read as GPT-2's merges file and encodes by its merges alone, as HF's BPE
//! does (a GPT-2-style `tokenizer.json`). Only `measured` runs the rounds, so
//! `valgrind --tool=callgrind --toggle-collect='*measured*' --cache-sim=yes` counts them alone.

use tokensmith_core::formats::{data_gym, tiktoken_file};
use tokensmith_core::models::bpe::Bpe;
use tokensmith_core::pre_tokenizers::{CL100K_PATTERN, O200K_PATTERN, R50K_PATTERN};
use tokensmith_core::{Encoding, SpecialPolicy};

fn documents(text: &str) -> Vec<&str> {
    let mut docs = Vec::new();
    let mut start = 0;
    let mut end = 0;
    for line in text.split_inclusive('\n') {
        end += line.len();
        if end - start > 4000 {
            docs.push(&text[start..end]);
            start = end;
        }
    }
    docs.push(&text[start..]);
    docs
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Encode,
    Count,
    Pieces,
}

fn encode_all(enc: &Encoding, docs: &[&str], mode: Mode) -> usize {
    let policy = SpecialPolicy::ordinary();
    docs.iter()
        .map(|d| match mode {
            Mode::Count => enc.count(d, &policy).unwrap(),
            Mode::Encode => enc.encode(d, &policy).unwrap().len(),
            Mode::Pieces => {
                let mut pieces = 0;
                enc.pre_tokenizer()
                    .for_each_piece(d, |_, _| pieces += 1)
                    .unwrap();
                pieces
            }
        })
        .sum()
}

/// The measured part, kept out of line so that a profiler can count it alone
/// (`valgrind --tool=callgrind --toggle-collect='*measured*'`).
#[inline(never)]
fn measured(enc: &Encoding, docs: &[&str], rounds: usize, mode: Mode) -> usize {
    let mut tokens = 0;
    for _ in 0..rounds {
        tokens = encode_all(enc, docs, mode);
    }
    tokens
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, vocab, pattern, file, rest @ ..] = args.as_slice() else {
        eprintln!("usage: encode_rounds VOCAB cl100k|o200k|r50k FILE [ROUNDS] [cold|count|pieces]");
        std::process::exit(2);
    };
    let pattern = match pattern.as_str() {
        "cl100k" => CL100K_PATTERN,
        "r50k" => R50K_PATTERN,
        _ => O200K_PATTERN,
    };
    let rounds: usize = rest.first().and_then(|r| r.parse().ok()).unwrap_or(3);
    let cold = rest.get(1).is_some_and(|m| m == "cold");
    let mode = match rest.get(1).map(String::as_str) {
        Some("count") => Mode::Count,
        Some("pieces") => Mode::Pieces,
        _ => Mode::Encode,
    };
    let enc = if vocab.ends_with("vocab.bpe") || vocab.ends_with("vocab.bpe.gz") {
        let (tokens, merges) = data_gym::read(vocab.as_ref()).unwrap();
        let bpe = Bpe::from_merges(tokens, merges, false).unwrap();
        Encoding::from_bpe(bpe, vec![], pattern).unwrap()
    } else {
        Encoding::new(
            tiktoken_file::read(vocab.as_ref()).unwrap(),
            vec![],
            pattern,
        )
        .unwrap()
    };
    let text = std::fs::read_to_string(file).unwrap();
    let docs = documents(&text);
    let mut tokens = 0;
    if cold {
        for _ in 0..rounds {
            tokens = std::thread::scope(|s| {
                s.spawn(|| measured(&enc, &docs, 1, Mode::Encode))
                    .join()
                    .unwrap()
            });
        }
    } else {
        encode_all(&enc, &docs, mode);
        tokens = measured(&enc, &docs, rounds, mode);
    }
    println!("{tokens} tokens");
}
