//! SentencePiece's precompiled character map: the normalization table every `.model` carries.
//!
//! Layout (facts from sentencepiece's `normalizer.cc`): a little-endian `u32` giving the size of
//! a darts-clone double-array trie, the trie's 32-bit units, then a blob of NUL-terminated
//! replacement strings. The trie maps UTF-8 byte sequences to offsets into that blob.
//!
//! Lookup takes the longest rule matching a prefix of the input; with no rule, the first
//! character is kept as it is.
//!
//! What it does not handle: building a charsmap from rules (training needs that).

use crate::error::{Error, Result};

/// A loaded charsmap. Every access is bounds-checked, so a damaged map cannot panic.
#[derive(Debug, Clone)]
pub struct PrecompiledCharsMap {
    units: Vec<u32>,
    normalized: Vec<u8>,
}

impl PrecompiledCharsMap {
    /// Reads the `precompiled_charsmap` bytes of a `NormalizerSpec`.
    pub fn parse(blob: &[u8]) -> Result<Self> {
        let bad = |what: &str| Error::ModelFormat(format!("precompiled_charsmap: {what}"));
        if blob.len() < 4 {
            return Err(bad("shorter than its 4-byte header"));
        }
        let trie_size = u32::from_le_bytes([blob[0], blob[1], blob[2], blob[3]]) as usize;
        let rest = &blob[4..];
        if trie_size > rest.len() || !trie_size.is_multiple_of(4) || trie_size == 0 {
            return Err(bad(&format!(
                "trie size {trie_size} does not fit the {} bytes that follow",
                rest.len()
            )));
        }
        let units = rest[..trie_size]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok(Self {
            units,
            normalized: rest[trie_size..].to_vec(),
        })
    }

    /// The longest rule that matches a prefix of `input`: (replacement, bytes consumed).
    pub fn longest_match(&self, input: &[u8]) -> Option<(&str, usize)> {
        let mut best: Option<(u32, usize)> = None;
        // Darts-clone unit fields: offset, label, has_leaf and value, packed in one u32.
        let offset = |unit: u32| ((unit >> 10) << ((unit & (1 << 9)) >> 6)) as usize;
        let label = |unit: u32| unit & ((1 << 31) | 0xff);
        let has_leaf = |unit: u32| (unit >> 8) & 1 == 1;
        let mut node = offset(*self.units.first()?);
        // sentencepiece asks darts for at most 32 matches and takes the longest of those.
        let mut found = 0usize;
        for (i, &byte) in input.iter().enumerate() {
            node ^= usize::from(byte);
            let Some(&unit) = self.units.get(node) else {
                break;
            };
            if label(unit) != u32::from(byte) {
                break;
            }
            node ^= offset(unit);
            if has_leaf(unit) {
                if found < 32 {
                    let Some(&leaf) = self.units.get(node) else {
                        break;
                    };
                    best = Some((leaf & 0x7fff_ffff, i + 1));
                }
                found += 1;
            }
        }
        let (value, len) = best?;
        let tail = self.normalized.get(value as usize..)?;
        let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
        let replacement = std::str::from_utf8(&tail[..end]).ok()?;
        Some((replacement, len))
    }
}
