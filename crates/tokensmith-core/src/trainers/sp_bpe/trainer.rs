//! The BPE training loop, in sentencepiece's order (`bpe_model_trainer.cc`):
//!
//! ```text
//! words ─► required characters (character_coverage) ─► rare characters become U+2585
//!       ─► every adjacent pair ─► repeat until vocab_size − meta − characters pieces {
//!              best pair; a text seen before is dropped, else it is the next piece
//!              (score −its index) and is merged in every word it occurs in }
//!       ─► the required characters, most frequent first, scored on ─► ModelProto
//! ```
//!
//! The words are merged on `num_threads` threads (the per-process pool when 0); the result
//! does not depend on that number.

use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::sync::Mutex;

use rayon::prelude::*;
use rustc_hash::FxHashSet;

use super::active::Active;
use super::first_pairs::first_pairs;
use super::symbols::{Symbols, NONE};
use super::tally::{Slots, Tally};
use super::word_store::{Part, WordStore};
use super::words::merge_in_place;
use crate::error::{Error, Result};
use crate::formats::sentencepiece_model::{ModelProto, ModelType};
use crate::trainers::unigram::finalize::build_proto_as;
use crate::trainers::unigram::trainer::{alphabet_and_words, checked_run};
use crate::trainers::unigram::{PieceRules, UnigramConfig, WordTable, UNK_CHAR};

/// Pieces between progress reports.
const REPORT_EVERY: usize = 100;
/// Words merged on one thread below this many.
const PARALLEL_WORDS: usize = 256;
/// Pairs whose map entry is fetched ahead of the one being made or looked up.
const PAIRS_AHEAD: usize = 8;
/// Words per task when merging on the pool.
const WORDS_PER_TASK: usize = 64;

/// Progress reports, in the order they happen.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The words and their pairs are ready.
    Started { words: usize, required_chars: usize },
    /// Another `REPORT_EVERY` pieces are learned.
    Merged { pieces: usize },
    /// The final vocabulary is chosen.
    Finished { pieces: usize },
}

/// Trains a BPE model on `words`. See the module documentation.
pub fn train(
    config: &UnigramConfig,
    words: WordTable,
    on_event: &mut (dyn FnMut(&Event) -> ControlFlow<()> + Send),
) -> Result<Option<ModelProto>> {
    checked_run(config, words, |words| train_here(config, words, on_event))
}

fn train_here(
    config: &UnigramConfig,
    words: Vec<(String, u64)>,
    on_event: &mut (dyn FnMut(&Event) -> ControlFlow<()> + Send),
) -> Result<Option<ModelProto>> {
    let meta = config.meta_piece_count();
    let (required, words) = alphabet_and_words(config, words, 0)?;
    if on_event(&Event::Started {
        words: words.len(),
        required_chars: required.len(),
    })
    .is_break()
    {
        return Ok(None);
    }
    let mut state = Merger::new(PieceRules::from_config(config), &required, words)?;
    let wanted = config.vocab_size - meta - required.len();
    let mut learned: Vec<(String, f64)> = Vec::with_capacity(config.vocab_size);
    let mut seen: FxHashSet<String> = FxHashSet::default();
    state.active.seed(&state.symbols);
    while learned.len() < wanted {
        let Some(best) = state.active.best(&state.symbols) else {
            break;
        };
        let text = state.symbols.text(best);
        if seen.contains(&text) {
            state.symbols.erase(best);
            state.active.remove(best);
            continue;
        }
        seen.insert(text.clone());
        learned.push((text, -(learned.len() as f32) as f64));
        state.merge(best);
        if learned.len().is_multiple_of(REPORT_EVERY)
            && on_event(&Event::Merged {
                pieces: learned.len(),
            })
            .is_break()
        {
            return Ok(None);
        }
    }
    drop_elsewhere(state);
    if learned.len() < wanted {
        return Err(Error::InvalidOption(format!(
            "vocab_size={} is too large for this corpus: it yields at most {} pieces (meta \
             pieces included); use vocab_size <= {0} or give more text",
            config.vocab_size,
            learned.len() + meta + required.len()
        )));
    }
    let mut chars = required;
    chars.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (c, _) in chars {
        let score = -(learned.len() as f32) as f64;
        learned.push((c.to_string(), score));
    }
    let proto = build_proto_as(config, learned, ModelType::Bpe)?;
    let _ = on_event(&Event::Finished {
        pieces: proto.pieces.len(),
    });
    Ok(Some(proto))
}

