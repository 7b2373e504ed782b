//! The `.tiktoken` format: one token per line, `base64(bytes) rank`, optionally gzipped.
//!
//! ```
//! use tokensmith_core::formats::tiktoken_file::parse;
//! let ranks = parse(b"YQ== 0\nYg== 1\n", "inline").unwrap();
//! assert_eq!(ranks, vec![(b"a".to_vec(), 0), (b"b".to_vec(), 1)]);
//! ```

use crate::error::{Error, Result};
use crate::limits::Limit;
use base64::Engine;
use std::io::Read;
use std::path::Path;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Reads a `.tiktoken` file, plain or gzipped (detected from its first bytes).
pub fn read(path: &Path) -> Result<Vec<(Vec<u8>, u32)>> {
    parse(&read_bytes(path)?, &path.display().to_string())
}

/// The contents of a file, inflated if it is gzipped (detected from its first bytes).
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    let io_err = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let raw = std::fs::read(path).map_err(io_err)?;
    let data = if raw.starts_with(&GZIP_MAGIC) {
        inflate(&raw, &path.display().to_string()).map_err(|e| match e {
            InflateError::Io(source) => io_err(source),
            InflateError::Limit(e) => e,
        })?
    } else {
        raw
    };
    Ok(data)
}

/// Why [`inflate`] failed.
pub enum InflateError {
    Io(std::io::Error),
    Limit(Error),
}

/// Inflates gzip data, stopping (before holding more) once the output passes
/// [`Limit::MaxInflatedBytes`]: a small gzip bomb cannot fill the memory. `name` is used in
/// the error message.
pub fn inflate(raw: &[u8], name: &str) -> std::result::Result<Vec<u8>, InflateError> {
    let max = Limit::MaxInflatedBytes.get();
    let mut out = Vec::with_capacity(raw.len().saturating_mul(3).min(max as usize));
    flate2::read::MultiGzDecoder::new(raw)
        .take(max.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(InflateError::Io)?;
    if out.len() as u64 > max {
        let what = format!("the inflated size of {name} in bytes (at least)");
        return Err(InflateError::Limit(
            Limit::MaxInflatedBytes.error(&what, out.len() as u64),
        ));
    }
    Ok(out)
}

/// Parses the contents of a `.tiktoken` file; `name` is used in error messages.
///
/// Blank lines are skipped. Any other line must be `base64 rank`.
pub fn parse(data: &[u8], name: &str) -> Result<Vec<(Vec<u8>, u32)>> {
    let engine = base64::engine::general_purpose::STANDARD;
    let mut out = Vec::with_capacity(data.len() / 12);
    for (index, line) in data.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        let bad = super::line_error(name, index);
        let mut fields = line.split(|&b| b == b' ');
        let (Some(token), Some(rank), None) = (fields.next(), fields.next(), fields.next()) else {
            return Err(bad(format!(
                "expected `base64-token rank`, found {:?}",
                String::from_utf8_lossy(&line[..line.len().min(80)])
            )));
        };
        // Checked on the base64 text, before decoding it.
        let decoded_len = token.len() as u64 / 4 * 3;
        if decoded_len > Limit::MaxTokenBytes.get() {
            let what = format!("{name}:{}: the token's length in bytes", index + 1);
            return Err(Limit::MaxTokenBytes.error(&what, decoded_len));
        }
        // Python's base64 (which tiktoken uses) reads a field of padding alone as the empty
        // token, as Whisper's multilingual vocabulary writes it.
        let bytes = if token.iter().all(|&b| b == b'=') {
            Vec::new()
        } else {
            engine
                .decode(token)
                .map_err(|e| bad(format!("token is not valid base64: {e}")))?
        };
        let rank = std::str::from_utf8(rank)
            .ok()
            .and_then(|r| r.parse::<u32>().ok())
            .ok_or_else(|| {
                bad(format!(
                    "rank {:?} is not a non-negative integer below 2^32",
                    String::from_utf8_lossy(rank)
                ))
            })?;
        out.push((bytes, rank));
    }
    Ok(out)
}

/// Writes ranks in `.tiktoken` syntax, sorted by rank.
pub fn format(ranks: &[(Vec<u8>, u32)]) -> Vec<u8> {
    let engine = base64::engine::general_purpose::STANDARD;
    let mut sorted: Vec<&(Vec<u8>, u32)> = ranks.iter().collect();
    sorted.sort_by_key(|(_, r)| *r);
    let mut out = Vec::new();
    for (bytes, rank) in sorted {
        out.extend_from_slice(engine.encode(bytes).as_bytes());
        out.push(b' ');
        out.extend_from_slice(rank.to_string().as_bytes());
        out.push(b'\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_line() {
        let err = parse(b"YQ== 0\n\nYg== x\n", "v.tiktoken").unwrap_err();
        assert_eq!(
            err.to_string(),
            "v.tiktoken:3: rank \"x\" is not a non-negative integer below 2^32"
        );
        let err = parse(b"YQ== 0\n!!! 1\n", "v.tiktoken").unwrap_err();
        assert!(err
            .to_string()
            .starts_with("v.tiktoken:2: token is not valid base64"));
        let err = parse(b"YQ==0\n", "v.tiktoken").unwrap_err();
        assert!(err.to_string().starts_with("v.tiktoken:1: expected"));
    }

    #[test]
    fn format_round_trips() {
        let ranks = vec![(b"\xff\x00".to_vec(), 1), (b"hi".to_vec(), 0)];
        let text = format(&ranks);
        assert_eq!(text, b"aGk= 0\n/wA= 1\n");
        let mut back = parse(&text, "t").unwrap();
        back.sort_by_key(|(_, r)| *r);
        assert_eq!(back, vec![(b"hi".to_vec(), 0), (b"\xff\x00".to_vec(), 1)]);
    }

    #[test]
    fn padding_alone_is_the_empty_token() {
        // Whisper's multilingual.tiktoken writes its empty token as `=`; Python's base64 reads
        // it (and an empty field) as b"", and so does tiktoken.
        let ranks = parse(b"YQ== 0\n= 1\n", "v.tiktoken").unwrap();
        assert_eq!(ranks, vec![(b"a".to_vec(), 0), (Vec::new(), 1)]);
        let text = format(&ranks);
        assert_eq!(text, b"YQ== 0\n 1\n");
        assert_eq!(parse(&text, "t").unwrap(), ranks);
    }
}
