//! HF's BPE model over characters: merges by rank, `unk_token` (fused or not), byte
//! fallback, `continuing_subword_prefix`, `end_of_word_suffix` and `ignore_merges`.
//!
//! A word's characters become symbols (`##` before all but the first, `</w>` after the
//! last); a character missing from the vocabulary becomes its bytes' `<0xNN>` tokens when
//! `byte_fallback` is set and all of them exist, else the unknown token (consecutive unknowns
//! fused into one with `fuse_unk`). Then the adjacent pair with the lowest merge rank is
//! merged, the leftmost first, until no pair has a merge. Each token's span is counted in
//! characters of the word; a byte token spans the whole character its byte came from.
//! As in HF, an `unk_token` missing from the vocabulary is accepted: only a word that needs
//! it fails ([`super::model::missing_unknown`]).
//!
//! ```
//! use tokensmith_core::hf::bpe::Bpe;
//! let vocab = [("a", 0), ("b", 1), ("c</w>", 2), ("ab", 3), ("abc</w>", 4)];
//! let merges = [("a", "b"), ("ab", "c</w>")];
//! let bpe = Bpe::builder(vocab.iter().map(|&(t, i)| (t.to_string(), i)).collect())
//!     .end_of_word_suffix(Some("</w>".into()))
//!     .build(merges.iter().map(|&(a, b)| (a.to_string(), b.to_string())).collect())
//!     .unwrap();
//! let chars: Vec<char> = "abc".chars().collect();
//! assert_eq!(bpe.tokenize(&chars).unwrap(), vec![(4, 0, 3)]);
//! ```
//!
//! With `dropout` p (BPE-dropout), each merge about to be applied is skipped with
//! probability p, as HF does: skipped merges wait aside and return to the queue as soon as
//! one merge is applied, so they can still happen later; those left when the queue runs out
//! are dropped. At p = 1 no merge happens. With a dropout, words are not cached and
//! `ignore_merges` is not applied (HF applies it only on its cached path). The random draws
//! come from a per-thread xorshift64* generator seeded from std's `RandomState` keys (random
//! per process and thread); it is not seedable, so results vary between calls and runs.
//!
//! A file without a pre-tokenizer (Llama-2 style: the whole text, its spaces turned into `▁`,
//! is one word) is merged piece by piece: the word is cut before each `▁` that follows
//! another character, and each piece goes through the word cache. That gives the same tokens
//! as merging the whole word whenever no token has a `▁` after another character (checked
//! when the model is built): no merge can then join two pieces, so merges in one piece never
//! meet those of another, and the lowest-rank-leftmost order within each piece is unchanged.

use super::draw::uniform;
use super::model::missing_unknown;
use super::word_cache::{Tokens, WordCache};
use crate::error::{Error, Result};
use rustc_hash::FxHashMap;

/// Words up to this many symbols are merged by scanning, longer ones through a queue.
const SHORT_WORD: usize = 32;

/// A BPE model; build it with [`Bpe::builder`].
#[derive(Clone, Debug)]
pub struct Bpe {
    vocab: FxHashMap<String, u32>,
    /// `(left, right)` -> `(rank, merged id)`.
    merges: FxHashMap<(u32, u32), (u32, u32)>,
    unk: Option<(String, u32)>,
    /// An `unk_token` that is not in the vocabulary: a word that needs it fails.
    missing_unk: Option<String>,
    options: Options,
    /// The id of each character below [`PLAIN_CHARS`] as a token of its own (no prefix or
    /// suffix), `NONE` when it has none: most symbols are found here without a string.
    plain_ids: Vec<u32>,
    /// Whether words may be merged piece by piece, cut before each `▁` that follows another
    /// character (see the module's documentation).
    cut_at_meta: bool,
    cache: WordCache,
}

/// SentencePiece's and Metaspace's space, `▁`.
const META: char = '\u{2581}';

/// Characters below this code point have their own-token id in [`Bpe`]'s table (Latin,
/// Greek, Cyrillic and GPT-2's byte alphabet).
const PLAIN_CHARS: u32 = 0x500;
const NONE: u32 = u32::MAX;

/// The options a [`BpeBuilder`] sets and a [`Bpe`] keeps.
#[derive(Clone, Debug, Default)]
struct Options {
    prefix: Option<String>,
    suffix: Option<String>,
    fuse_unk: bool,
    byte_fallback: bool,
    ignore_merges: bool,
    /// BPE-dropout's probability of skipping a merge; `None` for 0.
    dropout: Option<f32>,
}

