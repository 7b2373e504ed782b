//! Id to bytes, stored in one arena so that decoding is a copy per token.

/// The bytes of every token, indexed by id. Ids may have gaps.
#[derive(Debug, Clone, Default)]
pub struct TokenTable {
    arena: Vec<u8>,
    /// `starts[id]..starts[id + 1]` is token `id`'s bytes.
    starts: Vec<u32>,
    present: Vec<bool>,
}

impl TokenTable {
    /// Builds the table from `(bytes, id)` pairs; ids must be unique (checked by the caller).
    pub fn new<'a>(tokens: impl Iterator<Item = (&'a [u8], u32)> + Clone) -> Self {
        let n = tokens
            .clone()
            .map(|(_, id)| id as usize + 1)
            .max()
            .unwrap_or(0);
        let mut by_id: Vec<Option<&[u8]>> = vec![None; n];
        for (bytes, id) in tokens {
            by_id[id as usize] = Some(bytes);
        }
        let mut arena = Vec::new();
        let mut starts = Vec::with_capacity(n + 1);
        let mut present = Vec::with_capacity(n);
        for slot in &by_id {
            starts.push(arena.len() as u32);
            present.push(slot.is_some());
            arena.extend_from_slice(slot.unwrap_or(&[]));
        }
        starts.push(arena.len() as u32);
        Self {
            arena,
            starts,
            present,
        }
    }

    /// The bytes of token `id`, if it exists.
    #[inline(always)]
    pub fn get(&self, id: u32) -> Option<&[u8]> {
        self.span(id).map(|(start, end)| &self.arena[start..end])
    }

    /// Where token `id`'s bytes sit in [`bytes`](Self::bytes), if it exists.
    #[inline(always)]
    pub fn span(&self, id: u32) -> Option<(usize, usize)> {
        let i = id as usize;
        if *self.present.get(i)? {
            Some((self.starts[i] as usize, self.starts[i + 1] as usize))
        } else {
            None
        }
    }

    /// The bytes of every token, one after another in id order.
    pub fn bytes(&self) -> &[u8] {
        &self.arena
    }

    /// One past the largest id (0 when empty).
    pub fn id_bound(&self) -> usize {
        self.present.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_are_absent() {
        let toks: Vec<(&[u8], u32)> = vec![(b"a", 0), (b"bc", 2)];
        let t = TokenTable::new(toks.into_iter());
        assert_eq!(t.get(0), Some(&b"a"[..]));
        assert_eq!(t.get(1), None);
        assert_eq!(t.get(2), Some(&b"bc"[..]));
        assert_eq!(t.get(3), None);
        assert_eq!(t.id_bound(), 3);
        assert_eq!((t.span(1), t.span(2)), (None, Some((1, 3))));
        assert_eq!(t.bytes(), b"abc");
    }
}
