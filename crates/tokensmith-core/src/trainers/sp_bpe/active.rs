//! The candidate pairs and the choice of the next merge, as sentencepiece 0.2.x's priority
//! queue of symbols makes it.
//!
//! Every pair of the first words is a candidate, and so is each pair a merge makes (or brings
//! back); a chosen pair leaves for good. The best candidate has the highest count; ties go to
//! the shorter piece, then to the smaller text (by bytes); two pairs of one text and one
//! count (`▁t`+`he`, `▁th`+`e`) go in the order they were made.
//!
//! A max-queue ([`Queue`]) holds the candidates with the count they had when pushed. A merge pushes the
//! pairs it adds to; a pair that only lost occurrences keeps its old, higher entry, which is
//! pushed again with the true count when it reaches the top (counts only fall between the
//! pushes, so the old entry is an upper bound). Entries of pairs that left are dropped there.
//!
//! Older sentencepiece releases picked among an "active" subset refreshed every 100 pieces;
//! the installed 0.2.x keeps every pair in one priority queue, as here.

use std::cmp::Reverse;

use rayon::prelude::*;

use super::queue::Queue;
use super::symbols::Symbols;

/// `(count, shorter first, smaller text prefix first, older first)`.
type Entry = (u64, Reverse<u32>, Reverse<u64>, Reverse<u32>);

/// The candidates. See the module documentation.
#[derive(Default)]
pub struct Active {
    member: Vec<bool>,
    queue: Queue<Entry>,
}

impl Active {
    /// Makes every candidate pair (see [`Self::insert`]) an entry of the queue, with its count.
    pub fn seed(&mut self, symbols: &Symbols) {
        let entries: Vec<Entry> = (0..self.member.len() as u32)
            .into_par_iter()
            .filter(|&id| self.member[id as usize])
            .map(|id| entry(symbols, id, symbols.count(id)))
            .collect();
        self.queue = Queue::seeded(entries);
    }

    /// Makes `id` a candidate (sentencepiece's `AddNewPair`); [`Self::seed`] or
    /// [`Self::update`] gives it its entry.
    pub fn insert(&mut self, id: u32) {
        let i = id as usize;
        if i >= self.member.len() {
            self.member.resize(i + 1, false);
        }
        self.member[i] = true;
    }

    /// Takes `id` out of the candidates.
    pub fn remove(&mut self, id: u32) {
        if let Some(m) = self.member.get_mut(id as usize) {
            *m = false;
        }
    }

    /// Notes the current count of `id` after it grew, if it is a candidate.
    pub fn update(&mut self, symbols: &Symbols, id: u32) {
        if self.is_member(id) {
            self.queue.push(entry(symbols, id, symbols.count(id)));
        }
    }

    fn is_member(&self, id: u32) -> bool {
        self.member.get(id as usize).copied().unwrap_or(false)
    }

    /// Whether `e` holds the current count of a candidate. An entry above the count is
    /// pushed again with it; one below it has a newer entry and is dropped.
    fn check(&mut self, symbols: &Symbols, e: &Entry) -> bool {
        let id = e.3 .0;
        if !self.is_member(id) {
            return false;
        }
        let now = symbols.count(id);
        if now < e.0 {
            self.queue.push(entry(symbols, id, now));
        }
        now == e.0
    }

    /// The best candidate (left among them), or `None` when there is none.
    pub fn best(&mut self, symbols: &Symbols) -> Option<u32> {
        let top = loop {
            let e = self.queue.pop()?;
            if self.check(symbols, &e) {
                break e;
            }
        };
        // Entries equal in count, length and first bytes: the texts decide.
        let mut group: Vec<Entry> = vec![top];
        while let Some(e) = self.queue.peek() {
            if (e.0, e.1, e.2) != (top.0, top.1, top.2) {
                break;
            }
            self.queue.pop();
            if self.check(symbols, &e) && !group.iter().any(|g| g.3 == e.3) {
                group.push(e);
            }
        }
        let best = if group.len() == 1 {
            group[0]
        } else {
            let mut texts: Vec<(&str, Entry)> = group
                .iter()
                .map(|&e| (symbols.text_of(e.3 .0), e))
                .collect();
            texts.sort_by(|a, b| a.0.cmp(b.0).then(b.1 .3.cmp(&a.1 .3)));
            texts[0].1
        };
        for e in group {
            self.queue.push(e);
        }
        Some(best.3 .0)
    }
}

fn entry(symbols: &Symbols, id: u32, count: u64) -> Entry {
    let i = id as usize;
    (
        count,
        Reverse(symbols.chars[i]),
        Reverse(symbols.prefix[i]),
        Reverse(id),
    )
}