/// The options of a [`Bpe`], before its merges are resolved.
#[derive(Clone, Debug)]
pub struct BpeBuilder {
    vocab: FxHashMap<String, u32>,
    unk: Option<String>,
    options: Options,
}

impl BpeBuilder {
    #[must_use]
    pub fn unk_token(mut self, unk: Option<String>) -> Self {
        self.unk = unk;
        self
    }
    #[must_use]
    pub fn continuing_subword_prefix(mut self, prefix: Option<String>) -> Self {
        self.options.prefix = prefix;
        self
    }
    #[must_use]
    pub fn end_of_word_suffix(mut self, suffix: Option<String>) -> Self {
        self.options.suffix = suffix;
        self
    }
    #[must_use]
    pub fn fuse_unk(mut self, on: bool) -> Self {
        self.options.fuse_unk = on;
        self
    }
    #[must_use]
    pub fn byte_fallback(mut self, on: bool) -> Self {
        self.options.byte_fallback = on;
        self
    }
    #[must_use]
    pub fn ignore_merges(mut self, on: bool) -> Self {
        self.options.ignore_merges = on;
        self
    }
    /// BPE-dropout's probability (0 to 1; `None` or 0 for none).
    #[must_use]
    pub fn dropout(mut self, p: Option<f32>) -> Self {
        self.options.dropout = p;
        self
    }

    /// Resolves `merges` (in rank order) against the vocabulary. Errors name the merge by
    /// its index and the token missing, as `merges[i]`.
    pub fn build(self, merges: Vec<(String, String)>) -> Result<Bpe> {
        let missing = |i: usize, token: &str| Error::TokenizerJson {
            path: format!("model.merges[{i}]"),
            message: format!("{token:?} is not in model.vocab"),
        };
        let prefix_len = self.options.prefix.as_ref().map_or(0, String::len);
        let mut table = FxHashMap::default();
        for (i, (a, b)) in merges.iter().enumerate() {
            let a_id = *self.vocab.get(a).ok_or_else(|| missing(i, a))?;
            let b_id = *self.vocab.get(b).ok_or_else(|| missing(i, b))?;
            // As HF: the prefix's length is cut from the right side, whatever it holds.
            let rest = b.get(prefix_len.min(b.len())..).unwrap_or(b);
            let merged = format!("{a}{rest}");
            let id = *self.vocab.get(&merged).ok_or_else(|| missing(i, &merged))?;
            table.insert((a_id, b_id), (i as u32, id));
        }
        let dropout = match self.options.dropout {
            Some(p) if !(0.0..=1.0).contains(&p) => {
                return Err(Error::TokenizerJson {
                    path: "model.dropout".into(),
                    message: format!("{p} is not a probability (0 to 1)"),
                })
            }
            p => p.filter(|&p| p > 0.0),
        };
        let (unk, missing_unk) = match self.unk {
            None => (None, None),
            Some(u) => match self.vocab.get(&u) {
                Some(&id) => (Some((u, id)), None),
                None => (None, Some(u)),
            },
        };
        let plain_ids = (0..PLAIN_CHARS)
            .map(|c| {
                char::from_u32(c)
                    .and_then(|c| self.vocab.get(c.encode_utf8(&mut [0; 4]) as &str))
                    .copied()
                    .unwrap_or(NONE)
            })
            .collect();
        let cut_at_meta = self.options.prefix.is_none()
            && self.options.suffix.is_none()
            && !self.options.ignore_merges
            && dropout.is_none()
            && self
                .vocab
                .contains_key(META.encode_utf8(&mut [0; 4]) as &str)
            && unk.as_ref().is_none_or(|(u, _)| !u.ends_with(META))
            && !self.vocab.keys().any(|t| joins_at_meta(t));
        Ok(Bpe {
            vocab: self.vocab,
            merges: table,
            unk,
            missing_unk,
            plain_ids,
            cut_at_meta,
            options: Options {
                dropout,
                ..self.options
            },
            cache: WordCache::default(),
        })
    }
}

/// A symbol under merging: token id and span in characters of the word.
#[derive(Clone, Copy, Debug)]
struct Symbol {
    id: u32,
    start: usize,
    end: usize,
}

impl Bpe {
    /// A builder over `vocab` (token -> id).
    pub fn builder(vocab: FxHashMap<String, u32>) -> BpeBuilder {
        BpeBuilder {
            vocab,
            unk: None,
            options: Options::default(),
        }
    }

