//! HF's seed pieces (HF `tokenizers` 0.23, `UnigramTrainer::make_seed_sentence_pieces`).
//!
//! HF joins the distinct words, each followed by `\0`, and takes every node of the suffix
//! tree of that string (`esaxx`): each substring that occurs at least twice and is followed
//! by at least two different characters (the `\0` after a word counts as one). A node of 2
//! to `max_piece_length` characters without `\0` is a candidate, scored by its occurrences
//! in the joined string (each distinct word once, whatever its count) times its length in
//! characters. So a substring always followed by the same character is not a seed (its
//! longer extension is), nor one found only at word ends.
//!
//! The seeds are then every character, by falling count over the corpus (the words'
//! counts), ties by falling code point, followed by the candidates by falling score, ties
//! by falling string, until `seed_size` pieces; scores become log-probabilities over them.
//!
//! The node set depends only on the set of words, not on their order, so the seeds are HF's
//! whatever order HF's hash map gives the words. It is found here with the suffix array
//! and LCP array of the UTF-8 bytes (see [`super::seeds`]): a byte-level node that ends
//! inside a character stands for the character-level node at the character boundary
//! before it, when that boundary is below its parent's depth.
//!
//! ```
//! use tokensmith_core::trainers::unigram::hf_seeds::hf_seed_pieces;
//! let words = vec![("abx".to_string(), 5), ("aby".to_string(), 1), ("cab".to_string(), 1)];
//! let seeds = hf_seed_pieces(&words, 16, 1000);
//! let names: Vec<&str> = seeds.iter().map(|(s, _)| s.as_str()).collect();
//! // "ab" is followed by "x", "y" and the end of "cab": a node, 3 times × 2 characters.
//! assert_eq!(names, ["b", "a", "x", "y", "c", "ab"]);
//! ```

use super::seeds::{lcp_array, suffix_array};

/// HF's seed pieces of `words` with log-probability scores.
pub fn hf_seed_pieces(
    words: &[(String, u64)],
    max_piece_length: usize,
    seed_size: usize,
) -> Vec<(String, f64)> {
    let mut text = Vec::new();
    let mut chars: rustc_hash::FxHashMap<char, u64> = rustc_hash::FxHashMap::default();
    for (w, n) in words {
        if w.is_empty() {
            continue;
        }
        text.extend_from_slice(w.as_bytes());
        text.push(0);
        for c in w.chars().filter(|&c| c != '\0') {
            *chars.entry(c).or_insert(0) += n;
        }
    }
    let mut chars: Vec<(u64, char)> = chars.into_iter().map(|(c, n)| (n, c)).collect();
    chars.sort_unstable_by(|a, b| b.cmp(a));
    let mut candidates = candidates(&text, max_piece_length);
    candidates.sort_unstable_by(|a, b| b.0.cmp(&a.0).then_with(|| b.1.cmp(a.1)));
    let mut seeds: Vec<(String, f64)> = chars
        .iter()
        .map(|&(n, c)| (c.to_string(), n as f64))
        .collect();
    for (score, piece) in candidates {
        seeds.push((String::from_utf8_lossy(piece).into_owned(), score as f64));
        if seeds.len() >= seed_size {
            break;
        }
    }
    let log_sum = seeds.iter().map(|s| s.1).sum::<f64>().ln();
    for s in &mut seeds {
        s.1 = s.1.ln() - log_sum;
    }
    seeds
}

