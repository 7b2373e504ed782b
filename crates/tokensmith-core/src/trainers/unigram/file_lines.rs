//! The lines of a text file as sentencepiece's trainer reads them (`--input=FILE`), from
//! blocks of whole lines (the caller reads the file in large blocks, so that no line is
//! handed over one at a time).
//!
//! sentencepiece reads a file with `std::getline`: a line is its bytes up to `\n`, which is
//! dropped; a `\r` before it stays (nmt_nfkc makes it a space, `identity` keeps it). An
//! empty line is passed over without counting as a sentence. A line is measured in bytes as
//! read, before any decoding. Its normalizer reads invalid UTF-8 one byte at a time: each
//! byte that does not start a valid character becomes U+FFFD.
//!
//! ```
//! use tokensmith_core::trainers::unigram::file_lines::{decode_lossy, lines};
//! let block = b"ab\r\n\nc\xff\xe2\x96d";
//! let found: Vec<&[u8]> = lines(block).collect();
//! assert_eq!(found, [&b"ab\r"[..], b"", b"c\xff\xe2\x96d"]);
//! let mut buf = String::new();
//! let line = decode_lossy(found[2], &mut buf);
//! assert_eq!((line.text, line.replaced), ("c\u{fdd0}\u{fdd0}\u{fdd0}d", 2));
//! ```

/// The lines of `block`, each without its `\n`; a block that ends with `\n` has no empty
/// line after it.
pub fn lines(block: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = (!block.is_empty()).then(|| block.strip_suffix(b"\n").unwrap_or(block));
    std::iter::from_fn(move || {
        let text = rest?;
        match text.iter().position(|&b| b == b'\n') {
            Some(end) => {
                rest = Some(&text[end + 1..]);
                Some(&text[..end])
            }
            None => {
                rest = None;
                Some(text)
            }
        }
    })
}

/// `block` cut after a `\n` about every `size` bytes (a longer line is one piece), so that
/// the pieces can be read on several threads.
pub fn pieces(block: &[u8], size: usize) -> Vec<&[u8]> {
    let mut out = Vec::with_capacity(block.len() / size.max(1) + 1);
    let mut rest = block;
    while rest.len() > size {
        let cut = match rest[size..].iter().position(|&b| b == b'\n') {
            Some(at) => size + at + 1,
            None => rest.len(),
        };
        out.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// A line decoded by [`decode_lossy`].
#[derive(Debug, PartialEq)]
pub struct Decoded<'a> {
    pub text: &'a str,
    /// Invalid UTF-8 sequences (maximal runs of bytes that start no character) replaced.
    pub replaced: usize,
    /// What each invalid byte became in `text`, if any did.
    pub mark: Option<char>,
}

/// Noncharacters: every normalization rule leaves them as they are.
const MARKS: std::ops::RangeInclusive<char> = '\u{fdd0}'..='\u{fdef}';

/// `raw` as text (written into `buf` only when something is replaced), each byte of invalid
/// UTF-8 made one mark: a noncharacter that `raw` does not hold. sentencepiece's normalizer
/// writes U+FFFD for such a byte, after the rules (nmt_nfkc makes a U+FFFD of the text a
/// space); the caller puts U+FFFD for the mark once the text is normalized.
pub fn decode_lossy<'a>(raw: &'a [u8], buf: &'a mut String) -> Decoded<'a> {
    let error = match std::str::from_utf8(raw) {
        Ok(text) => {
            return Decoded {
                text,
                replaced: 0,
                mark: None,
            }
        }
        Err(e) => e,
    };
    let mark = MARKS
        .into_iter()
        .find(|c| {
            let mut b = [0; 4];
            let b = c.encode_utf8(&mut b).as_bytes();
            !raw.windows(b.len()).any(|w| w == b)
        })
        .unwrap_or('\u{fffd}');
    buf.clear();
    let mut replaced = 0;
    let mut rest = raw;
    let mut error = Some(error);
    while let Some(e) = error {
        let (good, bad) = rest.split_at(e.valid_up_to());
        // The prefix was just checked.
        buf.push_str(std::str::from_utf8(good).unwrap_or_default());
        // Every byte of a maximal invalid run is one that starts no valid character.
        let n = e.error_len().unwrap_or(bad.len());
        buf.extend(std::iter::repeat_n(mark, n));
        replaced += 1;
        rest = &bad[n..];
        error = match std::str::from_utf8(rest) {
            Ok(text) => {
                buf.push_str(text);
                None
            }
            Err(e) => Some(e),
        };
    }
    Decoded {
        text: buf.as_str(),
        replaced,
        mark: Some(mark),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_carriage_returns_and_empty_lines() {
        let found: Vec<&[u8]> = lines(b"a\n\n\r\nb\n").collect();
        assert_eq!(found, [&b"a"[..], b"", b"\r", b"b"]);
        assert_eq!(lines(b"").count(), 0);
        assert_eq!(lines(b"\n").collect::<Vec<_>>(), [b""]);
        assert_eq!(lines(b"x").collect::<Vec<_>>(), [b"x"]);
    }

    #[test]
    fn pieces_end_at_line_ends_and_cover_the_block() {
        let block = b"aaaa\nbb\ncccccccc\nd\nlast";
        let found = pieces(block, 3);
        assert_eq!(found, [&b"aaaa\n"[..], b"bb\ncccccccc\n", b"d\nlast"]);
        assert_eq!(found.concat(), block);
        assert_eq!(pieces(b"", 3).len(), 0);
    }

    #[test]
    fn invalid_bytes_are_replaced_one_by_one() {
        let mut buf = String::new();
        // An overlong form, a surrogate, a code point past U+10FFFF and a cut-off character.
        let raw = b"a\xc0\x80b\xed\xa0\x80c\xf4\x90\x80\x80d\xe2\x96";
        let line = decode_lossy(raw, &mut buf);
        let m = "\u{fdd0}";
        let want = [
            "a",
            &m.repeat(2),
            "b",
            &m.repeat(3),
            "c",
            &m.repeat(4),
            "d",
            &m.repeat(2),
        ];
        assert_eq!(line.text, want.concat());
        // Runs: C0 | 80 | ED | A0 | 80 | F4 | 90 | 80 | 80 | E2 96.
        assert_eq!(line.replaced, 10);
        // The mark is a character the line does not hold.
        let line = decode_lossy("\u{fdd0}\u{fdd1}\u{fdd3}\u{ff}".as_bytes(), &mut buf);
        assert_eq!(line.mark, None);
        let raw = [&b"\xff"[..], "\u{fdd0}\u{fdd1}".as_bytes()].concat();
        let line = decode_lossy(&raw, &mut buf);
        assert_eq!(line.text, "\u{fdd2}\u{fdd0}\u{fdd1}");
        assert_eq!(line.mark, Some('\u{fdd2}'));
    }
}
