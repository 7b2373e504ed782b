//! Pre-tokenizers: split text into the pieces that BPE encodes one at a time.
//!
//! The three OpenAI patterns, and the `Split` patterns of Llama-3 and Qwen2 `tokenizer.json`
//! files, have hand-written splitters that are several times faster than a backtracking regex
//! and linear on every input; any other pattern runs on `fancy-regex`,
//! the engine tiktoken uses. A pattern is recognised by its exact text.

pub mod block_chars;
pub mod block_decode;
pub mod block_starts;
pub mod blocks;
pub mod char_class;
pub mod cl100k;
pub mod flag_masks;
pub mod o200k;
pub mod pieces;
pub mod r50k;
pub mod scan;
pub mod tiled;

use crate::error::{Error, Result};
use crate::hf::known_split::{LLAMA3_PATTERN, QWEN2_PATTERN};
use crate::limits::Limit;
use crate::vectors::Vectors;
use block_starts::Rules;
use blocks::Block;
use pieces::PieceSink;
use scan::Scanner;

/// The pattern of gpt2, r50k_base and p50k_base.
pub const R50K_PATTERN: &str =
    r"'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s";

/// GPT-2's pattern as HF's ByteLevel and tiktoken before 0.8 spell it. It cuts text exactly
/// as [`R50K_PATTERN`] does (`'(?:[sdmt]|ll|ve|re)` is the same seven contractions, a run of
/// one class is whole either way, and `\s+(?!\S)|\s+` cuts whitespace where
/// `\s++$|\s+(?!\S)|\s` does), so the r50k splitter runs it.
pub const GPT2_PATTERN: &str =
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";

/// The pattern of cl100k_base.
pub const CL100K_PATTERN: &str = r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s";

/// The pattern of o200k_base (and o200k_harmony).
pub const O200K_PATTERN: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    "|",
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    "|",
    r"\p{N}{1,3}",
    "|",
    r" ?[^\s\p{L}\p{N}]+[\r\n/]*",
    "|",
    r"\s*[\r\n]+",
    "|",
    r"\s+(?!\S)",
    "|",
    r"\s+",
);

/// A pre-tokenizer chosen from a pattern.
#[derive(Debug, Clone)]
pub enum PreTokenizer {
    R50k,
    Cl100k,
    O200k,
    /// The `Split` patterns of Llama-3 and Qwen2 `tokenizer.json` files
    /// ([`crate::hf::known_split`]).
    Llama3,
    Qwen2,
    /// Any other pattern, matched by a backtracking regex engine. Text between matches is
    /// dropped, as tiktoken does.
    Regex(Box<fancy_regex::Regex>),
}

impl PreTokenizer {
    /// Picks the hand-written splitter for a known pattern, else compiles the regex.
    pub fn new(pattern: &str) -> Result<Self> {
        Ok(match pattern {
            R50K_PATTERN | GPT2_PATTERN => Self::R50k,
            CL100K_PATTERN => Self::Cl100k,
            O200K_PATTERN => Self::O200k,
            LLAMA3_PATTERN => Self::Llama3,
            QWEN2_PATTERN => Self::Qwen2,
            _ => Self::Regex(Box::new(compile(pattern)?)),
        })
    }

    /// Like [`new`](Self::new) but always uses the regex engine (for tests and benchmarks).
    pub fn regex(pattern: &str) -> Result<Self> {
        Ok(Self::Regex(Box::new(compile(pattern)?)))
    }

    /// Hands `f` each piece's byte range, in order: a closure `|start, end|` takes them one
    /// at a time, a [`PieceSink`] may take the block path's pieces a block at a time.
    #[inline]
    pub fn for_each_piece(&self, text: &str, mut f: impl PieceSink) -> Result<()> {
        match self {
            Self::R50k => tiled::r50k(text, f),
            Self::Cl100k => tiled::cl100k(text, f),
            Self::O200k => tiled::o200k(text, f),
            Self::Llama3 => tiled::llama3(text, f),
            Self::Qwen2 => tiled::qwen2(text, f),
            Self::Regex(re) => {
                for m in re.find_iter(text) {
                    let m = m.map_err(|e| Error::Pattern(format!("matching failed: {e}")))?;
                    f.piece(m.start(), m.end());
                }
            }
        }
        Ok(())
    }

