//! The word-counts format (`trainers::counts_format`) on arbitrary bytes, then a short BPE
//! training run on what it read: counts near `u64::MAX`, empty or long words and repeated
//! entries reach the trainer as they would from a hostile counts file.

use tokensmith_core::trainers::{BpeTrainer, CharBpeTrainer, WordCounts};
use tokensmith_core::Error;

/// Training stays short: few words, few merges.
const MAX_WORDS: usize = 200;
const MERGES: usize = 8;

pub fn run(data: &[u8]) {
    let Ok(counts) = WordCounts::from_bytes(data) else {
        return;
    };
    let bytes = counts.to_bytes();
    let again = WordCounts::from_bytes(&bytes).expect("written counts read back");
    assert_eq!(again.to_bytes(), bytes, "the format is not canonical");
    assert_eq!(again.len(), counts.len());
    if counts.len() > MAX_WORDS {
        return;
    }
    match BpeTrainer::new(256 + MERGES).train(&counts) {
        Ok(trained) => {
            trained
                .into_encoding(r"\S+|\s+")
                .expect("trained ranks build an encoding");
        }
        Err(Error::EmptyCorpus) => {}
        Err(e) => panic!("BPE training on valid counts failed: {e}"),
    }
    let _ = CharBpeTrainer::new(MERGES).train(&counts);
}
