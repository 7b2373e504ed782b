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
//! Progress is counted in rounds (a set of EM sub-iterations and the pruning after it):
//! [`hf_train_with_progress`] reports `(done, total)` after each, `total` being `done` plus
//! the rounds a shrink by `shrinking_factor` per round still needs, and `(n, n)` at the end.
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
    hf_train_with_progress(opts, words, required, keep, |_, _| true)
}

/// Like [`hf_train`], calling `progress(done, total)` after each round (see the module
/// text); when `progress` returns false, training stops there and the pieces of that round
/// are finalized.
///
/// # Errors
/// As [`hf_train`].
pub fn hf_train_with_progress(
    opts: &HfUnigramOptions,
    words: &[(String, u64)],
    required: &[char],
    keep: usize,
    mut progress: impl FnMut(usize, usize) -> bool,
) -> Result<Vec<(String, f64)>> {
    if words.iter().all(|w| w.0.is_empty()) {
        return Err(Error::EmptyCorpus);
    }
    let mut pieces = vec![(TRAINING_UNK.to_string(), f64::NAN)];
    pieces.extend(hf_seed_pieces(words, opts.max_piece_length, opts.seed_size));
    let desired = opts.vocab_size * 11 / 10;
    let mut model = HfModel::new(&pieces);
    let mut done = 0;
    loop {
        let before = pieces.len();
        for _ in 0..opts.n_sub_iterations {
            let expected = hf_e_step(&model, words)?;
            pieces = hf_m_step(&pieces, &expected);
            model = HfModel::new(&pieces);
        }
        done += 1;
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
        let left = rounds_left(pieces.len(), desired, opts.shrinking_factor);
        if !progress(done, done + left) {
            return Ok(hf_finalize(&model, &pieces, required, keep));
        }
    }
    progress(done, done);
    Ok(hf_finalize(&model, &pieces, required, keep))
}

/// The rounds still to run from `n` pieces when each prune shrinks them by `factor` (to no
/// fewer than `desired`) and the EM steps remove none: an estimate, at least 1.
fn rounds_left(mut n: usize, desired: usize, factor: f64) -> usize {
    let mut rounds = 1;
    while n > desired {
        let next = desired.max((n as f64 * factor) as usize);
        if next >= n {
            break;
        }
        n = next;
        rounds += 1;
    }
    rounds
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
                penalty += super::finalize::MIN_SCORE_PENALTY_DELTA;
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

    /// `pieces` with owned strings, as the trainer keeps them.
    fn owned(pieces: &[(&str, f64)]) -> Vec<(String, f64)> {
        pieces.iter().map(|&(p, s)| (p.to_string(), s)).collect()
    }

    #[test]
    fn lost_characters_score_below_the_minimum_in_order() {
        let pieces = owned(&[(TRAINING_UNK, f64::NAN), ("ab", -1.0), ("a", -2.0)]);
        let model = HfModel::new(&pieces);
        let out = hf_finalize(&model, &pieces, &['c', 'a', 'b'], 10);
        let names: Vec<&str> = out.iter().map(|p| p.0.as_str()).collect();
        // Stable: "c" (lost, scored the minimum) stays before "a" (found at the minimum).
        assert_eq!(names, ["ab", "b", "c", "a"]);
        assert_eq!(out[1].1, -2.0 + 0.0001);
        assert_eq!(out[2].1, -2.0);
    }

    /// Words of two or three syllables, counted unevenly: enough pieces for several rounds.
    fn syllable_words() -> Vec<(String, u64)> {
        let syllables = ["ka", "ru", "mi", "to", "ne", "sa", "di", "po", "lu", "be"];
        let mut words = Vec::new();
        for (i, a) in syllables.iter().enumerate() {
            for (j, b) in syllables.iter().enumerate() {
                words.push((format!("{a}{b}"), (1 + (i * 7 + j * 3) % 11) as u64));
                words.push((format!("{a}{b}{}", syllables[(i + j) % 10]), 2));
            }
        }
        words
    }

    #[test]
    fn progress_rises_to_its_total() {
        let words = syllable_words();
        let required: Vec<char> = "abdeikmnoprstu".chars().collect();
        let opts = HfUnigramOptions {
            vocab_size: 30,
            shrinking_factor: 0.9,
            ..HfUnigramOptions::default()
        };
        let mut seen = Vec::new();
        let pieces = hf_train_with_progress(&opts, &words, &required, 30, |d, t| {
            seen.push((d, t));
            true
        })
        .unwrap();
        assert_eq!(pieces, hf_train(&opts, &words, &required, 30).unwrap());
        assert!(seen.len() >= 2, "{seen:?}");
        assert!(seen.windows(2).all(|w| w[0].0 < w[1].0), "{seen:?}");
        assert!(seen.iter().all(|&(d, t)| d <= t), "{seen:?}");
        let last = seen[seen.len() - 1];
        assert_eq!(last.0, last.1);
    }

    #[test]
    fn a_false_from_progress_stops_after_that_round() {
        let words = syllable_words();
        let opts = HfUnigramOptions {
            vocab_size: 30,
            shrinking_factor: 0.9,
            ..HfUnigramOptions::default()
        };
        let mut calls = 0;
        let stopped = hf_train_with_progress(&opts, &words, &[], 30, |_, _| {
            calls += 1;
            false
        })
        .unwrap();
        assert_eq!(calls, 1);
        assert!(stopped.len() > hf_train(&opts, &words, &[], 30).unwrap().len());
    }

    #[test]
    fn required_characters_that_fill_the_size_let_every_piece_in() {
        let pieces = owned(&[(TRAINING_UNK, f64::NAN), ("ab", -1.0), ("ba", -2.0)]);
        let model = HfModel::new(&pieces);
        assert_eq!(hf_finalize(&model, &pieces, &['a', 'b'], 2).len(), 4);
    }
}
