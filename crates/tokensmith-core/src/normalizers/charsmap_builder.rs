//! Builds sentencepiece's normalization rules (`nmt_nfkc`, `nfkc`, `nmt_nfkc_cf`, `nfkc_cf`)
//! and compiles them into the precompiled charsmap a `.model` carries.
//!
//! The rules are a map from character sequences to their replacement. What goes in them
//! (facts from sentencepiece's `builder.cc`; the code is ours):
//! 1. **NFKC.** Every code point whose NFKC form differs from it maps to that form. Then
//!    every NFKD sequence of two or more characters that NFKC composes differently (`u` +
//!    U+0308 → `ü`) maps to its composition, spelt in every way whose characters decompose
//!    one by one to that sequence (`ｕ` + U+0308 too).
//! 2. **NMT** (`nmt_*`): tab, line feed, form feed, carriage return, U+061C, U+1680, U+200B,
//!    U+200C, U+200E, U+200F, U+2028, U+2029, U+2581, U+FEFF and U+FFFD become a space (U+061C,
//!    the Arabic letter mark, is in the tables sentencepiece 0.2 ships, not in its builder); the other
//!    ASCII control characters (U+0001-U+001F but those), U+007F, U+008F and U+009F are
//!    deleted; the fullwidth tilde U+FF5E keeps its form (Japanese uses both tildes).
//! 3. **Case folding** (`*_cf`): each replacement is folded character by character
//!    ([`super::case_fold`]), and every other code point that folds differently maps to its
//!    folding.
//! 4. After steps 1 and 2 and after step 3, a rule of several characters is dropped when the
//!    shorter rules already give its replacement (greedy longest match, as the normalizer
//!    applies them).
//!
//! [`compile`] writes the map in the precompiled format: a little-endian `u32` with the trie's
//! size in bytes, the trie ([`super::double_array`], UTF-8 keys to byte offsets), then each
//! distinct replacement once, in code point order, each ended by a 0 byte.
//!
//! ```
//! use tokensmith_core::normalizers::charsmap_builder::{precompiled_charsmap, Rule};
//! use tokensmith_core::normalizers::precompiled::PrecompiledCharsMap;
//! let map = PrecompiledCharsMap::parse(precompiled_charsmap(Rule::NmtNfkc).unwrap()).unwrap();
//! assert_eq!(map.longest_match("ｆｕｌｌ".as_bytes()), Some(("f", 3)));
//! assert_eq!(map.longest_match("\u{200B}".as_bytes()), Some((" ", 3)));
//! ```
//!
//! The Unicode version is that of the `unicode-normalization` crate and of Rust's case
//! mappings, which may be newer or older than the ICU that built sentencepiece's tables.

use std::collections::{BTreeMap, BTreeSet};

use unicode_normalization::char::decompose_compatible;
use unicode_normalization::UnicodeNormalization;

use super::case_fold::simple_fold;
use super::double_array;
use crate::error::{Error, Result};

/// A character sequence and its replacement.
pub type CharsMap = BTreeMap<Vec<char>, Vec<char>>;

/// A normalization rule that has a charsmap (`identity` has none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    NmtNfkc,
    Nfkc,
    NmtNfkcCf,
    NfkcCf,
}

impl Rule {
    pub const ALL: [Rule; 4] = [Rule::NmtNfkc, Rule::Nfkc, Rule::NmtNfkcCf, Rule::NfkcCf];

    /// sentencepiece's name for the rule.
    pub fn name(self) -> &'static str {
        match self {
            Rule::NmtNfkc => "nmt_nfkc",
            Rule::Nfkc => "nfkc",
            Rule::NmtNfkcCf => "nmt_nfkc_cf",
            Rule::NfkcCf => "nfkc_cf",
        }
    }

    /// The rules of this normalization (steps 1-4 of the module documentation).
    pub fn chars_map(self) -> CharsMap {
        let mut map = nfkc_map();
        if matches!(self, Rule::NmtNfkc | Rule::NmtNfkcCf) {
            merge_nmt(&mut map);
            map = remove_redundant(&map);
        }
        if matches!(self, Rule::NmtNfkcCf | Rule::NfkcCf) {
            merge_case_fold(&mut map);
            map = remove_redundant(&map);
        }
        map
    }
}

/// The precompiled charsmap of `rule`: the one [`build_charsmap`] builds, stored with the
/// crate (building it takes a second or two; see [`super::charsmaps`]).
pub fn precompiled_charsmap(rule: Rule) -> Result<&'static [u8]> {
    Ok(super::charsmaps::stored(rule))
}

/// Builds the precompiled charsmap of `rule` from the Unicode tables (steps 1-4, then
/// [`compile`]).
pub fn build_charsmap(rule: Rule) -> Result<Vec<u8>> {
    compile(&rule.chars_map())
}

