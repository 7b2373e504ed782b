//! Trains a Unigram model on a text file (one sentence per line) and prints each stage.
//!
//! `cargo run --release --example train_unigram -- FILE VOCAB_SIZE [THREADS]`

use std::io::BufRead;
use std::ops::ControlFlow;
use std::time::Instant;

use tokensmith_core::trainers::unigram::{train, SentenceCounter, UnigramConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(vocab)) = (args.get(1), args.get(2)) else {
        return Err("usage: train_unigram FILE VOCAB_SIZE [THREADS]".into());
    };
    let config = UnigramConfig {
        num_threads: args.get(3).map_or(Ok(0), |t| t.parse())?,
        ..UnigramConfig::new(vocab.parse()?)
    };
    let start = Instant::now();
    let mut counter = SentenceCounter::new(&config)?;
    let mut batch = Vec::new();
    for line in std::io::BufReader::new(std::fs::File::open(path)?).lines() {
        batch.push(line?);
        if batch.len() == 4096 {
            counter.add_texts(&batch);
            batch.clear();
        }
    }
    counter.add_texts(&batch);
    let words = counter.finish();
    eprintln!(
        "{:.2?} counted {} words",
        start.elapsed(),
        words.words.len()
    );
    let proto = train(&config, words, &mut |event| {
        eprintln!("{:.2?} {event:?}", start.elapsed());
        ControlFlow::Continue(())
    })?
    .ok_or("stopped")?;
    println!("{} pieces in {:.2?}", proto.pieces.len(), start.elapsed());
    Ok(())
}
