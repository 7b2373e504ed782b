//! The Unigram (SentencePiece-style) trainer: from sentences to a `ModelProto` whose pieces,
//! scores and types load into [`crate::sentencepiece::SentencePieceProcessor`].
//!
//! ```text
//! sentences ─► SentenceCounter (normalize, split at ▁, count; parallel) ─► WordTable
//!           ─► train: required chars ─► seed_pieces (suffix array) ─► EM (e_step, m_step)
//!              and prune, until 1.1 × vocab_size ─► final_pieces ─► build_proto
//! ```
//!
//! One concept per file: [`config`] (options and validation), [`piece_rules`] (which strings
//! may be pieces, word splitting), [`sentences`] (the word table), [`seeds`], [`lattice`]
//! (forward-backward and Viterbi on one word), [`word_lattices`] (every word's lattice, kept
//! across rounds), [`em`], [`prune`], [`finalize`] and the driver
//! [`trainer`]. HF's own trainer, which the HF face runs, sits beside them in the `hf_*` files
//! ([`hf_trainer`] drives it). `docs/unigram_trainer.md` gives the algorithm and what differs from
//! sentencepiece.
//!
//! ```
//! use std::ops::ControlFlow;
//! use tokensmith_core::trainers::unigram::{train, SentenceCounter, UnigramConfig};
//!
//! let config = UnigramConfig { seed_sentencepiece_size: 1000, ..UnigramConfig::new(20) };
//! let mut counter = SentenceCounter::new(&config).unwrap();
//! counter.add_texts(&["the cat sat on the mat", "the dog sat on the log"]);
//! let proto = train(&config, counter.finish(), &mut |_| ControlFlow::Continue(()))
//!     .unwrap()
//!     .unwrap();
//! assert_eq!(proto.pieces.len(), 20);
//! assert_eq!(proto.pieces[0].piece, "<unk>");
//! ```
//!
//! Normalization uses the charsmaps of [`crate::normalizers::charsmap_builder`]
//! (`nmt_nfkc` by default). The other model types train from the same
//! [`SentenceCounter`]: [`super::sp_bpe`], [`super::sp_char`] and [`super::sp_word`].

pub mod char_tables;
pub mod config;
pub mod em;
pub mod file_lines;
pub mod finalize;
pub mod flat_trie;
pub mod hf_em;
pub mod hf_lattice;
pub mod hf_prune;
pub mod hf_seeds;
pub mod hf_trainer;
pub mod lattice;
pub mod piece_rules;
pub mod prune;
pub mod seeds;
pub mod sentences;
pub mod trainer;
pub mod word_lattices;

pub use crate::models::sentencepiece_parts::split_words;
pub use config::{Normalization, UnigramConfig};
pub use em::{digamma, e_step, m_step, Expectation};
pub use finalize::{build_proto, final_pieces, meta_pieces};
pub use flat_trie::FlatTrie;
pub use lattice::{forward_backward, populate, viterbi, Lattice, Node, Scratch, TrainerModel, UNK};
pub use piece_rules::{PieceRules, SPACE, UNK_CHAR};
pub use prune::{prune, viterbi_frequencies};
pub use seeds::seed_pieces;
pub use sentences::{normalizer_spec, SentenceCounter, WordTable};
pub use trainer::{required_chars, train, with_threads, Event};
pub use word_lattices::{LatticeSource, WordLattices, REMOVED, WORDS_PER_BLOCK};
