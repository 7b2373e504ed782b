//! sentencepiece's `word` trainer (`model_type=word`): the most frequent whitespace-split
//! words are the pieces, scored with their log-probability.
//!
//! ```text
//! sentences ─► required characters; the others become U+2585 ─► words (split before each ▁)
//!           ─► by count, words holding U+2585 left out ─► the first vocab_size − meta,
//!              scored ln(count) − ln(Σ counts of every word)
//! ```
//!
//! Words are split before each `▁` whatever `split_by_whitespace` and
//! `treat_whitespace_as_suffix` say, as sentencepiece's word trainer and word model split
//! them; count with [`counting_config`] so the counter does not split otherwise. With
//! `hard_vocab_limit` (the default), fewer words than `vocab_size` asks for is an error;
//! without it, or with `use_all_vocab`, the vocabulary is as large as the words make it.
//!
//! ```
//! use tokensmith_core::trainers::sp_word::{counting_config, train};
//! use tokensmith_core::trainers::unigram::{SentenceCounter, UnigramConfig};
//!
//! let config = UnigramConfig::new(5);
//! let mut counter = SentenceCounter::new(&counting_config(&config)).unwrap();
//! counter.add_texts(&["the cat", "the dog"]);
//! let proto = train(&config, counter.finish()).unwrap();
//! let pieces: Vec<&str> = proto.pieces.iter().map(|p| p.piece.as_str()).collect();
//! assert_eq!(pieces, ["<unk>", "<s>", "</s>", "▁the", "▁cat"]);
//! ```

use rayon::prelude::*;

use super::shards::{by_shard, Shards};
use super::sp_frequency::{alphabet, log_prob, room};
use super::unigram::finalize::build_proto_as;
use super::unigram::trainer::{checked_run, replace_rare_chars};
use super::unigram::{UnigramConfig, WordTable, UNK_CHAR};
use crate::error::{Error, Result};
use crate::formats::sentencepiece_model::{ModelProto, ModelType};
use crate::models::sentencepiece_parts::words_of;

/// Sentences per task when counting words.
const SENTENCES_PER_TASK: usize = 4096;

/// The options to count sentences with for [`train`]: split before each `▁` (which makes the
/// words themselves) when whitespace is a prefix; whole sentences when it is a suffix, since
/// the words then do not end where the counter would cut them.
pub fn counting_config(config: &UnigramConfig) -> UnigramConfig {
    UnigramConfig {
        split_by_whitespace: !config.treat_whitespace_as_suffix,
        ..config.clone()
    }
}

/// Trains a `word` model on `sentences` (counted with [`counting_config`]). See the module
/// documentation.
pub fn train(config: &UnigramConfig, sentences: WordTable) -> Result<ModelProto> {
    checked_run(config, sentences, |sentences| {
        let alphabet = alphabet(config, &sentences);
        let sentences = replace_rare_chars(sentences, &alphabet);
        let counts = word_counts(&sentences);
        let total: u64 = counts.iter().map(|w| w.1).sum();
        let room = room(config);
        let learned: Vec<(String, f64)> = counts
            .into_iter()
            .filter(|(w, _)| !w.contains(UNK_CHAR))
            .take(room)
            .map(|(w, n)| (w, log_prob(n, total)))
            .collect();
        if config.hard_vocab_limit && !config.use_all_vocab && learned.len() < room {
            let most = learned.len() + config.meta_piece_count();
            return Err(Error::InvalidOption(format!(
                "vocab_size={} is too large for this corpus: it yields at most {most} pieces \
                 (meta pieces included); use vocab_size <= {most}, hard_vocab_limit=False or \
                 use_all_vocab=True",
                config.vocab_size
            )));
        }
        build_proto_as(config, learned, ModelType::Word)
    })
}

/// Every word of `sentences` (split before each `▁`) with its count, by count (descending),
/// then by word, summed in the hash shards of `trainers::shards`.
fn word_counts(sentences: &[(String, u64)]) -> Vec<(String, u64)> {
    let lists: Vec<Vec<Vec<(&str, u64)>>> = sentences
        .par_chunks(SENTENCES_PER_TASK)
        .map(|chunk| {
            let words = chunk
                .iter()
                .flat_map(|(sentence, n)| words_of(sentence, false).map(|w| (w, *n)));
            by_shard(words, 0)
        })
        .collect();
    let mut counts: Shards<String> = Shards::default();
    counts.add_sharded(&lists);
    counts.into_sorted()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_with_rare_characters_are_left_out_but_counted() {
        // 'q' is 1 of 82 characters, past 0.98 coverage: it becomes U+2585, and "▁▅" is
        // counted in the sum but is no piece.
        let sentences = WordTable::from_counts([("▁aaaa▁bbbb", 8), ("▁q", 1)]);
        let config = UnigramConfig {
            character_coverage: 0.98,
            hard_vocab_limit: false,
            ..UnigramConfig::new(10)
        };
        let proto = train(&config, sentences.clone()).unwrap();
        let got: Vec<(&str, f32)> = proto.pieces[3..]
            .iter()
            .map(|p| (p.piece.as_str(), p.score))
            .collect();
        let score = 8f32.ln() - 17f32.ln();
        assert_eq!(got, [("▁aaaa", score), ("▁bbbb", score)]);
        assert_eq!(proto.trainer_spec.vocab_size, 5);
        let hard = UnigramConfig {
            hard_vocab_limit: true,
            ..config
        };
        let err = train(&hard, sentences).unwrap_err();
        assert!(err.to_string().contains("at most 5 pieces"), "{err}");
    }

    #[test]
    fn suffix_whitespace_still_splits_before_each_space_mark() {
        let config = UnigramConfig {
            treat_whitespace_as_suffix: true,
            character_coverage: 1.0,
            ..UnigramConfig::new(6)
        };
        let counting = counting_config(&config);
        assert!(!counting.split_by_whitespace);
        let sentences = WordTable::from_counts([("a▁b▁", 1)]);
        let proto = train(&config, sentences).unwrap();
        let got: Vec<&str> = proto.pieces[3..].iter().map(|p| p.piece.as_str()).collect();
        assert_eq!(got, ["a", "▁", "▁b"]);
    }
}
