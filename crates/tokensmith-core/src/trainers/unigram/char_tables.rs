//! Tables indexed by code point, for the passes over every character of every word that
//! choose the alphabet: counting each character, and finding the words that hold one
//! outside it. A table read per character costs less than hashing the character.
//!
//! ```
//! use tokensmith_core::trainers::unigram::char_tables::{char_counts, CharSet};
//! let words = vec![("ab".to_string(), 2), ("b😀".to_string(), 1)];
//! let mut counts: Vec<(char, u64)> = char_counts(&words).into_iter().collect();
//! counts.sort_unstable();
//! assert_eq!(counts, [('a', 2), ('b', 3), ('😀', 1)]);
//! let set = CharSet::new(['a', 'b']);
//! assert!(set.contains('b') && !set.contains('😀'));
//! ```

use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// Code points below this are counted in a table, the others in a map.
const TABLE: usize = 0x1_0000;
/// Words counted per task, at least (each task zeroes and sums a table).
const MIN_WORDS_PER_TASK: usize = 16_384;

/// How often each character occurs in `words`, each occurrence times its word's count
/// (summed as `u64`); characters that never occur are left out.
/// Counted on the current pool.
pub fn char_counts(words: &[(String, u64)]) -> FxHashMap<char, u64> {
    let per_task = MIN_WORDS_PER_TASK.max(words.len().div_ceil(4 * rayon::current_num_threads()));
    let (table, mut rest) = words
        .par_chunks(per_task)
        .map(|block| {
            let mut table = vec![0u64; TABLE];
            let mut rest: FxHashMap<char, u64> = FxHashMap::default();
            for (i, (w, n)) in block.iter().enumerate() {
                fetch_ahead(block, i);
                for c in w.chars() {
                    match table.get_mut(c as usize) {
                        Some(slot) => *slot += n,
                        None => *rest.entry(c).or_insert(0) += n,
                    }
                }
            }
            (table, rest)
        })
        .reduce(
            || (vec![0u64; TABLE], FxHashMap::default()),
            |(mut table, mut rest), (other, more)| {
                for (slot, n) in table.iter_mut().zip(other) {
                    *slot += n;
                }
                for (c, n) in more {
                    *rest.entry(c).or_insert(0) += n;
                }
                (table, rest)
            },
        );
    // A surrogate's slot stays 0: no `char` is one.
    for (code, &n) in table.iter().enumerate() {
        if let Some(c) = char::from_u32(code as u32).filter(|_| n > 0) {
            rest.insert(c, n);
        }
    }
    rest
}

/// Words whose text is fetched ahead of the one being read.
const WORDS_AHEAD: usize = 8;

/// Starts loading the text of the word [`WORDS_AHEAD`] after `words[i]`: each word's text
/// is an allocation of its own, far from the last one, and a pass over every word's text
/// waited for memory at nearly each word.
pub fn fetch_ahead(words: &[(String, u64)], i: usize) {
    if let Some((w, _)) = words.get(i + WORDS_AHEAD) {
        crate::models::bpe::prefetch(w.as_ptr());
    }
}

/// A set of characters, looked up by code point.
#[derive(Debug, Clone, Default)]
pub struct CharSet {
    member: Vec<bool>,
}

impl CharSet {
    pub fn new(chars: impl IntoIterator<Item = char>) -> Self {
        let mut member = Vec::new();
        for c in chars {
            let i = c as usize;
            if i >= member.len() {
                member.resize(i + 1, false);
            }
            member[i] = true;
        }
        Self { member }
    }

    pub fn contains(&self, c: char) -> bool {
        self.member.get(c as usize).copied().unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_one_map_across_tasks_and_planes() {
        let mut rng = crate::models::unigram::SplitMix64::new(9);
        let alphabet = ['a', 'é', '▁', '中', '\u{FFFF}', '😀', '\u{10FFFF}', '\0'];
        // More words than one task holds, so the tables of several tasks are summed.
        let words: Vec<(String, u64)> = (0..3 * MIN_WORDS_PER_TASK)
            .map(|_| {
                let len = rng.next_u64() % 6;
                let w = (0..len)
                    .map(|_| alphabet[(rng.next_u64() % 8) as usize])
                    .collect();
                (w, 1 + rng.next_u64() % 4)
            })
            .collect();
        let mut want: FxHashMap<char, u64> = FxHashMap::default();
        for (w, n) in &words {
            for c in w.chars() {
                *want.entry(c).or_insert(0) += n;
            }
        }
        assert_eq!(char_counts(&words), want);
        assert!(char_counts(&[]).is_empty());
        let set = CharSet::new(['\u{10FFFF}', 'a']);
        assert!(set.contains('a') && set.contains('\u{10FFFF}'));
        assert!(!set.contains('b') && !set.contains('\0'));
    }
}
