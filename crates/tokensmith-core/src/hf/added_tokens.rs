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
use aho_corasick::{AhoCorasick, MatchKind};

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

/// The tokens of one matching pass (original text, or normalized pieces).
#[derive(Clone, Debug)]
pub struct AddedMatcher {
    automaton: Option<AhoCorasick>,
    tokens: Vec<AddedToken>,
}

/// Consecutive spans `(start, end)` in characters, each an added token's id or plain text.
pub type Spans = Vec<(Option<u32>, (usize, usize))>;

impl AddedMatcher {
    /// The matcher over the tokens whose `normalized` flag is `normalized`, each spelled by
    /// `spell` (the normalizer, for normalized tokens).
    pub fn new(tokens: &[AddedToken], spell: impl Fn(&str) -> String, normalized: bool) -> Self {
        let tokens: Vec<AddedToken> = tokens
            .iter()
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
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(tokens.iter().map(|t| t.content.as_str()))
                .ok()
        };
        Self { automaton, tokens }
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
        let Some(automaton) = &self.automaton else {
            return vec![(None, (0, text.chars().count()))];
        };
        // Spans in bytes first; matches only move forward, so one walk turns them into
        // characters.
        let mut spans: Vec<(Option<u32>, (usize, usize))> = Vec::new();
        let mut done = 0;
        for m in automaton.find_iter(text) {
            let token = &self.tokens[m.pattern().as_usize()];
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
            if done < start {
                spans.push((None, (done, start)));
            }
            spans.push((Some(token.id), (start, stop)));
            done = stop;
        }
        if done < text.len() || spans.is_empty() {
            spans.push((None, (done, text.len())));
        }
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
    fn longest_match_wins() {
        let tokens = [AddedToken::special(1, "<s"), AddedToken::special(2, "<s>")];
        let chars: Vec<char> = "<s><s".chars().collect();
        let m = AddedMatcher::new(&tokens, |s| s.to_string(), false);
        assert_eq!(m.find(&chars), vec![(Some(2), (0, 3)), (Some(1), (3, 5))]);
    }
}
