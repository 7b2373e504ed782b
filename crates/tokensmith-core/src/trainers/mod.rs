//! Trainers: learn a vocabulary from a corpus.
//!
//! `corpus -> WordCounts (pre-tokenize and count, in parallel) -> BpeTrainer (merge loop) ->
//! ranks`, and the ranks load into [`crate::Encoding`].
//!
//! - [`word_counts`]: counting pre-tokenized words; memory grows with distinct pieces only.
//! - [`merge_loop`]: the incremental merge loop (pair counts, pair -> words index, lazy
//!   max-heap) over any alphabet; its tie-break rule is documented there.
//! - [`bpe`]: the byte-level front end: 256-byte alphabet, options, ranks and specials.
//! - [`char_bpe`]: the character-level front end (`</w>`, `##`, Metaspace words).
//! - [`extend`]: new merges on top of an existing vocabulary, keeping its ids.
//! - [`bounded_counts`]: counting within a memory budget (spill and merge, or prune).
//! - [`unigram`], [`sp_bpe`], [`sp_char`], [`sp_word`]: sentencepiece's four model types, on one
//!   sentence counter ([`sp_frequency`] holds what the `char` and `word` trainers share).
//!
//! ```
//! use tokensmith_core::pre_tokenizers::O200K_PATTERN;
//! use tokensmith_core::trainers::{train_bpe_bytes, BpeTrainer};
//!
//! let texts = ["the cat sat on the mat", "the dog sat on the log"];
//! let trained = train_bpe_bytes(&texts, O200K_PATTERN, &BpeTrainer::new(262)).unwrap();
//! assert_eq!(trained.ranks.len(), 262);
//! ```

pub mod bounded_counts;
pub mod bpe;
pub mod char_bpe;
pub mod counts_format;
pub mod extend;
pub mod merge_loop;
mod pair_table;
mod setters;
pub mod shards;
pub mod sp_bpe;
pub mod sp_char;
pub mod sp_frequency;
pub mod sp_word;
pub mod unigram;
pub mod word_counts;

pub use bounded_counts::{BoundedCounter, CountMode};
pub use bpe::{BpeTrainer, Compat, TrainedBpe};
pub use char_bpe::{CharBpeTrainer, TrainedCharBpe};
pub use extend::extend_bpe;
pub use merge_loop::Scoring;
pub use word_counts::WordCounts;

use crate::error::Result;
use crate::pre_tokenizers::PreTokenizer;

/// Counts the pieces of `texts` under `pattern`, then trains. For corpora that do not fit in
/// memory, feed [`WordCounts::add_texts`] batch by batch and call [`BpeTrainer::train`].
pub fn train_bpe_bytes<S: AsRef<str> + Sync>(
    texts: &[S],
    pattern: &str,
    trainer: &BpeTrainer,
) -> Result<TrainedBpe> {
    trainer.validate()?;
    let pre = PreTokenizer::new(pattern)?;
    let mut counts = WordCounts::new();
    counts.add_texts(&pre, texts)?;
    trainer.train(&counts)
}
