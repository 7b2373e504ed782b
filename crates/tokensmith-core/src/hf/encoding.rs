//! The result of encoding one sequence or a pair ([`HfEncoding`]), and the id-to-token table
//! ([`TokenTable`]) its tokens are read from.
//!
//! Almost every token of an encoding is the vocabulary's token for its id (padding included),
//! so an encoding stores no strings for those: it holds a shared [`TokenTable`] and looks each
//! token up when asked. Only a token whose text differs from its id's (an added token matched
//! with the whitespace `lstrip`/`rstrip` took in, say) carries its own text. Encoding a line
//! then allocates a few vectors, not one string per token.
//!
//! ```
//! use std::sync::Arc;
//! use tokensmith_core::hf::encoding::{HfEncoding, TokenTable};
//! let table = Arc::new(TokenTable::new([(0, "[PAD]".to_string()), (5, "hi".to_string())]));
//! let mut enc = HfEncoding::with_table(table);
//! enc.push(5, None, (0, 2), Some(0));
//! enc.push(0, Some(" [PAD]".into()), (2, 8), Some(1));
//! assert_eq!(enc.tokens(), ["hi", " [PAD]"]);
//! assert_eq!(enc.own_tokens, [None, Some(" [PAD]".into())]);
//! ```

use rustc_hash::FxHashMap;
use std::ops::Range;
use std::sync::Arc;

/// Every id's token, shared by a tokenizer and the encodings it makes. Ids up to a few times
/// the number of tokens are kept in a vector; any larger id (a file may use sparse ids) in a
/// map, so a huge id cannot make the table huge.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TokenTable {
    dense: Vec<Option<Box<str>>>,
    sparse: FxHashMap<u32, Box<str>>,
}

impl TokenTable {
    /// The table of `(id, token)` entries; a later entry for an id replaces an earlier one.
    pub fn new(entries: impl IntoIterator<Item = (u32, String)>) -> Self {
        let entries: Vec<(u32, String)> = entries.into_iter().collect();
        let limit = entries.len().saturating_mul(4).saturating_add(1024);
        let mut table = Self::default();
        for (id, token) in entries {
            let i = id as usize;
            if i < limit {
                if table.dense.len() <= i {
                    table.dense.resize(i + 1, None);
                }
                table.dense[i] = Some(token.into_boxed_str());
            } else {
                table.sparse.insert(id, token.into_boxed_str());
            }
        }
        table
    }

    /// The token of `id`, if any.
    #[inline]
    pub fn get(&self, id: u32) -> Option<&str> {
        match self.dense.get(id as usize) {
            Some(t) => t.as_deref(),
            None => self.sparse.get(&id).map(|t| &**t),
        }
    }

    /// `None` when `token` is the token of `id` (an encoding stores nothing for it), else the
    /// token's own text.
    pub fn own_text(&self, id: u32, token: &str) -> Option<Box<str>> {
        (self.get(id) != Some(token)).then(|| token.into())
    }
}

/// The result of encoding one sequence or a pair; every vector has one entry per token.
#[derive(Clone, Debug, Default)]
pub struct HfEncoding {
    pub ids: Vec<u32>,
    /// The text of each token that is not its id's token in `table`; `None` for the others.
    pub own_tokens: Vec<Option<Box<str>>>,
    /// Where the other tokens are read; without it, their token is empty.
    pub table: Option<Arc<TokenTable>>,
    /// `(start, end)` in characters of the sequence the token came from; `(0, 0)` for
    /// special tokens.
    pub offsets: Vec<(usize, usize)>,
    pub type_ids: Vec<u32>,
    pub special_tokens_mask: Vec<u32>,
    pub attention_mask: Vec<u32>,
    /// The index of the word (pre-token) within its sequence; `None` for special tokens.
    pub word_ids: Vec<Option<u32>>,
    /// The parts truncation cut off, each a complete encoding (special tokens and padding
    /// included); see [`HfEncoding::merge_with`] for how a pair's parts combine.
    pub overflowing: Vec<HfEncoding>,
    /// The tokens of each input sequence, by sequence id (HF's `sequence_ranges`: a map,
    /// kept here as a short list in which a later entry for an id replaces the earlier).
    /// Empty for a single sequence that no post-processor saw: then every token is of
    /// sequence 0. The queries on it are in [`super::alignment`].
    pub sequence_ranges: Vec<(usize, Range<usize>)>,
}

/// The token of each id: its own text when it has one, else the table's.
pub fn resolve<'a>(
    ids: &'a [u32],
    own_tokens: &'a [Option<Box<str>>],
    table: Option<&'a TokenTable>,
) -> impl Iterator<Item = &'a str> + 'a {
    ids.iter().zip(own_tokens).map(move |(&id, own)| match own {
        Some(t) => t,
        None => table.and_then(|t| t.get(id)).unwrap_or(""),
    })
}

