//! A compact, deterministic byte format for [`WordCounts`], so counts made elsewhere (other
//! processes, other machines, spilled runs) can travel and be merged.
//!
//! Layout, all integers little-endian:
//!
//! ```text
//! magic   b"TSWC\x01\x00\x00\x00"       8 bytes (format version 1)
//! n       u64                            number of entries
//! n × {   len u32 | word [len]u8 | count u64 }, sorted by word bytes
//! ```
//!
//! Sorting makes equal counts serialize to equal bytes, and lets sorted runs be merged in one
//! pass.
//!
//! ```
//! use tokensmith_core::trainers::WordCounts;
//! let counts: WordCounts = [("b", 2u64), ("a", 1)].into_iter().collect();
//! let bytes = counts.to_bytes();
//! assert_eq!(WordCounts::from_bytes(&bytes).unwrap().get(b"b"), 2);
//! ```

use super::word_counts::WordCounts;
use crate::error::{Error, Result};

pub(crate) const MAGIC: &[u8; 8] = b"TSWC\x01\x00\x00\x00";

/// The most byte occurrences a counts buffer may stand for (the sum of count × word length).
/// The trainers keep pair counts in `i64`; no real corpus comes near 2^62 bytes, so a buffer
/// past it is forged or corrupt, and refusing it keeps every count the trainers add up exact.
pub const MAX_TOTAL_BYTES: u128 = 1 << 62;

impl WordCounts {
    /// The counts in the format above.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut entries: Vec<(&[u8], u64)> = self.iter().collect();
        entries.sort_unstable();
        let size: usize = entries.iter().map(|(w, _)| w.len() + 12).sum();
        let mut out = Vec::with_capacity(16 + size);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        for (word, n) in entries {
            out.extend_from_slice(&(word.len() as u32).to_le_bytes());
            out.extend_from_slice(word);
            out.extend_from_slice(&n.to_le_bytes());
        }
        out
    }

    /// Reads counts written by [`to_bytes`](Self::to_bytes); a truncated or foreign buffer is
    /// an error that says where it went wrong.
    pub fn from_bytes(data: &[u8]) -> Result<Self> {
        let mut reader = Reader { data, pos: 0 };
        if reader.take(8)? != MAGIC {
            return Err(bad(0, "not a tokensmith word-count buffer (wrong magic)"));
        }
        let n = reader.u64()?;
        let mut counts = WordCounts::new();
        let mut total: u128 = 0;
        for _ in 0..n {
            let at = reader.pos;
            let len = reader.u32()? as usize;
            let word = reader.take(len)?;
            let count = reader.u64()?;
            total += u128::from(count) * (len.max(1) as u128);
            if total > MAX_TOTAL_BYTES {
                return Err(bad(
                    at,
                    "the counts add up past 2^62 bytes of text, more than any corpus holds",
                ));
            }
            counts.add(word, count);
        }
        if reader.pos != data.len() {
            return Err(bad(reader.pos, "trailing bytes after the last entry"));
        }
        Ok(counts)
    }
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let end = end.ok_or_else(|| bad(self.pos, "truncated"))?;
        let slice = &self.data[self.pos..end];
        self.pos = end;
        Ok(slice)
    }

    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().unwrap_or_default(),
        ))
    }

    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().unwrap_or_default(),
        ))
    }
}

fn bad(offset: usize, what: &str) -> Error {
    Error::InvalidOption(format!("word counts, byte {offset}: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn round_trips_and_is_canonical(words in prop::collection::vec((prop::collection::vec(any::<u8>(), 0..12), 1u64..1000), 0..50)) {
            let counts: WordCounts = words.iter().map(|(w, n)| (w.as_slice(), *n)).collect();
            let bytes = counts.to_bytes();
            let back = WordCounts::from_bytes(&bytes).unwrap();
            prop_assert_eq!(back.len(), counts.len());
            for (w, n) in counts.iter() {
                prop_assert_eq!(back.get(w), n);
            }
            prop_assert_eq!(back.to_bytes(), bytes.clone());
            // Every strict prefix is rejected, never misread.
            for cut in 0..bytes.len() {
                prop_assert!(WordCounts::from_bytes(&bytes[..cut]).is_err());
            }
        }
    }

    #[test]
    fn counts_past_any_corpus_are_rejected() {
        let mut counts = WordCounts::new();
        counts.add(b"ab", u64::MAX / 2);
        let err = WordCounts::from_bytes(&counts.to_bytes()).unwrap_err();
        assert!(err.to_string().contains("2^62"), "{err}");
        counts.add(b"ab", u64::MAX);
        assert_eq!(counts.get(b"ab"), u64::MAX, "adding saturates");
    }

    #[test]
    fn foreign_bytes_are_rejected() {
        let err = WordCounts::from_bytes(b"not counts at all").unwrap_err();
        assert!(err.to_string().contains("magic"), "{err}");
    }
}
