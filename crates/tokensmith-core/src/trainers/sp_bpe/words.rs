//! The words being merged: each a sequence of symbol ids, with its count.
//!
//! Merging a pair in a word goes left to right, as sentencepiece walks a pair's positions in
//! order: `a a a` with `a`+`a` becomes `aa a` (the second occurrence overlaps the first and
//! is gone once the first is merged). Each merge reports what sentencepiece's trainer does
//! to the neighbouring pairs, in its order: the old pairs `[prev, left]` and `[right, next]`
//! lose an occurrence (`Lost`), then the new pairs `[prev, merged]` and `[merged, next]`
//! gain one (`Gained`).

/// A change to one pair's occurrences, from one merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Lost(u32, u32),
    Gained(u32, u32),
}

/// Replaces each `left right` in `word` by `merged`, left to right; returns the changes to
/// the neighbouring pairs, in order (empty if the pair does not occur).
///
/// ```
/// use tokensmith_core::trainers::sp_bpe::{merge_word, Change};
/// let mut word = vec![1, 1, 1, 2];
/// let changes = merge_word(&mut word, 1, 1, 9);
/// assert_eq!(word, [9, 1, 2]);
/// assert_eq!(changes, [Change::Lost(1, 1), Change::Gained(9, 1)]);
/// ```
pub fn merge_word(word: &mut Vec<u32>, left: u32, right: u32, merged: u32) -> Vec<Change> {
    let mut changes = Vec::new();
    merge_word_into(word, left, right, merged, &mut changes);
    changes
}

/// [`merge_word`], appending the changes to `changes`.
pub fn merge_word_into(
    word: &mut Vec<u32>,
    left: u32,
    right: u32,
    merged: u32,
    changes: &mut Vec<Change>,
) {
    let mut i = 0;
    while i + 1 < word.len() {
        if word[i] != left || word[i + 1] != right {
            i += 1;
            continue;
        }
        let prev = i.checked_sub(1).map(|p| word[p]);
        let next = word.get(i + 2).copied();
        if let Some(p) = prev {
            changes.push(Change::Lost(p, left));
        }
        if let Some(n) = next {
            changes.push(Change::Lost(right, n));
        }
        word[i] = merged;
        word.remove(i + 1);
        if let Some(p) = prev {
            changes.push(Change::Gained(p, merged));
        }
        if let Some(n) = next {
            changes.push(Change::Gained(merged, n));
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_pairs_merge_left_to_right() {
        // x y x y: the second merge takes the pair [merged, x] the first one made.
        let mut word = vec![1, 2, 1, 2];
        let changes = merge_word(&mut word, 1, 2, 7);
        assert_eq!(word, [7, 7]);
        assert_eq!(
            changes,
            [
                Change::Lost(2, 1),
                Change::Gained(7, 1),
                Change::Lost(7, 1),
                Change::Gained(7, 7)
            ]
        );
        let mut word = vec![1, 1, 1, 1];
        merge_word(&mut word, 1, 1, 5);
        assert_eq!(word, [5, 5]);
        let mut word = vec![3, 4];
        assert!(merge_word(&mut word, 1, 2, 7).is_empty());
        assert_eq!(word, [3, 4]);
    }
}
