//! Which characters SentencePiece's normalizer copies as they are, worked out once per model so
//! that ordinary text needs no charsmap lookup.
//!
//! The normalizer keeps a character when no user-defined symbol starts with its lead byte and
//! the longest charsmap rule at its position either does not exist or ends inside a character
//! (such a match is dropped). The tables:
//! - per ASCII character, the bytes after which it is *not* kept: a space, a user-defined
//!   symbol's first byte, a rule of its own, or a rule that goes on with that byte;
//! - per character below U+10000: whether no rule starts with it (`free`); whether rules
//!   start with it but none is exactly it (`alone`); and the characters that some rule goes on
//!   with, whole, after an `alone` character (`continues`).
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

/// One bit per code point below U+10000.
type BmpSet = Box<[u64; 1024]>;

fn contains(set: &BmpSet, code: u32) -> bool {
    set[(code as usize) >> 6] & (1 << (code & 63)) != 0
}

fn insert(set: &mut BmpSet, code: u32) {
    set[(code as usize) >> 6] |= 1 << (code & 63);
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

/// The per-model tables (about 28 KB).
#[derive(Debug, Clone)]
pub(crate) struct PlainChars {
    /// Per ASCII character, one bit per byte that may follow it: set when the character,
    /// followed by that byte, is not kept.
    ascii_stop: Box<[[u64; 4]; 128]>,
    /// Per ASCII character: whether it is kept at the end of the input.
    ascii_last_kept: [bool; 128],
    /// Per byte: whether it is an ASCII character kept before any ASCII byte, so that a run of
    /// them takes one lookup per byte (only the run's last character needs its next byte).
    ascii_run: [bool; 256],
    free: BmpSet,
    alone: BmpSet,
    continues: BmpSet,
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
        let mut ascii_last_kept = [false; 128];
        for lead in 0..0x80u8 {
            let special = lead == b' ' || user_lead[usize::from(lead)];
            let kept = |input: &[u8]| {
                !special && (!starts_rule(lead) || charsmap.is_none_or(|m| m.keeps_char(input, 1)))
            };
            ascii_last_kept[usize::from(lead)] = kept(&[lead]);
            for next in 0..=255u8 {
                if !kept(&[lead, next]) {
                    ascii_stop[usize::from(lead)][usize::from(next >> 6)] |= 1 << (next & 63);
                }
            }
        }
        let mut ascii_run = [false; 256];
        for (stop, run) in ascii_stop.iter().zip(ascii_run.iter_mut()) {
            *run = stop[0] == 0 && stop[1] == 0;
        }
        let mut free: BmpSet = Box::new([0; 1024]);
        let mut alone: BmpSet = Box::new([0; 1024]);
        let mut continues: BmpSet = Box::new([0; 1024]);
        let mut utf8 = [0u8; 4];
        for c in (0x80..0x10000u32).filter_map(char::from_u32) {
            let key = c.encode_utf8(&mut utf8).as_bytes();
            if user_lead[usize::from(key[0])] {
                continue;
            }
            let Some(map) = charsmap else {
                insert(&mut free, c as u32);
                continue;
            };
            let walked = key
                .iter()
                .try_fold((map.root(), false), |(node, _), &byte| {
                    node.and_then(|n| map.step(n, byte))
                        .map(|(n, leaf)| (Some(n), leaf))
                });
            match walked {
                None => insert(&mut free, c as u32),
                Some((Some(node), false)) => {
                    insert(&mut alone, c as u32);
                    add_continuations(map, node, &mut continues);
                }
                Some(_) => {}
            }
        }
        Self {
            ascii_stop,
            ascii_last_kept,
            ascii_run,
            free,
            alone,
            continues,
            space: !starts_rule(b' '),
            user_lead,
        }
    }

    /// The length of the longest run of ASCII characters at the start of `bytes` that are kept.
    #[inline(always)]
    pub(crate) fn ascii_run_len(&self, bytes: &[u8]) -> usize {
        let run = bytes
            .iter()
            .position(|&b| !self.ascii_run[usize::from(b)])
            .unwrap_or(bytes.len());
        // Each character of the run but the last is followed by an ASCII byte.
        match run.checked_sub(1) {
            Some(last) if !self.ascii_kept(bytes[last], bytes.get(run).copied()) => last,
            _ => run,
        }
    }

    /// Whether the ASCII character `lead`, followed by `next` (or nothing), is kept.
    #[inline(always)]
    pub(crate) fn ascii_kept(&self, lead: u8, next: Option<u8>) -> bool {
        match next {
            Some(next) => {
                self.ascii_stop[usize::from(lead & 0x7f)][usize::from(next >> 6)]
                    & (1 << (next & 63))
                    == 0
            }
            None => self.ascii_last_kept[usize::from(lead & 0x7f)],
        }
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
            if contains(&self.free, code) {
                return len;
            }
            if contains(&self.alone, code) {
                match bmp_code(&bytes[len..]) {
                    Some((next, _)) if !contains(&self.continues, next) => return len,
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

/// Adds to `continues` every character below U+10000 that some rule goes on with, whole,
/// from `node` (a character's end).
fn add_continuations(map: &PrecompiledCharsMap, node: usize, continues: &mut BmpSet) {
    let tails = |node: usize| (0x80..=0xbfu8).filter_map(move |b| Some((b, map.step(node, b)?.0)));
    for b1 in 0..=255u8 {
        let Some((n1, _)) = map.step(node, b1) else {
            continue;
        };
        match b1 {
            0x00..=0x7f => insert(continues, u32::from(b1)),
            0xc0..=0xdf => {
                for (b2, _) in tails(n1) {
                    insert(
                        continues,
                        (u32::from(b1 & 0x1f) << 6) | u32::from(b2 & 0x3f),
                    );
                }
            }
            0xe0..=0xef => {
                for (b2, n2) in tails(n1) {
                    for (b3, _) in tails(n2) {
                        let code = (u32::from(b1 & 0x0f) << 12)
                            | (u32::from(b2 & 0x3f) << 6)
                            | u32::from(b3 & 0x3f);
                        insert(continues, code);
                    }
                }
            }
            // A character outside the BMP never takes the table path; a continuation byte
            // never starts the next character of valid text.
            _ => {}
        }
    }
}