fn nfkc(chars: &[char]) -> Vec<char> {
    chars.iter().copied().nfkc().collect()
}

fn nfkd(chars: &[char]) -> Vec<char> {
    chars.iter().copied().nfkd().collect()
}

/// Step 1: the NFKC rules, without redundant ones.
pub fn nfkc_map() -> CharsMap {
    let mut map = CharsMap::new();
    // The other characters whose NFKD is a single character (`ｕ` for `u`), and the NFKD
    // sequences of two or more characters. Every character of an NFKD is its own NFKD, so
    // it is always a spelling of itself too.
    let mut aliases: BTreeMap<char, Vec<char>> = BTreeMap::new();
    let mut decomposed: BTreeSet<Vec<char>> = BTreeSet::new();
    let mut d = Vec::new();
    for c in (1..=0x10FFFFu32).filter_map(char::from_u32) {
        d.clear();
        decompose_compatible(c, |x| d.push(x));
        if d == [c] {
            // Nothing to decompose, so nothing to compose: NFKC leaves it too.
            continue;
        }
        let composed = nfkc(&[c]);
        if composed != [c] {
            map.insert(vec![c], composed);
        }
        let full = nfkd(&[c]);
        if let [single] = full[..] {
            aliases.entry(single).or_default().push(c);
        } else {
            decomposed.insert(full);
        }
    }
    for d in decomposed {
        let composed = nfkc(&d);
        if composed == d {
            continue;
        }
        for spelling in spellings(&d, &aliases) {
            if spelling != composed {
                map.insert(spelling, composed.clone());
            }
        }
    }
    remove_redundant(&map)
}

/// Every sequence whose characters decompose one by one to the characters of `nfkd`: each
/// character itself or one of its `aliases`.
fn spellings(nfkd: &[char], aliases: &BTreeMap<char, Vec<char>>) -> Vec<Vec<char>> {
    let mut out: Vec<Vec<char>> = vec![Vec::new()];
    for &c in nfkd {
        let others: &[char] = aliases.get(&c).map_or(&[], Vec::as_slice);
        out = out
            .iter()
            .flat_map(|prefix| {
                std::iter::once(c)
                    .chain(others.iter().copied())
                    .map(move |o| {
                        let mut s = prefix.clone();
                        s.push(o);
                        s
                    })
            })
            .collect();
    }
    out
}

/// Step 2: the NMT whitespace and control-character rules.
pub fn merge_nmt(map: &mut CharsMap) {
    const TO_SPACE: [u32; 15] = [
        0x09, 0x0A, 0x0C, 0x0D, 0x061C, 0x1680, 0x200B, 0x200C, 0x200E, 0x200F, 0x2028, 0x2029,
        0x2581, 0xFEFF, 0xFFFD,
    ];
    let deleted = (0x01..=0x1Fu32)
        .filter(|c| !matches!(c, 0x09 | 0x0A | 0x0C | 0x0D))
        .chain([0x7F, 0x8F, 0x9F]);
    for c in TO_SPACE.iter().filter_map(|&c| char::from_u32(c)) {
        map.insert(vec![c], vec![' ']);
    }
    for c in deleted.filter_map(char::from_u32) {
        map.insert(vec![c], Vec::new());
    }
    map.remove(&vec!['\u{FF5E}']);
}

/// Step 3: case folding of every replacement, and of every other code point.
pub fn merge_case_fold(map: &mut CharsMap) {
    for replacement in map.values_mut() {
        for c in replacement.iter_mut() {
            *c = simple_fold(*c);
        }
    }
    for c in (1..=0x10FFFFu32).filter_map(char::from_u32) {
        let folded = simple_fold(c);
        if folded != c {
            map.entry(vec![c]).or_insert_with(|| vec![folded]);
        }
    }
}

/// `src` rewritten by the rules of `map` no longer than `max_len` characters, longest first.
fn apply(map: &CharsMap, src: &[char], max_len: usize) -> Vec<char> {
    let mut out = Vec::with_capacity(src.len());
    let mut i = 0;
    while i < src.len() {
        let longest = (1..=max_len.min(src.len() - i))
            .rev()
            .find_map(|len| map.get(&src[i..i + len]).map(|r| (r, len)));
        match longest {
            Some((replacement, len)) => {
                out.extend_from_slice(replacement);
                i += len;
            }
            None => {
                out.push(src[i]);
                i += 1;
            }
        }
    }
    out
}

