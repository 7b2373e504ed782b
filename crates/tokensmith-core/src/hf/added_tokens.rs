//! Added tokens found in the input before the pipeline runs, as HF's `AddedVocabulary` does.
//!
//! Tokens with `normalized: false` are looked for in the original text; the text between
//! them is normalized piece by piece, and tokens with `normalized: true` are then looked for
//! in each normalized piece (spelled as the normalizer spells them). Matching is leftmost-
//! longest over all tokens at once. A `single_word` token must not touch a word character
//! (`\w`) on either side; `lstrip`/`rstrip` take the whitespace before/after it into the match.
//!
//! ```
//! use tokensmith_core::hf::added_tokens::{AddedMatcher, AddedToken};
//! let tokens = vec![AddedToken::special(7, "<s>")];
//! let m = AddedMatcher::new(&tokens, |s| s.to_string(), false);
//! let chars: Vec<char> = "a<s>b".chars().collect();
//! assert_eq!(m.find(&chars), vec![(None, (0, 1)), (Some(7), (1, 4)), (None, (4, 5))]);
//! ```

use super::char_props::is_onig_word;
use crate::special_tokens::token_matcher;
use aho_corasick::AhoCorasick;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;

/// A token added on top of the model's vocabulary (`added_tokens` in the file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddedToken {
    pub id: u32,
    pub content: String,
    pub special: bool,
    pub normalized: bool,
    pub lstrip: bool,
    pub rstrip: bool,
    pub single_word: bool,
}

impl AddedToken {
    /// A special token matched in the original text, without stripping.
    pub fn special(id: u32, content: &str) -> Self {
        Self {
            id,
            content: content.to_string(),
            special: true,
            normalized: false,
            lstrip: false,
            rstrip: false,
            single_word: false,
        }
    }
}

/// The added tokens of a tokenizer, kept as HF's `AddedVocabulary` keeps them: one token per
/// id (the latest added with that content), the content of every token ever added as special
/// (re-adding one as not special leaves it special for decoding, as in HF), and the spelling a
/// `normalized` token has after the normalizer (decoding and `id_to_token` use it).
///
/// ```
/// use tokensmith_core::hf::added_tokens::{AddedToken, AddedVocabulary};
/// use rustc_hash::FxHashMap;
/// let model: FxHashMap<String, u32> = [("a".to_string(), 0), ("b".to_string(), 1)]
///     .into_iter()
///     .collect();
/// let mut added = AddedVocabulary::default();
/// let new = |content: &str| AddedToken::special(0, content);
/// // Empty and unchanged tokens are not counted; "b" keeps the model's id.
/// let n = added.add(vec![new("<x>"), new("<x>"), new(""), new("b")], &model, 2, |s| s.into());
/// assert_eq!(n, 2);
/// assert_eq!(added.token_to_id("<x>"), Some(2));
/// assert_eq!(added.token_to_id("b"), Some(1));
/// ```
#[derive(Clone, Debug, Default)]
pub struct AddedVocabulary {
    by_content: FxHashMap<String, u32>,
    by_id: BTreeMap<u32, AddedToken>,
    special: FxHashSet<String>,
    spelled: FxHashMap<u32, String>,
    /// HF's `encode_special_tokens`: special tokens are not matched, their text is encoded.
    encode_special_tokens: bool,
}

impl AddedVocabulary {
    /// Adds `tokens` in order (their `id` fields are ignored) and returns how many count as
    /// added: every token but the empty ones and those already added with the same flags. A
    /// token the model's `vocab` (or an earlier added token) holds keeps that id; a new one
    /// takes the larger of `model_size` (HF's count: a Unigram piece listed twice counts
    /// twice) and the highest added id plus one. `spell` is the normalizer, applied to
    /// `normalized` tokens.
    pub fn add(
        &mut self,
        tokens: Vec<AddedToken>,
        vocab: &FxHashMap<String, u32>,
        model_size: usize,
        spell: impl Fn(&str) -> String,
    ) -> usize {
        let model_size = model_size as u32;
        let mut next_id = match self.by_id.keys().next_back() {
            Some(&max) if max >= model_size || model_size == 0 => max + 1,
            _ => model_size,
        };
        let mut counted = 0;
        for mut token in tokens {
            if token.content.is_empty() {
                continue;
            }
            if let Some(old) = self.by_content.get(&token.content) {
                let same = self.by_id.get(old).is_some_and(|t| {
                    AddedToken {
                        id: t.id,
                        ..token.clone()
                    } == *t
                });
                if same {
                    continue;
                }
            }
            counted += 1;
            let id = match self
                .token_to_id(&token.content)
                .or_else(|| vocab.get(&token.content).copied())
            {
                Some(id) => id,
                None => {
                    next_id += 1;
                    next_id - 1
                }
            };
            token.id = id;
            if token.normalized {
                let spelling = spell(&token.content);
                if spelling != token.content {
                    self.spelled.insert(id, spelling);
                }
            }
            self.by_content.insert(token.content.clone(), id);
            if token.special {
                self.special.insert(token.content.clone());
            }
            self.by_id.insert(id, token);
        }
        counted
    }

