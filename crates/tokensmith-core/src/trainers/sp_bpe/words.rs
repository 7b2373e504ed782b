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
    let len = merge_in_place(word, left, right, merged, changes);
    word.truncate(len);
}

/// [`merge_word_into`] on a slice: the merged word is `word[..returned length]`.
pub fn merge_in_place(
    word: &mut [u32],
    left: u32,
    right: u32,
    merged: u32,
    changes: &mut Vec<Change>,
) -> usize {
    // A word a pair has left since it was listed is only read.
    let Some(first) = word.windows(2).position(|w| w[0] == left && w[1] == right) else {
        return word.len();
    };
    // One pass, copying each kept symbol down over the merged ones: `word[..out]` is done,
    // `word[at..]` is still as it was.
    let (mut out, mut at) = (first, first);
    while at < word.len() {
        if at + 1 == word.len() || word[at] != left || word[at + 1] != right {
            word[out] = word[at];
            out += 1;
            at += 1;
            continue;
        }
        let prev = out.checked_sub(1).map(|p| word[p]);
        let next = word.get(at + 2).copied();
        if let Some(p) = prev {
            changes.push(Change::Lost(p, left));
        }
        if let Some(n) = next {
            changes.push(Change::Lost(right, n));
        }
        if let Some(p) = prev {
            changes.push(Change::Gained(p, merged));
        }
        if let Some(n) = next {
            changes.push(Change::Gained(merged, n));
        }
        word[out] = merged;
        out += 1;
        at += 2;
    }
    out
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

    /// The merge as sentencepiece walks it: find an occurrence, merge it, go on after it.
    fn one_by_one(word: &mut Vec<u32>, left: u32, right: u32, merged: u32) -> Vec<Change> {
        let mut changes = Vec::new();
        let mut i = 0;
        while i + 1 < word.len() {
            if (word[i], word[i + 1]) != (left, right) {
                i += 1;
                continue;
            }
            let prev = i.checked_sub(1).map(|p| word[p]);
            let next = word.get(i + 2).copied();
            changes.extend(prev.map(|p| Change::Lost(p, left)));
            changes.extend(next.map(|n| Change::Lost(right, n)));
            word[i] = merged;
            word.remove(i + 1);
            changes.extend(prev.map(|p| Change::Gained(p, merged)));
            changes.extend(next.map(|n| Change::Gained(merged, n)));
            i += 1;
        }
        changes
    }

    #[test]
    fn one_pass_merges_as_one_by_one() {
        let mut rng = crate::models::unigram::SplitMix64::new(3);
        for _ in 0..20_000 {
            let len = (rng.next_u64() % 9) as usize;
            let word: Vec<u32> = (0..len).map(|_| (rng.next_u64() % 3) as u32).collect();
            let (left, right) = ((rng.next_u64() % 3) as u32, (rng.next_u64() % 3) as u32);
            let (mut got, mut want) = (word.clone(), word.clone());
            let changes = merge_word(&mut got, left, right, 9);
            assert_eq!(changes, one_by_one(&mut want, left, right, 9), "{word:?}");
            assert_eq!(got, want, "{word:?}");
        }
    }
}
