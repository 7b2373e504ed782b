//! Which characters SentencePiece's normalizer copies as they are, worked out once per model so
//! that ordinary text needs no charsmap lookup.
//!
//! The normalizer keeps a character when no user-defined symbol starts with its lead byte and
//! the longest charsmap rule at its position either does not exist or ends inside a character
//! (such a match is dropped). The tables:
//! - per ASCII character, what it is written as (itself, or the one byte its own rule gives,
//!   as `A` -> `a` under case folding), and the bytes after which that does not hold: always
//!   for a space or a user-defined symbol's first byte, always for a rule that gives anything
//!   but one byte other than a space, and otherwise for each byte some rule goes on with;
//! - per character below U+10000: whether no rule starts with it (`free`); whether rules
//!   start with it but none is exactly it (`alone`); the characters that some rule goes on
//!   with, whole, after an `alone` character (`continues`); and the characters whose one rule
//!   is exactly them and gives one space (`space`: the no-break space, the ideographic space
//!   and the other spaces of NFKC), which the copy writes as a space; the four words of each
//!   64 code points side by side;
//! - which ASCII bytes a scan eight bytes at a time must stop at ([`Swar`]), when the
//!   printable characters that are not kept before every ASCII byte are all among those.
//!
//! An `alone` character followed by a character outside `continues` is kept: the trie walk
//! dies inside that next character, so every rule it finds ends inside a character. This is
//! what keeps kana before kana (`か` starts `か` + U+3099, the voiced mark, but no rule goes on
//! with `き`) and accented letters before letters on the fast path.
//!
//! Whatever the tables do not settle (characters outside the BMP, an `alone` character before
//! a character in `continues`) takes the exact trie walk, and then the full lookup.
//!
//! >>> "かき" -> both kept by two table lookups each; "か\u{3099}" -> the full lookup (`が`)

use super::precompiled::PrecompiledCharsMap;
use crate::models::unigram::PieceTrie;

/// The words of the three per-character sets for 64 code points (U+0000-U+003F and so on), side by
/// side so that one cache line holds all that a character needs.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(32))]
pub(crate) struct Block {
    pub(crate) free: u64,
    pub(crate) alone: u64,
    pub(crate) continues: u64,
    pub(crate) space: u64,
}

/// One block per 64 code points below U+10000.
type BmpSets = Box<[Block; 1024]>;

fn contains(sets: &BmpSets, code: u32, set: fn(&Block) -> u64) -> bool {
    set(&sets[(code as usize) >> 6]) & (1 << (code & 63)) != 0
}

fn insert(sets: &mut BmpSets, code: u32, set: fn(&mut Block) -> &mut u64) {
    *set(&mut sets[(code as usize) >> 6]) |= 1 << (code & 63);
}

/// The code point of the character at the start of `bytes` when it is below U+10000 (the
/// bytes come from a `&str`, so they are valid UTF-8).
#[inline(always)]
fn bmp_code(bytes: &[u8]) -> Option<(u32, usize)> {
    let lead = *bytes.first()?;
    let len = match lead {
        0x00..=0x7f => return Some((u32::from(lead), 1)),
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => return None,
    };
    let tail = bytes.get(1..len)?;
    let code = tail
        .iter()
        .fold(u32::from(lead) & (0x7f >> len), |acc, &b| {
            (acc << 6) | u32::from(b & 0x3f)
        });
    Some((code, len))
}

/// Which ASCII bytes a scan eight bytes at a time stops at: a superset of the bytes that are
/// not kept as they are before every ASCII byte, that a few word operations can find.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Swar {
    /// Below `!` (spaces, controls), DEL, and every non-ASCII byte.
    Plain,
    /// Those and the capitals `A`-`Z` (the case-folding charsmaps map them).
    Capitals,
}

impl Swar {
    /// One bit (the high bit of its byte) per stop byte of the little-endian word `x`; the
    /// lowest set bit is the first stop byte. Each byte is tested on its own: no carry or
    /// borrow crosses a byte, since the 7-bit parts stay below 0x80 after the additions.
    #[inline(always)]
    pub(crate) fn stops(self, x: u64) -> u64 {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = ONES * 0x80;
        let low = x & !HIGH;
        // The high bit of `low + k` is set when the byte's 7 bits are at least 0x80 - k.
        let at_least = |byte: u64| (low + ONES * (0x80 - byte)) & HIGH;
        let mut stops = x & HIGH | !at_least(0x21) & HIGH | at_least(0x7f);
        if self == Swar::Capitals {
            stops |= at_least(0x41) & !at_least(0x5b);
        }
        stops
    }
}

