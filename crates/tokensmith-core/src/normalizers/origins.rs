//! Where each byte of the normalized text comes from in the input (sentencepiece's
//! `norm_to_orig`), told by the fast copy as it writes: the copy is generic over the listener,
//! so that the encoder's path, which needs no offsets, gets [`NoOrigins`] and no code for them,
//! and the offsets path gets [`OriginMap`] from the same copy.
//!
//! >>> "ab  c" -> "ab▁c": bytes 0, 1 from 0, 1 (`each`), the mark from 2 (`all`), "c" from 4

/// Hears where the copy's output bytes come from. Offsets are the copy's own: output bytes
/// from where the output stood before the copy, input bytes from the copy's input start.
pub(crate) trait Origins {
    /// Output bytes `w..w + len` come from input bytes `i..i + len`, one for one (ASCII).
    fn each(&mut self, w: usize, i: usize, len: usize);
    /// Output bytes `w..w + len` all come from input offset `i` (a space's mark, or the bytes
    /// of one character).
    fn all(&mut self, w: usize, i: usize, len: usize);
}

/// No offsets map: nothing to record.
pub(crate) struct NoOrigins;

impl Origins for NoOrigins {
    #[inline(always)]
    fn each(&mut self, _: usize, _: usize, _: usize) {}

    #[inline(always)]
    fn all(&mut self, _: usize, _: usize, _: usize) {}
}

/// Records into an offsets map, one entry per output byte: output byte `w` of the copy is
/// entry `base + w`, and input offset `i` is `at + i` in the whole input. The copy may write
/// past where it ends and take bytes back, so entries are set by index (the map grows as
/// needed), and the caller cuts the map to the text's length after.
pub(crate) struct OriginMap<'a> {
    pub(crate) map: &'a mut Vec<usize>,
    /// The output's length before the copy.
    pub(crate) base: usize,
    /// The input offset of the copy's input.
    pub(crate) at: usize,
}

impl OriginMap<'_> {
    /// Entries `base + w..base + w + len`, grown into when missing.
    fn entries(&mut self, w: usize, len: usize) -> &mut [usize] {
        let from = self.base + w;
        if self.map.len() < from + len {
            self.map.resize(from + len, 0);
        }
        &mut self.map[from..from + len]
    }
}

impl Origins for OriginMap<'_> {
    fn each(&mut self, w: usize, i: usize, len: usize) {
        let start = self.at + i;
        for (k, entry) in self.entries(w, len).iter_mut().enumerate() {
            *entry = start + k;
        }
    }

    fn all(&mut self, w: usize, i: usize, len: usize) {
        let origin = self.at + i;
        self.entries(w, len).fill(origin);
    }
}