/// Drops `value` on a thread of its own (on this one if none can be started): freeing
/// millions of small allocations need not hold up the caller.
fn drop_elsewhere<T: Send + 'static>(value: T) {
    // A failed spawn drops the closure, and `value` with it, here.
    let _ = std::thread::Builder::new()
        .name("sp-bpe-free".into())
        .spawn(move || drop(value));
}

/// The words, the symbols and the candidates, changed together by each merge.
struct Merger {
    symbols: Symbols,
    active: Active,
    words: WordStore,
    /// The tallies' slots, kept between merges (one per thread at work).
    slots: Mutex<Vec<Slots>>,
    /// Emptied tallies, whose memory the next merges reuse.
    tallies: Mutex<Vec<Tally>>,
}

impl Merger {
    /// Every word spelled in characters, and every adjacent pair counted.
    fn new(rules: PieceRules, alphabet: &[(char, u64)], table: Vec<(String, u64)>) -> Result<Self> {
        let mut symbols = Symbols::new(rules);
        // The words hold their alphabet's characters and U+2585 only (see
        // `alphabet_and_words`); a character outside it would be U+2585 too.
        let mut chars: Vec<char> = alphabet.iter().map(|c| c.0).collect();
        chars.push(UNK_CHAR);
        chars.sort_unstable();
        chars.dedup();
        let top = chars.last().map_or(0, |&c| c as usize);
        let mut ids = vec![NONE; top + 1];
        for &c in &chars {
            ids[c as usize] = symbols.char_id(c);
        }
        let unk = symbols.char_id(UNK_CHAR);
        let words = WordStore::spell(&table, |c| match ids.get(c as usize) {
            Some(&id) if id != NONE => id,
            _ => unk,
        })?;
        // The texts are not needed again; freeing 800k of them took 0.1 s on the path to
        // the first merge. Freed early, their memory serves the pairs counted next.
        drop_elsewhere(table);
        let mut active = Active::default();
        let pairs = first_pairs(&words);
        for p in pairs {
            if let Some(id) = symbols.lookup(p.parts.0, p.parts.1) {
                symbols.add_words(id, p.weight, p.words);
                active.insert(id);
            }
        }
        Ok(Self {
            symbols,
            active,
            words,
            slots: Mutex::new(Vec::new()),
            tallies: Mutex::new(Vec::new()),
        })
    }

    /// Merges `best` in every word it occurs in, then takes it out of the cache.
    ///
    /// The changes are summed per pair first. New pairs are made in the order they first
    /// appear (word by word, as sentencepiece makes them), before the lost occurrences are
    /// taken off: a pair made and lost again in one word then ends at count 0, in the cache.
    fn merge(&mut self, best: u32) {
        let mut tally = self.merge_words(best);
        let (mut gains, lost) = tally.into_parts();
        if let Ok(spare) = self.tallies.get_mut() {
            spare.push(tally);
        }
        let mut grown: Vec<u32> = Vec::new();
        // Each pair's map entry and its parts' texts are fetched a few pairs ahead (where
        // the texts are, twice as far ahead): most are cache misses.
        for g in gains.iter().take(2 * PAIRS_AHEAD) {
            self.symbols.prefetch_parts(g.0 .0, g.0 .1, true);
        }
        for g in gains.iter().take(PAIRS_AHEAD) {
            self.symbols.prefetch_pair(g.0 .0, g.0 .1);
            self.symbols.prefetch_parts(g.0 .0, g.0 .1, false);
        }
        for k in 0..gains.len() {
            if let Some(g) = gains.get(k + 2 * PAIRS_AHEAD) {
                self.symbols.prefetch_parts(g.0 .0, g.0 .1, true);
            }
            if let Some(g) = gains.get(k + PAIRS_AHEAD) {
                self.symbols.prefetch_pair(g.0 .0, g.0 .1);
                self.symbols.prefetch_parts(g.0 .0, g.0 .1, false);
            }
            let ((a, b), weight) = (gains[k].0, gains[k].1);
            let words = std::mem::take(&mut gains[k].2);
            if let Some(id) = self.symbols.make(a, b) {
                self.symbols.add_words(id, weight, words);
                self.active.insert(id);
                grown.push(id);
            }
        }
        // Looking a pair up can bring an erased one back; the order does not change ids.
        for &((a, b), _) in lost.iter().take(PAIRS_AHEAD) {
            self.symbols.prefetch_pair(a, b);
        }
        // Each count is lowered a few pairs after its lookup, its line fetched meanwhile.
        let mut lowered: VecDeque<(u32, u64)> = VecDeque::with_capacity(PAIRS_AHEAD + 1);
        for (k, &((a, b), weight)) in lost.iter().enumerate() {
            if let Some(&((c, d), _)) = lost.get(k + PAIRS_AHEAD) {
                self.symbols.prefetch_pair(c, d);
            }
            if let Some(id) = self.symbols.lookup(a, b) {
                if id != best {
                    self.symbols.prefetch_count(id);
                    lowered.push_back((id, weight));
                }
            }
            if lowered.len() > PAIRS_AHEAD {
                if let Some((id, weight)) = lowered.pop_front() {
                    // A lost count needs no heap entry: see `Active`.
                    self.symbols.remove(id, weight);
                }
            }
        }
        for (id, weight) in lowered {
            self.symbols.remove(id, weight);
        }
        self.symbols.erase(best);
        self.active.remove(best);
        grown.sort_unstable();
        grown.dedup();
        for id in grown {
            self.active.update(&self.symbols, id);
        }
    }

