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
        let Some(automaton) = &self.automaton else {
            return vec![(None, (0, chars.len()))];
        };
        let text: String = chars.iter().collect();
        let mut char_at = Vec::with_capacity(text.len() + 1);
        for (i, c) in chars.iter().enumerate() {
            char_at.extend(std::iter::repeat_n(i, c.len_utf8()));
        }
        char_at.push(chars.len());
        let mut spans = Vec::new();
        let mut done = 0;
        for m in automaton.find_iter(&text) {
            let token = &self.tokens[m.pattern().as_usize()];
            let (mut start, mut stop) = (char_at[m.start()], char_at[m.end()]);
            if token.single_word {
                let alone_before = start == 0 || !is_onig_word(chars[start - 1]);
                let alone_after = stop == chars.len() || !is_onig_word(chars[stop]);
                if !(alone_before && alone_after) {
                    continue;
                }
            }
            if token.lstrip {
                let spaces = chars[..start]
                    .iter()
                    .rev()
                    .take_while(|c| c.is_whitespace())
                    .count();
                start = (start - spaces).max(done);
            }
            if token.rstrip {
                stop += chars[stop..]
                    .iter()
                    .take_while(|c| c.is_whitespace())
                    .count();
            }
            if done < start {
                spans.push((None, (done, start)));
            }
            spans.push((Some(token.id), (start, stop)));
            done = stop;
        }
        if done < chars.len() || spans.is_empty() {
            spans.push((None, (done, chars.len())));
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
