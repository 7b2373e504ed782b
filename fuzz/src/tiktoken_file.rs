//! The `.tiktoken` reader on arbitrary bytes (plain or gzipped), then an [`Encoding`] built
//! from what it read, encoding the sample texts.

use super::roundtrip;
use super::samples::{PATTERNS, TEXTS};
use tokensmith_core::formats::tiktoken_file::{inflate, parse};
use tokensmith_core::Encoding;

pub fn run(data: &[u8]) {
    let plain;
    let data = if data.starts_with(&[0x1f, 0x8b]) {
        match inflate(data, "fuzz.tiktoken.gz") {
            Ok(bytes) => {
                plain = bytes;
                &plain[..]
            }
            Err(_) => return,
        }
    } else {
        data
    };
    let Ok(ranks) = parse(data, "fuzz.tiktoken") else {
        return;
    };
    let next = ranks
        .iter()
        .map(|(_, r)| r.saturating_add(1))
        .max()
        .unwrap_or(0);
    let specials = vec![("<|endoftext|>".to_string(), next)];
    let pattern = PATTERNS[data.len() % PATTERNS.len()];
    let Ok(enc) = Encoding::new(ranks, specials, pattern) else {
        return;
    };
    for text in TEXTS {
        roundtrip::check(&enc, text);
    }
    let n = enc.n_vocab() as u32;
    roundtrip::check_decode(&enc, &[0, 1, n / 2, n.saturating_sub(1), n, n + 1]);
}
