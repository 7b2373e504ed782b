//! Ids alone for BERT-style `tokenizer.json` files: the BertNormalizer, the
//! BertPreTokenizer and the WordPiece model fused into one pass over the text, with no
//! normalized string, no offsets and no word list.
//!
//! Each character is normalized on its own (dropped by `clean_text`, turned into a space,
//! spaced out as a CJK ideograph, decomposed with its nonspacing marks dropped, lowercased),
//! and what comes out goes straight to the pre-tokenizer's test: whitespace ends a word, a
//! punctuation character is a word of its own, anything else grows the current word. A word
//! that ends goes to the model's ids ([`WordPiece::ids_into`], through its word cache).
//! ASCII takes a table built from those same steps, and each other character of the Basic
//! Multilingual Plane the outcome of those steps, computed the first time it is met.
//!
//! ```
//! use tokensmith_core::hf::bert_ids::BertIds;
//! use tokensmith_core::hf::normalizers::BertNormalizer;
//! use tokensmith_core::hf::wordpiece::WordPiece;
//! let vocab = [("[UNK]", 0), ("hello", 1), ("!", 2), ("cafe", 3)];
//! let wp = WordPiece::new(vocab.iter().map(|&(t, i)| (t.to_string(), i)).collect(),
//!                         "[UNK]", "##", 100).unwrap();
//! let engine = BertIds::new(Some(&BertNormalizer::default()));
//! let mut ids = Vec::new();
//! assert!(engine.encode_into(&wp, "Hello! Café\u{7}?", &mut ids).unwrap());
//! assert_eq!(ids, [1, 2, 3, 0]);
//! ```
//!
//! What it does not handle: a character whose decomposition keeps a mark of nonzero
//! combining class (not a nonspacing mark, so `strip_accents` keeps it). The full pipeline
//! reorders such marks across characters; [`BertIds::encode_into`] answers `false` and the
//! text takes that pipeline.

use super::normalizers::BertNormalizer;
use super::pre_tokenizers::{bert_role, BertRole};
use super::wordpiece::WordPiece;
use crate::error::Result;
use std::sync::atomic::{AtomicU32, Ordering};

/// What one ASCII byte becomes in the fused pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ascii {
    /// Removed by `clean_text`.
    Drop,
    /// Whitespace once normalized: ends the current word.
    Space,
    /// Punctuation once normalized: a word of its own.
    Punctuation(u8),
    /// Grows the current word with this (lowercased, when the normalizer lowercases) byte.
    Word(u8),
    /// Grows the current word with the byte itself.
    Same,
}

/// What a character of the Basic Multilingual Plane becomes, as [`BmpTable`] stores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Drop,
    Space,
    /// A word of its own (punctuation, or a CJK ideograph spaced out).
    Alone(char),
    Word(char),
    /// More than one character, or a mark that stops the pass: the steps run each time.
    Other,
}

/// Outcomes of the characters of the Basic Multilingual Plane, filled as they are met: 0 is
/// "not computed yet", else the tag in the top byte and the character below it. A cell only
/// ever goes from 0 to its one value, so relaxed loads and stores suffice.
struct BmpTable(Box<[AtomicU32]>);

impl BmpTable {
    fn new() -> Self {
        Self((0..0x10000).map(|_| AtomicU32::new(0)).collect())
    }

    fn decode(cell: u32) -> Outcome {
        let c = char::from_u32(cell & 0xff_ffff).unwrap_or('\0');
        match cell >> 24 {
            1 => Outcome::Drop,
            2 => Outcome::Space,
            3 => Outcome::Alone(c),
            4 => Outcome::Word(c),
            _ => Outcome::Other,
        }
    }

    fn encode(outcome: Outcome) -> u32 {
        match outcome {
            Outcome::Drop => 1 << 24,
            Outcome::Space => 2 << 24,
            Outcome::Alone(c) => 3 << 24 | c as u32,
            Outcome::Word(c) => 4 << 24 | c as u32,
            Outcome::Other => 5 << 24,
        }
    }
}

impl Clone for BmpTable {
    /// A copy starts empty: the table is a speed-up, not part of the pass.
    fn clone(&self) -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for BmpTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BmpTable")
    }
}

/// The fused BertNormalizer + BertPreTokenizer pass that feeds a WordPiece model.
#[derive(Clone, Debug)]
pub struct BertIds {
    normalizer: BertNormalizer,
    ascii: [Ascii; 128],
    bmp: BmpTable,
}

