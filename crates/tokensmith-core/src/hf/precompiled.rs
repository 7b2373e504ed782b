//! The Precompiled normalizer: a SentencePiece charsmap (`precompiled_charsmap`, base64 in
//! `tokenizer.json`) applied the way HF applies it, which is not quite SentencePiece's way.
//!
//! HF walks the text by extended grapheme clusters. A cluster shorter than 6 bytes that has a
//! rule for one of its prefixes is replaced, whole, by the replacement of the *shortest*
//! such prefix. Otherwise each character of the cluster is replaced by its own shortest rule,
//! or kept. SentencePiece instead takes the longest rule at each position, so the two differ
//! on a few clusters (HF's source says it keeps this for parity with its converted models).
//! The result is aligned with HF's `(char, change)` rule ([`super::transform`]).
//!
//! ```
//! use tokensmith_core::hf::precompiled::Precompiled;
//! // A charsmap with no rules is refused (HF cannot parse it either).
//! assert!(Precompiled::new(Vec::new()).is_err());
//! ```
//!
//! Not handled: nothing known beyond the module-level caveat of [`super::transform`].

use super::transform::apply_changes;
use super::NormalizedString;
use crate::normalizers::precompiled::PrecompiledCharsMap;
use crate::Result;
use unicode_segmentation::UnicodeSegmentation;

/// A loaded charsmap and the bytes it came from.
#[derive(Clone, Debug)]
pub struct Precompiled {
    raw: Vec<u8>,
    map: PrecompiledCharsMap,
    /// Whether each ASCII character has no rule of its own.
    ascii_kept: [bool; 128],
}

impl PartialEq for Precompiled {
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw
    }
}

impl Eq for Precompiled {}

impl Precompiled {
    /// Parses the decoded bytes of a `precompiled_charsmap`.
    pub fn new(raw: Vec<u8>) -> Result<Self> {
        let map = PrecompiledCharsMap::parse(&raw)?;
        let mut ascii_kept = [false; 128];
        for (b, kept) in (0u8..).zip(ascii_kept.iter_mut()) {
            *kept = map.longest_match(&[b]).is_none();
        }
        Ok(Self {
            raw,
            map,
            ascii_kept,
        })
    }

    /// The charsmap bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.raw
    }

    /// The replacement of the shortest rule matching a prefix of `chunk`, as HF's
    /// `Precompiled::transform` finds it (the key ends at a NUL byte).
    fn shortest_rule(&self, chunk: &str) -> Option<&str> {
        let bytes = chunk.as_bytes();
        let key = &bytes[..bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len())];
        // The longest rule within the first k bytes is the shortest rule overall at the
        // first k where there is one.
        (1..=key.len()).find_map(|k| self.map.longest_match(&key[..k]).map(|(r, _)| r))
    }

    /// Normalizes `s` in place.
    pub fn normalize(&self, s: &mut NormalizedString) {
        // ASCII characters without a rule are their own graphemes (but for CR LF, one
        // grapheme that could have a rule), each kept: such a text is left as it is.
        let kept = |c: &char| c.is_ascii() && *c != '\r' && self.ascii_kept[*c as usize];
        if s.chars().iter().all(kept) {
            return;
        }
        let text = s.text();
        let mut changes: Vec<(char, isize)> = Vec::with_capacity(s.len());
        let mut modified = false;
        for grapheme in text.graphemes(true) {
            if grapheme.len() < 6 {
                if let Some(norm) = self.shortest_rule(grapheme) {
                    modified = true;
                    push_replacement(&mut changes, grapheme, norm);
                    continue;
                }
            }
            for (i, c) in grapheme.char_indices() {
                let part = &grapheme[i..i + c.len_utf8()];
                match self.shortest_rule(part) {
                    Some(norm) => {
                        modified = true;
                        push_replacement(&mut changes, part, norm);
                    }
                    None => changes.push((c, 0)),
                }
            }
        }
        if modified {
            apply_changes(s, changes);
        }
    }
}

/// The pairs for `old` replaced by `new`, as HF writes them: every new character replaces
/// one old one; extra new characters are insertions; missing ones are removals charged to
/// the last pair written (possibly one of an earlier replacement).
fn push_replacement(changes: &mut Vec<(char, isize)>, old: &str, new: &str) {
    let diff = new.chars().count() as isize - old.chars().count() as isize;
    changes.extend(new.chars().map(|c| (c, 0)));
    if diff > 0 {
        let n = changes.len();
        for pair in &mut changes[n - diff as usize..] {
            pair.1 = 1;
        }
    } else if diff < 0 {
        if let Some(last) = changes.last_mut() {
            last.1 += diff;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacement_pairs() {
        let mut changes = Vec::new();
        push_replacement(&mut changes, "™", "TM");
        push_replacement(&mut changes, "\u{1e}", "");
        changes.push(('g', 0));
        // The removal lands on the inserted "M", which then replaces U+001E.
        assert_eq!(changes, [('T', 0), ('M', 0), ('g', 0)]);
        let mut s = NormalizedString::new("™\u{1e}g");
        apply_changes(&mut s, changes);
        assert_eq!(s.text(), "TMg");
        assert_eq!(s.original_span(1, 2), (1, 2));
    }
}
