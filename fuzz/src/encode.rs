//! Encoding arbitrary text with a small vocabulary under each tiktoken pattern, and decoding
//! arbitrary ids.
//!
//! The first byte picks the pattern; the rest is the text (invalid UTF-8 replaced) and, read
//! as little-endian `u32`s, the ids to decode.

use super::roundtrip;
use super::samples::{small_encoding, PATTERNS};

pub fn run(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let enc = small_encoding(first as usize % PATTERNS.len());
    let text = String::from_utf8_lossy(rest);
    roundtrip::check(enc, &text);
    let ids: Vec<u32> = rest
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) % 400)
        .collect();
    roundtrip::check_decode(enc, &ids);
}
