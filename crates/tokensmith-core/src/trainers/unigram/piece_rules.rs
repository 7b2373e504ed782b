//! Which strings may become pieces, and how a normalized sentence splits into words.
//!
//! Facts kept from sentencepiece's `TrainerInterface::IsValidSentencePiece` and
//! `SplitIntoWords`:
//! - a piece has 1..=`max_piece_length` characters and never holds a space, NUL, tab or the
//!   unknown marker U+2585;
//! - `▁` may only open a piece (close it, with `treat_whitespace_as_suffix`); without
//!   `split_by_whitespace` it may also sit inside, but not at the other end;
//! - with `split_by_unicode_script`, a piece holds one script; Hiragana, Katakana and `ー`
//!   count as Han, and a combining mark (script Inherited) takes its left neighbour's script;
//! - without `split_by_number`, ASCII digits join any script; with `split_digits`, a digit is
//!   always a piece of its own;
//! - words start at each `▁` (end after it, with `treat_whitespace_as_suffix`): see
//!   [`crate::models::sentencepiece_parts::split_words`].
//!
//! ```
//! use tokensmith_core::trainers::unigram::PieceRules;
//! let rules = PieceRules::default();
//! assert!(rules.is_valid("▁hello"));
//! assert!(!rules.is_valid("hello▁"));
//! assert!(!rules.is_valid("ab,"));      // Latin then Common
//! assert!(rules.is_valid("漢字かな"));    // Han with kana
//! ```

use unicode_script::{Script, UnicodeScript};

use super::config::UnigramConfig;

/// The whitespace marker.
pub const SPACE: char = '\u{2581}';
/// What characters outside the required set become while training (sentencepiece's kUNKChar).
pub const UNK_CHAR: char = '\u{2585}';

/// The rules of [`PieceRules::is_valid`], taken from a [`UnigramConfig`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PieceRules {
    pub max_piece_length: usize,
    pub split_by_whitespace: bool,
    pub split_by_unicode_script: bool,
    pub split_by_number: bool,
    pub split_digits: bool,
    pub treat_whitespace_as_suffix: bool,
}

impl Default for PieceRules {
    fn default() -> Self {
        Self::from_config(&UnigramConfig::new(8000))
    }
}

/// The script class used to keep pieces within one script; `None` joins anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Any,
    Script(Script),
}

impl PieceRules {
    pub fn from_config(c: &UnigramConfig) -> Self {
        Self {
            max_piece_length: c.max_piece_length,
            split_by_whitespace: c.split_by_whitespace,
            split_by_unicode_script: c.split_by_unicode_script,
            split_by_number: c.split_by_number,
            split_digits: c.split_digits,
            treat_whitespace_as_suffix: c.treat_whitespace_as_suffix,
        }
    }

    /// True when `piece` may be a piece.
    pub fn is_valid(&self, piece: &str) -> bool {
        self.longest_valid_prefix(piece) == piece.len() && !piece.is_empty()
    }

    /// The byte length of the longest prefix of `text` that is a valid piece (0 if none).
    ///
    /// Every prefix is checked, not only the longest run of allowed characters, because the
    /// whitespace rules can reject a prefix whose extension is valid (`ab▁` versus `ab▁c`
    /// without `split_by_whitespace`).
    pub fn longest_valid_prefix(&self, text: &str) -> usize {
        let mut best = 0;
        let mut prev = Class::Any;
        for (at, (pos, c)) in text.char_indices().enumerate() {
            if at == self.max_piece_length || matches!(c, UNK_CHAR | '\0' | '\t' | ' ') {
                break;
            }
            let end = pos + c.len_utf8();
            // Whether a longer prefix may still be valid after this character.
            let mut last = false;
            if c == SPACE {
                match (self.treat_whitespace_as_suffix, self.split_by_whitespace) {
                    (false, true) if at > 0 => break,
                    // Inside is fine, last is not: this prefix fails, a longer one may pass.
                    (false, false) if at > 0 => continue,
                    (true, true) => last = true,
                    (true, false) if at == 0 => last = true,
                    _ => {}
                }
            } else {
                if c.is_ascii_digit() && self.split_digits {
                    if at > 0 {
                        break;
                    }
                    last = true;
                }
                let class = self.class_of(c, prev);
                if let (true, Class::Script(a), Class::Script(b)) =
                    (self.split_by_unicode_script, prev, class)
                {
                    if a != b {
                        break;
                    }
                }
                prev = class;
            }
            best = end;
            if last {
                break;
            }
        }
        best
    }

    fn class_of(&self, c: char, prev: Class) -> Class {
        if !self.split_by_number && c.is_ascii_digit() {
            return Class::Any;
        }
        // ASCII needs no table lookup: letters are Latin, the rest Common.
        let script = if c.is_ascii() {
            if c.is_ascii_alphabetic() {
                Script::Latin
            } else {
                Script::Common
            }
        } else {
            c.script()
        };
        match script {
            Script::Hiragana | Script::Katakana | Script::Han => Class::Script(Script::Han),
            _ if c == '\u{30FC}' => Class::Script(Script::Han),
            Script::Inherited => prev,
            s => Class::Script(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_rules() {
        let r = PieceRules::default();
        assert_eq!(r.longest_valid_prefix("▁hello,world"), "▁hello".len());
        assert_eq!(r.longest_valid_prefix("▅ab"), 0);
        assert_eq!(r.longest_valid_prefix("abc▁d"), 3);
        assert_eq!(
            r.longest_valid_prefix("abc12"),
            3,
            "Latin then Common digits"
        );
        assert_eq!(r.longest_valid_prefix("12ab"), 2);
        assert_eq!(
            r.longest_valid_prefix("カタカナ漢字ー"),
            "カタカナ漢字ー".len()
        );
        assert_eq!(
            r.longest_valid_prefix("e\u{301}a"),
            "e\u{301}a".len(),
            "mark joins e"
        );
        let long = "a".repeat(20);
        assert_eq!(r.longest_valid_prefix(&long), 16);
        let no_number = PieceRules {
            split_by_number: false,
            ..r
        };
        assert!(no_number.is_valid("abc12"));
        let digits = PieceRules {
            split_digits: true,
            ..no_number
        };
        assert!(!digits.is_valid("12"));
        assert!(!digits.is_valid("a1"));
        assert!(digits.is_valid("1"));
        let no_ws = PieceRules {
            split_by_whitespace: false,
            ..r
        };
        assert!(no_ws.is_valid("▁a▁b"));
        assert!(!no_ws.is_valid("▁a▁"));
        assert_eq!(no_ws.longest_valid_prefix("▁a▁"), "▁a".len());
        let suffix = PieceRules {
            treat_whitespace_as_suffix: true,
            ..r
        };
        assert!(suffix.is_valid("ab▁"));
        assert!(!suffix.is_valid("▁ab"));
        assert!(suffix.is_valid("▁"));
    }
}