/// The per-model tables (about 38 KB).
#[derive(Debug, Clone)]
pub(crate) struct PlainChars {
    /// Per ASCII character, one bit per byte that may follow it: set when the character,
    /// followed by that byte, is not written as `ascii_to` gives.
    ascii_stop: Box<[[u64; 4]; 128]>,
    /// Per ASCII character: the byte it is written as (itself when it is kept).
    ascii_to: [u8; 128],
    /// Per ASCII character: whether it is written as `ascii_to` gives at the end of the input.
    ascii_last: [bool; 128],
    /// Whether the run bytes are every printable ASCII character but the ones `Swar` stops at.
    swar: Option<Swar>,
    /// Per character below U+10000: `free`, `alone` and `continues` (see the module doc).
    sets: BmpSets,
    /// Whether a space, too, starts no rule and no symbol.
    pub(crate) space: bool,
    /// Bytes that start a user-defined symbol.
    user_lead: [bool; 256],
}

impl PlainChars {
    pub(crate) fn new(charsmap: Option<&PrecompiledCharsMap>, user: Option<&PieceTrie>) -> Self {
        let mut user_lead = [false; 256];
        for (byte, lead) in (0..=255u8).zip(user_lead.iter_mut()) {
            *lead = user.is_some_and(|t| t.has_key_starting_with(byte));
        }
        let starts_rule = |byte: u8| {
            charsmap.is_some_and(|m| m.has_rule_starting_with(byte)) || user_lead[usize::from(byte)]
        };
        let mut ascii_stop = Box::new([[0u64; 4]; 128]);
        let mut ascii_to = [0u8; 128];
        let mut ascii_last = [false; 128];
        for lead in 0..0x80u8 {
            let to = ascii_output(charsmap, lead)
                .filter(|_| lead != b' ' && !user_lead[usize::from(lead)]);
            ascii_to[usize::from(lead)] = to.map_or(lead, |(to, _)| to);
            ascii_last[usize::from(lead)] = to.is_some();
            for next in 0..=255u8 {
                let goes_on = |&(_, node): &(u8, Option<usize>)| {
                    node.zip(charsmap)
                        .is_some_and(|(n, m)| m.step(n, next).is_some())
                };
                if to.is_none_or(|t| goes_on(&t)) {
                    ascii_stop[usize::from(lead)][usize::from(next >> 6)] |= 1 << (next & 63);
                }
            }
        }
        // Per ASCII character: whether it is kept before any ASCII byte.
        let mut ascii_run = [false; 256];
        for (lead, run) in ascii_run.iter_mut().enumerate().take(128) {
            let stop = &ascii_stop[lead];
            *run = stop[0] == 0 && stop[1] == 0 && usize::from(ascii_to[lead]) == lead;
        }
        let swar = [Swar::Plain, Swar::Capitals].into_iter().find(|&mode| {
            // The byte alone in the word's low byte: the bit that answers for it is 0x80.
            (0x21..0x7fu8)
                .all(|b| ascii_run[usize::from(b)] || mode.stops(u64::from(b)) & 0x80 != 0)
        });
        let sets = bmp_sets(charsmap, &user_lead);
        Self {
            ascii_stop,
            ascii_to,
            ascii_last,
            swar,
            sets,
            space: !starts_rule(b' '),
            user_lead,
        }
    }

    /// Whether the ASCII character `lead`, followed by `next` (or nothing), is kept.
    #[inline(always)]
    pub(crate) fn ascii_kept(&self, lead: u8, next: Option<u8>) -> bool {
        self.ascii_out(lead, next) == Some(lead)
    }

    /// The byte the ASCII character `lead`, followed by `next` (or nothing), is written as,
    /// when no lookup is needed: itself, or its rule's one byte.
    #[inline(always)]
    pub(crate) fn ascii_out(&self, lead: u8, next: Option<u8>) -> Option<u8> {
        let lead = usize::from(lead & 0x7f);
        let ok = match next {
            Some(next) => !self.ascii_breaks(lead as u8, next),
            None => self.ascii_last[lead],
        };
        ok.then_some(self.ascii_to[lead])
    }

