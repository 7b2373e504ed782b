//! SentencePiece's BPE (`model_type=bpe`): merges chosen by piece score, not by merge rank.
//!
//! Facts kept from sentencepiece's `bpe_model.cc` so that results are identical:
//! - the text starts as one symbol per UTF-8 character;
//! - every adjacent pair whose concatenation is a NORMAL, USER_DEFINED or UNUSED piece is a
//!   candidate; the candidate with the highest score merges first, the leftmost on ties;
//! - a queued candidate is stale when either side is gone or the two sides' total length
//!   changed (sentencepiece's own check, kept as it is);
//! - a final symbol that is an UNUSED piece is split back into the pair that formed it;
//! - a symbol that is not a piece gets the unknown id.
//!
//! User-defined symbols are matched first (longest match) and never merge.
//!
//! BPE dropout (Provilkov et al. 2020), as sentencepiece does it: each merge popped from the
//! queue is skipped with probability `alpha`, and a skipped pair is only queued again if a
//! neighbouring merge recreates it.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

use crate::formats::sentencepiece_model::PieceType;
use crate::models::unigram::{PieceTrie, SplitMix64};

/// A SentencePiece BPE model.
#[derive(Debug, Clone)]
pub struct SentencePieceBpe {
    /// NORMAL, USER_DEFINED and UNUSED pieces: (id, score, is_unused).
    pieces: FxHashMap<String, (u32, f32, bool)>,
    unk_id: u32,
    /// User-defined symbols: each match becomes one symbol that never merges.
    user_defined: Option<PieceTrie>,
}

