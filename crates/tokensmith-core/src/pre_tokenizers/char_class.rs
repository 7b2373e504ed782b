//! Unicode character classes used by the hand-written splitters, as one flag byte per code point.
//!
//! The ranges come from `regex-syntax`, the crate behind the regex engines that tiktoken uses,
//! so `\p{L}`, `\p{N}` and `\s` here mean exactly what they mean in the reference patterns,
//! with the same Unicode version. The table is a flat array built once, on first use (~1 ms).
//!
//! ```
//! use tokensmith_core::pre_tokenizers::char_class::{flags_of, LETTER, SPACE};
//! assert_ne!(flags_of('é' as u32) & LETTER, 0);
//! assert_ne!(flags_of('\u{3000}' as u32) & SPACE, 0);
//! ```

use regex_syntax::hir::{Class, HirKind};
use std::sync::OnceLock;

/// `\p{L}`
pub const LETTER: u8 = 1;
/// `\p{N}`
pub const NUMBER: u8 = 2;
/// `\s`, which is Unicode `White_Space` in the regex engines.
pub const SPACE: u8 = 4;
/// `\p{M}`
pub const MARK: u8 = 8;
/// o200k's first letter class: `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`.
pub const UPPERISH: u8 = 16;
/// o200k's second letter class: `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`.
pub const LOWERISH: u8 = 32;

const CLASSES: [(&str, u8); 6] = [
    (r"\p{L}", LETTER),
    (r"\p{N}", NUMBER),
    (r"\s", SPACE),
    (r"\p{M}", MARK),
    (r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", UPPERISH),
    (r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]", LOWERISH),
];

/// The table's length: every value that 21 bits hold, which covers every code point and
/// every value that a UTF-8 decoder without range checks produces (4 bytes carry 21 bits),
/// so a lookup needs no bounds check. The entries past U+10FFFF stay 0 and are never
/// written, so their pages are never touched.
const TABLE_LEN: usize = 1 << 21;

type Table = [u8; TABLE_LEN];

fn build_table() -> Box<Table> {
    let table = vec![0u8; TABLE_LEN].into_boxed_slice();
    let mut table: Box<Table> = table.try_into().expect("TABLE_LEN entries");
    for (pattern, flag) in CLASSES {
        // The patterns are constants, so a parse failure is a bug in this file, caught by tests.
        let hir = regex_syntax::parse(pattern).expect("constant class pattern parses");
        let HirKind::Class(Class::Unicode(class)) = hir.kind() else {
            unreachable!("constant pattern {pattern} is a Unicode class")
        };
        for range in class.ranges() {
            for cp in range.start() as usize..=range.end() as usize {
                table[cp] |= flag;
            }
        }
    }
    table
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Box<Table>> = OnceLock::new();
    TABLE.get_or_init(build_table)
}

/// The flags of one code point (0 for values beyond U+10FFFF).
#[inline]
pub fn flags_of(cp: u32) -> u8 {
    table().get(cp as usize).copied().unwrap_or(0)
}

/// A view of the flag table, for hot loops that look up many code points.
#[derive(Clone, Copy)]
pub struct Classes {
    table: &'static Table,
}

impl Default for Classes {
    fn default() -> Self {
        Self::new()
    }
}

impl Classes {
    /// Builds the table on first use and returns a cheap handle to it.
    pub fn new() -> Self {
        Self { table: table() }
    }

    /// The flags of one code point (any value below 2^21, which is all that a UTF-8
    /// decoder yields; 0 beyond U+10FFFF).
    #[inline(always)]
    pub fn of(&self, cp: u32) -> u8 {
        // The mask keeps the index inside the table, so the compiler drops the bounds check;
        // it changes no value a decoder yields.
        self.table[cp as usize & (TABLE_LEN - 1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_classes() {
        assert_eq!(flags_of('a' as u32), LETTER | LOWERISH);
        assert_eq!(flags_of('A' as u32), LETTER | UPPERISH);
        assert_eq!(flags_of('7' as u32), NUMBER);
        assert_eq!(flags_of(' ' as u32), SPACE);
        assert_eq!(flags_of('\n' as u32), SPACE);
        assert_eq!(flags_of('.' as u32), 0);
    }

    #[test]
    fn unicode_classes() {
        // Lo is in both o200k letter classes; a combining mark is in both and in MARK, not LETTER.
        assert_eq!(flags_of('中' as u32), LETTER | UPPERISH | LOWERISH);
        assert_eq!(flags_of(0x301), MARK | UPPERISH | LOWERISH);
        assert_eq!(flags_of('½' as u32), NUMBER);
        assert_eq!(flags_of(0x85) & SPACE, SPACE);
        assert_eq!(flags_of(0x200B), 0, "zero-width space is not White_Space");
        assert_eq!(flags_of(0x10_FFFF), 0);
        assert_eq!(Classes::new().of(0x1F_FFFF), 0, "the largest 4-byte decode");
    }
}