    /// Whether the ASCII character `lead`, followed by the byte `next`, is *not* written as
    /// [`Self::ascii_out`] gives (a rule goes on with `next`, or it always needs a lookup).
    #[inline(always)]
    pub(crate) fn ascii_breaks(&self, lead: u8, next: u8) -> bool {
        self.ascii_stop[usize::from(lead & 0x7f)][usize::from(next >> 6)] & (1 << (next & 63)) != 0
    }

    /// The sets' words for code points `64 * index` to `64 * index + 63` (`index` below 1024).
    #[inline(always)]
    pub(crate) fn block(&self, index: usize) -> &Block {
        &self.sets[index & 1023]
    }

    /// The word-at-a-time scan this model allows, if any.
    pub(crate) fn swar(&self) -> Option<Swar> {
        self.swar
    }

    /// The length of the first character of `bytes` (non-ASCII, a suffix of a `&str`) when it
    /// is a two- or three-byte character of the `space` set, which normalizes to one space
    /// whatever follows it.
    #[inline(always)]
    pub(crate) fn space_len(&self, bytes: &[u8]) -> Option<usize> {
        self.wide_in(bytes, |block| block.space)
    }

    /// The length of the first character of `bytes` when it is a two- or three-byte character
    /// of the set `set` picks: the set's word is indexed by the lead and second bytes, the bit
    /// by the last, with no code point built.
    #[inline(always)]
    fn wide_in(&self, bytes: &[u8], set: fn(&Block) -> u64) -> Option<usize> {
        let bit = |word: u64, last: u8| word >> (last & 63) & 1 != 0;
        match *bytes {
            [lead @ 0xe0..=0xef, second, last, ..] => {
                let word = (usize::from(lead & 0x0f) << 6) | usize::from(second & 0x3f);
                bit(set(&self.sets[word]), last).then_some(3)
            }
            [lead @ 0xc0..=0xdf, last, ..] => {
                bit(set(&self.sets[usize::from(lead & 0x1f)]), last).then_some(2)
            }
            _ => None,
        }
    }

    /// As [`Self::char_len`] for a first character that is not ASCII, with a shortcut for
    /// two- and three-byte characters no rule starts with (the free set, read as
    /// [`Self::wide_in`] reads it).
    #[inline(always)]
    pub(crate) fn wide_len(&self, bytes: &[u8], charsmap: Option<&PrecompiledCharsMap>) -> usize {
        self.wide_in(bytes, |block| block.free)
            .unwrap_or_else(|| self.char_len(bytes, charsmap))
    }

    /// The length of the first character of `bytes` (a non-empty suffix of a `&str`) when it
    /// is kept and is not a space, else 0.
    #[inline(always)]
    pub(crate) fn char_len(&self, bytes: &[u8], charsmap: Option<&PrecompiledCharsMap>) -> usize {
        let lead = bytes[0];
        if lead < 0x80 {
            return usize::from(self.ascii_kept(lead, bytes.get(1).copied()));
        }
        let len = match lead {
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            _ => 4,
        };
        if let Some((code, _)) = bmp_code(bytes) {
            if contains(&self.sets, code, |b| b.free) {
                return len;
            }
            if contains(&self.sets, code, |b| b.alone) {
                match bmp_code(&bytes[len..]) {
                    Some((next, _)) if !contains(&self.sets, next, |b| b.continues) => return len,
                    None if bytes.len() == len => return len,
                    _ => {}
                }
            }
        }
        let kept =
            !self.user_lead[usize::from(lead)] && charsmap.is_none_or(|m| m.keeps_char(bytes, len));
        if kept {
            len
        } else {
            0
        }
    }
}

/// What the ASCII character `lead` is written as when the charsmap's walk stops right after
/// it: itself when no rule is exactly it, the replacement when that is one byte other than a
/// space, else `None`. Also the trie node after `lead`, when there is one, to tell which next
/// bytes let the walk go on.
fn ascii_output(charsmap: Option<&PrecompiledCharsMap>, lead: u8) -> Option<(u8, Option<usize>)> {
    let Some((map, root)) = charsmap.and_then(|m| Some((m, m.root()?))) else {
        return Some((lead, None));
    };
    match map.step(root, lead) {
        None => Some((lead, None)),
        Some((node, false)) => Some((lead, Some(node))),
        Some((node, true)) => match map.longest_match(&[lead])? {
            (to, 1) if to.len() == 1 && to != " " => Some((to.as_bytes()[0], Some(node))),
            _ => None,
        },
    }
}