struct Candidate {
    score: f32,
    left: usize,
    right: usize,
    size: usize,
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Candidate {
    /// Highest score first, then the leftmost.
    fn cmp(&self, other: &Self) -> Ordering {
        self.score
            .total_cmp(&other.score)
            .then_with(|| other.left.cmp(&self.left))
    }
}

struct Symbol {
    prev: Option<usize>,
    next: Option<usize>,
    start: usize,
    len: usize,
    freeze: bool,
}

impl SentencePieceBpe {
    /// Builds the model from `(piece, score, type)` in id order.
    pub fn new<'a>(pieces: impl Iterator<Item = (&'a str, f32, PieceType)>, unk_id: u32) -> Self {
        let mut map = FxHashMap::default();
        let mut user_defined: Option<PieceTrie> = None;
        for (id, (piece, score, kind)) in pieces.enumerate() {
            if kind == PieceType::UserDefined {
                user_defined
                    .get_or_insert_with(PieceTrie::new)
                    .insert(piece.as_bytes(), id as u32);
            }
            if matches!(
                kind,
                PieceType::Normal | PieceType::UserDefined | PieceType::Unused
            ) {
                map.entry(piece.to_string()).or_insert((
                    id as u32,
                    score,
                    kind == PieceType::Unused,
                ));
            }
        }
        Self {
            pieces: map,
            unk_id,
            user_defined,
        }
    }

    /// Segments `normalized` into `(start, end, id)` byte spans.
    pub fn encode(&self, normalized: &str) -> Vec<(usize, usize, u32)> {
        self.encode_with_dropout(normalized, 0.0, None)
    }

    /// Segments `normalized`, skipping each merge with probability `alpha` (BPE dropout).
    /// `alpha <= 0` (or no generator) never skips; `alpha >= 1` skips every merge.
    pub fn encode_with_dropout(
        &self,
        normalized: &str,
        alpha: f32,
        mut rng: Option<&mut SplitMix64>,
    ) -> Vec<(usize, usize, u32)> {
        let mut skip_merge = || {
            if alpha <= 0.0 {
                return false;
            }
            if alpha >= 1.0 {
                return true;
            }
            rng.as_mut()
                .is_some_and(|r| r.next_f64() < f64::from(alpha))
        };
        let text = normalized.as_bytes();
        let mut symbols: Vec<Symbol> = Vec::new();
        let mut start = 0;
        while start < text.len() {
            let rest = &normalized[start..];
            let matched = self
                .user_defined
                .as_ref()
                .and_then(|t| t.longest_prefix(rest.as_bytes()));
            let len = matched.unwrap_or_else(|| rest.chars().next().map_or(1, char::len_utf8));
            let i = symbols.len();
            symbols.push(Symbol {
                prev: i.checked_sub(1),
                next: None,
                start,
                len,
                freeze: matched.is_some(),
            });
            if i > 0 {
                symbols[i - 1].next = Some(i);
            }
            start += len;
        }
        let mut agenda = BinaryHeap::new();
        // Pieces formed from UNUSED pieces, mapped back to their halves.
        let mut rev_merge: FxHashMap<&str, (&str, &str)> = FxHashMap::default();
        let mut add =
            |symbols: &[Symbol], agenda: &mut BinaryHeap<Candidate>, l: usize, r: usize| {
                let (ls, rs) = (&symbols[l], &symbols[r]);
                if ls.freeze || rs.freeze {
                    return;
                }
                let merged = &normalized[ls.start..ls.start + ls.len + rs.len];
                if let Some(&(_, score, unused)) = self.pieces.get(merged) {
                    agenda.push(Candidate {
                        score,
                        left: l,
                        right: r,
                        size: merged.len(),
                    });
                    if unused {
                        rev_merge.insert(
                            merged,
                            (
                                &normalized[ls.start..ls.start + ls.len],
                                &normalized[rs.start..rs.start + rs.len],
                            ),
                        );
                    }
                }
            };
        for i in 1..symbols.len() {
            add(&symbols, &mut agenda, i - 1, i);
        }
        while let Some(top) = agenda.pop() {
            let (l, r) = (top.left, top.right);
            if symbols[l].len == 0
                || symbols[r].len == 0
                || symbols[l].len + symbols[r].len != top.size
                || skip_merge()
            {
                continue;
            }
            symbols[l].len += symbols[r].len;
            symbols[r].len = 0;
            let next = symbols[r].next;
            symbols[l].next = next;
            if let Some(n) = next {
                symbols[n].prev = Some(l);
            }
            if let Some(p) = symbols[l].prev {
                add(&symbols, &mut agenda, p, l);
            }
            if let Some(n) = next {
                add(&symbols, &mut agenda, l, n);
            }
        }
        let mut out = Vec::new();
        let mut index = if symbols.is_empty() { None } else { Some(0) };
        while let Some(i) = index {
            let s = &symbols[i];
            self.resegment(
                &normalized[s.start..s.start + s.len],
                s.start,
                &rev_merge,
                &mut out,
            );
            index = s.next;
        }
        debug_assert!(out.last().is_none_or(|&(_, e, _)| e == text.len()));
        out
    }

    fn resegment(
        &self,
        piece: &str,
        start: usize,
        rev_merge: &FxHashMap<&str, (&str, &str)>,
        out: &mut Vec<(usize, usize, u32)>,
    ) {
        let end = start + piece.len();
        match self.pieces.get(piece) {
            None => out.push((start, end, self.unk_id)),
            Some(&(id, _, unused)) => match rev_merge.get(piece) {
                Some(&(left, right)) if unused => {
                    self.resegment(left, start, rev_merge, out);
                    self.resegment(right, start + left.len(), rev_merge, out);
                }
                _ => out.push((start, end, id)),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_by_score_leftmost_on_ties() {
        let pieces = [
            ("<unk>", 0.0, PieceType::Unknown),
            ("a", -1.0, PieceType::Normal),
            ("b", -1.0, PieceType::Normal),
            ("ab", -2.0, PieceType::Normal),
            ("ba", -2.0, PieceType::Normal),
            ("aba", -3.0, PieceType::Normal),
        ];
        let m = SentencePieceBpe::new(pieces.iter().map(|&(p, s, k)| (p, s, k)), 0);
        // "abab": ab (left) and ba tie; the leftmost ab merges, then ab+ab is no piece.
        assert_eq!(m.encode("abab"), vec![(0, 2, 3), (2, 4, 3)]);
        assert_eq!(m.encode("abx"), vec![(0, 2, 3), (2, 3, 0)]);
        assert_eq!(m.encode(""), vec![]);
    }

    #[test]
    fn user_defined_symbols_never_merge() {
        let pieces = [
            ("<unk>", 0.0, PieceType::Unknown),
            ("a", -1.0, PieceType::Normal),
            ("b", -1.0, PieceType::Normal),
            ("ab", -0.5, PieceType::Normal),
            ("b", -1.0, PieceType::Normal),
            ("ba", -0.1, PieceType::UserDefined),
        ];
        let m = SentencePieceBpe::new(pieces.iter().map(|&(p, s, k)| (p, s, k)), 0);
        // "ba" is taken first as a frozen symbol, so "ab" cannot form across it.
        assert_eq!(m.encode("aba"), vec![(0, 1, 1), (1, 3, 5)]);
        assert_eq!(m.encode("abab"), vec![(0, 1, 1), (1, 3, 5), (3, 4, 2)]);
    }
}