/// The candidate substrings of the joined `text` with their scores.
fn candidates(text: &[u8], max_piece_length: usize) -> Vec<(u64, &[u8])> {
    // Depths at the cap may be cut short; a character string that long is too long anyway.
    let cap = max_piece_length.saturating_mul(4).saturating_add(4);
    let sa = suffix_array(text);
    let lcp = lcp_array(text, &sa, cap);
    let mut out = Vec::new();
    let mut offer = |depth: usize, left: usize, right: usize, parent: usize| {
        let pos = sa[left] as usize;
        // Suffixes that start inside a character stand for no string of characters.
        if (text[pos] & 0xC0) == 0x80 {
            return;
        }
        // The character boundary at or below `depth`.
        let mut f = depth;
        while f > 0 && (text[pos + f] & 0xC0) == 0x80 {
            f -= 1;
        }
        if f <= parent {
            return;
        }
        // The LCP stops at a word's end: if every occurrence ends its word, the string is
        // always followed by `\0` and is no node of HF's tree (sorted, the last follower is
        // the largest).
        if f == depth && text[sa[right] as usize + depth] == 0 {
            return;
        }
        let piece = &text[pos..pos + f];
        let n_chars = piece.iter().filter(|&&b| (b & 0xC0) != 0x80).count();
        if (2..=max_piece_length).contains(&n_chars) {
            let freq = (right - left + 1) as u64;
            out.push((freq * n_chars as u64, piece));
        }
    };
    // Bottom-up traversal of the LCP intervals: (depth, left bound).
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    // lcp[1..n], then a 0 that closes every open interval.
    for (i, h) in lcp.iter().copied().chain([0]).enumerate().skip(1) {
        let h = h as usize;
        let mut left = i - 1;
        while h < stack.last().map_or(0, |t| t.0) {
            let Some((depth, l)) = stack.pop() else { break };
            let parent = h.max(stack.last().map_or(0, |t| t.0));
            offer(depth, l, i - 1, parent);
            left = l;
        }
        if h > stack.last().map_or(0, |t| t.0) {
            stack.push((h, left));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nodes by brute force: substrings of 2+ characters, no `\0`, occurring twice or
    /// more in the joined text with two or more different next characters.
    fn brute(words: &[&str], max: usize) -> Vec<(u64, String)> {
        let joined: Vec<char> = words.iter().flat_map(|w| w.chars().chain(['\0'])).collect();
        let mut nexts: std::collections::BTreeMap<String, (u64, std::collections::BTreeSet<char>)> =
            Default::default();
        for i in 0..joined.len() {
            if joined[i] == '\0' {
                continue;
            }
            for j in i + 2..=joined.len().min(i + max) {
                if joined[j - 1] == '\0' {
                    break;
                }
                let s: String = joined[i..j].iter().collect();
                let e = nexts.entry(s).or_default();
                e.0 += 1;
                e.1.insert(joined.get(j).copied().unwrap_or('\u{10FFFF}'));
            }
        }
        nexts
            .into_iter()
            .filter(|(_, (n, next))| *n >= 2 && next.len() >= 2)
            .map(|(s, (n, _))| (n * s.chars().count() as u64, s))
            .collect()
    }

    fn found(words: &[&str], max: usize) -> Vec<(u64, String)> {
        let mut text = Vec::new();
        for w in words {
            text.extend_from_slice(w.as_bytes());
            text.push(0);
        }
        let mut got: Vec<(u64, String)> = candidates(&text, max)
            .into_iter()
            .map(|(s, p)| (s, String::from_utf8(p.to_vec()).unwrap()))
            .collect();
        got.sort();
        got
    }

    proptest::proptest! {
        #[test]
        fn random_words_give_the_brute_force_nodes(
            words in proptest::collection::btree_set("[abé\u{915}\u{941}]{1,6}", 1..12),
            max in 2usize..6,
        ) {
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            let mut want = brute(&words, max);
            want.sort();
            proptest::prop_assert_eq!(found(&words, max), want);
        }
    }

    #[test]
    fn candidates_are_the_suffix_tree_nodes() {
        let cases: &[&[&str]] = &[
            &["abab", "bab", "abba", "ba"],
            &["éa", "éb", "èa", "xéa"],
            &["कुएचुआ", ",", "हुअल्लांगा", "हुअनुको"],
            &["ing", "sing", "ring", "inga"],
            &["aaaa", "aaa", "aa"],
        ];
        for words in cases {
            for max in [2, 3, 16] {
                let mut want = brute(words, max);
                want.sort();
                assert_eq!(found(words, max), want, "{words:?} max {max}");
            }
        }
    }
}
