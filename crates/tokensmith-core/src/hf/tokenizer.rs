//! The pipeline of one `tokenizer.json`: normalize, pre-tokenize, model, post-process.
//!
//! ```
//! use tokensmith_core::hf::HfTokenizer;
//! let json = r###"{"normalizer": {"type": "BertNormalizer", "clean_text": true,
//!   "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
//!   "pre_tokenizer": {"type": "BertPreTokenizer"},
//!   "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
//!     "max_input_chars_per_word": 100, "vocab": {"[UNK]": 0, "hi": 1, "##s": 2, "!": 3}}}"###;
//! let tok = HfTokenizer::from_json_str(json).unwrap();
//! let enc = tok.encode("His!", None, true).unwrap();
//! assert_eq!(enc.ids, [1, 2, 3]);
//! assert_eq!(enc.offsets, [(0, 2), (2, 3), (3, 4)]);
//! // Without a decoder, tokens are joined with spaces, as in HF.
//! assert_eq!(tok.decode(&enc.ids, true), "hi ##s !");
//! ```

use super::decoders::Decoder;
pub use super::encoding::{HfEncoding, TokenTable};
use super::fast_ids::FastIds;
use super::model::Model;
use super::normalizers::Normalizer;
use super::padding::Padding;
use super::pre_tokenizers::{PreTokenizer, Words};
use super::processors::PostProcessor;
use super::truncation::Truncation;
use super::NormalizedString;
use crate::error::Result;
use rustc_hash::{FxHashMap, FxHashSet};
use std::cell::Cell;
use std::sync::{Arc, OnceLock};
use std::thread::LocalKey;

pub use super::added_tokens::AddedToken;
use super::added_tokens::{AddedMatcher, AddedVocabulary};
use super::encoding::TokenTable as Table;

/// A loaded `tokenizer.json`. Immutable and `Sync`.
#[derive(Clone, Debug)]
pub struct HfTokenizer {
    pub(super) normalizer: Option<Normalizer>,
    pub(super) pre_tokenizer: Option<PreTokenizer>,
    pub(super) model: Model,
    pub(super) post_processor: Option<PostProcessor>,
    pub(super) decoder: Option<Decoder>,
    pub(super) truncation: Option<Truncation>,
    pub(super) padding: Option<Padding>,
    pub(super) added: AddedVocabulary,
    /// Added tokens looked for in the original text, and in normalized pieces.
    pub(super) raw_matcher: AddedMatcher,
    pub(super) normalized_matcher: AddedMatcher,
    /// Every id's token: the model's, overridden by added tokens. Encodings share it.
    pub(super) id_to_token: Arc<TokenTable>,
    pub(super) special_ids: FxHashSet<u32>,
    /// The byte-level engine that gives ids alone, when the file qualifies
    /// ([`super::fast_ids`]), built on first use and shared by clones (which keep the
    /// normalizer, pre-tokenizer and model it is built from): a load that hands the file on
    /// as a tiktoken-style `Encoding` never builds it.
    pub(super) fast: Arc<OnceLock<Option<FastIds>>>,
}

impl HfTokenizer {
    /// Encodes `text`, and `pair` after it, adding the post-processor's special tokens
    /// when `add_special_tokens` is true.
    ///
    /// Errors only when truncation is configured and cannot be satisfied (as HF's do):
    /// `OnlySecond` without a pair, a sequence too short to lose enough tokens, or a
    /// stride not below the length left for a sequence.
    pub fn encode(
        &self,
        text: &str,
        pair: Option<&str>,
        add_special_tokens: bool,
    ) -> Result<HfEncoding> {
        let (first, second) = self.text_sequences(text, pair)?;
        self.finish(first, second, add_special_tokens)
    }

    /// The tokens of `text` and of `pair`, before truncation and post-processing.
    pub(super) fn text_sequences(
        &self,
        text: &str,
        pair: Option<&str>,
    ) -> Result<(HfEncoding, Option<HfEncoding>)> {
        let first = self.encode_sequence(text, &FIRST)?;
        let second = pair.map(|p| self.encode_sequence(p, &SECOND)).transpose()?;
        Ok((first, second))
    }

