//! A string under normalization that remembers, for each of its characters, which characters
//! of the original string it came from.
//!
//! ```
//! use tokensmith_core::hf::NormalizedString;
//! let mut s = NormalizedString::new("Ab");
//! s.map_chars(|c| c.to_lowercase().collect());
//! assert_eq!(s.text(), "ab");
//! assert_eq!(s.original_span(1, 2), (1, 2));
//! ```

/// Characters with their spans `(start, end)` in the original string, in characters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NormalizedString {
    chars: Vec<char>,
    align: Vec<(usize, usize)>,
}

impl NormalizedString {
    /// The identity normalization of `text`.
    pub fn new(text: &str) -> Self {
        Self::new_at(text, 0)
    }

    /// The identity normalization of `text`, a part of the original string that starts at
    /// character `offset`.
    pub fn new_at(text: &str, offset: usize) -> Self {
        let chars: Vec<char> = text.chars().collect();
        let align = (offset..offset + chars.len()).map(|i| (i, i + 1)).collect();
        Self { chars, align }
    }

    /// Makes this the identity normalization of `text` starting at character `offset`, as
    /// [`Self::new_at`] does, reusing its vectors.
    pub fn reset(&mut self, text: &str, offset: usize) {
        self.chars.clear();
        self.chars.extend(text.chars());
        self.align.clear();
        self.align
            .extend((offset..offset + self.chars.len()).map(|i| (i, i + 1)));
    }

    /// The normalized characters.
    pub fn chars(&self) -> &[char] {
        &self.chars
    }

    /// The normalized text.
    pub fn text(&self) -> String {
        self.chars.iter().collect()
    }

    /// The number of normalized characters.
    pub fn len(&self) -> usize {
        self.chars.len()
    }

    /// Whether nothing is left.
    pub fn is_empty(&self) -> bool {
        self.chars.is_empty()
    }

    /// The original span of the normalized characters `start..end` (`start < end`).
    pub fn original_span(&self, start: usize, end: usize) -> (usize, usize) {
        (self.align[start].0, self.align[end - 1].1)
    }

    /// Keeps the characters for which `keep` is true.
    pub fn filter(&mut self, keep: impl Fn(char) -> bool) {
        let mut out = 0;
        for i in 0..self.chars.len() {
            if keep(self.chars[i]) {
                self.chars[out] = self.chars[i];
                self.align[out] = self.align[i];
                out += 1;
            }
        }
        self.chars.truncate(out);
        self.align.truncate(out);
    }

    /// Replaces each character by zero or more characters; all of them keep its span.
    /// ([`Self::expand`] does the same without a vector per character.)
    pub fn map_chars(&mut self, f: impl Fn(char) -> Vec<char>) {
        self.expand(|c, out| out.extend(f(c)));
    }

    /// Replaces each character by one character, keeping its span.
    pub fn map_each(&mut self, f: impl Fn(char) -> char) {
        for c in &mut self.chars {
            *c = f(*c);
        }
    }

    /// Replaces each character by the characters `f` appends to the buffer it is given (zero
    /// or more); all of them keep its span. Works in place, without allocating, while no
    /// character has grown the string past the characters already read.
    pub fn expand(&mut self, mut f: impl FnMut(char, &mut Vec<char>)) {
        thread_local! {
            // The characters of one character, reused from call to call.
            static BUF: std::cell::Cell<Vec<char>> = const { std::cell::Cell::new(Vec::new()) };
        }
        let mut buf = BUF.take();
        self.expand_with(&mut buf, &mut f);
        BUF.set(buf);
    }

    fn expand_with(&mut self, buf: &mut Vec<char>, mut f: impl FnMut(char, &mut Vec<char>)) {
        let n = self.chars.len();
        let mut written = 0;
        for read in 0..n {
            buf.clear();
            f(self.chars[read], buf);
            if written + buf.len() > read + 1 {
                self.expand_from(read, written, buf, f);
                return;
            }
            let span = self.align[read];
            for &c in buf.iter() {
                self.chars[written] = c;
                self.align[written] = span;
                written += 1;
            }
        }
        self.chars.truncate(written);
        self.align.truncate(written);
    }