impl HfEncoding {
    /// An empty encoding whose tokens are read from `table`.
    pub fn with_table(table: Arc<TokenTable>) -> Self {
        Self {
            table: Some(table),
            ..Self::default()
        }
    }

    /// An empty encoding whose tokens are read from `table`, with room for `n` tokens in
    /// every vector.
    pub fn with_capacity(table: Arc<TokenTable>, n: usize) -> Self {
        Self {
            ids: Vec::with_capacity(n),
            own_tokens: Vec::with_capacity(n),
            table: Some(table),
            offsets: Vec::with_capacity(n),
            type_ids: Vec::with_capacity(n),
            special_tokens_mask: Vec::with_capacity(n),
            attention_mask: Vec::with_capacity(n),
            word_ids: Vec::with_capacity(n),
            overflowing: Vec::new(),
            sequence_ranges: Vec::new(),
        }
    }

    /// An encoding with every token's text given (no table).
    #[allow(clippy::too_many_arguments)]
    pub fn from_parts(
        ids: Vec<u32>,
        tokens: Vec<String>,
        offsets: Vec<(usize, usize)>,
        type_ids: Vec<u32>,
        attention_mask: Vec<u32>,
        special_tokens_mask: Vec<u32>,
        word_ids: Vec<Option<u32>>,
    ) -> Self {
        Self {
            ids,
            own_tokens: tokens
                .into_iter()
                .map(|t| Some(t.into_boxed_str()))
                .collect(),
            table: None,
            offsets,
            type_ids,
            special_tokens_mask,
            attention_mask,
            word_ids,
            overflowing: Vec::new(),
            sequence_ranges: Vec::new(),
        }
    }

    /// Appends one token of a sequence (before post-processing).
    #[inline]
    pub fn push(
        &mut self,
        id: u32,
        own: Option<Box<str>>,
        offsets: (usize, usize),
        word: Option<u32>,
    ) {
        self.ids.push(id);
        self.own_tokens.push(own);
        self.offsets.push(offsets);
        self.word_ids.push(word);
    }

    /// Removes every token, keeping the table and the vectors' room.
    pub fn clear(&mut self) {
        self.ids.clear();
        self.own_tokens.clear();
        self.offsets.clear();
        self.type_ids.clear();
        self.special_tokens_mask.clear();
        self.attention_mask.clear();
        self.word_ids.clear();
        self.overflowing.clear();
        self.sequence_ranges.clear();
    }

    /// Tokens `start..stop` (every vector that has one entry per token is sliced; the
    /// others stay empty), without overflowing parts or sequence ranges.
    pub fn slice(&self, start: usize, stop: usize) -> HfEncoding {
        let n = self.ids.len();
        fn cut<T: Clone>(v: &[T], n: usize, start: usize, stop: usize) -> Vec<T> {
            if v.len() == n {
                v[start..stop].to_vec()
            } else {
                Vec::new()
            }
        }
        HfEncoding {
            ids: self.ids[start..stop].to_vec(),
            own_tokens: cut(&self.own_tokens, n, start, stop),
            table: self.table.clone(),
            offsets: cut(&self.offsets, n, start, stop),
            type_ids: cut(&self.type_ids, n, start, stop),
            special_tokens_mask: cut(&self.special_tokens_mask, n, start, stop),
            attention_mask: cut(&self.attention_mask, n, start, stop),
            word_ids: cut(&self.word_ids, n, start, stop),
            overflowing: Vec::new(),
            sequence_ranges: Vec::new(),
        }
    }

    /// Marks every token as one of sequence `id` (HF's `set_sequence_id`), replacing the
    /// range `id` had.
    pub fn set_sequence_id(&mut self, id: usize) {
        self.set_sequence_range(id, 0..self.ids.len());
    }

    /// Sets the tokens of sequence `id` to `range`, replacing the range it had.
    pub fn set_sequence_range(&mut self, id: usize, range: Range<usize>) {
        match self.sequence_ranges.iter_mut().find(|(i, _)| *i == id) {
            Some(entry) => entry.1 = range,
            None => self.sequence_ranges.push((id, range)),
        }
    }