/// Where a normalized character goes: the current word, and the ids it ends in.
struct Words<'a> {
    model: &'a WordPiece,
    word: String,
    out: &'a mut Vec<u32>,
}

impl Words<'_> {
    /// The pre-tokenizer's rule on one normalized character.
    fn push(&mut self, c: char) -> Result<()> {
        match bert_role(c) {
            BertRole::Space => self.flush(),
            BertRole::Alone => self.alone(c),
            BertRole::Word => {
                self.word.push(c);
                Ok(())
            }
        }
    }

    /// A character that is a word of its own: the current word ends, then it.
    fn alone(&mut self, c: char) -> Result<()> {
        self.flush()?;
        self.word.push(c);
        self.flush()
    }

    /// Ends the current word: its ids go out.
    fn flush(&mut self) -> Result<()> {
        if !self.word.is_empty() {
            self.model.ids_into(&self.word, self.out)?;
            self.word.clear();
        }
        Ok(())
    }
}

impl BertIds {
    /// The pass for this normalizer (`None`: no normalizer, the text is split as it is).
    pub fn new(normalizer: Option<&BertNormalizer>) -> Self {
        let off = BertNormalizer {
            clean_text: false,
            handle_chinese_chars: false,
            strip_accents: Some(false),
            lowercase: false,
        };
        let mut engine = Self {
            normalizer: normalizer.unwrap_or(&off).clone(),
            ascii: [Ascii::Drop; 128],
            bmp: BmpTable::new(),
        };
        for b in 0..128u8 {
            engine.ascii[b as usize] = engine.ascii_class(b);
        }
        engine
    }

    /// The table entry of one ASCII byte, from the steps every character takes.
    fn ascii_class(&self, b: u8) -> Ascii {
        let mut normalized = Vec::new();
        let kept = self
            .normalizer
            .normalize_char(b as char, |c| normalized.push(c));
        // Cleaning and lowercasing keep ASCII within ASCII, one character at most.
        debug_assert!(kept && normalized.len() <= 1 && normalized.iter().all(char::is_ascii));
        let Some(&c) = normalized.first() else {
            return Ascii::Drop;
        };
        match bert_role(c) {
            BertRole::Space => Ascii::Space,
            BertRole::Alone => Ascii::Punctuation(c as u8),
            BertRole::Word if c as u32 == b as u32 => Ascii::Same,
            BertRole::Word => Ascii::Word(c as u8),
        }
    }

    /// The outcome of the steps for `c`, from the table when `c` is in the Basic
    /// Multilingual Plane.
    fn outcome(&self, c: char) -> Outcome {
        let Some(cell) = self.bmp.0.get(c as usize) else {
            return Outcome::Other;
        };
        match cell.load(Ordering::Relaxed) {
            0 => {
                let outcome = self.compute_outcome(c);
                cell.store(BmpTable::encode(outcome), Ordering::Relaxed);
                outcome
            }
            known => BmpTable::decode(known),
        }
    }

    fn compute_outcome(&self, c: char) -> Outcome {
        let mut normalized = Vec::new();
        if !self.normalizer.normalize_char(c, |d| normalized.push(d)) {
            return Outcome::Other;
        }
        match *normalized.as_slice() {
            [] => Outcome::Drop,
            [d] => match bert_role(d) {
                BertRole::Space => Outcome::Space,
                BertRole::Alone => Outcome::Alone(d),
                BertRole::Word => Outcome::Word(d),
            },
            [' ', d, ' '] if bert_role(d) == BertRole::Word => Outcome::Alone(d),
            _ => Outcome::Other,
        }
    }

