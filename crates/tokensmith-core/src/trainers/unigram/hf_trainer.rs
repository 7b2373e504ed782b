//! HF's Unigram training (HF `tokenizers` 0.23, `UnigramTrainer::do_train` and `finalize`),
//! selected by the HF face (`Tokenizer.train` with a `UnigramTrainer`); the sentencepiece
//! trainer of this folder ([`super::trainer`]) serves the other faces.
//!
//! ```text
//! (word, count) ─► hf_seed_pieces ─► [<UNK>, seeds...] ─► loop { n_sub_iterations ×
//!   (hf_e_step, hf_m_step); stop at ≤ vocab_size × 1.1 pieces; hf_prune } ─► hf_finalize
//! ```
//!
//! Facts kept from HF's driver: the unknown piece `<UNK>` (score NaN) is piece 0 throughout;
//! the loop stops only after a full set of sub-iterations. HF loops forever when a round
//! removes nothing; here training stops there instead.
//!
//! ```
//! use tokensmith_core::trainers::unigram::hf_trainer::{hf_train, HfUnigramOptions};
//! let words: Vec<(String, u64)> = ["low", "lower", "lowest", "newer", "newest"]
//!     .iter().map(|w| (w.to_string(), 20)).collect();
//! let required: Vec<char> = "elnorstw".chars().collect();
//! let opts = HfUnigramOptions { vocab_size: 14, ..HfUnigramOptions::default() };
//! let pieces = hf_train(&opts, &words, &required, 14).unwrap();
//! // Five words give fewer pieces than asked: HF keeps what its EM leaves.
//! assert!(pieces.len() < 14);
//! assert!(pieces.windows(2).all(|w| w[0].1 >= w[1].1));
//! assert!(required.iter().all(|c| pieces.iter().any(|p| p.0 == c.to_string())));
//! ```

use rustc_hash::{FxHashMap, FxHashSet};

use super::hf_em::{hf_e_step, hf_m_step};
use super::hf_lattice::HfModel;
use super::hf_prune::hf_prune;
use super::hf_seeds::hf_seed_pieces;
use crate::error::{Error, Result};

/// The name HF's trainer gives its unknown piece while training.
const TRAINING_UNK: &str = "<UNK>";

/// HF's `UnigramTrainer` options that shape the pieces (HF's defaults).
#[derive(Debug, Clone)]
pub struct HfUnigramOptions {
    pub vocab_size: usize,
    pub n_sub_iterations: usize,
    pub shrinking_factor: f64,
    pub max_piece_length: usize,
    pub seed_size: usize,
}

impl Default for HfUnigramOptions {
    fn default() -> Self {
        Self {
            vocab_size: 8000,
            n_sub_iterations: 2,
            shrinking_factor: 0.75,
            max_piece_length: 16,
            seed_size: 1_000_000,
        }
    }
}

/// HF's pieces for `words`: `required` characters first (in this order) then the model's
/// pieces, `keep` in all (HF's `vocab_size` less the special tokens), ordered by falling
/// score (a stable sort).
///
/// # Errors
/// No word, or a word whose likelihood is NaN.
pub fn hf_train(
    opts: &HfUnigramOptions,
    words: &[(String, u64)],
    required: &[char],
    keep: usize,
) -> Result<Vec<(String, f64)>> {
    if words.iter().all(|w| w.0.is_empty()) {
        return Err(Error::EmptyCorpus);
    }
    let mut pieces = vec![(TRAINING_UNK.to_string(), f64::NAN)];
    pieces.extend(hf_seed_pieces(words, opts.max_piece_length, opts.seed_size));
    let desired = opts.vocab_size * 11 / 10;
    let mut model = HfModel::new(&pieces);
    loop {
        let before = pieces.len();
        for _ in 0..opts.n_sub_iterations {
            let expected = hf_e_step(&model, words)?;
            pieces = hf_m_step(&pieces, &expected);
            model = HfModel::new(&pieces);
        }
        if pieces.len() <= desired {
            break;
        }
        pieces = hf_prune(
            &model,
            &pieces,
            words,
            opts.vocab_size,
            opts.shrinking_factor,
        );
        model = HfModel::new(&pieces);
        if pieces.len() == before {
            break;
        }
    }
    Ok(hf_finalize(&model, &pieces, required, keep))
}

/// HF's `finalize`: each required character with its score, or, when the model lost it, the
/// model's lowest score plus 0.0001 per such character before it; then the model's pieces
/// in order (NaN scored 0) until `keep` in all, a check made only after a piece is added
/// (so required characters that fill `keep` let every piece in); sorted by falling score.
pub fn hf_finalize(
    model: &HfModel,
    pieces: &[(String, f64)],
    required: &[char],
    keep: usize,
) -> Vec<(String, f64)> {
    let existing: FxHashMap<&str, f64> = pieces.iter().map(|(p, s)| (p.as_str(), *s)).collect();
    let mut inserted: FxHashSet<String> = FxHashSet::default();
    inserted.insert(TRAINING_UNK.to_string());
    let mut out: Vec<(String, f64)> = Vec::with_capacity(keep);
    let mut penalty = 0.0;
    for &c in required {
        let s = c.to_string();
        let score = match existing.get(s.as_str()) {
            Some(&t) => t,
            None => {
                let t = model.min_score() + penalty;
                penalty += 0.0001;
                t
            }
        };
        inserted.insert(s.clone());
        out.push((s, score));
    }
    for (piece, score) in pieces {
        if !inserted.insert(piece.clone()) {
            continue;
        }
        out.push((piece.clone(), if score.is_nan() { 0.0 } else { *score }));
        if out.len() == keep {
            break;
        }
    }
    out.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lost_characters_score_below_the_minimum_in_order() {
        let pieces: Vec<(String, f64)> = [(TRAINING_UNK, f64::NAN), ("ab", -1.0), ("a", -2.0)]
            .iter()
            .map(|&(p, s)| (p.to_string(), s))
            .collect();
        let model = HfModel::new(&pieces);
        let out = hf_finalize(&model, &pieces, &['c', 'a', 'b'], 10);
        let names: Vec<&str> = out.iter().map(|p| p.0.as_str()).collect();
        // Stable: "c" (lost, scored the minimum) stays before "a" (found at the minimum).
        assert_eq!(names, ["ab", "b", "c", "a"]);
        assert_eq!(out[1].1, -2.0 + 0.0001);
        assert_eq!(out[2].1, -2.0);
    }

    #[test]
    fn required_characters_that_fill_the_size_let_every_piece_in() {
        let pieces: Vec<(String, f64)> = [(TRAINING_UNK, f64::NAN), ("ab", -1.0), ("ba", -2.0)]
            .iter()
            .map(|&(p, s)| (p.to_string(), s))
            .collect();
        let model = HfModel::new(&pieces);
        assert_eq!(hf_finalize(&model, &pieces, &['a', 'b'], 2).len(), 4);
    }
}