    /// The vocabulary (token -> id).
    /// Whether words are merged from their characters alone: no subword prefix or suffix
    /// and no dropout (unknown characters, fusing and byte fallback aside).
    pub fn is_plain(&self) -> bool {
        let o = &self.options;
        o.prefix.is_none() && o.suffix.is_none() && o.dropout.is_none()
    }

    /// Whether a word that is a token is that token, without merging (`ignore_merges`).
    pub fn ignores_merges(&self) -> bool {
        self.options.ignore_merges
    }

    /// Every merge: `(left id, right id)` to `(merge rank, merged id)`.
    pub fn merge_table(&self) -> impl Iterator<Item = ((u32, u32), (u32, u32))> + '_ {
        self.merges.iter().map(|(&pair, &merged)| (pair, merged))
    }

    pub fn vocab(&self) -> &FxHashMap<String, u32> {
        &self.vocab
    }

    /// The tokens of one word: `(id, start, end)` with spans in characters of `word`.
    ///
    /// # Errors
    /// The word needs the unknown token and the vocabulary lacks it.
    pub fn tokenize(&self, word: &[char]) -> Result<Vec<(u32, usize, usize)>> {
        let mut out = Vec::new();
        self.tokenize_into(word, &mut out)?;
        Ok(out)
    }

    /// Appends the tokens of one word to `out`, as [`Self::tokenize`] gives them; on an
    /// error `out` is as it was.
    ///
    /// # Errors
    /// As [`Self::tokenize`].
    pub fn tokenize_into(&self, word: &[char], out: &mut Vec<(u32, usize, usize)>) -> Result<()> {
        if self.options.dropout.is_some() {
            out.extend(self.tokenize_uncached(word)?);
        } else if self.cut_at_meta {
            let before = out.len();
            let mut start = 0;
            for end in 1..=word.len() {
                if end == word.len() || (word[end] == META && word[end - 1] != META) {
                    let first = out.len();
                    let done = self
                        .cache
                        .try_tokenize_into(&word[start..end], out, |w| self.tokenize_uncached(w));
                    if let Err(e) = done {
                        out.truncate(before);
                        return Err(e);
                    }
                    for token in &mut out[first..] {
                        token.1 += start;
                        token.2 += start;
                    }
                    start = end;
                }
            }
        } else {
            self.cache
                .try_tokenize_into(word, out, |w| self.tokenize_uncached(w))?;
        }
        Ok(())
    }

    fn tokenize_uncached(&self, word: &[char]) -> Result<Tokens> {
        if word.is_empty() {
            return Ok(Vec::new());
        }
        if self.options.ignore_merges && self.options.dropout.is_none() {
            let whole: String = word.iter().collect();
            if let Some(&id) = self.vocab.get(&whole) {
                return Ok(vec![(id, 0, word.len())]);
            }
        }
        let mut symbols = self.initial_symbols(word)?;
        match self.options.dropout {
            Some(p) => self.merge_by_queue(&mut symbols, || uniform() < p),
            None => self.merge_all(&mut symbols),
        }
        Ok(symbols.iter().map(|s| (s.id, s.start, s.end)).collect())
    }

    fn initial_symbols(&self, word: &[char]) -> Result<Vec<Symbol>> {
        let mut out: Vec<Symbol> = Vec::with_capacity(word.len());
        let mut unk: Option<Symbol> = None;
        let mut s = String::new();
        let plain_first = self.options.prefix.is_none();
        let plain_last = self.options.suffix.is_none();
        for (i, &c) in word.iter().enumerate() {
            let plain = (i == 0 || plain_first) && (i + 1 < word.len() || plain_last);
            let mut found = match self.plain_ids.get(c as usize) {
                Some(&id) if plain && id != NONE => Some(id),
                _ => None,
            };
            if found.is_none() {
                s.clear();
                if i > 0 {
                    if let Some(p) = &self.options.prefix {
                        s.push_str(p);
                    }
                }
                s.push(c);
                if i + 1 == word.len() {
                    if let Some(x) = &self.options.suffix {
                        s.push_str(x);
                    }
                }
                found = self.vocab.get(&s).copied();
            }
            if let Some(id) = found {
                out.extend(unk.take());
                out.push(Symbol {
                    id,
                    start: i,
                    end: i + 1,
                });
                continue;
            }
            if self.options.byte_fallback {
                let bytes: Option<Vec<u32>> = s
                    .bytes()
                    .map(|b| self.vocab.get(&format!("<0x{b:02X}>")).copied())
                    .collect();
                if let Some(ids) = bytes {
                    // HF leaves a pending unknown in place here; it is flushed later.
                    out.extend(ids.into_iter().map(|id| Symbol {
                        id,
                        start: i,
                        end: i + 1,
                    }));
                    continue;
                }
            }
            if let Some(token) = &self.missing_unk {
                return Err(missing_unknown("unk_token", &format!("{token:?}"), word));
            }
            if let Some((_, unk_id)) = &self.unk {
                unk = match unk {
                    Some(mut u) if self.options.fuse_unk => {
                        u.end = i + 1;
                        Some(u)
                    }
                    previous => {
                        out.extend(previous);
                        Some(Symbol {
                            id: *unk_id,
                            start: i,
                            end: i + 1,
                        })
                    }
                };
            }
        }
        out.extend(unk);
        Ok(out)
    }

    /// Merges the lowest-ranked adjacent pair, the leftmost first, until none is left.
    fn merge_all(&self, symbols: &mut Vec<Symbol>) {
        if symbols.len() <= SHORT_WORD {
            self.merge_by_scan(symbols);
        } else {
            self.merge_by_queue(symbols, || false);
        }
    }

    fn lookup(&self, left: &Symbol, right: &Symbol) -> Option<(u32, u32)> {
        self.merges.get(&(left.id, right.id)).copied()
    }

    /// Short words: the rank of every adjacent pair is kept in a list, scanned for the
    /// lowest at every step; a merge looks up only the two pairs it changes.
    fn merge_by_scan(&self, symbols: &mut Vec<Symbol>) {
        const NO_MERGE: (u32, u32) = (u32::MAX, 0);
        let pair = |l: &Symbol, r: &Symbol| self.lookup(l, r).unwrap_or(NO_MERGE);
        let mut pairs: Vec<(u32, u32)> = symbols.windows(2).map(|w| pair(&w[0], &w[1])).collect();
        loop {
            let mut best: Option<usize> = None;
            let mut lowest = u32::MAX;
            for (i, &(rank, _)) in pairs.iter().enumerate() {
                if rank < lowest {
                    lowest = rank;
                    best = Some(i);
                }
            }
            let Some(i) = best else { return };
            symbols[i] = Symbol {
                id: pairs[i].1,
                start: symbols[i].start,
                end: symbols[i + 1].end,
            };
            symbols.remove(i + 1);
            pairs.remove(i);
            if i > 0 {
                pairs[i - 1] = pair(&symbols[i - 1], &symbols[i]);
            }
            if i < pairs.len() {
                pairs[i] = pair(&symbols[i], &symbols[i + 1]);
            }
        }
    }

    /// Long words: a queue of `(rank, position)` over a linked list of symbols, so a word of
    /// n symbols costs O(n log n) (a whole line without spaces, under Metaspace or a
    /// Llama-style file, is one word). Entries made stale by a merge are skipped when popped.
    /// A merge for which `drop` is true is set aside until the next merge applied (dropout).
    fn merge_by_queue(&self, symbols: &mut Vec<Symbol>, mut drop: impl FnMut() -> bool) {
        use std::cmp::Reverse;
        let n = symbols.len();
        if n < 2 {
            return;
        }
        let mut dropped = Vec::new();
        let mut next: Vec<usize> = (1..=n).collect();
        let mut prev: Vec<Option<usize>> = (0..n).map(|i| i.checked_sub(1)).collect();
        let mut alive = vec![true; n];
        let mut queue = std::collections::BinaryHeap::new();
        for i in 0..n - 1 {
            if let Some((rank, id)) = self.lookup(&symbols[i], &symbols[i + 1]) {
                queue.push(Reverse((rank, i, id)));
            }
        }
        while let Some(top) = queue.pop() {
            if drop() {
                dropped.push(top);
                continue;
            }
            queue.extend(dropped.drain(..));
            let Reverse((rank, i, id)) = top;
            let j = next[i];
            if !alive[i] || j >= n || self.lookup(&symbols[i], &symbols[j]) != Some((rank, id)) {
                continue;
            }
            symbols[i] = Symbol {
                id,
                start: symbols[i].start,
                end: symbols[j].end,
            };
            alive[j] = false;
            next[i] = next[j];
            if next[i] < n {
                prev[next[i]] = Some(i);
                if let Some((r, m)) = self.lookup(&symbols[i], &symbols[next[i]]) {
                    queue.push(Reverse((r, i, m)));
                }
            }
            if let Some(p) = prev[i] {
                if let Some((r, m)) = self.lookup(&symbols[p], &symbols[i]) {
                    queue.push(Reverse((r, p, m)));
                }
            }
        }
        let mut keep = alive.into_iter();
        symbols.retain(|_| keep.next().unwrap_or(false));
    }
}

