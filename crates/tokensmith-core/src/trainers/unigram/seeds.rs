//! Seed pieces: every required character, then the frequent substrings that score highest by
//! `frequency × length in characters`, found with a suffix array.
//!
//! sentencepiece builds its suffix array over every sentence of the corpus (its memory grows
//! with the corpus). Here it is built over the distinct words only, each followed by a 0
//! byte, and every suffix carries its word's count as a weight: the frequency of a substring
//! is the weighted number of suffixes it starts, which is what it would be over the corpus,
//! since (with `split_by_whitespace`) no piece crosses a word boundary. Memory is about 13
//! bytes per byte of distinct words.
//!
//! Candidates are the substrings at the nodes of the suffix tree (bottom-up traversal of the
//! LCP intervals), plus each word suffix whose weight is at least 2 (a suffix repeated only by
//! its word's count is a leaf here but a repeat in the corpus). Each is cut to its longest
//! prefix that is a valid piece; its frequency is the node's, a lower bound for the cut string,
//! and when a string comes from several nodes its highest score counts. A node string that
//! is too long or mixes scripts is therefore cut, where sentencepiece drops it.
//!
//! Ties: equal scores go by the string's bytes, ascending.
//!
//! ```
//! use tokensmith_core::trainers::unigram::{seed_pieces, PieceRules};
//! let words = vec![("▁abab".to_string(), 3), ("▁ab".to_string(), 2)];
//! let chars = vec![('a', 10), ('b', 10), ('▁', 5)];
//! let seeds = seed_pieces(&words, &chars, &PieceRules::default(), 1000).unwrap();
//! let names: Vec<&str> = seeds.iter().map(|(s, _)| s.as_str()).collect();
//! // "ab" occurs 8 times × 2 characters = 16; "▁ab" 5 times × 3 = 15.
//! assert_eq!(&names[..3], ["a", "b", "▁"]);
//! assert_eq!(names[3], "ab");
//! ```

use rustc_hash::FxHashSet;

use super::piece_rules::PieceRules;
use crate::error::{Error, Result};

/// A substring of the word text: its byte range and score.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    score: u64,
    start: u32,
    len: u32,
}

/// Seed pieces with log-probability scores: `chars` first (in the given order), then the
/// best substrings, `seed_size` pieces at most in all.
pub fn seed_pieces(
    words: &[(String, u64)],
    chars: &[(char, u64)],
    rules: &PieceRules,
    seed_size: usize,
) -> Result<Vec<(String, f64)>> {
    let mut text = Vec::new();
    let mut starts = Vec::with_capacity(words.len());
    for (w, _) in words {
        starts.push(text.len() as u64);
        text.extend_from_slice(w.as_bytes());
        text.push(0);
    }
    if text.len() >= i32::MAX as usize {
        return Err(Error::InvalidOption(format!(
            "the {} distinct words hold {} bytes, more than the suffix array takes (2 GiB); \
             set input_sentence_size to train on a sample",
            words.len(),
            text.len()
        )));
    }
    let weight_of = |pos: usize| -> u64 {
        if text[pos] == 0 {
            return 0;
        }
        let w = starts.partition_point(|&s| s <= pos as u64) - 1;
        words[w].1
    };
    let max_bytes = rules.max_piece_length.saturating_mul(4);
    let sa = suffix_array(&text);
    let lcp = lcp_array(&text, &sa, max_bytes);
    let room = seed_size.saturating_sub(chars.len());
    let mut queue = BoundedQueue::new(room);
    let mut consider = |pos: usize, len: usize, freq: u64| {
        if freq < 2 || len < 2 || (text[pos] & 0xC0) == 0x80 {
            return;
        }
        let raw = &text[pos..(pos + len).min(pos + max_bytes)];
        let raw = match raw.iter().position(|&b| b == 0) {
            Some(end) => &raw[..end],
            None => raw,
        };
        let s = match std::str::from_utf8(raw) {
            Ok(s) => s,
            // Cut inside a character: keep the whole characters.
            Err(e) => std::str::from_utf8(&raw[..e.valid_up_to()]).unwrap_or_default(),
        };
        let keep = rules.longest_valid_prefix(s);
        let n_chars = s[..keep].chars().count() as u64;
        if n_chars >= 2 {
            queue.push(
                Candidate {
                    score: freq * n_chars,
                    start: pos as u32,
                    len: keep as u32,
                },
                &text,
            );
        }
    };
    // Bottom-up traversal of the LCP intervals: (lcp, left bound, weight so far).
    let mut stack: Vec<(u32, usize, u64)> = vec![(0, 0, 0)];
    let n = sa.len();
    for i in 0..n {
        let pos = sa[i] as usize;
        let w = weight_of(pos);
        let to_end = text[pos..].iter().position(|&b| b == 0).unwrap_or(0);
        consider(pos, to_end, w);
        let next = if i + 1 < n { lcp[i + 1] } else { 0 };
        let (mut lb, mut acc) = (i, w);
        while next < stack.last().map_or(0, |t| t.0) {
            let (depth, left, weight) = stack.pop().unwrap_or((0, 0, 0));
            let total = weight + acc;
            consider(sa[left] as usize, depth as usize, total);
            lb = left;
            acc = total;
        }
        match stack.last_mut() {
            Some(top) if top.0 == next => top.2 += acc,
            _ => stack.push((next, lb, acc)),
        }
    }
    let ranked = queue.finish(&text);
    let mut seeds: Vec<(String, f64)> = chars
        .iter()
        .map(|&(c, n)| (c.to_string(), n as f64))
        .collect();
    let mut seen: FxHashSet<&[u8]> = FxHashSet::default();
    for c in ranked {
        if seeds.len() >= seed_size {
            break;
        }
        let bytes = &text[c.start as usize..(c.start + c.len) as usize];
        if seen.insert(bytes) {
            let s = std::str::from_utf8(bytes).unwrap_or_default().to_string();
            seeds.push((s, c.score as f64));
        }
    }
    let log_sum = seeds.iter().map(|s| s.1).sum::<f64>().ln();
    for s in &mut seeds {
        s.1 = s.1.ln() - log_sum;
    }
    Ok(seeds)
}

