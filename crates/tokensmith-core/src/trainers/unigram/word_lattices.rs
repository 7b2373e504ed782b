//! The lattices of every word, found once with a trie and narrowed as pieces go.
//!
//! Training only ever removes pieces (the M-step drops the rarely expected ones, pruning drops
//! the cheap ones), so a word's lattice under any later vocabulary is its earlier lattice
//! minus the nodes of removed pieces. Looking pieces up in a trie is most of the cost of a
//! lattice, so it is done once; after each change the nodes are renumbered in place.
//!
//! When a single-character piece is removed, its nodes become unknown nodes: exactly the
//! node sentencepiece adds where no single-character piece starts.
//!
//! Memory: 12 bytes per node, in blocks of [`WORDS_PER_BLOCK`] words, so that building and
//! renumbering never hold two copies.

use rayon::prelude::*;

use super::flat_trie::FlatTrie;
use super::lattice::{populate, utf8_len, Node, TrainerModel, UNK};

/// Words per block (and per unit of parallel work).
pub const WORDS_PER_BLOCK: usize = 512;

/// Marks a removed piece in a renumbering map.
pub const REMOVED: u32 = u32::MAX;

#[derive(Debug, Clone, Default)]
struct Block {
    nodes: Vec<Node>,
    /// Where each word's nodes end in `nodes`.
    ends: Vec<u32>,
}

/// Every word's lattice, by blocks of consecutive words.
#[derive(Debug, Clone, Default)]
pub struct WordLattices {
    blocks: Vec<Block>,
    /// Characters per word.
    chars: Vec<u32>,
}

impl WordLattices {
    /// Builds the lattice of each word under `model` (in parallel).
    pub fn build(words: &[(String, u64)], model: &TrainerModel) -> Self {
        let trie = model.trie();
        let blocks = words
            .par_chunks(WORDS_PER_BLOCK)
            .map(|chunk| {
                let mut block = Block::default();
                for (word, _) in chunk {
                    populate(&trie, word, None, &mut block.nodes);
                    block.ends.push(block.nodes.len() as u32);
                }
                block.nodes.shrink_to_fit();
                block
            })
            .collect();
        let chars = words
            .par_iter()
            .map(|(w, _)| w.chars().count() as u32)
            .collect();
        Self { blocks, chars }
    }

    /// The number of blocks; block `b` holds words `b × WORDS_PER_BLOCK ..`.
    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Calls `f(word index, nodes)` for each word of block `b`, in order.
    #[inline]
    pub fn for_each_in_block(&self, b: usize, mut f: impl FnMut(usize, &[Node])) {
        let block = &self.blocks[b];
        let mut start = 0;
        for (k, &end) in block.ends.iter().enumerate() {
            f(b * WORDS_PER_BLOCK + k, &block.nodes[start..end as usize]);
            start = end as usize;
        }
    }

    /// The nodes of word `i`.
    pub fn word(&self, i: usize) -> &[Node] {
        let block = &self.blocks[i / WORDS_PER_BLOCK];
        let k = i % WORDS_PER_BLOCK;
        let start = if k == 0 {
            0
        } else {
            block.ends[k - 1] as usize
        };
        &block.nodes[start..block.ends[k] as usize]
    }

    /// The number of characters of word `i`.
    #[inline]
    pub fn chars(&self, i: usize) -> usize {
        self.chars[i] as usize
    }

    /// The total number of nodes.
    pub fn len(&self) -> usize {
        self.blocks.iter().map(|b| b.nodes.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Renumbers the pieces: `map[old] = new`, or [`REMOVED`]. Nodes of removed pieces go,
    /// except single-character ones, which become unknown nodes.
    pub fn remap(&mut self, words: &[(String, u64)], map: &[u32]) {
        self.blocks
            .par_iter_mut()
            .zip(words.par_chunks(WORDS_PER_BLOCK))
            .for_each(|(block, chunk)| {
                let mut write = 0;
                let mut read = 0;
                for (end, (word, _)) in block.ends.iter_mut().zip(chunk) {
                    let bytes = word.as_bytes();
                    while read < *end as usize {
                        let mut node = block.nodes[read];
                        read += 1;
                        if node.id != UNK {
                            node.id = map[node.id as usize];
                            if node.id == REMOVED {
                                let s = node.start as usize;
                                if utf8_len(bytes[s]) != node.end as usize - s {
                                    continue;
                                }
                                node.id = UNK;
                            }
                        }
                        block.nodes[write] = node;
                        write += 1;
                    }
                    *end = write as u32;
                }
                block.nodes.truncate(write);
                if block.nodes.capacity() > 2 * write {
                    block.nodes.shrink_to_fit();
                }
            });
    }
}

/// Where a pass over the corpus gets each word's lattice: the stored lattices, or a trie
/// (for the first round, whose vocabulary of seeds is the largest and mostly dropped at once).
pub enum LatticeSource<'a> {
    Stored(&'a WordLattices),
    Trie(&'a FlatTrie),
}

impl LatticeSource<'_> {
    /// Calls `f(word index, nodes, characters)` for each word of block `b` of `words`.
    pub fn for_each_in_block(
        &self,
        words: &[(String, u64)],
        b: usize,
        buffer: &mut Vec<Node>,
        mut f: impl FnMut(usize, &[Node], usize),
    ) {
        match self {
            Self::Stored(lattices) => {
                lattices.for_each_in_block(b, |i, nodes| f(i, nodes, lattices.chars(i)))
            }
            Self::Trie(trie) => {
                let first = b * WORDS_PER_BLOCK;
                let last = (first + WORDS_PER_BLOCK).min(words.len());
                for (i, (word, _)) in words.iter().enumerate().take(last).skip(first) {
                    buffer.clear();
                    populate(trie, word, None, buffer);
                    f(i, buffer, word.chars().count());
                }
            }
        }
    }

    /// The number of blocks of `words`.
    pub fn blocks(&self, words: &[(String, u64)]) -> usize {
        words.len().div_ceil(WORDS_PER_BLOCK)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trainers::unigram::lattice::Lattice;

    #[test]
    fn remapping_equals_rebuilding() {
        let pieces: Vec<(String, f64)> = ["a", "b", "ab", "ba", "aba", "é"]
            .iter()
            .map(|p| (p.to_string(), -1.0))
            .collect();
        // Enough words for several blocks.
        let words: Vec<(String, u64)> = ["abab", "bé", "ba", "x", ""]
            .iter()
            .cycle()
            .take(5 * WORDS_PER_BLOCK + 7)
            .map(|w| (w.to_string(), 1))
            .collect();
        let model = TrainerModel::new(pieces.clone());
        let mut lattices = WordLattices::build(&words, &model);
        // Drop "b" (a single character) and "aba"; renumber the rest.
        let keep = [true, false, true, true, false, true];
        let mut map = Vec::new();
        let mut kept = Vec::new();
        for (i, &k) in keep.iter().enumerate() {
            if k {
                map.push(kept.len() as u32);
                kept.push(pieces[i].clone());
            } else {
                map.push(REMOVED);
            }
        }
        lattices.remap(&words, &map);
        let smaller = TrainerModel::new(kept);
        let trie = smaller.trie();
        let mut seen = 0;
        for b in 0..lattices.blocks() {
            lattices.for_each_in_block(b, |i, nodes| {
                let mut fresh = Lattice::default();
                fresh.populate(&smaller, &trie, &words[i].0);
                assert_eq!(nodes, fresh.nodes(), "{}", words[i].0);
                assert_eq!(nodes, lattices.word(i));
                seen += 1;
            });
        }
        assert_eq!(seen, words.len());
    }
}
