//! Resource limits: the largest sizes a file, an option or an input may ask for.
//!
//! Every limit is checked before the memory or time it governs is spent, and a breach is an
//! [`Error::Limit`] that names the limit and how to raise it. The defaults are far above
//! what real tokenizers use (the largest vocabularies hold about a million ids), so only a
//! corrupt or hostile file meets them. The values are process-wide; Python sets them with
//! `tokensmith.limits.set_limits(...)` or `TOKENSMITH_<NAME>` environment variables.
//!
//! ```
//! use tokensmith_core::limits::{self, Limit};
//! assert!(limits::check(Limit::MaxTokenId, 100_000, "special token id").is_ok());
//! let err = limits::check(Limit::MaxTokenId, 4_000_000_000, "special token id").unwrap_err();
//! assert!(err.to_string().contains("max_token_id"));
//! ```

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// One resource limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The largest token id a vocabulary, a special token or an added token may have. Tables
    /// indexed by id are sized by it.
    MaxTokenId,
    /// The longest token text in bytes: an added token, a `.tiktoken` token, a vocabulary entry.
    MaxTokenBytes,
    /// The longest padded sequence, in tokens: `length` and `pad_to_multiple_of` of padding.
    MaxPaddedLength,
    /// How many times longer than its input a normalizer's output may be (plus 4 KiB).
    MaxNormalizedGrowth,
    /// The largest size a compressed input file may inflate to, in bytes.
    MaxInflatedBytes,
    /// The backtracking steps a regex may take on one piece of text before matching fails.
    RegexBacktrackLimit,
}

/// Every limit, in the order of [`VALUES`].
pub const ALL: [Limit; 6] = [
    Limit::MaxTokenId,
    Limit::MaxTokenBytes,
    Limit::MaxPaddedLength,
    Limit::MaxNormalizedGrowth,
    Limit::MaxInflatedBytes,
    Limit::RegexBacktrackLimit,
];

/// Slack a normalizer may add on top of [`Limit::MaxNormalizedGrowth`] times its input, so
/// that a short input may still be expanded by a long replacement.
pub const NORMALIZED_SLACK: u64 = 4096;

static VALUES: [AtomicU64; 6] = [
    AtomicU64::new(Limit::MaxTokenId.default_value()),
    AtomicU64::new(Limit::MaxTokenBytes.default_value()),
    AtomicU64::new(Limit::MaxPaddedLength.default_value()),
    AtomicU64::new(Limit::MaxNormalizedGrowth.default_value()),
    AtomicU64::new(Limit::MaxInflatedBytes.default_value()),
    AtomicU64::new(Limit::RegexBacktrackLimit.default_value()),
];

impl Limit {
    /// The limit's name, as Python's `set_limits` spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Limit::MaxTokenId => "max_token_id",
            Limit::MaxTokenBytes => "max_token_bytes",
            Limit::MaxPaddedLength => "max_padded_length",
            Limit::MaxNormalizedGrowth => "max_normalized_growth",
            Limit::MaxInflatedBytes => "max_inflated_bytes",
            Limit::RegexBacktrackLimit => "regex_backtrack_limit",
        }
    }

    /// The default value.
    pub const fn default_value(self) -> u64 {
        match self {
            Limit::MaxTokenId => (1 << 24) - 1,
            Limit::MaxTokenBytes => 1 << 20,
            Limit::MaxPaddedLength => 1 << 22,
            Limit::MaxNormalizedGrowth => 64,
            Limit::MaxInflatedBytes => 1 << 28,
            Limit::RegexBacktrackLimit => 10_000_000,
        }
    }

    /// The limit named `name`, if any.
    pub fn from_name(name: &str) -> Option<Limit> {
        ALL.into_iter().find(|l| l.name() == name)
    }

    fn slot(self) -> &'static AtomicU64 {
        &VALUES[self as usize]
    }

    /// The value in force.
    pub fn get(self) -> u64 {
        self.slot().load(Ordering::Relaxed)
    }

    /// Sets the value for the whole process (objects built earlier keep what they checked).
    pub fn set(self, value: u64) {
        self.slot().store(value, Ordering::Relaxed)
    }

    /// The error for `what` being `value`, above this limit.
    pub fn error(self, what: &str, value: u64) -> Error {
        Error::Limit {
            limit: self.name(),
            what: what.to_string(),
            value,
            max: self.get(),
        }
    }
}

/// `Ok` when `value` is within `limit`, else an [`Error::Limit`] that says `what` it was.
pub fn check(limit: Limit, value: u64, what: &str) -> Result<()> {
    if value > limit.get() {
        return Err(limit.error(what, value));
    }
    Ok(())
}

/// The largest output a normalizer may give for an input of `input_len` bytes.
pub fn max_normalized_len(input_len: usize) -> u64 {
    (input_len as u64)
        .saturating_mul(Limit::MaxNormalizedGrowth.get())
        .saturating_add(NORMALIZED_SLACK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_errors_name_the_limit() {
        for limit in ALL {
            assert_eq!(Limit::from_name(limit.name()), Some(limit));
            assert_eq!(limit.get(), limit.default_value());
        }
        let err = check(Limit::MaxPaddedLength, u64::MAX, "padding length").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("max_padded_length"), "{text}");
        assert!(text.contains("set_limits"), "{text}");
        assert!(check(Limit::MaxPaddedLength, 1 << 22, "padding length").is_ok());
    }
}
