//! HF's pruning step (HF `tokenizers` 0.23, `UnigramTrainer::prune_sentence_pieces`).
//!
//! Facts kept from HF, quirks included:
//! - each piece's alternatives are the second best segmentation of its own text, taken when
//!   the best is the piece itself; a piece with a single segmentation is always kept, one
//!   whose best segmentation is not itself is not;
//! - every word's Viterbi path under the current model counts each piece `count` times per
//!   occurrence (`freq`);
//! - a piece never used is dropped unless always kept; a piece without alternatives is kept;
//!   a used piece with alternatives is a candidate, with
//!   `loss = freq / total_count × (log p(piece) - Σ log p'(alternative))`, where the
//!   alternatives' new total is `sum + freq × (pieces - 1)` (HF counts every piece there,
//!   where sentencepiece counts the alternatives);
//! - candidates go by falling loss (a stable sort) after the unknown piece and the pieces
//!   kept outright, until `max(vocab_size × 1.1, pieces × shrinking_factor)` pieces, a check
//!   made only before each candidate: when the kept pieces already pass that size, every
//!   candidate stays.
//!
//! ```
//! use tokensmith_core::trainers::unigram::hf_lattice::HfModel;
//! use tokensmith_core::trainers::unigram::hf_prune::hf_prune;
//! let pieces: Vec<(String, f64)> = [("<UNK>", f64::NAN), ("a", -1.0), ("b", -1.2), ("ab", -1.5)]
//!     .iter().map(|&(p, s)| (p.to_string(), s)).collect();
//! let model = HfModel::new(&pieces);
//! let words = vec![("ab".to_string(), 3), ("a".to_string(), 1)];
//! // Room for 1 piece beyond the unknown one: "a" and "b" have no alternatives, so all stay.
//! let kept = hf_prune(&model, &pieces, &words, 1, 0.5);
//! assert_eq!(kept.len(), 4);
//! ```

use super::hf_lattice::{HfLattice, HfModel};

/// The pieces left after one pruning round.
pub fn hf_prune(
    model: &HfModel,
    pieces: &[(String, f64)],
    words: &[(String, u64)],
    vocab_size: usize,
    shrinking_factor: f64,
) -> Vec<(String, f64)> {
    let n = pieces.len();
    let mut always_keep = vec![true; n];
    let mut alternatives: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (id, (piece, _)) in pieces.iter().enumerate().skip(1) {
        let best = HfLattice::new(model, piece).two_best();
        if best.len() == 1 {
            always_keep[id] = true;
        } else if best[0].len() >= 2 {
            always_keep[id] = false;
        } else if best[0].len() == 1 {
            always_keep[id] = true;
            alternatives[id] = best[1].clone();
        }
    }
    always_keep[0] = false;
    // Counts are whole numbers, so these sums are exact in any order.
    let mut freq = vec![0.0f64; n];
    let mut total = 0.0f64;
    for (word, count) in words {
        total += *count as f64;
        for id in HfLattice::new(model, word).viterbi() {
            freq[id as usize] += *count as f64;
        }
    }
    let sum: f64 = freq.iter().sum();
    let log_sum = sum.ln();
    let mut kept: Vec<(String, f64)> = vec![pieces[0].clone()];
    let mut candidates: Vec<(usize, f64)> = Vec::new();
    for (id, piece) in pieces.iter().enumerate().skip(1) {
        if freq[id] == 0.0 && !always_keep[id] {
            continue;
        }
        if alternatives[id].is_empty() {
            kept.push(piece.clone());
            continue;
        }
        // HF sums the word counts of each occurrence: the same whole number as freq.
        let f = freq[id];
        if f == 0.0 || f.is_nan() {
            continue;
        }
        let f = f / total;
        let logprob_sp = freq[id].ln() - log_sum;
        let log_sum_alt = (sum + freq[id] * (n - 1) as f64).ln();
        let mut logprob_alt = 0.0;
        for &alt in &alternatives[id] {
            logprob_alt += (freq[alt as usize] + freq[id]).ln() - log_sum_alt;
        }
        candidates.push((id, f * (logprob_sp - logprob_alt)));
    }
    let desired = vocab_size * 11 / 10;
    let pruned_size = desired.max(((n as f64) * shrinking_factor) as usize);
    // HF's comparison: equal losses (0.0 and -0.0 too) keep their order.
    candidates.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
    for (id, _) in candidates {
        if kept.len() == pruned_size {
            break;
        }
        kept.push(pieces[id].clone());
    }
    kept
}
