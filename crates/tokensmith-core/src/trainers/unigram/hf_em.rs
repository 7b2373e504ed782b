//! HF's EM round (HF `tokenizers` 0.23, `UnigramTrainer::run_e_step` / `run_m_step`).
//!
//! - E-step: each word's marginals times its count are added to the expected counts, word
//!   after word, in `f64`. HF sums chunks of `words / threads` words on rayon's threads and
//!   then adds the chunks' vectors; with one thread that is one chunk, added to zeros, so the
//!   sums are the plain left-to-right ones made here. HF's words come in its hash map's
//!   order, which changes from run to run, so its own sums differ in the last bits between
//!   runs; the pieces it keeps did not on the committed text.
//! - M-step: the unknown piece (id 0) is kept, scored NaN; every other piece expected fewer
//!   than 0.5 times is dropped; the rest are scored `digamma(count) - digamma(total)`
//!   ([`super::em::digamma`], which rounds as HF does).
//!
//! ```
//! use tokensmith_core::trainers::unigram::{digamma, hf_em::hf_m_step};
//! let pieces = vec![("<UNK>".to_string(), f64::NAN), ("a".into(), -1.0), ("b".into(), -1.0)];
//! let next = hf_m_step(&pieces, &[0.0, 3.0, 0.25]);
//! assert_eq!(next.len(), 2); // "b" is expected fewer than 0.5 times
//! assert!(next[0].1.is_nan());
//! assert_eq!(next[1].1, digamma(3.0) - digamma(3.0));
//! ```

use super::em::digamma;
use super::hf_lattice::{HfLattice, HfModel};
use crate::error::{Error, Result};

/// Expected count of each piece of `model` over `words`.
///
/// # Errors
/// A word's likelihood is NaN (HF panics there).
pub fn hf_e_step(model: &HfModel, words: &[(String, u64)]) -> Result<Vec<f64>> {
    let mut expected = vec![0.0; model.len()];
    for (word, freq) in words {
        let z = HfLattice::new(model, word).add_marginals(*freq as f64, &mut expected);
        if z.is_nan() {
            return Err(Error::InvalidOption(format!(
                "the likelihood of the word {word:?} is NaN (HF's trainer stops there too)"
            )));
        }
    }
    Ok(expected)
}

/// HF's M-step: the kept pieces with their new scores, in their order.
pub fn hf_m_step(pieces: &[(String, f64)], expected: &[f64]) -> Vec<(String, f64)> {
    let mut kept: Vec<(String, f64)> = Vec::with_capacity(pieces.len());
    let mut sum = 0.0;
    for (i, ((piece, _), &freq)) in pieces.iter().zip(expected).enumerate() {
        if i == 0 {
            kept.push((piece.clone(), f64::NAN));
            continue;
        }
        if freq < 0.5 {
            continue;
        }
        kept.push((piece.clone(), freq));
        sum += freq;
    }
    let log_sum = digamma(sum);
    kept.into_iter()
        .map(|(p, c)| (p, digamma(c) - log_sum))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e_step_counts_the_words() {
        let pieces = vec![
            ("<UNK>".to_string(), f64::NAN),
            ("a".into(), 0.3f64.ln()),
            ("b".into(), 0.2f64.ln()),
            ("ab".into(), 0.4f64.ln()),
        ];
        let model = HfModel::new(&pieces);
        let e = hf_e_step(&model, &[("ab".into(), 3), ("b".into(), 2)]).unwrap();
        assert!((e[3] - 3.0 * 0.4 / 0.46).abs() < 1e-12);
        assert!((e[2] - (3.0 * 0.06 / 0.46 + 2.0)).abs() < 1e-12);
    }
}
