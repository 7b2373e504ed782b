//! Encodes a text file's ~2 KB documents with a `tokenizer.json` on one thread, `ROUNDS` times
//! after one warm-up pass, taking the ids alone (`HfTokenizer::encode_ids`, what
//! `Tokenizer.encode(text).ids` computes), and prints the token count: a fixed workload for
//! `valgrind --tool=callgrind --toggle-collect='*measured*'`, whose instruction count does not
//! depend on the machine's load.
//! `cargo run --release --example hf_encode_rounds -- TOKENIZER_JSON FILE [ROUNDS] [ranks]`
//!
//! With `ranks`, the file's byte-level ranks are loaded into an [`Encoding`] with GPT-2's
//! pattern and its `encode_ordinary` runs instead (the tiktoken face's engine on the same
//! vocabulary).

use tokensmith_core::hf::HfTokenizer;
use tokensmith_core::pre_tokenizers::R50K_PATTERN;
use tokensmith_core::Encoding;

/// The text cut after the first line end past 2,000 bytes, as the benchmarks cut it.
fn documents(text: &str) -> Vec<&str> {
    let mut docs = Vec::new();
    let (mut start, mut end) = (0, 0);
    for line in text.split_inclusive('\n') {
        if end > start && end + line.len() - start > 2048 {
            docs.push(&text[start..end]);
            start = end;
        }
        end += line.len();
    }
    docs.push(&text[start..]);
    docs
}

/// One engine under test.
enum Engine {
    Hf(Box<HfTokenizer>),
    Ranks(Box<Encoding>),
}

fn encode_all(engine: &Engine, docs: &[&str]) -> usize {
    docs.iter()
        .map(|d| match engine {
            Engine::Hf(tok) => tok.encode_ids(d, None, true).unwrap().unwrap().len(),
            Engine::Ranks(enc) => enc.encode_ordinary(d).unwrap().len(),
        })
        .sum()
}

/// The measured part, kept out of line so that a profiler can count it alone.
#[inline(never)]
fn measured(engine: &Engine, docs: &[&str], rounds: usize) -> usize {
    let mut tokens = 0;
    for _ in 0..rounds {
        tokens = encode_all(engine, docs);
    }
    tokens
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, json, file, rest @ ..] = args.as_slice() else {
        eprintln!("usage: hf_encode_rounds TOKENIZER_JSON FILE [ROUNDS] [ranks]");
        std::process::exit(2);
    };
    let rounds: usize = rest.first().and_then(|r| r.parse().ok()).unwrap_or(3);
    let tok = HfTokenizer::from_file(json).unwrap();
    let engine = if rest.get(1).is_some_and(|m| m == "ranks") {
        let (ranks, _) = tok
            .byte_level_ranks()
            .expect("a byte-level BPE in merge order");
        Engine::Ranks(Box::new(
            Encoding::new(ranks, vec![], R50K_PATTERN).unwrap(),
        ))
    } else {
        assert!(tok.has_fast_ids(), "the file takes the character pipeline");
        Engine::Hf(Box::new(tok))
    };
    let text = std::fs::read_to_string(file).unwrap();
    let docs = documents(&text);
    encode_all(&engine, &docs);
    let start = std::time::Instant::now();
    let tokens = measured(&engine, &docs, rounds);
    let secs = start.elapsed().as_secs_f64();
    let mb = (text.len() * rounds) as f64 / 1e6;
    eprintln!("{:.1} MB/s", mb / secs);
    println!("{tokens} tokens");
}