/// Step 4: `map` without the rules that shorter rules already give.
pub fn remove_redundant(map: &CharsMap) -> CharsMap {
    let max_len = map.keys().map(Vec::len).max().unwrap_or(0);
    let mut kept: CharsMap = map
        .iter()
        .filter(|(k, _)| k.len() == 1)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for len in 2..=max_len {
        let needed: Vec<(&Vec<char>, &Vec<char>)> = map
            .iter()
            .filter(|(k, v)| k.len() == len && apply(&kept, k, len - 1) != **v)
            .collect();
        for (k, v) in needed {
            kept.insert(k.clone(), v.clone());
        }
    }
    debug_assert!(map.iter().all(|(k, v)| apply(&kept, k, max_len) == *v));
    kept
}

/// The precompiled charsmap of `map` (see the module documentation).
pub fn compile(map: &CharsMap) -> Result<Vec<u8>> {
    let distinct: BTreeSet<&Vec<char>> = map.values().collect();
    let mut normalized = Vec::new();
    let mut position: BTreeMap<&Vec<char>, u32> = BTreeMap::new();
    for replacement in distinct {
        position.insert(replacement, normalized.len() as u32);
        normalized.extend(replacement.iter().collect::<String>().bytes());
        normalized.push(0);
    }
    let mut keys: Vec<(Vec<u8>, u32)> = map
        .iter()
        .map(|(k, v)| (k.iter().collect::<String>().into_bytes(), position[v]))
        .collect();
    keys.sort();
    let units = double_array::build(&keys)?;
    let mut blob = Vec::with_capacity(4 + units.len() * 4 + normalized.len());
    blob.extend(((units.len() * 4) as u32).to_le_bytes());
    for unit in units {
        blob.extend(unit.to_le_bytes());
    }
    blob.extend(normalized);
    Ok(blob)
}

/// The rules a precompiled charsmap holds: the inverse of [`compile`], for comparing maps.
pub fn decompile(blob: &[u8]) -> Result<CharsMap> {
    let bad = |what: &str| Error::ModelFormat(format!("precompiled_charsmap: {what}"));
    let size = blob
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .ok_or_else(|| bad("shorter than its header"))?;
    let trie = blob
        .get(4..4 + size)
        .ok_or_else(|| bad("the trie is cut"))?;
    let normalized = &blob[4 + size..];
    let units: Vec<u32> = trie
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut map = CharsMap::new();
    for (key, value) in double_array::entries(&units) {
        let tail = normalized
            .get(value as usize..)
            .ok_or_else(|| bad("a value points past the strings"))?;
        let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
        let key = std::str::from_utf8(&key).map_err(|_| bad("a key is not UTF-8"))?;
        let value = std::str::from_utf8(&tail[..end]).map_err(|_| bad("a value is not UTF-8"))?;
        map.insert(key.chars().collect(), value.chars().collect());
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalizers::precompiled::PrecompiledCharsMap;

    fn normalize(map: &PrecompiledCharsMap, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while !rest.is_empty() {
            match map.longest_match(rest.as_bytes()) {
                Some((r, len)) => {
                    out.push_str(r);
                    rest = &rest[len..];
                }
                None => {
                    let len = rest.chars().next().map_or(1, char::len_utf8);
                    out.push_str(&rest[..len]);
                    rest = &rest[len..];
                }
            }
        }
        out
    }

    #[test]
    fn each_rule_compiles_and_round_trips() {
        for rule in Rule::ALL {
            let map = rule.chars_map();
            let blob = compile(&map).unwrap();
            assert_eq!(decompile(&blob).unwrap(), map, "{}", rule.name());
            let trie = u32::from_le_bytes([blob[0], blob[1], blob[2], blob[3]]) as usize;
            // sentencepiece's load-time checks: whole 1 KiB blocks, strings ending in 0, and
            // darts-clone's validate().
            assert!(trie >= 1024 && trie.is_multiple_of(1024));
            assert_eq!(blob.last(), Some(&0));
            let units: Vec<u32> = blob[4..4 + trie]
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            let strings = (blob.len() - 4 - trie) as u32;
            assert!(double_array::is_valid(&units, strings));
        }
    }

    #[test]
    fn rules_do_what_their_names_say() {
        let load = |rule| PrecompiledCharsMap::parse(precompiled_charsmap(rule).unwrap()).unwrap();
        let nmt = load(Rule::NmtNfkc);
        assert_eq!(normalize(&nmt, "ﬁ①\u{200B}a\u{7}b～"), "fi1 ab～");
        assert_eq!(normalize(&nmt, "ｕ\u{308}"), "ü");
        assert_eq!(normalize(&nmt, "ᄀ\u{1161}"), "가");
        let nfkc = load(Rule::Nfkc);
        assert_eq!(normalize(&nfkc, "\u{200B}a\u{7}～"), "\u{200B}a\u{7}~");
        let cf = load(Rule::NmtNfkcCf);
        assert_eq!(normalize(&cf, "ÅΣＡß"), "åσaß");
        assert_eq!(normalize(&load(Rule::NfkcCf), "ＡB\t"), "ab\t");
    }
}