    /// Encodes input already cut into words (HF's `is_pretokenized`): each word runs
    /// through the whole pipeline on its own, its tokens take the word's index as word id,
    /// and their offsets count from the start of the word. Errors as [`Self::encode`].
    pub fn encode_pretokenized(
        &self,
        words: &[&str],
        pair: Option<&[&str]>,
        add_special_tokens: bool,
    ) -> Result<HfEncoding> {
        let (first, second) = self.word_sequences(words, pair)?;
        self.finish(first, second, add_special_tokens)
    }

    /// The tokens of `words` and of `pair`'s words, before truncation and post-processing.
    pub(super) fn word_sequences(
        &self,
        words: &[&str],
        pair: Option<&[&str]>,
    ) -> Result<(HfEncoding, Option<HfEncoding>)> {
        let first = self.encode_word_list(words, &FIRST)?;
        let second = pair
            .map(|p| self.encode_word_list(p, &SECOND))
            .transpose()?;
        Ok((first, second))
    }

    /// The tokens of one sequence, written into the buffers `scratch` holds (if any).
    fn encode_sequence(
        &self,
        text: &str,
        scratch: &'static LocalKey<Cell<HfEncoding>>,
    ) -> Result<HfEncoding> {
        // A guess at the number of tokens (a few bytes each) that rarely needs to grow.
        let guess = text.len() / 2 + 4;
        let mut out = scratch.take();
        // The buffers usually hold this table already; cloning the Arc would write its count,
        // which every thread of a batch shares.
        if !out
            .table
            .as_ref()
            .is_some_and(|t| Arc::ptr_eq(t, &self.id_to_token))
        {
            out.table = Some(self.id_to_token.clone());
        }
        out.ids.reserve(guess);
        out.own_tokens.reserve(guess);
        out.offsets.reserve(guess);
        out.word_ids.reserve(guess);
        let mut pieces = Vec::new();
        let mut word_index = 0u32;
        // Spans come in order: one walk turns their character offsets into bytes.
        let (mut byte, mut char) = (0, 0);
        let mut to_byte = |c: usize| {
            byte += text[byte..]
                .chars()
                .take(c.saturating_sub(char))
                .map(char::len_utf8)
                .sum::<usize>();
            char = c;
            byte
        };
        for (added, (s, e)) in self.raw_matcher.find_str(text) {
            let (bs, be) = (to_byte(s), to_byte(e));
            if let Some(id) = added {
                let own = self.id_to_token.own_text(id, &text[bs..be]);
                out.push(id, own, (s, e), Some(word_index));
                word_index += 1;
                continue;
            }
            let mut piece = PIECE.take();
            piece.reset(&text[bs..be], s);
            if let Some(n) = &self.normalizer {
                n.normalize(&mut piece)?;
            }
            for (added, (s, e)) in self.normalized_matcher.find(piece.chars()) {
                let part = if s == 0 && e == piece.len() {
                    std::mem::take(&mut piece)
                } else {
                    piece.slice(s, e)
                };
                if part.is_empty() {
                    continue;
                }
                if let Some(id) = added {
                    let own = self.id_to_token.own_text(id, &part.text());
                    out.push(id, own, part.original_span(0, part.len()), Some(word_index));
                    word_index += 1;
                    continue;
                }
                let words = match &self.pre_tokenizer {
                    Some(p) => p.cut_words(part)?,
                    None => {
                        let n = part.len();
                        Words::Ranges(part, vec![(0, n)])
                    }
                };
                match words {
                    Words::Ranges(part, ranges) => {
                        for (ws, we) in ranges {
                            self.tokenize_word(&part, ws, we, word_index, &mut pieces, &mut out)?;
                            word_index += 1;
                        }
                        PIECE.set(part);
                    }
                    Words::Owned(words) => {
                        for w in words.iter().filter(|w| !w.is_empty()) {
                            self.tokenize_word(w, 0, w.len(), word_index, &mut pieces, &mut out)?;
                            word_index += 1;
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// The words encoded one after the other, word `i`'s tokens with word id `i`.
    fn encode_word_list(
        &self,
        words: &[&str],
        scratch: &'static LocalKey<Cell<HfEncoding>>,
    ) -> Result<HfEncoding> {
        let mut out = self.encode_sequence("", scratch)?;
        for (i, word) in (0u32..).zip(words) {
            let mut part = self.encode_sequence(word, &WORD)?;
            out.ids.extend(&part.ids);
            out.own_tokens.append(&mut part.own_tokens);
            out.offsets.extend(&part.offsets);
            out.word_ids
                .extend(std::iter::repeat_n(Some(i), part.ids.len()));
            keep_for_reuse(&WORD, part);
        }
        Ok(out)
    }

    /// Appends the tokens of the word `start..end` of `piece` to `out`; `pieces` is a buffer.
    /// A word that needs the unknown token of a model without one fails, as in HF.
    fn tokenize_word(
        &self,
        piece: &NormalizedString,
        start: usize,
        end: usize,
        word_index: u32,
        pieces: &mut Vec<(u32, usize, usize)>,
        out: &mut HfEncoding,
    ) -> Result<()> {
        pieces.clear();
        self.model
            .tokenize_into(&piece.chars()[start..end], pieces)?;
        for &(id, s, e) in pieces.iter() {
            let span = piece.original_span(start + s, start + e);
            // HF names an unknown Unigram piece by its own text, not by the unk token.
            let own = self.model.spells_unknown(id).then(|| {
                piece.chars()[start + s..start + e]
                    .iter()
                    .collect::<String>()
                    .into()
            });
            out.push(id, own, span, Some(word_index));
        }
        Ok(())
    }

    /// Adds `tokens` (their `id` fields are ignored) as HF's `add_tokens` and
    /// `add_special_tokens` do, and returns how many count as added: see
    /// [`AddedVocabulary::add`]. Later encodings match them before the pipeline runs.
    pub fn add_tokens(&mut self, tokens: Vec<AddedToken>) -> usize {
        let normalizer = self.normalizer.clone();
        let spell = move |content: &str| spell(normalizer.as_ref(), content);
        let size = self.model.vocab_size();
        let n = self.added.add(tokens, self.model.vocab(), size, spell);
        self.refresh_added();
        n
    }

    /// Rebuilds what the added tokens decide: the two matchers, the id-to-token table of
    /// encodings (a token the model makes is spelled as the model spells it) and the ids that
    /// decoding skips as special: those whose decoded token (a normalized added token is
    /// decoded as the normalizer spells it, as in HF) was ever added as special.
    pub(super) fn refresh_added(&mut self) {
        let normalizer = self.normalizer.as_ref();
        let spell = |content: &str| spell(normalizer, content);
        self.raw_matcher = self.added.matcher(spell, false);
        self.normalized_matcher = self.added.matcher(spell, true);
        let vocab = self.model.vocab();
        let mut table: FxHashMap<u32, String> =
            vocab.iter().map(|(t, &id)| (id, t.clone())).collect();
        for a in self.added.tokens() {
            table.insert(a.id, a.content.clone());
        }
        self.special_ids = table
            .keys()
            .copied()
            .filter(|&id| {
                self.decoded_token(id, &table)
                    .is_some_and(|t| self.added.is_special(t))
            })
            .collect();
        self.id_to_token = Arc::new(Table::new(table));
    }

    /// The token `id` decodes to: an added token's spelling, else `table`'s.
    fn decoded_token<'a>(&'a self, id: u32, table: &'a FxHashMap<u32, String>) -> Option<&'a str> {
        self.added
            .spelling(id)
            .or_else(|| table.get(&id).map(String::as_str))
    }

    /// The size of the model's vocabulary, or (`with_added_tokens`) of the vocabulary with
    /// the added tokens the model does not hold, as HF counts it.
    pub fn get_vocab_size(&self, with_added_tokens: bool) -> usize {
        let vocab = self.model.vocab();
        let mut n = self.model.vocab_size();
        if with_added_tokens {
            n += self
                .added
                .vocab()
                .filter(|(t, _)| !vocab.contains_key(*t))
                .count();
        }
        n
    }

    /// The text of `ids`; ids that no token has are skipped, as in HF.
    pub fn decode(&self, ids: &[u32], skip_special_tokens: bool) -> String {
        let tokens: Vec<String> = ids
            .iter()
            .filter(|id| !(skip_special_tokens && self.special_ids.contains(id)))
            .filter_map(|&id| self.id_to_token(id).map(String::from))
            .collect();
        match &self.decoder {
            Some(d) => d.decode(&tokens),
            None => tokens.join(" "),
        }
    }

    /// The id of `token`, added tokens first.
    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.added
            .token_to_id(token)
            .or_else(|| self.model.vocab().get(token).copied())
    }

    /// The token of `id` (a normalized added token as the normalizer spells it, as in HF).
    pub fn id_to_token(&self, id: u32) -> Option<&str> {
        if self.added.has_spellings() {
            if let Some(spelling) = self.added.spelling(id) {
                return Some(spelling);
            }
        }
        self.id_to_token.get(id)
    }

    /// Every token and its id, the added tokens included when `with_added_tokens`.
    pub fn get_vocab(&self, with_added_tokens: bool) -> FxHashMap<String, u32> {
        let mut vocab = self.model.vocab().clone();
        if with_added_tokens {
            for (token, id) in self.added.vocab() {
                vocab.insert(token.to_string(), id);
            }
        }
        vocab
    }

    /// The truncation in force, if any.
    pub fn truncation(&self) -> Option<&Truncation> {
        self.truncation.as_ref()
    }

    /// Sets (or with `None`, removes) truncation. As in HF, a stride not below `max_length`
    /// minus the special tokens of a single sequence is refused here; one that only a pair
    /// leaves too little room for fails when such a pair is encoded.
    pub fn set_truncation(&mut self, truncation: Option<Truncation>) -> Result<()> {
        if let Some(t) = &truncation {
            let added = self
                .post_processor
                .as_ref()
                .and_then(|p| p.template.as_ref())
                .map_or(0, |template| template.n_special_tokens(false));
            // Fewer than the special tokens: HF's check wraps around and accepts it.
            let room = t.max_length.checked_sub(added).unwrap_or(usize::MAX);
            if room < t.stride {
                return Err(crate::error::Error::Truncation(format!(
                    "truncation stride {} is above the room left for a sequence: {room} \
                     (max_length {} minus {added} special tokens)",
                    t.stride, t.max_length
                )));
            }
        }
        self.truncation = truncation;
        Ok(())
    }

    /// The padding in force, if any.
    pub fn padding(&self) -> Option<&Padding> {
        self.padding.as_ref()
    }

    /// Sets (or with `None`, removes) padding. As in HF, any pad id and token are accepted,
    /// in the vocabulary or not.
    pub fn set_padding(&mut self, padding: Option<Padding>) {
        self.padding = padding;
    }

    /// Pads the encodings of one batch to a common length as HF's `encode_batch` does (each
    /// was already padded alone by [`Self::encode`]); nothing without padding.
    pub fn pad_batch(&self, encodings: &mut [HfEncoding]) {
        if let Some(p) = &self.padding {
            p.pad_batch(encodings);
        }
    }

    /// The added tokens, one per id, by ascending id (as HF saves them).
    pub fn added_tokens(&self) -> Vec<AddedToken> {
        self.added.tokens().cloned().collect()
    }

    /// Whether special added tokens in the input are encoded as plain text (HF's
    /// `encode_special_tokens`; false when loaded).
    pub fn encode_special_tokens(&self) -> bool {
        self.added.encode_special_tokens()
    }

    /// Sets [`Self::encode_special_tokens`]. It is not saved in the JSON, as in HF.
    pub fn set_encode_special_tokens(&mut self, value: bool) {
        self.added.set_encode_special_tokens(value);
        self.refresh_added();
    }

    /// Sets a Unigram model's subword sampling ([`HfUnigram::set_sampling`]); not saved in
    /// the JSON, as in HF. Returns false (and changes nothing) for another model.
    ///
    /// [`HfUnigram::set_sampling`]: super::unigram::HfUnigram::set_sampling
    pub fn set_unigram_sampling(&mut self, alpha: Option<f64>, nbest: Option<usize>) -> bool {
        match &mut self.model {
            Model::Unigram(m) => {
                m.set_sampling(alpha, nbest);
                true
            }
            _ => false,
        }
    }

    /// A Unigram model's `(alpha, nbest_size)` when it samples.
    pub fn unigram_sampling(&self) -> Option<(f64, Option<usize>)> {
        match &self.model {
            Model::Unigram(m) => m.sampling(),
            _ => None,
        }
    }
}

/// `content` as `normalizer` spells it (unchanged without one).
fn spell(normalizer: Option<&Normalizer>, content: &str) -> String {
    let mut s = NormalizedString::new(content);
    if let Some(n) = normalizer {
        // A token the normalizer would grow past its limit keeps its own spelling; the
        // same text fails with that limit's error when an input holds it.
        if n.normalize(&mut s).is_err() {
            return content.to_string();
        }
    }
    s.text()
}

thread_local! {
    // Buffers reused from one encode call to the next on each thread: the two sequences
    // before post-processing, a word of a pre-tokenized input, and a piece under
    // normalization.
    pub(super) static FIRST: Cell<HfEncoding> = Cell::new(HfEncoding::default());
    pub(super) static SECOND: Cell<HfEncoding> = Cell::new(HfEncoding::default());
    // One word of a pre-tokenized input.
    static WORD: Cell<HfEncoding> = Cell::new(HfEncoding::default());
    static PIECE: Cell<NormalizedString> = Cell::new(NormalizedString::default());
}

/// Bytes an encoding's buffers hold per token (the vectors with one entry per token).
const BYTES_PER_TOKEN: usize = 4 * std::mem::size_of::<u32>()
    + std::mem::size_of::<Option<Box<str>>>()
    + std::mem::size_of::<(usize, usize)>()
    + std::mem::size_of::<Option<u32>>();

/// Empties `enc` and keeps its buffers in `scratch` for the next call on this thread, unless
/// a long text made them too large to keep (see [`crate::scratch`]).
pub(super) fn keep_for_reuse(scratch: &'static LocalKey<Cell<HfEncoding>>, mut enc: HfEncoding) {
    if crate::scratch::worth_keeping(enc.ids.capacity().saturating_mul(BYTES_PER_TOKEN)) {
        enc.clear();
        scratch.set(enc);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON: &str = r###"{
      "added_tokens": [
        {"id": 0, "content": "[UNK]", "special": true},
        {"id": 1, "content": "[CLS]", "special": true},
        {"id": 2, "content": "[SEP]", "special": true}],
      "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                     "strip_accents": null, "lowercase": true},
      "pre_tokenizer": {"type": "BertPreTokenizer"},
      "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]},
      "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
      "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                "max_input_chars_per_word": 100,
                "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "cafe": 3, "##s": 4, ",": 5,
                          "中": 6}}}"###;

    #[test]
    fn pair_with_special_tokens() {
        let tok = HfTokenizer::from_json_str(JSON).unwrap();
        let enc = tok.encode("Cafés,", Some("中x"), true).unwrap();
        assert_eq!(
            enc.tokens(),
            ["[CLS]", "cafe", "##s", ",", "[SEP]", "中", "[UNK]", "[SEP]"]
        );
        // Every token here is its id's token: none is stored.
        assert!(enc.own_tokens.iter().all(Option::is_none));
        assert_eq!(enc.type_ids, [0, 0, 0, 0, 0, 1, 1, 1]);
        assert_eq!(
            enc.offsets,
            [
                (0, 0),
                (0, 4),
                (4, 5),
                (5, 6),
                (0, 0),
                (0, 1),
                (1, 2),
                (0, 0)
            ]
        );
        assert_eq!(enc.special_tokens_mask, [1, 0, 0, 0, 1, 0, 0, 1]);
        assert_eq!(
            enc.word_ids,
            [
                None,
                Some(0),
                Some(0),
                Some(1),
                None,
                Some(0),
                Some(1),
                None
            ]
        );
        assert_eq!(tok.decode(&enc.ids, true), "cafes, 中");
        assert_eq!(
            tok.decode(&enc.ids, false),
            "[CLS] cafes, [SEP] 中 [UNK] [SEP]"
        );
    }

    #[test]
    fn without_special_tokens() {
        let tok = HfTokenizer::from_json_str(JSON).unwrap();
        let enc = tok.encode("cafe", Some("cafe"), false).unwrap();
        assert_eq!(enc.ids, [3, 3]);
        assert_eq!(enc.type_ids, [0, 1]);
        assert_eq!(tok.token_to_id("[SEP]"), Some(2));
        assert_eq!(tok.id_to_token(6), Some("中"));
        assert_eq!(tok.get_vocab(true).len(), 7);
    }
}