/// Whether `token` has a `▁` right after another character: merges could then join the
/// pieces [`Bpe::tokenize_into`] cuts a word into.
fn joins_at_meta(token: &str) -> bool {
    let mut chars = token.chars();
    let Some(mut before) = chars.next() else {
        return false;
    };
    chars.any(|c| {
        let joins = c == META && before != META;
        before = c;
        joins
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(tokens: &[&str]) -> BpeBuilder {
        Bpe::builder(
            tokens
                .iter()
                .enumerate()
                .map(|(i, t)| (t.to_string(), i as u32))
                .collect(),
        )
    }

    fn merges(m: &[(&str, &str)]) -> Vec<(String, String)> {
        m.iter().map(|&(a, b)| (a.into(), b.into())).collect()
    }

    #[test]
    fn unknowns_fuse_and_bytes_fall_back() {
        let tokens = ["<unk>", "a", "b", "<0xC3>", "<0xA9>"];
        let bpe = model(&tokens)
            .unk_token(Some("<unk>".into()))
            .fuse_unk(true)
            .build(vec![])
            .unwrap();
        let word: Vec<char> = "axyb".chars().collect();
        assert_eq!(
            bpe.tokenize(&word).unwrap(),
            [(1, 0, 1), (0, 1, 3), (2, 3, 4)]
        );
        let bpe = model(&tokens)
            .unk_token(Some("<unk>".into()))
            .byte_fallback(true)
            .build(vec![])
            .unwrap();
        let word: Vec<char> = "éxx".chars().collect();
        assert_eq!(
            bpe.tokenize(&word).unwrap(),
            [(3, 0, 1), (4, 0, 1), (0, 1, 2), (0, 2, 3)]
        );
    }

    #[test]
    fn lowest_rank_first_and_prefix() {
        let tokens = ["a", "##b", "##c", "##bc", "abc"];
        let bpe = model(&tokens)
            .continuing_subword_prefix(Some("##".into()))
            .build(merges(&[("##b", "##c"), ("a", "##bc")]))
            .unwrap();
        let word: Vec<char> = "abc".chars().collect();
        assert_eq!(bpe.tokenize(&word).unwrap(), [(4, 0, 3)]);
        let e = model(&tokens).build(merges(&[("a", "x")])).unwrap_err();
        assert!(e.to_string().contains("model.merges[0]"), "{e}");
    }

    #[test]
    fn queue_and_scan_agree_on_long_words() {
        // Every pair of the 4 letters merges, in an order where overlaps compete.
        let letters = ["a", "b", "c", "d"];
        let mut tokens: Vec<String> = letters.iter().map(|s| s.to_string()).collect();
        let mut merges = Vec::new();
        for x in letters {
            for y in letters {
                merges.push((x.to_string(), y.to_string()));
                tokens.push(format!("{x}{y}"));
            }
        }
        for (x, y) in [("ab", "cd"), ("aa", "aa"), ("dc", "ba"), ("bb", "b")] {
            merges.push((x.to_string(), y.to_string()));
            tokens.push(format!("{x}{y}"));
        }
        let refs: Vec<&str> = tokens.iter().map(String::as_str).collect();
        let bpe = model(&refs).build(merges).unwrap();
        let mut seed = 7u32;
        for len in [33, 50, 200, 1000] {
            let word: Vec<char> = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    ['a', 'b', 'c', 'd'][(seed >> 16) as usize % 4]
                })
                .collect();
            let start = bpe.initial_symbols(&word).unwrap();
            let mut by_queue = start.clone();
            bpe.merge_by_queue(&mut by_queue, || false);
            let mut by_scan = start;
            bpe.merge_by_scan(&mut by_scan);
            let ids = |s: &[Symbol]| s.iter().map(|x| (x.id, x.start, x.end)).collect::<Vec<_>>();
            assert_eq!(ids(&by_queue), ids(&by_scan), "length {len}");
        }
    }

    /// A Llama-2-style vocabulary: `▁` starts words, merges compete across letters, `x` is
    /// unknown (byte fallback for `é`). Pieces cut at `▁` give the whole word's tokens.
    #[test]
    fn words_cut_at_meta_give_the_tokens_of_the_whole_word() {
        let mut tokens = vec!["<unk>", "▁", "a", "b", "<0xC3>", "<0xA9>"];
        let pairs = [
            ("▁", "a"),
            ("a", "b"),
            ("b", "a"),
            ("▁a", "b"),
            ("▁", "▁"),
            ("ab", "ab"),
            ("▁", "b"),
            ("ba", "b"),
        ];
        let joined: Vec<String> = pairs.iter().map(|(a, b)| format!("{a}{b}")).collect();
        tokens.extend(joined.iter().map(String::as_str));
        let build = |extra: Option<&str>| {
            let mut all = tokens.clone();
            all.extend(extra);
            model(&all)
                .unk_token(Some("<unk>".into()))
                .fuse_unk(true)
                .byte_fallback(true)
                .build(merges(&pairs))
                .unwrap()
        };
        let cut = build(None);
        assert!(cut.cut_at_meta);
        // A token with `▁` after a letter turns the cutting off.
        assert!(!build(Some("a▁")).cut_at_meta);
        let mut seed = 11u32;
        for len in [1, 5, 40, 300] {
            let word: Vec<char> = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    ['▁', 'a', 'b', 'x', 'é', '▁', 'a'][(seed >> 16) as usize % 7]
                })
                .collect();
            let whole = cut.tokenize_uncached(&word).unwrap();
            // Twice: from the merges, then from the cache.
            assert_eq!(cut.tokenize(&word).unwrap(), whole, "length {len}");
            assert_eq!(cut.tokenize(&word).unwrap(), whole, "length {len}");
        }
    }

    #[test]
    fn ignore_merges_takes_whole_words() {
        let tokens = ["a", "b", "ab", "ba", "aba"];
        let bpe = model(&tokens)
            .ignore_merges(true)
            .build(merges(&[("a", "b")]))
            .unwrap();
        let word: Vec<char> = "aba".chars().collect();
        assert_eq!(bpe.tokenize(&word).unwrap(), [(4, 0, 3)]);
        let word: Vec<char> = "bab".chars().collect();
        assert_eq!(bpe.tokenize(&word).unwrap(), [(1, 0, 1), (2, 1, 3)]);
    }

    #[test]
    fn dropout_one_merges_nothing_and_zero_is_none() {
        let vocab = [("a", 0), ("b", 1), ("ab", 2), ("abab", 3)];
        let vocab: FxHashMap<String, u32> =
            vocab.iter().map(|&(t, i)| (t.to_string(), i)).collect();
        let merges = merges(&[("a", "b"), ("ab", "ab")]);
        let chars: Vec<char> = "abab".chars().collect();
        let build = |p| {
            Bpe::builder(vocab.clone())
                .dropout(p)
                .build(merges.clone())
                .unwrap()
        };
        assert_eq!(build(None).tokenize(&chars).unwrap(), [(3, 0, 4)]);
        assert_eq!(build(Some(0.0)).tokenize(&chars).unwrap(), [(3, 0, 4)]);
        let every_char = [(0, 0, 1), (1, 1, 2), (0, 2, 3), (1, 3, 4)];
        assert_eq!(build(Some(1.0)).tokenize(&chars).unwrap(), every_char);
        assert!(Bpe::builder(vocab.clone())
            .dropout(Some(1.5))
            .build(merges.clone())
            .is_err());
        // At p = 0.5 every outcome still spells the word.
        let half = build(Some(0.5));
        for _ in 0..50 {
            let tokens = half.tokenize(&chars).unwrap();
            assert_eq!(tokens.first().map(|t| t.1), Some(0));
            assert!(tokens.windows(2).all(|w| w[0].2 == w[1].1));
            assert_eq!(tokens.last().map(|t| t.2), Some(4));
        }
    }

    #[test]
    fn a_clone_keeps_the_options_and_starts_with_an_empty_cache() {
        let tokens = ["<unk>", "a", "b", "ab"];
        let bpe = model(&tokens)
            .unk_token(Some("<unk>".into()))
            .fuse_unk(true)
            .build(merges(&[("a", "b")]))
            .unwrap();
        let word: Vec<char> = "abxy".chars().collect();
        let expected = [(3, 0, 2), (0, 2, 4)];
        assert_eq!(bpe.tokenize(&word).unwrap(), expected);
        assert_eq!(bpe.cache.len(), 1);
        let copy = bpe.clone();
        assert!(copy.cache.is_empty());
        assert_eq!(copy.tokenize(&word).unwrap(), expected);
    }
}