/// How the charsmap treats each character from U+0080 to U+FFFF whose lead byte begins no
/// user-defined piece: `free` (no rule's key starts with it), `alone` (a rule goes on past it
/// but none ends with it; the characters rules go on with are added to `continues`), `space`
/// (see [`is_one_space_rule`]), or none of them.
///
/// The walk is byte by byte over the UTF-8 forms in order, so that the characters that share
/// a lead byte (or a lead and a second byte) share its steps, and the two-byte prefix of a
/// three-byte character that no rule's key starts with marks its 64 characters free at once
/// (a missing lead byte still steps through its second bytes, and a two-byte character's
/// through its characters one by one): far fewer steps than one walk per character, with the
/// same answer ([`tests`] compares the two).
fn bmp_sets(charsmap: Option<&PrecompiledCharsMap>, user_lead: &[bool; 256]) -> BmpSets {
    let mut sets: BmpSets = Box::new([Block::default(); 1024]);
    let map_root = charsmap.and_then(|m| Some((m, m.root()?)));
    // Steps from a node reached so far (`None`: no rule's key has this prefix).
    let step = |node: Option<usize>, byte: u8| -> Option<(usize, bool)> {
        let (map, _) = map_root?;
        map.step(node?, byte)
    };
    let root = map_root.map(|(_, root)| root);
    // The character `code`, UTF-8 `key`, whose walk ended at `walked`.
    let classify = |sets: &mut BmpSets, code: u32, key: &[u8], walked: Option<(usize, bool)>| {
        let Some((map, _)) = map_root else {
            insert(sets, code, |b| &mut b.free);
            return;
        };
        match walked {
            None => insert(sets, code, |b| &mut b.free),
            Some((node, false)) => {
                insert(sets, code, |b| &mut b.alone);
                add_continuations(map, node, sets);
            }
            Some((node, true)) if is_one_space_rule(map, key, node) => {
                insert(sets, code, |b| &mut b.space);
            }
            Some(_) => {}
        }
    };
    // Two bytes: U+0080 to U+07FF.
    for lead in 0xc2..=0xdfu8 {
        if user_lead[usize::from(lead)] {
            continue;
        }
        let first = step(root, lead);
        for second in 0x80..=0xbfu8 {
            let code = (u32::from(lead & 0x1f) << 6) | u32::from(second & 0x3f);
            let walked = first.and_then(|(node, _)| step(Some(node), second));
            classify(&mut sets, code, &[lead, second], walked);
        }
    }
    // Three bytes: U+0800 to U+FFFF, without the surrogates (which are no characters).
    for lead in 0xe0..=0xefu8 {
        if user_lead[usize::from(lead)] {
            continue;
        }
        let first = step(root, lead);
        let seconds = match lead {
            0xe0 => 0xa0..=0xbfu8,
            0xed => 0x80..=0x9f,
            _ => 0x80..=0xbf,
        };
        for second in seconds {
            let block = (usize::from(lead & 0x0f) << 6) | usize::from(second & 0x3f);
            let Some((node, _)) = first.and_then(|(node, _)| step(Some(node), second)) else {
                // No rule's key starts with these two bytes: the block's 64 characters are
                // free.
                sets[block].free = !0;
                continue;
            };
            for third in 0x80..=0xbfu8 {
                let code = (block as u32) << 6 | u32::from(third & 0x3f);
                let walked = step(Some(node), third);
                classify(&mut sets, code, &[lead, second, third], walked);
            }
        }
    }
    sets
}

/// Whether the rule that ends at `node`, the end of the character `key`, gives exactly one
/// space and no longer rule goes on from there: then the character normalizes to one space
/// wherever it stands (the lookup's longest match at it is always this rule).
fn is_one_space_rule(map: &PrecompiledCharsMap, key: &[u8], node: usize) -> bool {
    map.longest_match(key) == Some((" ", key.len()))
        && (0..=255u8).all(|byte| map.step(node, byte).is_none())
}