    /// The rest of [`Self::expand`] once a character grew the string: `buf` holds the
    /// characters of `read`, and `written` characters are already in place.
    #[cold]
    fn expand_from(
        &mut self,
        read: usize,
        written: usize,
        buf: &[char],
        mut f: impl FnMut(char, &mut Vec<char>),
    ) {
        let n = self.chars.len();
        let mut chars = Vec::with_capacity(n + n / 2 + buf.len());
        let mut align = Vec::with_capacity(chars.capacity());
        chars.extend_from_slice(&self.chars[..written]);
        align.extend_from_slice(&self.align[..written]);
        chars.extend_from_slice(buf);
        align.extend(std::iter::repeat_n(self.align[read], buf.len()));
        let mut buf = Vec::new();
        for i in read + 1..n {
            buf.clear();
            f(self.chars[i], &mut buf);
            chars.extend_from_slice(&buf);
            align.extend(std::iter::repeat_n(self.align[i], buf.len()));
        }
        self.chars = chars;
        self.align = align;
    }

    /// Replaces each character by one character per byte of its UTF-8 form, byte `b` spelled
    /// `table[b]`; each keeps the span of the character it came from. Works in the vectors it
    /// has (filling them from the end), so a reused string allocates nothing.
    pub fn spell_bytes(&mut self, table: &[char; 256]) {
        let n = self.chars.len();
        let n_bytes: usize = self.chars.iter().map(|c| c.len_utf8()).sum();
        if n_bytes == n {
            for c in &mut self.chars {
                *c = table[*c as usize];
            }
            return;
        }
        self.chars.resize(n_bytes, '\0');
        self.align.resize(n_bytes, (0, 0));
        // Character `r` goes to the end of the bytes of characters `0..=r`, never before `r`:
        // walking back, nothing is overwritten before it is read.
        let mut write = n_bytes;
        let mut buf = [0u8; 4];
        for read in (0..n).rev() {
            let span = self.align[read];
            for &b in self.chars[read]
                .encode_utf8(&mut buf)
                .as_bytes()
                .iter()
                .rev()
            {
                write -= 1;
                self.chars[write] = table[b as usize];
                self.align[write] = span;
            }
        }
    }

    /// Removes whitespace (`char::is_whitespace`) at the start and/or the end.
    pub fn strip(&mut self, left: bool, right: bool) {
        if right {
            while self.chars.last().is_some_and(|c| c.is_whitespace()) {
                self.chars.pop();
                self.align.pop();
            }
        }
        if left {
            let n = self.chars.iter().take_while(|c| c.is_whitespace()).count();
            self.chars.drain(..n);
            self.align.drain(..n);
        }
    }

    /// Reorders runs of combining marks by canonical combining class (stable), as NFD does
    /// after decomposition. Spans stay where they were: HF gives a reordered mark the span
    /// of the position it lands on, not of the character it came from.
    pub fn canonical_reorder(&mut self) {
        use unicode_normalization_alignments::char::canonical_combining_class as ccc;
        // Every character below U+0300 has class 0.
        let ccc = |c: char| if c < '\u{300}' { 0 } else { ccc(c) };
        let n = self.chars.len();
        let mut i = 0;
        while i < n {
            if ccc(self.chars[i]) == 0 {
                i += 1;
                continue;
            }
            let start = i;
            while i < n && ccc(self.chars[i]) != 0 {
                i += 1;
            }
            self.chars[start..i].sort_by_key(|&c| ccc(c));
        }
    }

    /// Puts `c` before the first character, with that character's span (as HF's
    /// `prepend` does); an empty string stays empty.
    pub fn prepend(&mut self, c: char) {
        if let Some(&span) = self.align.first() {
            self.chars.insert(0, c);
            self.align.insert(0, span);
        }
    }

    /// Replaces every occurrence of `pattern` (left to right, without overlaps) by
    /// `content`, whose characters all take the span of the match's last character (as HF's
    /// `replace` aligns them). An empty pattern changes nothing.
    pub fn replace_literal(&mut self, pattern: &str, content: &str) {
        let pattern: Vec<char> = pattern.chars().collect();
        if pattern.is_empty() || !self.chars.windows(pattern.len()).any(|w| w == pattern) {
            return;
        }
        let mut content_chars = content.chars();
        if let ([from], (Some(to), None)) =
            (&pattern[..], (content_chars.next(), content_chars.next()))
        {
            // One character for one: each keeps its own span.
            self.replace_char(*from, to);
            return;
        }
        let mut chars = Vec::with_capacity(self.chars.len());
        let mut align = Vec::with_capacity(self.align.len());
        let mut i = 0;
        while i < self.chars.len() {
            if self.chars[i..].starts_with(&pattern) {
                let span = self.align[i + pattern.len() - 1];
                for c in content.chars() {
                    chars.push(c);
                    align.push(span);
                }
                i += pattern.len();
            } else {
                chars.push(self.chars[i]);
                align.push(self.align[i]);
                i += 1;
            }
        }
        self.chars = chars;
        self.align = align;
    }

