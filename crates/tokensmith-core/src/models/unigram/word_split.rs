//! Where the words of a normalized SentencePiece text begin and end.
//!
//! SentencePiece does not split text into words before its model runs, but the usual models
//! (trained with `split_by_whitespace`) have no piece that crosses a word boundary: `▁` only
//! starts a piece (or ends one, with `treat_whitespace_as_suffix`). Then no merge (BPE) and no
//! lattice node (Unigram) crosses the boundary, and the model can segment word by word and
//! remember each word's answer. [`WordSplit::for_pieces`] checks that condition on a model's
//! pieces; without it a model segments the whole text as before.
//!
//! A boundary is where a `▁` follows a character that is not `▁` (prefix mode: runs of `▁`,
//! as `▁▁▁` pieces make them, stay at the start of the next word), or, in suffix mode, where
//! a character that is not `▁` follows a `▁`.
//!
//! >>> "▁Hello▁▁world" -> ["▁Hello", "▁▁world"] (prefix mode)

/// The whitespace mark as UTF-8.
pub(super) const MARK: &[u8] = "\u{2581}".as_bytes();

/// Where words begin and end in a normalized text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordSplit {
    /// A word ends before a `▁` that follows another character.
    Prefix,
    /// A word ends after a `▁` that another character follows.
    Suffix,
}

impl WordSplit {
    /// The split that no piece crosses, if any: prefix mode when no piece has a `▁` right
    /// after another character, else suffix mode when no piece has a `▁` right before one.
    ///
    /// ```
    /// use tokensmith_core::models::unigram::WordSplit;
    /// assert_eq!(WordSplit::for_pieces(["▁a", "▁▁", "b"].into_iter()), Some(WordSplit::Prefix));
    /// assert_eq!(WordSplit::for_pieces(["a▁", "b"].into_iter()), Some(WordSplit::Suffix));
    /// assert_eq!(WordSplit::for_pieces(["a▁b"].into_iter()), None);
    /// ```
    pub fn for_pieces<'a>(pieces: impl Iterator<Item = &'a str> + Clone) -> Option<Self> {
        let crosses = |mark_after: bool| {
            pieces.clone().any(|p| {
                let mut prev: Option<bool> = None;
                p.chars().any(|c| {
                    let is_mark = c == '\u{2581}';
                    let hit = match prev {
                        Some(prev_mark) if mark_after => is_mark && !prev_mark,
                        Some(prev_mark) => prev_mark && !is_mark,
                        None => false,
                    };
                    prev = Some(is_mark);
                    hit
                })
            })
        };
        if !crosses(true) {
            Some(Self::Prefix)
        } else if !crosses(false) {
            Some(Self::Suffix)
        } else {
            None
        }
    }

    /// Calls `f(start, end)` for each word of `text`, in order (the words cover the text);
    /// stops early, returning `false`, when `f` does.
    #[inline]
    pub fn for_each_word(self, text: &[u8], mut f: impl FnMut(usize, usize) -> bool) -> bool {
        let is_mark = |i: usize| text.get(i..i + 3) == Some(MARK);
        let mut start = 0;
        let mut i = 0;
        match self {
            Self::Prefix => {
                while i < text.len() {
                    // The mark's first byte (0xE2) starts no other character of a word end.
                    if text[i] == MARK[0] && is_mark(i) {
                        if i > start && !(i >= 3 && is_mark(i - 3)) {
                            if !f(start, i) {
                                return false;
                            }
                            start = i;
                        }
                        i += 3;
                    } else {
                        i = next_lead(text, i + 1);
                    }
                }
            }
            Self::Suffix => {
                while i < text.len() {
                    if text[i] == MARK[0] && is_mark(i) {
                        i += 3;
                        if i < text.len() && !is_mark(i) {
                            if !f(start, i) {
                                return false;
                            }
                            start = i;
                        }
                    } else {
                        i = next_lead(text, i + 1);
                    }
                }
            }
        }
        start == text.len() || f(start, text.len())
    }
}

/// The first position from `i` on that holds the mark's first byte (0xE2), or the text's
/// length; tests eight bytes at a time, since most text between marks is ASCII.
#[inline]
fn next_lead(text: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    while let Some(eight) = text.get(i..i + 8) {
        let v = u64::from_le_bytes(eight.try_into().unwrap_or_default()) ^ (ONES * 0xE2);
        // Nonzero exactly when some byte of `v` is zero, that is, some byte is 0xE2.
        if v.wrapping_sub(ONES) & !v & (ONES * 0x80) != 0 {
            break;
        }
        i += 8;
    }
    while i < text.len() && text[i] != MARK[0] {
        i += 1;
    }
    i.min(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(split: WordSplit, text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        split.for_each_word(text.as_bytes(), |s, e| {
            out.push(&text[s..e]);
            true
        });
        out
    }

    #[test]
    fn splits_before_or_after_marks() {
        let t = "▁Hello▁▁world▁";
        assert_eq!(words(WordSplit::Prefix, t), ["▁Hello", "▁▁world", "▁"]);
        assert_eq!(words(WordSplit::Suffix, t), ["▁", "Hello▁▁", "world▁"]);
        assert_eq!(words(WordSplit::Prefix, "ab"), ["ab"]);
        assert_eq!(words(WordSplit::Prefix, ""), Vec::<&str>::new());
        assert_eq!(words(WordSplit::Suffix, "a▁b"), ["a▁", "b"]);
    }

    /// The eight-at-a-time scan finds the same position as a plain scan, wherever the lead
    /// byte sits and whatever bytes surround it.
    #[test]
    fn next_lead_matches_a_plain_scan() {
        let mut rng = super::super::sample::SplitMix64::new(3);
        for _ in 0..2000 {
            let len = (rng.next_u64() % 40) as usize;
            let text: Vec<u8> = (0..len)
                .map(|_| match rng.next_u64() % 6 {
                    0 => MARK[0],
                    1 => 0xE1,
                    2 => 0x62,
                    _ => (rng.next_u64() % 256) as u8,
                })
                .collect();
            for from in 0..=len {
                let want = (from..len).find(|&i| text[i] == MARK[0]).unwrap_or(len);
                assert_eq!(next_lead(&text, from), want, "{text:?} from {from}");
            }
        }
    }
}
