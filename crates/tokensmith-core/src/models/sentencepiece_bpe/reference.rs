//! The first SentencePiece BPE encoder, kept for tests: it looks every candidate pair up by its
//! text and keeps one `String`-keyed map, which makes it easy to check against
//! sentencepiece's `bpe_model.cc` line by line. `model.rs` must give the same spans.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

use crate::formats::sentencepiece_model::PieceType;
use crate::models::sentencepiece_parts::UserSymbols;
use crate::models::unigram::SplitMix64;

/// A SentencePiece BPE model, encoded the plain way.
#[derive(Debug, Clone)]
pub struct ReferenceBpe {
    /// NORMAL, USER_DEFINED and UNUSED pieces: (id, score, is_unused).
    pieces: FxHashMap<String, (u32, f32, bool)>,
    unk_id: u32,
    /// User-defined symbols: each match becomes one symbol that never merges.
    user_defined: UserSymbols,
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

impl ReferenceBpe {
    /// Builds the model from `(piece, score, type)` in id order.
    pub fn new<'a>(pieces: impl Iterator<Item = (&'a str, f32, PieceType)>, unk_id: u32) -> Self {
        let mut map = FxHashMap::default();
        let mut user: Vec<(&str, u32)> = Vec::new();
        for (id, (piece, score, kind)) in pieces.enumerate() {
            if kind == PieceType::UserDefined {
                user.push((piece, id as u32));
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
            user_defined: UserSymbols::new(user),
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
            let matched = self.user_defined.longest_at(rest).map(|m| m.0);
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
