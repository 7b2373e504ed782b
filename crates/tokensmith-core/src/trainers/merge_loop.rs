//! The BPE merge loop, independent of how words were split into initial symbols.
//!
//! State: each distinct word as a sequence of symbol ids with its count (all words in one flat
//! array, merged in place), the count of every adjacent pair (weighted by word counts,
//! overlaps included) and a pair -> words index (both in [`super::pair_table`], counted in
//! parallel at the start), and a max-heap of `(count, pair)` entries updated lazily.
//!
//! One step:
//! 1. Pop the top entry. If its count is stale (a merge lowered the pair's count since it was
//!    pushed), push it back with the current count and pop again. Counts of existing pairs only
//!    ever go down, and every pair whose count goes up is pushed afresh, so the first entry
//!    whose count is current is the true maximum.
//! 2. Merge the pair, left to right without overlaps, in the words the index lists for it, and
//!    only in those. Each occurrence turns `(p, a) (a, b) (b, n)` into `(p, ab) (ab, n)`.
//! 3. Push every pair that gained occurrences, with its current count.
//!
//! **Tie-break.** Among pairs of equal count the smallest `(left id, right id)` wins. Ids are
//! the symbols' positions in the alphabet given to [`MergeLoop::new`], then merged tokens in
//! the order they were created. This is HF `BpeTrainer`'s rule; the caller picks the alphabet
//! order (see [`super::Compat`]). A merge whose result equals an existing token (`a`+`bc` and
//! `ab`+`c`) reuses that token's id, as HF does.
//!
//! **Likelihood scoring** ([`MergeLoop::step_by_likelihood`], WordPiece's original rule):
//! the pair with the largest `count(ab) / (count(a) · count(b))` wins, where `count(x)` is how
//! often symbol `x` occurs in the words now. A merge elsewhere lowers `count(a)` and so raises
//! the scores of other pairs, which a lazy max-heap cannot follow; this step scans every pair
//! instead (slower, used only when asked for). Symbol counts are updated once per merge, from
//! the number of occurrences merged, so the default count-ordered path does no extra work per
//! occurrence beyond one addition. Ties go to the smaller pair of ids, as above.
//!
//! Not handled here: parallel merging within one step (words are updated on one thread).

use rustc_hash::FxHashMap;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::pair_table::PairTable;

/// A symbol id: an index into the token table.
pub type Sym = u32;
/// An adjacent pair of symbols.
pub type Pair = (Sym, Sym);

/// How the next merge is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scoring {
    /// The most frequent pair (BPE, and HF's `WordPieceTrainer`).
    #[default]
    Frequency,
    /// The pair of largest `count(ab) / (count(a) · count(b))` (WordPiece's original rule).
    Likelihood,
}

/// Which merged lengths may become tokens. Lengths are counted in units: bytes for
/// byte-level training, initial symbols (characters, prefix and suffix excluded) for
/// character-level training, as HF counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LengthRule {
    /// No limit.
    Unlimited,
    /// Tokens of at most this many units.
    AtMost(usize),
    /// HF `BpeTrainer`'s rule for `max_token_length = n`: pairs of two initial symbols are
    /// always counted, a pair formed by a merge only if its length is strictly below `n`.
    HfStrictlyBelow(usize),
}

impl LengthRule {
    fn initial_ok(self, len: usize) -> bool {
        match self {
            Self::AtMost(n) => len <= n,
            Self::Unlimited | Self::HfStrictlyBelow(_) => true,
        }
    }

    fn formed_ok(self, len: usize) -> bool {
        match self {
            Self::Unlimited => true,
            Self::AtMost(n) => len <= n,
            Self::HfStrictlyBelow(n) => len < n,
        }
    }
}

/// One learned merge: `left` + `right` -> `merged` (ids in the loop's id space).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Merge {
    pub left: Sym,
    pub right: Sym,
    pub merged: Sym,
    /// The pair's count when it was chosen.
    pub count: u64,
}

