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
    /// The replacement strings: checked as UTF-8 once when that holds for the whole blob
    /// (then lookups need no check), else kept as bytes and checked per lookup.
    normalized: std::result::Result<String, Vec<u8>>,
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
            normalized: String::from_utf8(rest[trie_size..].to_vec()).map_err(|e| e.into_bytes()),
        })
    }

    /// Whether some rule's key begins with `byte`. When none does, a character starting with
    /// that byte is always kept as it is, which lets callers copy such bytes without a lookup.
    pub fn has_rule_starting_with(&self, byte: u8) -> bool {
        self.has_rule_starting_with_all(&[byte])
    }

    /// Whether some rule's key begins with all of `key` (or is `key`). When none does, the
    /// character `key` encodes is always kept as it is.
    pub fn has_rule_starting_with_all(&self, key: &[u8]) -> bool {
        let Some(&root) = self.units.first() else {
            return false;
        };
        let mut node = unit_offset(root);
        for &byte in key {
            node ^= usize::from(byte);
            match self.units.get(node) {
                Some(&unit) if unit_label(unit) == u32::from(byte) => node ^= unit_offset(unit),
                _ => return false,
            }
        }
        true
    }

    /// Whether the character that is the first `len` bytes of `input` is kept as it is: no
    /// rule is exactly that character, and no longer rule goes on with the byte after it.
    pub fn keeps_char(&self, input: &[u8], len: usize) -> bool {
        let Some(&root) = self.units.first() else {
            return true;
        };
        let mut node = unit_offset(root);
        for (i, &byte) in input.iter().enumerate().take(len + 1) {
            node ^= usize::from(byte);
            let Some(&unit) = self.units.get(node) else {
                return true;
            };
            if unit_label(unit) != u32::from(byte) {
                return true;
            }
            node ^= unit_offset(unit);
            if i + 1 == len && (unit >> 8) & 1 == 1 {
                return false;
            }
        }
        // The walk went through the character and on with the next byte (or the input ends
        // right after the character, which the leaf test above already covered).
        input.len() == len
    }

    /// The trie's root node, or `None` for a map with no units.
    pub fn root(&self) -> Option<usize> {
        self.units.first().map(|&root| unit_offset(root))
    }

    /// The node reached from `node` by `byte`, and whether a rule ends there; `None` when no
    /// rule's key goes on with `byte` from `node`.
    pub fn step(&self, node: usize, byte: u8) -> Option<(usize, bool)> {
        let at = node ^ usize::from(byte);
        let unit = *self.units.get(at)?;
        (unit_label(unit) == u32::from(byte))
            .then(|| (at ^ unit_offset(unit), (unit >> 8) & 1 == 1))
    }

    /// The longest rule that matches a prefix of `input`: (replacement, bytes consumed).
    pub fn longest_match(&self, input: &[u8]) -> Option<(&str, usize)> {
        let mut best: Option<(u32, usize)> = None;
        let (offset, label) = (unit_offset, unit_label);
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
        let replacement = match &self.normalized {
            Ok(text) => {
                let tail = text.get(value as usize..)?;
                tail.split('\0').next().unwrap_or(tail)
            }
            Err(bytes) => {
                let tail = bytes.get(value as usize..)?;
                let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
                std::str::from_utf8(&tail[..end]).ok()?
            }
        };
        Some((replacement, len))
    }
}

// Darts-clone unit fields: offset, label, has_leaf and value, packed in one u32.
fn unit_offset(unit: u32) -> usize {
    ((unit >> 10) << ((unit & (1 << 9)) >> 6)) as usize
}

fn unit_label(unit: u32) -> u32 {
    unit & ((1 << 31) | 0xff)
}
