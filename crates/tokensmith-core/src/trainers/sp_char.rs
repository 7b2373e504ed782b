//! sentencepiece's `char` trainer (`model_type=char`): every character of the alphabet is a
//! piece, scored with its log-probability.
//!
//! ```text
//! words ─► required characters (character_coverage; all of them with use_all_vocab)
//!       ─► by count ─► the first vocab_size − meta, scored ln(count) − ln(Σ counts)
//! ```
//!
//! The sum runs over the alphabet only (the characters `character_coverage` drops do not
//! count). Fewer characters than `vocab_size` asks for make a smaller vocabulary: sentencepiece
//! never holds a `char` model to `hard_vocab_limit`. Meta pieces in the text (`<s>`,
//! user-defined symbols...) are not counted, as the sentence counter replaces them.
//!
//! ```
//! use tokensmith_core::trainers::sp_char::train;
//! use tokensmith_core::trainers::unigram::{SentenceCounter, UnigramConfig};
//!
//! let config = UnigramConfig { character_coverage: 1.0, ..UnigramConfig::new(100) };
//! let mut counter = SentenceCounter::new(&config).unwrap();
//! counter.add_texts(&["aab", "ba"]);
//! let proto = train(&config, counter.finish()).unwrap();
//! let pieces: Vec<&str> = proto.pieces.iter().map(|p| p.piece.as_str()).collect();
//! assert_eq!(pieces, ["<unk>", "<s>", "</s>", "a", "b", "▁"]);
//! assert_eq!(proto.pieces[3].score, (3f32.ln() - 7f32.ln()));
//! ```

use super::sp_frequency::{alphabet, by_frequency, log_prob, room};
use super::unigram::finalize::build_proto_as;
use super::unigram::trainer::checked_run;
use super::unigram::{UnigramConfig, WordTable};
use crate::error::Result;
use crate::formats::sentencepiece_model::{ModelProto, ModelType};

/// Trains a `char` model on `words`. See the module documentation.
pub fn train(config: &UnigramConfig, words: WordTable) -> Result<ModelProto> {
    checked_run(config, words, |words| {
        let alphabet = alphabet(config, &words);
        let total: u64 = alphabet.iter().map(|c| c.1).sum();
        let learned = by_frequency(alphabet)
            .into_iter()
            .take(room(config))
            .map(|(c, n)| (c.to_string(), log_prob(n, total)))
            .collect();
        build_proto_as(config, learned, ModelType::Char)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(config: &UnigramConfig, words: &[(&str, u64)]) -> Vec<(String, f32)> {
        let proto = train(config, WordTable::from_counts(words.iter().copied())).unwrap();
        proto.pieces[3..]
            .iter()
            .map(|p| (p.piece.clone(), p.score))
            .collect()
    }

    #[test]
    fn the_alphabet_is_cut_at_vocab_size_and_absent_required_chars_score_minus_infinity() {
        let words = [("▁abc", 2), ("▁cc", 1)];
        let config = UnigramConfig {
            required_chars: vec!['z'],
            ..UnigramConfig::new(6)
        };
        // The forced 'z' has no count, so it sorts last and falls past the three places.
        let got = pieces(&config, &words);
        let names: Vec<&str> = got.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(names, ["c", "▁", "a"]);
        let all = pieces(
            &UnigramConfig {
                use_all_vocab: true,
                ..config
            },
            &words,
        );
        assert_eq!(all.len(), 5);
        assert_eq!(all[4], ("z".to_string(), f32::NEG_INFINITY));
    }
}