#[derive(Debug, PartialEq, Eq)]
struct Entry {
    count: u64,
    pair: Pair,
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        // A max-heap on count; on equal counts the smaller pair must come out first.
        self.count
            .cmp(&other.count)
            .then_with(|| other.pair.cmp(&self.pair))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The merge loop's state. See the module docs.
pub struct MergeLoop {
    tokens: Vec<Vec<u8>>,
    /// Each token's length in units (see [`LengthRule`]).
    lens: Vec<usize>,
    /// Stripped from the right side of a merge (`##`): `a` + `##b` = `ab`.
    prefix: Vec<u8>,
    token_ids: FxHashMap<Vec<u8>, Sym>,
    /// Every word's symbols, one after another: word `w` is
    /// `syms[starts[w]..starts[w] + word_lens[w]]`. Merges shorten words in place.
    syms: Vec<Sym>,
    starts: Vec<u32>,
    word_lens: Vec<u32>,
    counts: Vec<u64>,
    pairs: PairTable,
    heap: BinaryHeap<Entry>,
    rule: LengthRule,
    /// How often each symbol occurs in the words (kept only for likelihood scoring).
    sym_counts: Option<Vec<u64>>,
}

impl MergeLoop {
    /// Starts from an alphabet (id = position; order = tie-break order) and words written in
    /// it. Words must only use ids below `alphabet.len()`. Lengths are counted in bytes.
    pub fn new(alphabet: Vec<Vec<u8>>, words: Vec<(Vec<Sym>, u64)>, rule: LengthRule) -> Self {
        let units = alphabet.iter().map(Vec::len).collect();
        Self::with_units(alphabet, units, Vec::new(), words, rule)
    }