    /// The id of an added token's content.
    pub fn token_to_id(&self, content: &str) -> Option<u32> {
        self.by_content.get(content).copied()
    }

    /// Every added token's content and id (as `get_vocab` lists them).
    pub fn vocab(&self) -> impl Iterator<Item = (&str, u32)> + '_ {
        self.by_content.iter().map(|(c, &id)| (c.as_str(), id))
    }

    /// How many contents were added (a content re-added under another id still counts once).
    pub fn len(&self) -> usize {
        self.by_content.len()
    }

    /// Whether nothing was added.
    pub fn is_empty(&self) -> bool {
        self.by_content.is_empty()
    }

    /// The added tokens, one per id, by ascending id (as HF saves them).
    pub fn tokens(&self) -> impl Iterator<Item = &AddedToken> + '_ {
        self.by_id.values()
    }

    /// How the token of `id` is spelled when decoding: its normalized form, if normalized.
    pub fn spelling(&self, id: u32) -> Option<&str> {
        let token = self.by_id.get(&id)?;
        Some(self.spelled.get(&id).unwrap_or(&token.content))
    }

    /// Whether some normalized token is spelled otherwise than its content.
    pub fn has_spellings(&self) -> bool {
        !self.spelled.is_empty()
    }

    /// Whether `token` was ever added as a special token (decoding skips it).
    pub fn is_special(&self, token: &str) -> bool {
        self.special.contains(token)
    }

    /// Whether special tokens in the input are encoded as text (HF's `encode_special_tokens`).
    pub fn encode_special_tokens(&self) -> bool {
        self.encode_special_tokens
    }

    /// Sets [`Self::encode_special_tokens`]; the matchers must then be rebuilt
    /// ([`Self::matcher`]).
    pub fn set_encode_special_tokens(&mut self, value: bool) {
        self.encode_special_tokens = value;
    }

    /// The matcher over the tokens whose `normalized` flag is `normalized` (see
    /// [`AddedMatcher::new`]). With `encode_special_tokens`, a match of a token whose content
    /// was ever added as special is dropped, as HF drops it: its text stays plain text, and
    /// no other token is looked for inside it.
    pub fn matcher(&self, spell: impl Fn(&str) -> String, normalized: bool) -> AddedMatcher {
        let mut m = AddedMatcher::new(self.tokens(), spell, normalized);
        if self.encode_special_tokens {
            m.skipped = m.tokens.iter().map(|t| self.is_special_id(t.id)).collect();
        }
        m
    }

    /// Whether the added token of `id` has a content that was ever added as special.
    fn is_special_id(&self, id: u32) -> bool {
        self.by_id
            .get(&id)
            .is_some_and(|t| self.is_special(&t.content))
    }
}

/// The tokens of one matching pass (original text, or normalized pieces).
#[derive(Clone, Debug)]
pub struct AddedMatcher {
    automaton: Option<AhoCorasick>,
    tokens: Vec<AddedToken>,
    /// For each token, whether its matches are dropped (empty: none is).
    skipped: Vec<bool>,
}

/// Consecutive spans `(start, end)` in characters, each an added token's id or plain text.
pub type Spans = Vec<(Option<u32>, (usize, usize))>;