fn suffix_array(text: &[u8]) -> Vec<i32> {
    let mut sa = vec![0i32; text.len()];
    if !text.is_empty() {
        divsufsort::sort_in_place(text, &mut sa);
    }
    sa
}

/// `lcp[i]` = the common prefix of suffixes `sa[i-1]` and `sa[i]` (Kasai's algorithm), not
/// counting past a 0 byte nor beyond `cap` bytes: both bounds shrink by at most one from a
/// position to the next, which keeps the algorithm linear.
fn lcp_array(text: &[u8], sa: &[i32], cap: usize) -> Vec<u32> {
    let n = text.len();
    let mut rank = vec![0u32; n];
    for (i, &p) in sa.iter().enumerate() {
        rank[p as usize] = i as u32;
    }
    let mut lcp = vec![0u32; n];
    let mut h = 0usize;
    for i in 0..n {
        let r = rank[i] as usize;
        if r == 0 {
            h = 0;
            continue;
        }
        let j = sa[r - 1] as usize;
        while h < cap && i + h < n && j + h < n && text[i + h] == text[j + h] && text[i + h] != 0 {
            h += 1;
        }
        lcp[r] = h as u32;
        h = h.saturating_sub(1);
    }
    lcp
}

/// Keeps the best `size` candidates (by score, then bytes) while holding at most 4 × `size`.
struct BoundedQueue {
    size: usize,
    items: Vec<Candidate>,
    floor: Option<u64>,
}

impl BoundedQueue {
    fn new(size: usize) -> Self {
        Self {
            size,
            items: Vec::new(),
            floor: None,
        }
    }

    fn push(&mut self, c: Candidate, text: &[u8]) {
        if self.size == 0 || self.floor.is_some_and(|f| c.score < f) {
            return;
        }
        self.items.push(c);
        if self.items.len() > 4 * self.size {
            self.shrink(text);
        }
    }

    fn shrink(&mut self, text: &[u8]) {
        let bytes = |c: &Candidate| &text[c.start as usize..(c.start + c.len) as usize];
        self.items
            .sort_unstable_by(|a, b| b.score.cmp(&a.score).then_with(|| bytes(a).cmp(bytes(b))));
        // Duplicates (the same string from several nodes) would crowd out other strings.
        let mut seen: FxHashSet<&[u8]> = FxHashSet::default();
        self.items.retain(|c| seen.insert(bytes(c)));
        self.items.truncate(self.size);
        if self.items.len() == self.size {
            self.floor = self.items.last().map(|c| c.score);
        }
    }

    fn finish(mut self, text: &[u8]) -> Vec<Candidate> {
        self.shrink(text);
        self.items
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: every substring of every word, weighted by the word's count.
    fn brute(words: &[(String, u64)], rules: &PieceRules) -> Vec<(String, u64)> {
        let mut freq = std::collections::BTreeMap::<String, u64>::new();
        for (w, n) in words {
            let chars: Vec<(usize, char)> = w.char_indices().collect();
            for a in 0..chars.len() {
                for b in a + 2..=chars.len() {
                    let end = chars.get(b).map_or(w.len(), |c| c.0);
                    let s = &w[chars[a].0..end];
                    if rules.is_valid(s) {
                        *freq.entry(s.to_string()).or_insert(0) += n;
                    }
                }
            }
        }
        freq.into_iter().filter(|(_, f)| *f >= 2).collect()
    }

    #[test]
    fn frequencies_match_brute_force_for_the_best_strings() {
        let words: Vec<(String, u64)> = [
            ("▁banana", 3),
            ("▁bandana", 2),
            ("▁an", 5),
            ("▁cabana", 1),
            ("ana", 1),
        ]
        .iter()
        .map(|(w, n)| (w.to_string(), *n))
        .collect();
        let rules = PieceRules::default();
        let seeds = seed_pieces(&words, &[('a', 1)], &rules, 1000).unwrap();
        let expected = brute(&words, &rules);
        let total: f64 = 1.0
            + seeds[1..]
                .iter()
                .map(|(s, _)| {
                    let f = expected.iter().find(|(e, _)| e == s).unwrap().1;
                    (f * s.chars().count() as u64) as f64
                })
                .sum::<f64>();
        // Every seed's score is its exact frequency × length (the node carrying it is the
        // longest string with its set of occurrences).
        for (s, logp) in &seeds[1..] {
            let f = expected.iter().find(|(e, _)| e == s).unwrap().1;
            let want = ((f * s.chars().count() as u64) as f64).ln() - total.ln();
            assert!((logp - want).abs() < 1e-9, "{s}: {logp} vs {want}");
        }
        let names: Vec<&str> = seeds.iter().map(|(s, _)| s.as_str()).collect();
        assert!(names.contains(&"▁an"));
        assert!(names.contains(&"ana"));
        assert!(names.contains(&"▁banana"));
    }

    #[test]
    fn lcp_stops_at_word_ends() {
        let text = b"ab\0ab\0";
        let sa = suffix_array(text);
        let lcp = lcp_array(text, &sa, 64);
        assert_eq!(lcp.iter().max(), Some(&2));
    }
}
