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
pub(crate) const MARK: &[u8] = "\u{2581}".as_bytes();

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
        let mut start = 0;
        while start < text.len() {
            let end = self.word_end(text, start);
            if !f(start, end) {
                return false;
            }
            start = end;
        }
        true
    }

    /// Where the word of `text` that starts at `start` (a word boundary before the text's
    /// end) ends: prefix mode skips the word's leading marks and stops at the next mark,
    /// suffix mode stops after the first run of marks.
    #[inline(always)]
    pub fn word_end(self, text: &[u8], start: usize) -> usize {
        let mut i = start;
        match self {
            Self::Prefix => {
                while is_mark(text, i) {
                    i += MARK.len();
                }
                next_mark(text, i)
            }
            Self::Suffix => {
                i = next_mark(text, i);
                while is_mark(text, i) {
                    i += MARK.len();
                }
                i
            }
        }
    }
}

/// Whether a mark starts at byte `i` of `text`.
#[inline(always)]
fn is_mark(text: &[u8], i: usize) -> bool {
    text.get(i..i + 3)
        .is_some_and(|b| b[0] == MARK[0] && b[1] == MARK[1] && b[2] == MARK[2])
}

/// The first position from `i` on where a mark starts, or the text's length. The mark's lead
/// byte is never inside another character, so `i` may be inside one.
#[inline(always)]
pub(crate) fn next_mark(text: &[u8], mut i: usize) -> usize {
    loop {
        i = next_lead(text, i);
        if i >= text.len() || is_mark(text, i) {
            return i;
        }
        i += 1;
    }
}

/// The first position from `i` on that holds the mark's first byte (0xE2), or the text's
/// length; tests eight bytes at a time, since most text between marks is ASCII.
#[inline]
fn next_lead(text: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    while let Some(eight) = text.get(i..i + 8) {
        let v = u64::from_le_bytes(eight.try_into().unwrap_or_default()) ^ (ONES * 0xE2);
        // The high bit of each byte of `v` that is zero, that is, each byte that was 0xE2;
        // exact up to the first such byte (a borrow only reaches the bytes above it).
        let found = v.wrapping_sub(ONES) & !v & (ONES * 0x80);
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
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

    /// The boundaries as the module's doc defines them, found one character at a time.
    fn reference_words(split: WordSplit, text: &str) -> Vec<&str> {
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let mut out = Vec::new();
        let mut start = 0;
        for w in chars.windows(2) {
            let ((_, prev), (at, next)) = (w[0], w[1]);
            let boundary = match split {
                WordSplit::Prefix => next == '\u{2581}' && prev != '\u{2581}',
                WordSplit::Suffix => prev == '\u{2581}' && next != '\u{2581}',
            };
            if boundary {
                out.push(&text[start..at]);
                start = at;
            }
        }
        if start < text.len() {
            out.push(&text[start..]);
        }
        out
    }

    /// On random texts of marks, ASCII, other characters with the mark's lead byte (U+2580,
    /// U+2026) and other multi-byte characters, the words are the reference's.
    #[test]
    fn words_match_the_reference_split() {
        let alphabet = [
            '\u{2581}', 'a', 'b', ' ', '\u{2580}', '\u{2026}', 'é', '語', '😀',
        ];
        let mut rng = super::super::sample::SplitMix64::new(7);
        for _ in 0..3000 {
            let len = (rng.next_u64() % 30) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[(rng.next_u64() % alphabet.len() as u64) as usize])
                .collect();
            for split in [WordSplit::Prefix, WordSplit::Suffix] {
                assert_eq!(
                    words(split, &text),
                    reference_words(split, &text),
                    "{split:?} {text:?}"
                );
            }
        }
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