    /// Merges the parts of `best` in every word it occurs in; the changes, summed.
    fn merge_words(&mut self, best: u32) -> Tally {
        let merge = (self.symbols.parts_of(best), best);
        let occurrences = std::mem::take(&mut self.symbols.occurrences[best as usize]);
        let run = Run {
            merge,
            pool: &self.slots,
            tallies: &self.tallies,
            symbols: self.symbols.len(),
        };
        if occurrences.len() < PARALLEL_WORDS {
            let mut tally = run.start();
            for mut part in self.words.parts(&occurrences, occurrences.len()) {
                tally.part(&mut part);
            }
            return run.finish(tally);
        }
        // Runs few enough that adding their tallies costs little, enough to balance.
        let size = WORDS_PER_TASK.max(occurrences.len() / (4 * rayon::current_num_threads()));
        let tallies: Vec<Tally> = self
            .words
            .parts(&occurrences, size)
            .into_par_iter()
            .map(|mut part| {
                let mut tally = run.start();
                tally.part(&mut part);
                run.finish(tally)
            })
            .collect();
        let mut tallies = tallies.into_iter();
        let mut total = tallies.next().unwrap_or_else(|| run.take_tally());
        let mut slots = run.take_slots();
        total.mark(&mut slots);
        for t in tallies {
            total.absorb(&mut slots, &t);
            run.give_tally(t);
        }
        total.clear(&mut slots);
        run.give_slots(slots);
        total
    }
}

/// What each run of a merge's words shares: the merge and the tallies' slots.
struct Run<'a> {
    /// `((left, right), merged)`.
    merge: ((u32, u32), u32),
    pool: &'a Mutex<Vec<Slots>>,
    tallies: &'a Mutex<Vec<Tally>>,
    symbols: usize,
}

/// A run's tally being made, with its slots.
struct RunTally {
    merge: ((u32, u32), u32),
    tally: Tally,
    slots: Slots,
}

impl<'a> Run<'a> {
    fn parts(&self) -> (u32, u32, u32) {
        let ((left, right), merged) = self.merge;
        (left, right, merged)
    }

    fn start(&self) -> RunTally {
        RunTally {
            merge: self.merge,
            tally: self.take_tally(),
            slots: self.take_slots(),
        }
    }

    /// An empty tally of this merge, reusing an earlier one if one is free.
    fn take_tally(&self) -> Tally {
        let spare = self.tallies.lock().ok().and_then(|mut t| t.pop());
        match spare {
            Some(mut tally) => {
                tally.reset(self.parts());
                tally
            }
            None => Tally::new(self.parts()),
        }
    }

    /// Keeps an added tally's memory for the next merges.
    fn give_tally(&self, tally: Tally) {
        if let Ok(mut t) = self.tallies.lock() {
            t.push(tally);
        }
    }

    fn finish(&self, mut run: RunTally) -> Tally {
        run.tally.clear(&mut run.slots);
        self.give_slots(run.slots);
        run.tally
    }

    /// Slots for this merge's symbols, from the pool if one is free.
    fn take_slots(&self) -> Slots {
        let mut slots = self
            .pool
            .lock()
            .ok()
            .and_then(|mut p| p.pop())
            .unwrap_or_default();
        slots.fit(self.symbols);
        slots
    }

    fn give_slots(&self, slots: Slots) {
        if let Ok(mut p) = self.pool.lock() {
            p.push(slots);
        }
    }
}

impl RunTally {
    /// Merges the pair in each word of `part` and adds the changes.
    fn part(&mut self, part: &mut Part<'_>) {
        let ((left, right), merged) = self.merge;
        let mut changes = self.tally.take_changes();
        part.for_each(|place, word, count| {
            changes.clear();
            let len = merge_in_place(word, left, right, merged, &mut changes);
            for &change in &changes {
                self.tally.add(&mut self.slots, place, count, change);
            }
            len
        });
        self.tally.give_changes(changes);
    }
}