    /// Like [`new`](Self::new), with each initial symbol's length in units given, and a
    /// continuing-subword `prefix` stripped from the right side of every merge (empty: none).
    pub fn with_units(
        alphabet: Vec<Vec<u8>>,
        units: Vec<usize>,
        prefix: Vec<u8>,
        words: Vec<(Vec<Sym>, u64)>,
        rule: LengthRule,
    ) -> Self {
        let token_ids = alphabet
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), i as Sym))
            .collect();
        let total: usize = words.iter().map(|(w, _)| w.len()).sum();
        let mut syms = Vec::with_capacity(total);
        let mut starts = Vec::with_capacity(words.len());
        let mut word_lens = Vec::with_capacity(words.len());
        let mut counts = Vec::with_capacity(words.len());
        for (word, n) in words {
            starts.push(syms.len() as u32);
            word_lens.push(word.len() as u32);
            syms.extend_from_slice(&word);
            counts.push(n);
        }
        let lens: &Vec<usize> = &units;
        let pairs = PairTable::count(&syms, &starts, &word_lens, &counts, |(a, b)| {
            rule.initial_ok(lens[a as usize] + lens[b as usize])
        });
        let heap = pairs
            .iter()
            .filter(|&(_, c)| c > 0)
            .map(|(pair, c)| Entry {
                count: c as u64,
                pair,
            })
            .collect();
        Self {
            tokens: alphabet,
            lens: units,
            prefix,
            token_ids,
            syms,
            starts,
            word_lens,
            counts,
            pairs,
            heap,
            rule,
            sym_counts: None,
        }
    }

    /// Word `w`'s symbols now.
    fn word(&self, w: usize) -> &[Sym] {
        let start = self.starts[w] as usize;
        &self.syms[start..start + self.word_lens[w] as usize]
    }

    /// The current count of every pair with a positive count, sorted by pair (for tests).
    pub fn pair_counts(&self) -> Vec<(Pair, u64)> {
        let mut out: Vec<_> = self
            .pairs
            .iter()
            .filter(|&(_, c)| c > 0)
            .map(|(p, c)| (p, c as u64))
            .collect();
        out.sort_unstable();
        out
    }

    /// The bytes of every token, by id.
    pub fn tokens(&self) -> &[Vec<u8>] {
        &self.tokens
    }

    /// Steps until the table holds `target` tokens or no pair reaches `min_count`, calling
    /// `progress(n)` after the n-th merge; returns the merges in order. Stops early, after
    /// the merge it was told of, when `progress` returns false (an interrupted run).
    pub fn run(
        &mut self,
        target: usize,
        min_count: u64,
        mut progress: impl FnMut(usize) -> bool,
    ) -> Vec<Merge> {
        let mut merges = Vec::new();
        while self.tokens().len() < target {
            let Some(m) = self.step(min_count) else {
                break;
            };
            merges.push(m);
            if !progress(merges.len()) {
                break;
            }
        }
        merges
    }

    /// The bytes of each merge's two sides.
    pub fn merge_bytes(&self, merges: &[Merge]) -> Vec<(Vec<u8>, Vec<u8>)> {
        let tokens = self.tokens();
        merges
            .iter()
            .map(|m| {
                (
                    tokens[m.left as usize].clone(),
                    tokens[m.right as usize].clone(),
                )
            })
            .collect()
    }

    /// Learns one merge whose count is at least `min_count` (and at least 1).
    pub fn step(&mut self, min_count: u64) -> Option<Merge> {
        if self.sym_counts.is_some() {
            return self.step_by_likelihood(min_count);
        }
        let top = loop {
            let mut top = self.heap.pop()?;
            let current = self.pairs.get(top.pair).max(0) as u64;
            if top.count == current {
                break top;
            }
            top.count = current;
            self.heap.push(top);
        };
        if top.count < min_count.max(1) {
            return None;
        }
        Some(self.merge(top.pair, top.count))
    }

    /// Switches [`step`](Self::step) to likelihood scoring (see the module docs).
    pub fn use_likelihood(&mut self) {
        let mut counts = vec![0u64; self.tokens.len()];
        for (w, &n) in self.counts.iter().enumerate() {
            for &s in self.word(w) {
                counts[s as usize] += n;
            }
        }
        self.sym_counts = Some(counts);
        self.heap.clear();
    }

    /// Learns the merge of highest likelihood score among pairs seen at least `min_count`
    /// times (and at least once). Switches to likelihood scoring if not already on.
    pub fn step_by_likelihood(&mut self, min_count: u64) -> Option<Merge> {
        if self.sym_counts.is_none() {
            self.use_likelihood();
        }
        let syms = self.sym_counts.as_deref().unwrap_or_default();
        let floor = min_count.max(1) as i64;
        let mut best: Option<(Pair, u64, u128)> = None;
        for (pair, c) in self.pairs.iter() {
            if c < floor {
                continue;
            }
            let c = c as u64;
            let d = u128::from(syms[pair.0 as usize]) * u128::from(syms[pair.1 as usize]);
            let better = match best {
                None => true,
                Some((p, bc, bd)) => match score_order(c, d, bc, bd) {
                    Ordering::Greater => true,
                    Ordering::Equal => pair < p,
                    Ordering::Less => false,
                },
            };
            if better {
                best = Some((pair, c, d));
            }
        }
        let (pair, count, _) = best?;
        Some(self.merge(pair, count))
    }

    /// Merges `pair` (seen `count` times) into a token, new or existing.
    fn merge(&mut self, pair: Pair, count: u64) -> Merge {
        let (a, b) = pair;
        let mut bytes = self.tokens[a as usize].clone();
        let right = &self.tokens[b as usize];
        bytes.extend_from_slice(right.strip_prefix(self.prefix.as_slice()).unwrap_or(right));
        let merged = match self.token_ids.get(&bytes) {
            Some(&id) => id,
            None => {
                let id = self.tokens.len() as Sym;
                self.token_ids.insert(bytes.clone(), id);
                self.tokens.push(bytes);
                self.lens
                    .push(self.lens[a as usize] + self.lens[b as usize]);
                id
            }
        };
        let occurrences = self.apply(pair, merged);
        if let Some(syms) = self.sym_counts.as_mut() {
            syms.resize(self.tokens.len(), 0);
            syms[a as usize] -= occurrences;
            syms[b as usize] -= occurrences;
            syms[merged as usize] += occurrences;
        }
        Merge {
            left: a,
            right: b,
            merged,
            count,
        }
    }

    /// Merges `pair` in every word holding it, in place; returns the occurrences merged
    /// (word counts included).
    fn apply(&mut self, pair: Pair, merged: Sym) -> u64 {
        let word_ids = self.pairs.take(pair);
        let Self {
            lens,
            syms,
            starts,
            word_lens,
            counts,
            pairs,
            rule,
            ..
        } = self;
        let merged_len = lens[merged as usize];
        let mut occurrences = 0u64;
        for w in word_ids {
            let count = counts[w as usize] as i64;
            let start = starts[w as usize] as usize;
            let len = word_lens[w as usize] as usize;
            let word = &mut syms[start..start + len];
            // Reads at `i`, writes at `j <= i`: a merge only ever shortens the word.
            let (mut i, mut j) = (0, 0);
            while i < len {
                if i + 1 < len && (word[i], word[i + 1]) == pair {
                    if j > 0 {
                        let prev = word[j - 1];
                        pairs.lower((prev, pair.0), count);
                        if rule.formed_ok(lens[prev as usize] + merged_len) {
                            pairs.raise((prev, merged), count, w);
                        }
                    }
                    if i + 2 < len {
                        let next = word[i + 2];
                        pairs.lower((pair.1, next), count);
                        if rule.formed_ok(merged_len + lens[next as usize]) {
                            pairs.raise((merged, next), count, w);
                        }
                    }
                    word[j] = merged;
                    occurrences += count as u64;
                    i += 2;
                } else {
                    word[j] = word[i];
                    i += 1;
                }
                j += 1;
            }
            word_lens[w as usize] = j as u32;
        }
        self.pairs.clear(pair);
        if self.sym_counts.is_none() {
            for (pair, count) in self.pairs.grown() {
                if count > 0 {
                    self.heap.push(Entry {
                        count: count as u64,
                        pair,
                    });
                }
            }
        }
        occurrences
    }
}

