//! Whether two byte strings are equal, by word loads instead of a call to `memcmp`.
//!
//! The long-piece cache compares a piece with its stored copy on every hit. Most pieces
//! are 1 to 48 bytes, where the call to the C library's `memcmp` and its dispatch on the
//! length cost more than the comparison: here a string of 16 bytes or more is compared in
//! 16-byte words, the last of which ends at the string's end (overlapping the one before),
//! and a shorter one in two overlapping 8- or 4-byte words. Nothing is read outside either
//! string, and the loads are plain unaligned integer loads on any target.

/// Whether `a` and `b` hold the same bytes.
#[inline(always)]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let len = a.len();
    if len != b.len() {
        return false;
    }
    if len >= 16 {
        return same_long(a, b);
    }
    if len >= 8 {
        return same_pair::<8>(a, b);
    }
    if len >= 4 {
        return same_pair::<4>(a, b);
    }
    // 0 to 3 bytes: the first, middle and last byte cover them all.
    len == 0 || (a[0] == b[0] && a[len / 2] == b[len / 2] && a[len - 1] == b[len - 1])
}

/// [`same_bytes`] for two strings of one length of at least 16 bytes: every whole 16-byte
/// word from the start, then the last 16 bytes.
#[inline(always)]
fn same_long(a: &[u8], b: &[u8]) -> bool {
    let (Some(a_last), Some(b_last)) = (a.last_chunk::<16>(), b.last_chunk::<16>()) else {
        return a == b;
    };
    let mut words = a.chunks_exact(16).zip(b.chunks_exact(16));
    let whole_equal = words.all(|(x, y)| word16(x) == word16(y));
    whole_equal && u128::from_ne_bytes(*a_last) == u128::from_ne_bytes(*b_last)
}

/// The 16 bytes of `chunk` (of exactly 16 bytes) as one integer.
#[inline(always)]
fn word16(chunk: &[u8]) -> u128 {
    let mut word = [0u8; 16];
    word.copy_from_slice(chunk);
    u128::from_ne_bytes(word)
}

/// [`same_bytes`] for two strings of one length from `N` to `2 * N` bytes (`N` is 4 or 8):
/// their first `N` bytes and their last `N` bytes, as two pairs of words.
#[inline(always)]
fn same_pair<const N: usize>(a: &[u8], b: &[u8]) -> bool {
    let word = |s: &[u8], last: bool| -> u64 {
        let chunk = if last {
            s.last_chunk::<N>()
        } else {
            s.first_chunk::<N>()
        };
        let mut bytes = [0u8; 8];
        if let Some(chunk) = chunk {
            bytes[..N].copy_from_slice(chunk);
        }
        u64::from_ne_bytes(bytes)
    };
    let differ = (word(a, false) ^ word(b, false)) | (word(a, true) ^ word(b, true));
    // Too short for a word (never, by the callers' lengths): both words read as 0.
    differ == 0 && a.len() >= N
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length up to 300 and every position of a differing byte (and a difference
    /// in one bit only) give the answer of the slice comparison.
    #[test]
    fn equals_the_slice_comparison_at_every_length_and_position() {
        for len in 0..=300usize {
            let a: Vec<u8> = (0..len).map(|i| (i * 37 + len) as u8).collect();
            assert!(same_bytes(&a, &a.clone()), "{len}");
            for at in 0..len {
                for flip in [1u8, 0x80, 0xff] {
                    let mut b = a.clone();
                    b[at] ^= flip;
                    assert_eq!(same_bytes(&a, &b), a == b, "{len} {at} {flip}");
                    assert!(!same_bytes(&a, &b), "{len} {at} {flip}");
                }
            }
        }
    }

    #[test]
    fn strings_of_other_lengths_differ() {
        let a = [7u8; 40];
        for len in 0..40 {
            assert!(!same_bytes(&a[..len], &a), "{len}");
            assert!(!same_bytes(&a, &a[..len]), "{len}");
        }
    }

    /// Equal strings at every offset inside larger buffers: the words are read unaligned
    /// and never past a string's end (the bytes after it differ).
    #[test]
    fn reads_only_inside_the_strings() {
        let base: Vec<u8> = (0..300u32).map(|i| (i * 11) as u8).collect();
        for len in 0..=64 {
            for offset in 0..16 {
                let a = &base[offset..offset + len];
                let mut other = vec![0xAAu8; len + 40];
                other[offset % 8..offset % 8 + len].copy_from_slice(a);
                let b = &other[offset % 8..offset % 8 + len];
                assert!(same_bytes(a, b), "{len} {offset}");
            }
        }
    }
}