    /// Appends `pair` to this encoding, combining overflowing parts as HF `tokenizers`
    /// does: each of ours followed by `pair` and by each of `pair`'s, then this whole
    /// encoding (its overflowing parts included) followed by each of `pair`'s. The result
    /// can nest (an overflowing part with overflowing parts of its own). `pair`'s sequence
    /// ranges move with its tokens; with `growing_offsets`, its offsets count on from the end
    /// of this encoding's last offset (HF's `Encoding.merge`).
    pub fn merge_with(&mut self, pair: HfEncoding, growing_offsets: bool) {
        let mut overflowing = Vec::new();
        for mine in &self.overflowing {
            let mut joined = mine.clone();
            joined.merge_with(pair.clone(), growing_offsets);
            overflowing.push(joined);
            for theirs in &pair.overflowing {
                let mut joined = mine.clone();
                joined.merge_with(theirs.clone(), growing_offsets);
                overflowing.push(joined);
            }
        }
        for theirs in &pair.overflowing {
            let mut joined = self.clone();
            joined.merge_with(theirs.clone(), growing_offsets);
            overflowing.push(joined);
        }
        let n = self.ids.len();
        for (id, range) in pair.sequence_ranges {
            self.set_sequence_range(id, n + range.start..n + range.end);
        }
        let same_table = match (&self.table, &pair.table) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if same_table {
            self.own_tokens.extend(pair.own_tokens);
        } else if n == 0 && self.own_tokens.is_empty() {
            self.table = pair.table;
            self.own_tokens = pair.own_tokens;
        } else {
            // Tokens read from another table keep their text here.
            let texts = resolve(&pair.ids, &pair.own_tokens, pair.table.as_deref());
            let own: Vec<Option<Box<str>>> = pair
                .ids
                .iter()
                .zip(texts)
                .map(|(&id, t)| match &self.table {
                    Some(mine) => mine.own_text(id, t),
                    None => Some(t.into()),
                })
                .collect();
            self.own_tokens.extend(own);
        }
        let shift = match (growing_offsets, self.offsets.last()) {
            (true, Some(&(_, end))) => end,
            _ => 0,
        };
        self.ids.extend(pair.ids);
        self.offsets
            .extend(pair.offsets.iter().map(|&(s, e)| (s + shift, e + shift)));
        self.type_ids.extend(pair.type_ids);
        self.special_tokens_mask.extend(pair.special_tokens_mask);
        self.attention_mask.extend(pair.attention_mask);
        self.word_ids.extend(pair.word_ids);
        self.overflowing = overflowing;
    }

    /// Every encoding of `encodings` appended in turn to an empty one, as HF's
    /// `Encoding.merge` does (see [`Self::merge_with`]).
    pub fn merge(encodings: impl IntoIterator<Item = HfEncoding>, growing_offsets: bool) -> Self {
        let mut out = HfEncoding::default();
        for e in encodings {
            out.merge_with(e, growing_offsets);
        }
        out
    }

    /// The tokens, one per id.
    pub fn tokens(&self) -> Vec<&str> {
        self.iter_tokens().collect()
    }

    /// The tokens, one per id, without collecting them.
    pub fn iter_tokens(&self) -> impl Iterator<Item = &str> + '_ {
        resolve(&self.ids, &self.own_tokens, self.table.as_deref())
    }
}

impl PartialEq for HfEncoding {
    /// Equal when every list is equal, tokens compared as text (however they are stored).
    fn eq(&self, other: &Self) -> bool {
        self.ids == other.ids
            && self.offsets == other.offsets
            && self.type_ids == other.type_ids
            && self.special_tokens_mask == other.special_tokens_mask
            && self.attention_mask == other.attention_mask
            && self.word_ids == other.word_ids
            && self.iter_tokens().eq(other.iter_tokens())
            && self.overflowing == other.overflowing
            && same_ranges(&self.sequence_ranges, &other.sequence_ranges)
    }
}

impl Eq for HfEncoding {}

/// Whether two lists of sequence ranges hold the same entries, in any order (HF keeps them
/// in a map).
fn same_ranges(a: &[(usize, Range<usize>)], b: &[(usize, Range<usize>)]) -> bool {
    a.len() == b.len() && a.iter().all(|entry| b.contains(entry))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_ids_and_own_text() {
        let table = TokenTable::new([(3, "a".to_string()), (4_000_000_000, "b".to_string())]);
        assert_eq!(table.get(3), Some("a"));
        assert_eq!(table.get(4_000_000_000), Some("b"));
        assert_eq!(table.get(2), None);
        assert_eq!(table.own_text(3, "a"), None);
        assert_eq!(table.own_text(3, " a").as_deref(), Some(" a"));
    }

    /// One token `x`-spanning `(0, 1)` with id 1, its text stored in the encoding.
    fn explicit(token: &str) -> HfEncoding {
        let (ids, offsets, words) = (vec![1], vec![(0, 1)], vec![Some(0)]);
        HfEncoding::from_parts(
            ids,
            vec![token.into()],
            offsets,
            vec![],
            vec![],
            vec![],
            words,
        )
    }

    #[test]
    fn equality_compares_token_text() {
        let table = Arc::new(TokenTable::new([(1, "x".to_string())]));
        let mut a = HfEncoding::with_table(table);
        a.push(1, None, (0, 1), Some(0));
        assert_eq!(a, explicit("x"));
        assert_ne!(a, explicit("y"));
    }
}