/// Compares the scores `c1 / d1` and `c2 / d2` (a zero denominator scores highest), exactly
/// while the cross products fit in 128 bits.
fn score_order(c1: u64, d1: u128, c2: u64, d2: u128) -> Ordering {
    match (d1 == 0, d2 == 0) {
        (true, true) => return c1.cmp(&c2),
        (true, false) => return Ordering::Greater,
        (false, true) => return Ordering::Less,
        (false, false) => {}
    }
    match (
        u128::from(c1).checked_mul(d2),
        u128::from(c2).checked_mul(d1),
    ) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => (c1 as f64 / d1 as f64).total_cmp(&(c2 as f64 / d2 as f64)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loop_over(words: &[(&str, u64)]) -> MergeLoop {
        let alphabet: Vec<Vec<u8>> = (b'a'..=b'z').map(|c| vec![c]).collect();
        let words = words
            .iter()
            .map(|(w, n)| (w.bytes().map(|c| (c - b'a') as Sym).collect(), *n))
            .collect();
        MergeLoop::new(alphabet, words, LengthRule::Unlimited)
    }

    #[test]
    fn overlapping_pairs_are_counted_but_merged_left_to_right() {
        let mut m = loop_over(&[("aaaa", 1), ("aaa", 2)]);
        assert_eq!(m.pair_counts(), vec![((0, 0), 3 + 2 * 2)]);
        let first = m.step(0).unwrap();
        assert_eq!((first.left, first.right, first.count), (0, 0, 7));
        // "aaaa" -> aa aa ; "aaa" -> aa a
        let aa = first.merged;
        assert_eq!(m.pair_counts(), vec![((aa, 0), 2), ((aa, aa), 1)]);
        let second = m.step(0).unwrap();
        assert_eq!((second.left, second.right, second.count), (aa, 0, 2));
        let third = m.step(0).unwrap();
        assert_eq!((third.left, third.right), (aa, aa));
        assert!(m.step(0).is_none());
    }

    #[test]
    fn min_count_stops_the_loop() {
        let mut m = loop_over(&[("ab", 3), ("cd", 1)]);
        assert!(m.step(2).is_some());
        assert!(m.step(2).is_none());
    }

    #[test]
    fn length_rules() {
        let words = [("abcabc", 5)];
        let mut at_most = loop_over(&words);
        at_most.rule = LengthRule::AtMost(2);
        let mut n = 0;
        while let Some(m) = at_most.step(0) {
            assert!(at_most.tokens()[m.merged as usize].len() <= 2);
            n += 1;
        }
        // "ab" is learned; "abc" and "cab" would be 3 bytes, and no other pair is left.
        assert_eq!(n, 1);
    }

    #[test]
    fn scores_compare_exactly_and_beyond_128_bits() {
        // 1/3 against 2/6: equal, which floats would not promise in general.
        assert_eq!(score_order(1, 3, 2, 6), Ordering::Equal);
        assert_eq!(score_order(2, 5, 1, 3), Ordering::Greater);
        // 2^63 * 2^70 is past 2^128, so floats decide: 2^63 / 2^100 = 2^-37 > 1 / 2^70.
        assert_eq!(
            score_order(1 << 63, 1 << 100, 1, 1 << 70),
            Ordering::Greater
        );
        assert_eq!(score_order(1, 1 << 70, 1 << 63, 1 << 100), Ordering::Less);
        assert_eq!(score_order(5, 0, 1, 1), Ordering::Greater);
    }

    #[test]
    fn symbol_counts_follow_merges() {
        // "aab" x2: a 4, b 2. Likelihood: (a, a) 2/16, (a, b) 2/8 -> "ab" first; then
        // a 2, ab 2: (a, ab) 2/4.
        let mut m = loop_over(&[("aab", 2)]);
        let first = m.step_by_likelihood(0).unwrap();
        assert_eq!(m.tokens()[first.merged as usize], b"ab");
        let second = m.step_by_likelihood(0).unwrap();
        assert_eq!(m.tokens()[second.merged as usize], b"aab");
        assert!(m.step_by_likelihood(0).is_none());
    }
}
