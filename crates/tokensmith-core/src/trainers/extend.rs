//! Vocabulary extension: learn new merges on a domain corpus on top of an existing
//! byte-level BPE vocabulary, keeping every existing id.
//!
//! Each distinct word of the new corpus is first encoded with the base vocabulary; those
//! token sequences are the merge loop's starting point, and the base tokens are its alphabet
//! in rank order. New tokens take the free ids after the base's largest id (skipping the ids of
//! its special tokens), so every base rank and special id is unchanged, and because new ranks
//! are larger, the base's own merges keep their priority when the result encodes text.
//!
//! ```
//! use tokensmith_core::pre_tokenizers::{PreTokenizer, R50K_PATTERN};
//! use tokensmith_core::trainers::{extend_bpe, BpeTrainer, WordCounts};
//!
//! let pre = PreTokenizer::new(R50K_PATTERN).unwrap();
//! let mut general = WordCounts::new();
//! general.add_texts(&pre, &["the cat sat on the mat"; 5]).unwrap();
//! let base = BpeTrainer::new(270).train(&general).unwrap().into_encoding(R50K_PATTERN).unwrap();
//! let mut domain = WordCounts::new();
//! domain.add_texts(&pre, &["tokenizer tokenizers tokenization"; 5]).unwrap();
//! let extended = extend_bpe(&base, &domain, 280, 2).unwrap();
//! assert_eq!(extended.ranks.len(), 280);
//! ```

use super::bpe::TrainedBpe;
use super::merge_loop::{LengthRule, MergeLoop, Sym};
use super::word_counts::WordCounts;
use crate::encoding::Encoding;
use crate::error::{Error, Result};

/// Extends `base` to `vocab_size` tokens (mergeable + special) with merges learned on `words`
/// (pre-tokenized with the base's pattern). Pairs seen fewer than `min_frequency` times are
/// never merged.
pub fn extend_bpe(
    base: &Encoding,
    words: &WordCounts,
    vocab_size: usize,
    min_frequency: u64,
) -> Result<TrainedBpe> {
    let bpe = base.bpe();
    let n_base = bpe.len();
    let n_specials = base.specials().len();
    if bpe.rank_bound() != n_base {
        return Err(Error::InvalidOption(format!(
            "the base vocabulary's ranks have gaps ({n_base} tokens, largest rank {}); \
             extension needs ranks 0..{n_base}",
            bpe.rank_bound().saturating_sub(1)
        )));
    }
    if vocab_size <= n_base + n_specials {
        return Err(Error::InvalidOption(format!(
            "vocab_size={vocab_size} must exceed the base vocabulary's {} tokens \
             ({n_base} mergeable + {n_specials} special)",
            n_base + n_specials
        )));
    }
    if words.is_empty() {
        return Err(Error::EmptyCorpus);
    }
    let alphabet: Vec<Vec<u8>> = (0..n_base as u32)
        .map(|r| bpe.token_bytes(r).map(<[u8]>::to_vec).unwrap_or_default())
        .collect();
    let mut list = Vec::with_capacity(words.len());
    for (word, count) in words.iter() {
        let ids: Vec<Sym> = bpe.encode(word)?;
        list.push((ids, count));
    }
    list.sort_unstable();
    let mut state = MergeLoop::new(alphabet, list, LengthRule::Unlimited);
    let target = vocab_size - n_specials;
    let merges = state.run(target, min_frequency, |_| true);
    let tokens = state.tokens();
    let special_ids: std::collections::HashSet<u32> =
        base.specials().iter().map(|(_, id)| id).collect();
    let mut next = n_base as u32;
    let mut ranks: Vec<(Vec<u8>, u32)> = Vec::with_capacity(tokens.len());
    for (id, token) in tokens.iter().enumerate() {
        let rank = if id < n_base {
            id as u32
        } else {
            while special_ids.contains(&next) {
                next += 1;
            }
            next += 1;
            next - 1
        };
        ranks.push((token.clone(), rank));
    }
    let merges = state.merge_bytes(&merges);
    let specials = base
        .specials()
        .iter()
        .map(|(s, id)| (s.to_string(), id))
        .collect();
    Ok(TrainedBpe {
        ranks,
        merges,
        specials,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pre_tokenizers::{PreTokenizer, R50K_PATTERN};
    use crate::trainers::BpeTrainer;

    fn counts(texts: &[&str]) -> WordCounts {
        let pre = PreTokenizer::new(R50K_PATTERN).unwrap();
        let mut c = WordCounts::new();
        c.add_texts(&pre, texts).unwrap();
        c
    }

    #[test]
    fn keeps_base_ids_and_skips_special_ids() {
        let base = BpeTrainer::new(300)
            .special_tokens(["<s>"])
            .train(&counts(&["the quick brown fox jumps over the lazy dog"; 4]))
            .unwrap();
        let base_enc = base.clone().into_encoding(R50K_PATTERN).unwrap();
        let special_id = base.specials[0].1;
        let domain = counts(&["tokenizer tokenizers tokenization tokens"; 6]);
        let ext = extend_bpe(&base_enc, &domain, 330, 2).unwrap();
        for (bytes, rank) in &base.ranks {
            assert!(
                ext.ranks.contains(&(bytes.clone(), *rank)),
                "{bytes:?} kept {rank}"
            );
        }
        assert_eq!(ext.specials, base.specials);
        assert!(ext.ranks.iter().all(|(_, r)| *r != special_id));
        let enc = ext.into_encoding(R50K_PATTERN).unwrap();
        let text = " tokenization tokenizers";
        let before = base_enc.encode_ordinary(text).unwrap().len();
        let after = enc.encode_ordinary(text).unwrap().len();
        assert!(
            after < before,
            "extension must shorten domain text: {before} -> {after}"
        );
        let ids = enc.encode_ordinary(text).unwrap();
        assert_eq!(enc.decode_bytes(&ids).unwrap(), text.as_bytes());
    }

    #[test]
    fn rejects_a_vocab_size_that_does_not_grow() {
        let base = BpeTrainer::new(270)
            .train(&counts(&["aaa bbb"; 3]))
            .unwrap()
            .into_encoding(R50K_PATTERN)
            .unwrap();
        let err = extend_bpe(&base, &counts(&["ccc"]), 260, 0).unwrap_err();
        assert!(err.to_string().contains("must exceed"), "{err}");
        assert!(matches!(
            extend_bpe(&base, &WordCounts::new(), 300, 0),
            Err(Error::EmptyCorpus)
        ));
    }
}
