//! Trains a byte-level BPE vocabulary on a text file (one text per line) with GPT-2's
//! pattern and prints the time of each stage: counting the words, then learning the merges.
//!
//! `cargo run --release --example train_bpe -- FILE VOCAB_SIZE [MIN_FREQUENCY]`
//!
//! The thread count follows `RAYON_NUM_THREADS`.

use std::io::BufRead;
use std::time::Instant;

use tokensmith_core::pre_tokenizers::{PreTokenizer, R50K_PATTERN};
use tokensmith_core::trainers::{BpeTrainer, WordCounts};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(vocab)) = (args.get(1), args.get(2)) else {
        return Err("usage: train_bpe FILE VOCAB_SIZE [MIN_FREQUENCY]".into());
    };
    let min_frequency: u64 = args.get(3).map_or(Ok(2), |m| m.parse())?;
    let pre = PreTokenizer::new(R50K_PATTERN)?;
    let start = Instant::now();
    let mut counts = WordCounts::new();
    let mut batch = Vec::new();
    for line in std::io::BufReader::new(std::fs::File::open(path)?).lines() {
        batch.push(line?);
        if batch.len() == 4096 {
            counts.add_texts(&pre, &batch)?;
            batch.clear();
        }
    }
    counts.add_texts(&pre, &batch)?;
    eprintln!(
        "{:.2?} counted {} distinct words",
        start.elapsed(),
        counts.len()
    );
    let trained = BpeTrainer::new(vocab.parse()?)
        .min_frequency(min_frequency)
        .train(&counts)?;
    println!("{} merges in {:.2?}", trained.merges.len(), start.elapsed());
    Ok(())
}