/// Adds to `continues` every character below U+10000 that some rule goes on with, whole,
/// from `node` (a character's end).
fn add_continuations(map: &PrecompiledCharsMap, node: usize, sets: &mut BmpSets) {
    let mut insert = |code: u32| insert(sets, code, |b| &mut b.continues);
    let tails = |node: usize| (0x80..=0xbfu8).filter_map(move |b| Some((b, map.step(node, b)?.0)));
    for b1 in 0..=255u8 {
        let Some((n1, _)) = map.step(node, b1) else {
            continue;
        };
        match b1 {
            0x00..=0x7f => insert(u32::from(b1)),
            0xc0..=0xdf => {
                for (b2, _) in tails(n1) {
                    insert((u32::from(b1 & 0x1f) << 6) | u32::from(b2 & 0x3f));
                }
            }
            0xe0..=0xef => {
                for (b2, n2) in tails(n1) {
                    for (b3, _) in tails(n2) {
                        let code = (u32::from(b1 & 0x0f) << 12)
                            | (u32::from(b2 & 0x3f) << 6)
                            | u32::from(b3 & 0x3f);
                        insert(code);
                    }
                }
            }
            // A character outside the BMP never takes the table path; a continuation byte
            // never starts the next character of valid text.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalizers::charsmap_builder::{precompiled_charsmap, Rule};

    /// The sets the plain way: each character of U+0080 to U+FFFF walked alone from the root.
    fn bmp_sets_by_char(
        charsmap: Option<&PrecompiledCharsMap>,
        user_lead: &[bool; 256],
    ) -> BmpSets {
        let mut sets: BmpSets = Box::new([Block::default(); 1024]);
        let mut utf8 = [0u8; 4];
        for c in (0x80..0x10000u32).filter_map(char::from_u32) {
            let key = c.encode_utf8(&mut utf8).as_bytes();
            if user_lead[usize::from(key[0])] {
                continue;
            }
            let Some(map) = charsmap else {
                insert(&mut sets, c as u32, |b| &mut b.free);
                continue;
            };
            let mut node = map.root();
            let mut leaf = false;
            for &byte in key {
                match node.and_then(|n| map.step(n, byte)) {
                    Some((next, ends)) => (node, leaf) = (Some(next), ends),
                    None => {
                        node = None;
                        break;
                    }
                }
            }
            match (node, leaf) {
                (None, _) => insert(&mut sets, c as u32, |b| &mut b.free),
                (Some(node), false) => {
                    insert(&mut sets, c as u32, |b| &mut b.alone);
                    add_continuations(map, node, &mut sets);
                }
                (Some(node), true) if is_one_space_rule(map, key, node) => {
                    insert(&mut sets, c as u32, |b| &mut b.space);
                }
                _ => {}
            }
        }
        sets
    }

    fn words(sets: &BmpSets) -> Vec<[u64; 4]> {
        sets.iter()
            .map(|b| [b.free, b.alone, b.continues, b.space])
            .collect()
    }

    /// Walking shared prefixes once gives every character the class a walk of its own gives,
    /// on every charsmap tokensmith builds, the shipped models' and none, with no user lead
    /// bytes and with some (a two-byte and a three-byte lead, and one of each kind at once).
    #[test]
    fn shared_walks_give_the_sets_of_single_walks() {
        let mut maps: Vec<Vec<u8>> = Rule::ALL
            .iter()
            .map(|&rule| precompiled_charsmap(rule).unwrap().to_vec())
            .collect();
        for name in ["test_model.model", "test_ja_model.model"] {
            let path = format!("{}/../../tests/data/spm/{name}", env!("CARGO_MANIFEST_DIR"));
            let proto = crate::formats::sentencepiece_model::read(std::path::Path::new(&path));
            maps.push(proto.unwrap().normalizer_spec.precompiled_charsmap);
        }
        let parsed: Vec<PrecompiledCharsMap> = maps
            .iter()
            .map(|m| PrecompiledCharsMap::parse(m).unwrap())
            .collect();
        let mut leads = vec![[false; 256]; 3];
        leads[1][0xe3] = true;
        leads[2][0xc3] = true;
        leads[2][0xef] = true;
        for lead in &leads {
            for map in parsed.iter().map(Some).chain([None]) {
                assert_eq!(
                    words(&bmp_sets(map, lead)),
                    words(&bmp_sets_by_char(map, lead))
                );
            }
        }
    }
}