    /// The number of characters after [`Self::replace_literal`] of `pattern` by a content of
    /// `content_len` characters, counted without allocating.
    pub fn replaced_len(&self, pattern: &str, content_len: usize) -> usize {
        let pattern: Vec<char> = pattern.chars().collect();
        if pattern.is_empty() {
            return self.len();
        }
        let (mut i, mut found) = (0, 0usize);
        while i < self.chars.len() {
            if self.chars[i..].starts_with(&pattern) {
                found += 1;
                i += pattern.len();
            } else {
                i += 1;
            }
        }
        self.len() - found * pattern.len() + found.saturating_mul(content_len)
    }

    /// Replaces every `from` by `to`, each keeping its span.
    pub fn replace_char(&mut self, from: char, to: char) {
        for c in &mut self.chars {
            if *c == from {
                *c = to;
            }
        }
    }

    /// Where this string starts in the original, in characters (0 when empty).
    pub fn original_start(&self) -> usize {
        self.align.first().map_or(0, |a| a.0)
    }

    /// Whether every character is ASCII.
    pub fn is_ascii(&self) -> bool {
        self.chars.iter().all(char::is_ascii)
    }

    /// Splits into the pieces `[start, end)` of normalized characters given, keeping spans.
    pub fn slice(&self, start: usize, end: usize) -> NormalizedString {
        NormalizedString {
            chars: self.chars[start..end].to_vec(),
            align: self.align[start..end].to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_and_map_keep_spans() {
        let mut s = NormalizedString::new("a\u{7}bc");
        s.filter(|c| c != '\u{7}');
        assert_eq!(s.text(), "abc");
        assert_eq!(s.original_span(1, 3), (2, 4));
        s.map_chars(|c| if c == 'b' { vec![' ', c, ' '] } else { vec![c] });
        assert_eq!(s.text(), "a b c");
        assert_eq!(s.original_span(2, 3), (2, 3));
    }

    #[test]
    fn expand_in_place_then_growing() {
        // Deletions leave room that a later expansion fills in place.
        let mut s = NormalizedString::new("xxab");
        s.expand(|c, out| match c {
            'x' => {}
            'a' => out.extend(['a', 'A']),
            _ => out.push(c),
        });
        assert_eq!(s.text(), "aAb");
        assert_eq!(s.original_span(1, 2), (2, 3));
        assert_eq!(s.original_span(2, 3), (3, 4));
        // A growth past the characters read moves to new vectors, spans intact.
        let mut s = NormalizedString::new("abc");
        s.expand(|c, out| out.extend([c, c]));
        assert_eq!(s.text(), "aabbcc");
        assert_eq!(s.original_span(3, 4), (1, 2));
        assert_eq!(s.original_span(5, 6), (2, 3));
        s.map_each(|c| c.to_ascii_uppercase());
        assert_eq!(s.text(), "AABBCC");
    }

    #[test]
    fn spell_bytes_in_place() {
        let mut table = ['?'; 256];
        for (b, slot) in table.iter_mut().enumerate() {
            *slot = char::from_u32(0x100 + b as u32).unwrap();
        }
        let mut s = NormalizedString::new_at("aé中", 5);
        s.spell_bytes(&table);
        let expected: String = "aé中".bytes().map(|b| table[b as usize]).collect();
        assert_eq!(s.text(), expected);
        let spans: Vec<_> = (0..s.len()).map(|i| s.original_span(i, i + 1)).collect();
        assert_eq!(spans, [(5, 6), (6, 7), (6, 7), (7, 8), (7, 8), (7, 8)]);
        let mut ascii = NormalizedString::new("ab");
        ascii.spell_bytes(&table);
        assert_eq!(ascii.text(), "\u{161}\u{162}");
    }

    #[test]
    fn strip_keeps_inner_spans() {
        let mut s = NormalizedString::new(" \u{3000}a b\t");
        s.strip(true, true);
        assert_eq!(s.text(), "a b");
        assert_eq!(s.original_span(0, 3), (2, 5));
    }

    #[test]
    fn reorder_keeps_spans_in_place() {
        let mut s = NormalizedString::new("a\u{301}\u{323}");
        s.canonical_reorder();
        assert_eq!(s.text(), "a\u{323}\u{301}");
        assert_eq!(s.original_span(1, 2), (1, 2));
    }
}
