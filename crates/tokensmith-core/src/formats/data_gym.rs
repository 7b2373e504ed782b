//! GPT-2's "data-gym" merges file, `vocab.bpe`, as tokens and merges for
//! [`Bpe::from_merges`](crate::models::bpe::Bpe::from_merges).
//!
//! The first line is a version comment; each further line is one merge, `left right`, spelled
//! in GPT-2's printable byte alphabet. The 256 single bytes take ids 0-255 in the order of
//! their printable characters, and the merge on line `n` (1-based) makes the token of id
//! `254 + n`. `encoder.json`, which repeats these ids, is not needed.
//!
//! ```
//! use tokensmith_core::formats::data_gym::parse;
//! let (tokens, merges) = parse("#version: 0.2\nĠ a\n", "inline").unwrap();
//! assert_eq!(tokens[220], (b" ".to_vec(), 220));
//! assert_eq!(tokens[256], (b" a".to_vec(), 256));
//! assert_eq!(merges, [(220, 64, 256)]);
//! ```

use super::tiktoken_file::read_bytes;
use crate::error::{Error, Result};
use crate::trainers::bpe::{gpt2_byte, gpt2_char};
use rustc_hash::FxHashMap;
use std::path::Path;

/// `(token bytes, id)` pairs.
pub type Tokens = Vec<(Vec<u8>, u32)>;
/// `(left, right, merged)` ids, in the file's order.
pub type Merges = Vec<(u32, u32, u32)>;

/// Reads a `vocab.bpe` file, plain or gzipped.
pub fn read(path: &Path) -> Result<(Tokens, Merges)> {
    let data = read_bytes(path)?;
    let name = path.display().to_string();
    let text = std::str::from_utf8(&data).map_err(|e| Error::VocabFormat {
        path: name.clone(),
        line: 1 + data[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count(),
        message: "not UTF-8".into(),
    })?;
    parse(text, &name)
}

/// Parses the text of a `vocab.bpe` file; `name` is used in error messages.
pub fn parse(text: &str, name: &str) -> Result<(Tokens, Merges)> {
    let mut by_char: Vec<u8> = (0..=255).collect();
    by_char.sort_by_key(|&b| gpt2_char(b));
    let mut tokens: Tokens = by_char.iter().map(|&b| vec![b]).zip(0..).collect();
    let mut ids: FxHashMap<Vec<u8>, u32> = tokens.iter().cloned().collect();
    let mut merges = Merges::new();
    for (index, line) in text.lines().enumerate().skip(1) {
        if line.is_empty() {
            continue;
        }
        let bad = super::line_error(name, index);
        let bytes = |word: &str| -> Result<Vec<u8>> {
            word.chars()
                .map(gpt2_byte)
                .collect::<Option<Vec<u8>>>()
                .ok_or_else(|| bad(format!("{word:?} is not in GPT-2's byte alphabet")))
        };
        let mut words = line.split(' ');
        let (Some(left), Some(right), None) = (words.next(), words.next(), words.next()) else {
            return Err(bad(format!("expected `left right`, found {line:?}")));
        };
        let (left, right) = (bytes(left)?, bytes(right)?);
        let id_of = |part: &[u8]| {
            ids.get(part).copied().ok_or_else(|| {
                let part = String::from_utf8_lossy(part);
                bad(format!("{part:?} is not a token of an earlier line"))
            })
        };
        let (a, b) = (id_of(&left)?, id_of(&right)?);
        let merged = [left, right].concat();
        let id = tokens.len() as u32;
        if ids.insert(merged.clone(), id).is_some() {
            return Err(bad(format!(
                "{:?} is made twice",
                String::from_utf8_lossy(&merged)
            )));
        }
        tokens.push((merged, id));
        merges.push((a, b, id));
    }
    Ok((tokens, merges))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_lines_name_their_line() {
        for (text, says) in [
            ("#v\nĠ a b\n", "f:2:"),
            ("#v\nĠ a\nx\n", "expected `left right`"),
            ("#v\nĠa b\n", "not a token of an earlier line"),
            ("#v\n\u{4e2d} a\n", "byte alphabet"),
            ("#v\nĠ a\nĠ a\n", "made twice"),
        ] {
            let err = parse(text, "f").unwrap_err().to_string();
            assert!(err.contains(says), "{text:?}: {err}");
        }
    }

    #[test]
    fn gpt2s_file_gives_its_50000_merges() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/gpt2_data_gym/vocab.bpe.gz"
        );
        let (tokens, merges) = read(path.as_ref()).unwrap();
        assert_eq!((tokens.len(), merges.len()), (50_256, 50_000));
        assert_eq!(tokens[33], (vec![b'B'], 33));
    }
}