    /// Appends the ids of `text` (no added tokens in it) to `out`, and returns `true`; or
    /// returns `false` (with `out` in any state) when the text must take the full pipeline.
    ///
    /// # Errors
    /// A word that needs the model's unknown token when its vocabulary has none.
    pub fn encode_into(&self, model: &WordPiece, text: &str, out: &mut Vec<u32>) -> Result<bool> {
        let mut words = Words {
            model,
            word: String::with_capacity(32),
            out,
        };
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b.is_ascii() {
                match self.ascii[b as usize] {
                    Ascii::Same => {
                        // A run of such bytes is copied (or handed on) at once.
                        let run = bytes[i..]
                            .iter()
                            .position(|&b| !b.is_ascii() || self.ascii[b as usize] != Ascii::Same)
                            .map_or(bytes.len(), |n| i + n);
                        let ends = bytes.get(run).is_none_or(|&b| {
                            b.is_ascii()
                                && matches!(
                                    self.ascii[b as usize],
                                    Ascii::Space | Ascii::Punctuation(_)
                                )
                        });
                        if ends && words.word.is_empty() {
                            model.ids_into(&text[i..run], words.out)?;
                        } else {
                            words.word.push_str(&text[i..run]);
                        }
                        i = run;
                        continue;
                    }
                    Ascii::Word(w) => words.word.push(w as char),
                    Ascii::Space => words.flush()?,
                    Ascii::Punctuation(p) => words.alone(p as char)?,
                    Ascii::Drop => {}
                }
                i += 1;
                continue;
            }
            let Some(c) = text[i..].chars().next() else {
                break;
            };
            i += c.len_utf8();
            match self.outcome(c) {
                Outcome::Word(d) => {
                    words.word.push(d);
                    continue;
                }
                Outcome::Space => {
                    words.flush()?;
                    continue;
                }
                Outcome::Alone(d) => {
                    words.alone(d)?;
                    continue;
                }
                Outcome::Drop => continue,
                Outcome::Other => {}
            }
            let mut normalized = ['\0'; 8];
            let mut n = 0;
            let mut more = Vec::new();
            let kept = self.normalizer.normalize_char(c, |d| {
                match normalized.get_mut(n) {
                    Some(slot) => *slot = d,
                    None => more.push(d),
                }
                n += 1;
            });
            if !kept {
                return Ok(false);
            }
            for &d in normalized[..n.min(8)].iter().chain(&more) {
                words.push(d)?;
            }
        }
        words.flush()?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> WordPiece {
        let vocab = [
            "[UNK]",
            "a",
            "##b",
            "e",
            "!",
            "中",
            "i",
            "##\u{307}",
            "x\u{1d165}",
        ];
        let vocab = vocab
            .iter()
            .enumerate()
            .map(|(i, t)| (t.to_string(), i as u32))
            .collect();
        WordPiece::new(vocab, "[UNK]", "##", 5).unwrap()
    }

    fn ids(normalizer: Option<&BertNormalizer>, text: &str) -> Option<Vec<u32>> {
        let mut out = Vec::new();
        let done = BertIds::new(normalizer)
            .encode_into(&model(), text, &mut out)
            .unwrap();
        done.then_some(out)
    }

    #[test]
    fn normalizes_and_splits_as_the_pipeline() {
        let bert = BertNormalizer::default();
        let n = Some(&bert);
        assert_eq!(ids(n, "AB!\tÉ \u{0}\u{7}ab"), Some(vec![1, 2, 4, 3, 1, 2]));
        // A dropped control character does not end a word.
        assert_eq!(ids(n, "É\u{7}b"), Some(vec![3, 2]));
        assert_eq!(ids(n, "a中a"), Some(vec![1, 5, 1]));
        assert_eq!(ids(n, "İ"), Some(vec![6]));
        let kept_accents = BertNormalizer {
            strip_accents: Some(false),
            ..BertNormalizer::default()
        };
        assert_eq!(ids(Some(&kept_accents), "İ"), Some(vec![6, 7]));
        assert_eq!(ids(n, "abbbbb a"), Some(vec![0, 1]));
        assert_eq!(ids(n, ""), Some(vec![]));
    }

    #[test]
    fn without_a_normalizer_the_text_is_split_as_it_is() {
        assert_eq!(ids(None, "A a\u{7}"), Some(vec![0, 0]));
        assert_eq!(ids(None, "a\u{3000}ab"), Some(vec![1, 1, 2]));
    }

    #[test]
    fn a_kept_mark_of_nonzero_class_takes_the_full_pipeline() {
        let bert = BertNormalizer::default();
        assert_eq!(ids(Some(&bert), "x\u{1d165}"), None);
        let cased = BertNormalizer {
            lowercase: false,
            ..BertNormalizer::default()
        };
        // Without strip_accents nothing is decomposed or reordered.
        assert_eq!(ids(Some(&cased), "x\u{1d165}"), Some(vec![8]));
    }
}