    /// The pieces of `text` found by the scalar splitters alone, without the block fast path
    /// (the reference the fast path is tested against); the regex engine for other patterns.
    pub fn scalar_pieces<'t>(&self, text: &'t str) -> Result<Vec<&'t str>> {
        let piece_end: fn(&Scanner, usize) -> usize = match self {
            Self::R50k => r50k::piece_end,
            Self::Cl100k => cl100k::piece_end,
            Self::O200k => o200k::piece_end,
            Self::Llama3 => cl100k::llama3_piece_end,
            Self::Qwen2 => cl100k::qwen2_piece_end,
            Self::Regex(_) => return self.pieces(text),
        };
        let scanner = Scanner::new(text);
        let mut out = Vec::new();
        let mut i = 0;
        while i < text.len() {
            let end = piece_end(&scanner, i);
            out.push(&text[i..end]);
            i = end;
        }
        Ok(out)
    }

    /// The pieces of `text` from the baseline build of the block splitter (the reference the
    /// x86-64-v3 build is tested against, see [`tiled`]); the regex engine for other patterns.
    pub fn baseline_pieces<'t>(&self, text: &'t str) -> Result<Vec<&'t str>> {
        let mut out = Vec::new();
        let push = |s: usize, e: usize| out.push(&text[s..e]);
        match self {
            Self::R50k => tiled::baseline::r50k(text, push),
            Self::Cl100k => tiled::baseline::cl100k(text, push),
            Self::O200k => tiled::baseline::o200k(text, push),
            Self::Llama3 => tiled::baseline::llama3(text, push),
            Self::Qwen2 => tiled::baseline::qwen2(text, push),
            Self::Regex(_) => return self.pieces(text),
        }
        Ok(out)
    }

    /// The pieces of `text` as string slices (convenient, not fast).
    pub fn pieces<'t>(&self, text: &'t str) -> Result<Vec<&'t str>> {
        let mut out = Vec::new();
        self.for_each_piece(text, |a, b| out.push(&text[a..b]))?;
        Ok(out)
    }
}

fn compile(pattern: &str) -> Result<fancy_regex::Regex> {
    fancy_regex::RegexBuilder::new(pattern)
        .backtrack_limit(Limit::RegexBacktrackLimit.get() as usize)
        .build()
        .map_err(|e| Error::Pattern(format!("{pattern:?} does not compile: {e}")))
}

/// Calls `f` with each piece of `text`: 64 bytes at a time from [`block_starts`] where it
/// answers, else one piece at a time from the scalar `piece_end` (runs too long for a block,
/// whitespace at the end of the text, non-ASCII numbers).
#[inline(always)]
pub(crate) fn tile_blocks(
    text: &str,
    rules: Rules,
    piece_end: fn(&Scanner, usize) -> usize,
    vectors: Vectors,
    mut f: impl PieceSink,
) {
    let bytes = text.as_bytes();
    let scanner = Scanner::new(text);
    let mut i = 0;
    while i < bytes.len() {
        let block = Block::at_with(bytes, i, vectors);
        let (starts, cap) = block_starts::starts(&block, bytes, i, rules, scanner.classes, vectors);
        // Bits 1..=cap (`cap` is at most 63, where `2 << cap` would overflow).
        let ends = starts & (u64::MAX >> (63 - cap.min(63))) & !1;
        if ends != 0 {
            // The next block starts at the last end, found apart from the handing over of
            // the pieces, so that its masks need not wait for it.
            let next = i + 63 - ends.leading_zeros() as usize;
            f.block(i, ends);
            i = next;
            continue;
        }
        let end = piece_end(&scanner, i);
        f.piece(i, end);
        i = end;
    }
}
