//! sentencepiece's BPE trainer (`model_type=bpe`): from the same word table as the Unigram
//! trainer to a `ModelProto` whose pieces, scores and order are sentencepiece's.
//!
//! ```text
//! sentences ─► SentenceCounter (shared with Unigram) ─► WordTable ─► train:
//!   required chars ─► Symbols (chars, pairs) ─► loop { Active::best ─► merge_word } ─► ModelProto
//! ```
//!
//! One concept per file: [`symbols`] (every character and pair, in the states of
//! sentencepiece's symbol cache), [`first_pairs`](mod@first_pairs) (the pairs before any
//! merge, counted on the pool), [`word_store`] (the words, in one buffer), [`words`]
//! (merging a pair in one word), [`tally`] (a merge's changes summed per pair), [`active`]
//! (the pairs each step chooses among, and the choice, kept in a [`queue`]) and the driver
//! [`trainer`].
//! `docs/sp_bpe_trainer.md` gives the algorithm and how it is made fast.
//!
//! ```
//! use std::ops::ControlFlow;
//! use tokensmith_core::trainers::sp_bpe::train;
//! use tokensmith_core::trainers::unigram::{SentenceCounter, UnigramConfig};
//!
//! let config = UnigramConfig::new(20);
//! let mut counter = SentenceCounter::new(&config).unwrap();
//! counter.add_texts(&["the cat sat on the mat", "the dog sat on the log"]);
//! let proto = train(&config, counter.finish(), &mut |_| ControlFlow::Continue(()))
//!     .unwrap()
//!     .unwrap();
//! let pieces: Vec<&str> = proto.pieces.iter().map(|p| p.piece.as_str()).collect();
//! // "▁the" is "▁t" + "he"; each piece scores minus its index among the learned ones.
//! assert_eq!(pieces[..8], ["<unk>", "<s>", "</s>", "at", "he", "▁t", "▁the", "▁"]);
//! assert_eq!(proto.pieces[4].score, -1.0);
//! ```
//!
//! Not handled: sentencepiece's `pretokenization_delimiter` and training-time pretokenizer.

pub mod active;
pub mod first_pairs;
pub mod pair_map;
pub mod queue;
pub mod symbols;
pub mod tally;
pub mod trainer;
pub mod word_store;
pub mod words;

pub use active::Active;
pub use first_pairs::{first_pairs, FirstPair};
pub use pair_map::PairMap;
pub use queue::Queue;
pub use symbols::{State, Symbols, NONE};
pub use tally::{Gain, Loss, Slots, Tally};
pub use trainer::{train, Event};
pub use word_store::{Part, WordStore};
pub use words::{merge_word, Change};