impl AddedMatcher {
    /// The matcher over the tokens whose `normalized` flag is `normalized`, each spelled by
    /// `spell` (the normalizer, for normalized tokens).
    pub fn new<'a>(
        tokens: impl IntoIterator<Item = &'a AddedToken>,
        spell: impl Fn(&str) -> String,
        normalized: bool,
    ) -> Self {
        let tokens: Vec<AddedToken> = tokens
            .into_iter()
            .filter(|t| t.normalized == normalized && !t.content.is_empty())
            .map(|t| AddedToken {
                content: if normalized {
                    spell(&t.content)
                } else {
                    t.content.clone()
                },
                ..t.clone()
            })
            .filter(|t| !t.content.is_empty())
            .collect();
        let automaton = if tokens.is_empty() {
            None
        } else {
            let contents: Vec<&str> = tokens.iter().map(|t| t.content.as_str()).collect();
            token_matcher(&contents).ok()
        };
        Self {
            automaton,
            tokens,
            skipped: Vec::new(),
        }
    }

    /// Whether there is nothing to look for.
    pub fn is_empty(&self) -> bool {
        self.automaton.is_none()
    }

    /// Cuts `chars` into added tokens and the text between them.
    pub fn find(&self, chars: &[char]) -> Spans {
        if self.automaton.is_none() {
            return vec![(None, (0, chars.len()))];
        }
        let text: String = chars.iter().collect();
        self.find_str(&text)
    }

    /// Cuts `text` into added tokens and the text between them, with spans in characters.
    pub fn find_str(&self, text: &str) -> Spans {
        if self.automaton.is_none() {
            return vec![(None, (0, text.chars().count()))];
        }
        // Matches only move forward, so one walk turns the byte spans into characters.
        let mut spans = self.find_bytes(text);
        let (mut byte, mut char) = (0, 0);
        let mut to_chars = |b: usize| {
            char += text[byte..b].chars().count();
            byte = b;
            char
        };
        for (_, span) in &mut spans {
            *span = (to_chars(span.0), to_chars(span.1));
        }
        spans
    }

    /// Cuts `text` into added tokens and the text between them, with spans in bytes.
    pub fn find_bytes(&self, text: &str) -> Spans {
        let Some(automaton) = &self.automaton else {
            return vec![(None, (0, text.len()))];
        };
        let mut spans: Vec<(Option<u32>, (usize, usize))> = Vec::new();
        let mut done = 0;
        for m in automaton.find_iter(text) {
            let token = &self.tokens[m.pattern().as_usize()];
            if self.skipped.get(m.pattern().as_usize()) == Some(&true) {
                continue;
            }
            let (mut start, mut stop) = (m.start(), m.end());
            if token.single_word {
                let alone_before = text[..start]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !is_onig_word(c));
                let alone_after = text[stop..].chars().next().is_none_or(|c| !is_onig_word(c));
                if !(alone_before && alone_after) {
                    continue;
                }
            }
            if token.lstrip {
                let kept = text[..start].trim_end_matches(char::is_whitespace).len();
                start = kept.max(done);
            }
            if token.rstrip {
                stop = text.len() - text[stop..].trim_start_matches(char::is_whitespace).len();
            }
            // A match that begins inside the spaces an `rstrip` token before it took is
            // dropped, its rest left as text: HF keeps both, as tokens whose text and offsets
            // overlap, which later steps cannot cut the text by.
            if start < done {
                continue;
            }
            if done < start {
                spans.push((None, (done, start)));
            }
            spans.push((Some(token.id), (start, stop)));
            done = stop;
        }
        if done < text.len() || spans.is_empty() {
            spans.push((None, (done, text.len())));
        }
        spans
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(token: AddedToken, text: &str) -> Spans {
        let chars: Vec<char> = text.chars().collect();
        AddedMatcher::new(&[token], |s| s.to_string(), false).find(&chars)
    }

    #[test]
    fn strip_and_single_word() {
        let mut t = AddedToken::special(1, "<m>");
        t.lstrip = true;
        t.rstrip = true;
        assert_eq!(
            spans(t, "a  <m> b"),
            vec![(None, (0, 1)), (Some(1), (1, 7)), (None, (7, 8))]
        );
        let mut w = AddedToken::special(2, "cat");
        w.single_word = true;
        assert_eq!(spans(w.clone(), "cats"), vec![(None, (0, 4))]);
        assert_eq!(
            spans(w, "a cat."),
            vec![(None, (0, 2)), (Some(2), (2, 5)), (None, (5, 6))]
        );
    }

    #[test]
    fn a_match_inside_the_spaces_an_rstrip_token_took_is_dropped() {
        let mut s = AddedToken::special(1, "<s>");
        s.rstrip = true;
        let x = AddedToken::special(2, " x");
        let chars: Vec<char> = "<s> xa".chars().collect();
        let found = AddedMatcher::new(&[s, x], |s| s.to_string(), false).find(&chars);
        assert_eq!(found, vec![(Some(1), (0, 4)), (None, (4, 6))]);
    }

    #[test]
    fn encode_special_tokens_drops_special_matches() {
        let model = FxHashMap::default();
        let plain = |content: &str| AddedToken {
            special: false,
            ..AddedToken::special(0, content)
        };
        let mut added = AddedVocabulary::default();
        let tokens = vec![AddedToken::special(0, "<s>"), plain("s"), plain("<")];
        assert_eq!(added.add(tokens, &model, 5, |s| s.into()), 3);
        let chars: Vec<char> = "<s>s".chars().collect();
        let found = |added: &AddedVocabulary| added.matcher(|s| s.into(), false).find(&chars);
        assert_eq!(found(&added), vec![(Some(5), (0, 3)), (Some(6), (3, 4))]);
        added.set_encode_special_tokens(true);
        // The dropped match's text is not searched again: neither "<" nor "s" in it match.
        assert_eq!(found(&added), vec![(None, (0, 3)), (Some(6), (3, 4))]);
    }

    #[test]
    fn longest_match_wins() {
        let tokens = [AddedToken::special(1, "<s"), AddedToken::special(2, "<s>")];
        let chars: Vec<char> = "<s><s".chars().collect();
        let m = AddedMatcher::new(&tokens, |s| s.to_string(), false);
        assert_eq!(m.find(&chars), vec![(Some(2), (0, 3)), (Some(1), (3, 5))]);
    }
}
