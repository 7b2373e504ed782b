//! Two pre-tokenizers that cut without looking at words: UnicodeScripts and FixedLength.
//!
//! UnicodeScripts cuts wherever the Unicode script changes, as SentencePiece's Unigram
//! trainer does: spaces belong to no script (they never cut and never change the current
//! script), Hiragana, Katakana and U+30FC count as Han, and unassigned code points belong to
//! no script either. FixedLength cuts every `length` characters.
//!
//! ```
//! use tokensmith_core::hf::unicode_scripts::{fixed_length, script_runs};
//! let chars: Vec<char> = "abc東京ひらがな 123".chars().collect();
//! assert_eq!(script_runs(&chars), vec![(0, 3), (3, 10), (10, 13)]);
//! // Leading spaces are dropped, as HF drops them.
//! assert_eq!(script_runs(&[' ', 'a']), vec![(1, 2)]);
//! assert_eq!(fixed_length(&['a'; 7], 3), vec![(0, 3), (3, 6), (6, 7)]);
//! ```
//!
//! Not handled exactly: HF's script table is Unicode 9.0 and this one is the
//! `unicode-script` crate's (a newer Unicode). Characters assigned since 9.0 (recent emoji,
//! for one) have no script in HF and their real script here, so a cut can differ around them;
//! so can characters whose script changed since 9.0 (U+0589 is mapped back; others, if any
//! occur, are not known here).

use unicode_script::{Script, UnicodeScript};

/// The script HF's UnicodeScripts sees for `c`; `None` for no script at all.
fn script_of(c: char) -> Option<Script> {
    if c.is_ascii() {
        // ASCII letters are Latin, the other ASCII characters Common (skipping the table).
        return match c {
            ' ' => None,
            c if c.is_ascii_alphabetic() => Some(Script::Latin),
            _ => Some(Script::Common),
        };
    }
    if c == '\u{30FC}' {
        return Some(Script::Han);
    }
    if c == '\u{589}' {
        // ARMENIAN FULL STOP: Common in Unicode 9.0 (HF's table), Armenian in later ones.
        return Some(Script::Common);
    }
    match c.script() {
        Script::Unknown => None,
        Script::Hiragana | Script::Katakana => Some(Script::Han),
        s => Some(s),
    }
}

/// The runs of one script, as `(start, end)` ranges. As in HF, a run starts at each
/// character with a script other than the last one seen, and text before the first such
/// character (leading spaces, or a text of spaces only) is in no run: it is dropped.
pub fn script_runs(chars: &[char]) -> Vec<(usize, usize)> {
    let mut cuts = Vec::new();
    let mut last: Option<Script> = None;
    for (i, &c) in chars.iter().enumerate() {
        if let Some(s) = script_of(c) {
            if last != Some(s) {
                cuts.push(i);
            }
            last = Some(s);
        }
    }
    cuts.push(chars.len());
    cuts.windows(2).map(|w| (w[0], w[1])).collect()
}

/// Consecutive pieces of `length` characters (the last one shorter).
pub fn fixed_length(chars: &[char], length: usize) -> Vec<(usize, usize)> {
    let length = length.max(1);
    (0..chars.len())
        .step_by(length)
        .map(|s| (s, (s + length).min(chars.len())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_shortcut_agrees_with_the_table() {
        for c in (0u8..128).map(char::from).filter(|&c| c != ' ') {
            assert_eq!(script_of(c), Some(c.script()), "{c:?}");
        }
    }
}
