//! What sentencepiece's `char` and `word` trainers share (`char_model_trainer.cc`,
//! `word_model_trainer.cc`): nothing is learned. Each counts its units (characters, or words
//! split at `▁`), orders them by count (descending, ties by their bytes), scores each with
//! its log-probability, computed in `f32` as sentencepiece does, and keeps as many as the
//! vocabulary has room for behind the meta pieces (`build_proto_as` puts them there).
//!
//! ```
//! use tokensmith_core::trainers::sp_frequency::{by_frequency, log_prob};
//! let units = by_frequency(vec![("b", 1), ("c", 3), ("a", 1)]);
//! assert_eq!(units, [("c", 3), ("a", 1), ("b", 1)]);
//! assert_eq!(log_prob(1, 4), -(4f32.ln()) as f64);
//! ```

use crate::trainers::unigram::trainer::{required_chars, Alphabet};
use crate::trainers::unigram::UnigramConfig;

/// `count`'s share of `total` as a natural log: `ln(count) - ln(total)`, each in `f32` (so
/// the scores are sentencepiece's to the bit). A count of 0 (a required character the text
/// lacks) scores minus infinity, as in sentencepiece.
pub fn log_prob(count: u64, total: u64) -> f64 {
    ((count as f32).ln() - (total as f32).ln()) as f64
}

/// `units` by count (descending), then by the unit itself (ascending).
pub fn by_frequency<K: Ord>(mut units: Vec<(K, u64)>) -> Vec<(K, u64)> {
    units.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    units
}

/// How many units the vocabulary takes: all of them with `use_all_vocab`, else what
/// `vocab_size` leaves after the meta pieces.
pub fn room(config: &UnigramConfig) -> usize {
    if config.use_all_vocab {
        usize::MAX
    } else {
        config.vocab_size.saturating_sub(config.meta_piece_count())
    }
}

/// The alphabet of `texts` the model keeps (see [`required_chars`]): every character with
/// `use_all_vocab`, else those `character_coverage` keeps.
pub fn alphabet(config: &UnigramConfig, texts: &[(String, u64)]) -> Alphabet {
    let coverage = if config.use_all_vocab {
        1.0
    } else {
        config.character_coverage
    };
    required_chars(texts, coverage, &config.required_chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_f32_log_probabilities() {
        assert_eq!(log_prob(3, 3), 0.0);
        assert_eq!(log_prob(0, 3), f64::NEG_INFINITY);
        let s = log_prob(7, 1000);
        assert_eq!(s, (7f32.ln() - 1000f32.ln()) as f64);
        assert_eq!(s as f32 as f64, s);
    }

    #[test]
    fn use_all_vocab_keeps_every_character() {
        let texts = vec![("a".repeat(10_000), 1), ("b".to_string(), 1)];
        assert_eq!(alphabet(&UnigramConfig::new(100), &texts).len(), 1);
        let all = UnigramConfig {
            use_all_vocab: true,
            ..UnigramConfig::new(100)
        };
        assert_eq!(alphabet(&all, &texts), [('a', 10_000), ('b', 1)]);
    }
}
