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
    // The word of each byte (u32::MAX on the 0 after each word).
    let mut word_of = vec![u32::MAX; text.len()];
    for (w, &start) in starts.iter().enumerate() {
        let len = words[w].0.len();
        word_of[start as usize..start as usize + len].fill(w as u32);
    }
    let weight_of = |pos: usize| -> u64 {
        match word_of[pos] {
            u32::MAX => 0,
            w => words[w as usize].1,
        }
    };
    let to_end = |pos: usize| -> usize {
        match word_of[pos] {
            u32::MAX => 0,
            w => (starts[w as usize] as usize + words[w as usize].0.len()) - pos,
        }
    };
    let max_bytes = rules.max_piece_length.saturating_mul(4);
    let sa = suffix_array(&text);
    let lcp = lcp_array(&text, &sa, max_bytes);
    let room = seed_size.saturating_sub(chars.len());
    let mut queue = BoundedQueue::new(room);
    // `parent` is the depth of the node's parent: a string no longer than that is also the
    // cut of the parent's string, which has at least as many occurrences, so it is left to
    // the parent. Each string is thus offered once, by the node that holds all its
    // occurrences.
    let mut consider = |pos: usize, len: usize, parent: usize, freq: u64| {
        if freq < 2 || len <= parent || (text[pos] & 0xC0) == 0x80 {
            return;
        }
        let raw = &text[pos..pos + len.min(max_bytes)];
        let s = match std::str::from_utf8(raw) {
            Ok(s) => s,
            // Cut inside a character: keep the whole characters.
            Err(e) => std::str::from_utf8(&raw[..e.valid_up_to()]).unwrap_or_default(),
        };
        let keep = rules.longest_valid_prefix(s);
        if keep <= parent {
            return;
        }
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
        let next = if i + 1 < n { lcp[i + 1] } else { 0 };
        if w >= 2 {
            // A leaf: the suffix up to its word's end; its parent is the deeper neighbour.
            let parent = lcp[i].max(next) as usize;
            consider(pos, to_end(pos), parent, w);
        }
        let (mut lb, mut acc) = (i, w);
        while next < stack.last().map_or(0, |t| t.0) {
            let (depth, left, weight) = stack.pop().unwrap_or((0, 0, 0));
            let total = weight + acc;
            let parent = next.max(stack.last().map_or(0, |t| t.0));
            consider(sa[left] as usize, depth as usize, parent as usize, total);
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
    for c in ranked {
        if seeds.len() >= seed_size {
            break;
        }
        let bytes = &text[c.start as usize..(c.start + c.len) as usize];
        let s = std::str::from_utf8(bytes).unwrap_or_default().to_string();
        seeds.push((s, c.score as f64));
    }
    let log_sum = seeds.iter().map(|s| s.1).sum::<f64>().ln();
    for s in &mut seeds {
        s.1 = s.1.ln() - log_sum;
    }
    Ok(seeds)
}

pub(super) fn suffix_array(text: &[u8]) -> Vec<i32> {
    let mut sa = vec![0i32; text.len()];
    if !text.is_empty() {
        divsufsort::sort_in_place(text, &mut sa);
    }
    sa
}

/// `lcp[i]` = the common prefix of suffixes `sa[i-1]` and `sa[i]` (Kasai's algorithm), not
/// counting past a 0 byte nor beyond `cap` bytes: both bounds shrink by at most one from a
/// position to the next, which keeps the algorithm linear.
pub(super) fn lcp_array(text: &[u8], sa: &[i32], cap: usize) -> Vec<u32> {
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

/// Keeps the best `size` candidates (by score, then bytes) while holding about 4 × `size`.
///
/// Overflow is cut by score alone with a linear-time selection; candidates tied with the cut
/// score are all kept, so that the final order can break those ties by bytes.
struct BoundedQueue {
    size: usize,
    items: Vec<Candidate>,
    floor: u64,
}

impl BoundedQueue {
    fn new(size: usize) -> Self {
        Self {
            size,
            items: Vec::new(),
            floor: 0,
        }
    }

    fn push(&mut self, c: Candidate, text: &[u8]) {
        if self.size == 0 || c.score < self.floor {
            return;
        }
        self.items.push(c);
        if self.items.len() > 4 * self.size {
            self.cut(text);
        }
    }

    fn cut(&mut self, text: &[u8]) {
        if self.items.len() <= self.size {
            return;
        }
        let k = self.size - 1;
        self.items
            .select_nth_unstable_by(k, |a, b| b.score.cmp(&a.score));
        let kth = self.items[k].score;
        let mut keep = self.size;
        for i in self.size..self.items.len() {
            if self.items[i].score == kth {
                self.items.swap(keep, i);
                keep += 1;
            }
        }
        self.items.truncate(keep);
        self.floor = kth;
        if self.items.len() > 2 * self.size {
            // A huge tie at the cut: settle it by bytes now.
            self.sort(text);
            self.items.truncate(self.size);
        }
    }

    fn sort(&mut self, text: &[u8]) {
        let bytes = |c: &Candidate| &text[c.start as usize..(c.start + c.len) as usize];
        self.items
            .sort_unstable_by(|a, b| b.score.cmp(&a.score).then_with(|| bytes(a).cmp(bytes(b))));
    }

    fn finish(mut self, text: &[u8]) -> Vec<Candidate> {
        self.cut(text);
        self.sort(text);
        self.items.truncate(self.size);
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
        // Exactly the strings that no one-character extension with the same occurrences
        // dominates (same frequency, longer, still valid), each once.
        let dominated = |t: &str, f: u64| {
            expected.iter().any(|(e, g)| {
                *g == f && e.starts_with(t) && e.chars().count() == t.chars().count() + 1
            })
        };
        let mut want: Vec<&str> = expected
            .iter()
            .filter(|(t, f)| !dominated(t, *f))
            .map(|(t, _)| t.as_str())
            .collect();
        want.sort();
        let mut got = names[1..].to_vec();
        got.sort();
        assert_eq!(got, want);
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
