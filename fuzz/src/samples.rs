//! Fixed texts and a small vocabulary that the targets encode with.

use std::sync::OnceLock;
use tokensmith_core::pre_tokenizers::{CL100K_PATTERN, O200K_PATTERN, R50K_PATTERN};
use tokensmith_core::Encoding;

/// Texts every loaded tokenizer encodes: scripts, spaces, digits, specials, odd characters.
pub const TEXTS: [&str; 6] = [
    "Hello, world! It's 2024: 12345 tokens.",
    "  leading and  double  spaces\n\n\ttabs\r\n",
    "日本語のテキスト、中文，한국어 and ελληνικά",
    "<|endoftext|>after<|fim_prefix|>x<unk></s><s>",
    "e\u{301}\u{200d}\u{fe0f}🦀\u{0}\u{feff}ﬁ①",
    "",
];

/// The three pre-tokenizer patterns of tiktoken's encodings.
pub const PATTERNS: [&str; 3] = [R50K_PATTERN, CL100K_PATTERN, O200K_PATTERN];

/// Multi-byte tokens on top of the 256 bytes: common English pieces and runs of spaces.
const MERGED: [&str; 16] = [
    "th", "the", " the", "in", "ing", "er", " a", "an", "and", " and", "  ", "    ", "\n\n", "12",
    "123", "en",
];

/// The 256 single bytes, then [`MERGED`], as ranks.
pub fn small_ranks() -> Vec<(Vec<u8>, u32)> {
    let bytes = (0..=255u8).map(|b| vec![b]);
    let merged = MERGED.iter().map(|t| t.as_bytes().to_vec());
    bytes.chain(merged).zip(0..).collect()
}

/// A small vocabulary with `<|endoftext|>` and `<|fim_prefix|>`, one per pattern of
/// [`PATTERNS`], built once.
pub fn small_encoding(pattern: usize) -> &'static Encoding {
    static BUILT: OnceLock<Vec<Encoding>> = OnceLock::new();
    let all = BUILT.get_or_init(|| {
        PATTERNS
            .iter()
            .map(|p| {
                let ranks = small_ranks();
                let next = ranks.len() as u32;
                let specials = vec![
                    ("<|endoftext|>".to_string(), next),
                    ("<|fim_prefix|>".to_string(), next + 1),
                ];
                Encoding::new(ranks, specials, p).expect("the small vocabulary is valid")
            })
            .collect()
    });
    &all[pattern % all.len()]
}

/// Splits `data` at its first NUL: the head and what follows (empty when there is no NUL).
pub fn split_nul(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[]),
    }
}
