//! The Unigram training loop, in sentencepiece's order:
//!
//! ```text
//! words ─► required characters (character_coverage) ─► rare characters become U+2585
//!       ─► seed pieces ─► repeat { EM × num_sub_iterations; stop at 1.1 × vocab; prune }
//!       ─► final pieces ─► ModelProto
//! ```
//!
//! Everything runs on a pool of `num_threads` threads, and the result does not depend on that
//! number. `on_event` is called after each stage and each EM round; returning
//! `ControlFlow::Break` stops training, and then `train` returns `Ok(None)`.

use std::ops::ControlFlow;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::char_tables::{char_counts, fetch_ahead, CharSet};
use super::config::UnigramConfig;
use super::em::{e_step, m_step};
use super::finalize::{build_proto, final_pieces};
use super::lattice::TrainerModel;
use super::piece_rules::{PieceRules, UNK_CHAR};
use super::prune::prune;
use super::seeds::seed_pieces;
use super::sentences::{WordTable, BOUNDARY};
use super::word_lattices::{LatticeSource, WordLattices};
use crate::error::{Error, Result};
use crate::formats::sentencepiece_model::ModelProto;

/// Progress reports, in the order they happen.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Seeds are ready; `rounds` estimates the EM rounds to come.
    Seeded {
        words: usize,
        required_chars: usize,
        pieces: usize,
        rounds: usize,
    },
    /// One EM round (E-step and M-step) is done.
    EmRound {
        round: usize,
        pieces: usize,
        objective: f64,
        tokens: u64,
    },
    /// One pruning step is done.
    Pruned { pieces: usize },
    /// The final vocabulary is chosen.
    Finished { pieces: usize },
}

/// Runs `f` on a rayon pool of `threads` threads (0: the per-process pool of
/// [`crate::parallel::install`], one thread per core).
pub fn with_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> Result<R> {
    if threads == 0 {
        return Ok(crate::parallel::install(f));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::InvalidOption(format!("cannot start {threads} threads: {e}")))?;
    Ok(pool.install(f))
}

/// Trains a Unigram model on `words`. See the module documentation.
pub fn train(
    config: &UnigramConfig,
    words: WordTable,
    on_event: &mut (dyn FnMut(&Event) -> ControlFlow<()> + Send),
) -> Result<Option<ModelProto>> {
    checked_run(config, words, |words| train_here(config, words, on_event))
}

/// Checks `config` and that there are `words`, then runs `train` on them on
/// `config.num_threads` threads.
pub fn checked_run<R: Send>(
    config: &UnigramConfig,
    words: WordTable,
    train: impl FnOnce(Vec<(String, u64)>) -> Result<R> + Send,
) -> Result<R> {
    config.validate()?;
    if words.is_empty() {
        return Err(Error::EmptyCorpus);
    }
    with_threads(config.num_threads, || train(words.words))?
}

/// Characters with their counts.
pub type Alphabet = Vec<(char, u64)>;

/// The alphabet of `words` (see [`required_chars`]) and the words with every other
/// character replaced by U+2585; an error when the alphabet and the meta pieces leave fewer
/// than `min_learned` of the `vocab_size` pieces to learn.
pub fn alphabet_and_words(
    config: &UnigramConfig,
    words: Vec<(String, u64)>,
    min_learned: usize,
) -> Result<(Alphabet, Vec<(String, u64)>)> {
    let meta = config.meta_piece_count();
    let required = required_chars(&words, config.character_coverage, &config.required_chars);
    if required.len() + meta + min_learned > config.vocab_size {
        return Err(Error::InvalidOption(format!(
            "vocab_size={} is too small: the corpus needs {} characters (character_coverage={}) \
             plus {meta} meta pieces; use vocab_size >= {}, or lower character_coverage",
            config.vocab_size,
            required.len(),
            config.character_coverage,
            required.len() + meta + min_learned
        )));
    }
    let words = replace_rare_chars(words, &required);
    Ok((required, words))
}

fn train_here(
    config: &UnigramConfig,
    words: Vec<(String, u64)>,
    on_event: &mut (dyn FnMut(&Event) -> ControlFlow<()> + Send),
) -> Result<Option<ModelProto>> {
    let meta = config.meta_piece_count();
    let (required, words) = alphabet_and_words(config, words, 1)?;
    let rules = PieceRules::from_config(config);
    // A required character the corpus lacks has no count to seed with; it joins the
    // vocabulary at the end (`final_pieces`).
    let seen: Vec<(char, u64)> = required.iter().copied().filter(|c| c.1 > 0).collect();
    let seeds = if config.seeds_per_distinct_word {
        let once: Vec<(String, u64)> = words.iter().map(|(w, _)| (w.clone(), 1)).collect();
        seed_pieces(&once, &seen, &rules, config.seed_sentencepiece_size)?
    } else {
        seed_pieces(&words, &seen, &rules, config.seed_sentencepiece_size)?
    };
    let learnable = config.vocab_size - meta;
    if seeds.len() < learnable && config.hard_vocab_limit {
        return Err(too_large(config, seeds.len() + meta));
    }
    let desired = (config.vocab_size as f64 * 1.1) as usize;
    let rounds = estimate_rounds(seeds.len(), desired, config);
    if on_event(&Event::Seeded {
        words: words.len(),
        required_chars: required.len(),
        pieces: seeds.len(),
        rounds,
    })
    .is_break()
    {
        return Ok(None);
    }
    let mut model = TrainerModel::new(seeds);
    // The first round looks pieces up in a trie of the seeds; the lattices are stored from
    // the second round on, once the M-step has dropped most seeds.
    let mut lattices: Option<WordLattices> = None;
    let mut round = 0;
    loop {
        for _ in 0..config.num_sub_iterations {
            let expected = match &lattices {
                Some(stored) => e_step(&model, &LatticeSource::Stored(stored), &words),
                None => e_step(&model, &LatticeSource::Trie(&model.trie()), &words),
            };
            let (pieces, map) = m_step(model.pieces(), &expected.counts);
            model = TrainerModel::new(pieces);
            match &mut lattices {
                Some(stored) => stored.remap(&words, &map),
                None => lattices = Some(WordLattices::build(&words, &model)),
            }
            round += 1;
            let event = Event::EmRound {
                round,
                pieces: model.len(),
                objective: expected.objective,
                tokens: expected.tokens,
            };
            if model.is_empty() {
                return Err(too_large(config, meta + required.len()));
            }
            if on_event(&event).is_break() {
                return Ok(None);
            }
        }
        if model.len() <= desired {
            break;
        }
        let stored = lattices.get_or_insert_with(|| WordLattices::build(&words, &model));
        let (pieces, map) = prune(&model, stored, &words, desired, config.shrinking_factor);
        model = TrainerModel::new(pieces);
        stored.remap(&words, &map);
        if on_event(&Event::Pruned {
            pieces: model.len(),
        })
        .is_break()
        {
            return Ok(None);
        }
    }
    let learned = final_pieces(&model, &required, learnable);
    if learned.len() < learnable && config.hard_vocab_limit {
        return Err(too_large(config, learned.len() + meta));
    }
    let proto = build_proto(config, learned)?;
    let _ = on_event(&Event::Finished {
        pieces: proto.pieces.len(),
    });
    Ok(Some(proto))
}

fn too_large(config: &UnigramConfig, achievable: usize) -> Error {
    Error::InvalidOption(format!(
        "vocab_size={} is too large for this corpus: it yields at most {achievable} pieces \
         (meta pieces included); use vocab_size <= {achievable} or give more text",
        config.vocab_size
    ))
}

/// EM rounds if each pruning step keeps exactly `shrinking_factor` of the pieces.
fn estimate_rounds(seeds: usize, desired: usize, config: &UnigramConfig) -> usize {
    let mut size = seeds;
    let mut steps = 1;
    while size > desired {
        size = desired.max((size as f64 * config.shrinking_factor) as usize);
        steps += 1;
    }
    steps * config.num_sub_iterations
}

/// The alphabet, as sentencepiece's trainer picks it: the characters of `forced` first (by
/// count, descending, then code point), then the others, most frequent first (ties by code
/// point), each added while the share of all character occurrences covered so far is below
/// `coverage`. So forced characters are dropped too once coverage is reached (only possible
/// when they alone cover that much). Spaces, NUL and U+2585 never count.
pub fn required_chars(words: &[(String, u64)], coverage: f64, forced: &[char]) -> Vec<(char, u64)> {
    let mut counts: FxHashMap<char, u64> = crate::parallel::install(|| char_counts(words));
    for c in [' ', '\0', UNK_CHAR] {
        counts.remove(&c);
    }
    let all: u64 = counts.values().sum();
    let by_count = |a: &(char, u64), b: &(char, u64)| b.1.cmp(&a.1).then(a.0.cmp(&b.0));
    let mut forced: Vec<char> = forced
        .iter()
        .copied()
        .filter(|&c| c != ' ' && c != '\0' && c != UNK_CHAR)
        .collect();
    forced.sort_unstable();
    forced.dedup();
    let mut first: Vec<(char, u64)> = forced
        .into_iter()
        .map(|c| (c, counts.remove(&c).unwrap_or(0)))
        .collect();
    first.sort_by(by_count);
    let mut rest: Vec<(char, u64)> = counts.into_iter().collect();
    rest.sort_by(by_count);
    let mut accumulated: u64 = 0;
    let mut required = Vec::new();
    for (c, n) in first.into_iter().chain(rest) {
        // With no characters at all, 0 / 0 is NaN and never reaches the coverage, as in
        // sentencepiece.
        if accumulated as f64 / all as f64 >= coverage {
            break;
        }
        accumulated += n;
        // A tab marks where a meta piece was (see `sentences`): it counts toward the
        // coverage but is never a piece, as in sentencepiece.
        if c == BOUNDARY {
            continue;
        }
        required.push((c, n));
    }
    required
}

/// Words with every character outside `required` replaced by U+2585 (equal words merged),
/// ordered by count (descending), then by word.
pub fn replace_rare_chars(
    words: Vec<(String, u64)>,
    required: &[(char, u64)],
) -> Vec<(String, u64)> {
    let keep = CharSet::new(required.iter().map(|c| c.0));
    let rare = |w: &String| w.chars().any(|c| !keep.contains(c));
    // Looked up on the pool: one set lookup per character of every word.
    let flags: Vec<bool> = crate::parallel::install(|| {
        (0..words.len())
            .into_par_iter()
            .map(|i| {
                fetch_ahead(&words, i);
                rare(&words[i].0)
            })
            .collect()
    });
    if !flags.contains(&true) {
        return words;
    }
    // Only the words with a rare character change. They hold U+2585 afterwards and the others
    // never do (sentences holding it are skipped), so the two sorted lists just interleave.
    let (changed, kept): (Vec<_>, Vec<_>) = words
        .into_iter()
        .zip(flags)
        .partition(|(_, is_rare)| *is_rare);
    let (changed, kept) = (
        changed.into_iter().map(|(w, _)| w),
        kept.into_iter().map(|(w, _)| w).collect::<Vec<_>>(),
    );
    let replaced = changed.map(|(w, n)| {
        let w: String = w
            .chars()
            .map(|c| if keep.contains(c) { c } else { UNK_CHAR })
            .collect();
        (w, n)
    });
    let replaced = WordTable::from_counts(replaced).words;
    // Few words change: each finds its place among the kept ones by a binary search, and
    // the kept words between two places move over in one go, never compared.
    // No two are equal: the changed words hold U+2585, the kept ones never do.
    let mut out = Vec::with_capacity(kept.len() + replaced.len());
    let mut kept = kept.into_iter();
    for word in replaced {
        let before = kept
            .as_slice()
            .partition_point(|k| by_count(k, &word).is_le());
        out.extend(kept.by_ref().take(before));
        out.push(word);
    }
    out.extend(kept);
    out
}

/// The order of a word table: by count (descending), then by word.
fn by_count(a: &(String, u64), b: &(String, u64)) -> std::cmp::Ordering {
    b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_picks_the_frequent_characters() {
        let words = vec![("aaaab".to_string(), 100), ("c".to_string(), 1)];
        let all = required_chars(&words, 1.0, &[]);
        assert_eq!(all, vec![('a', 400), ('b', 100), ('c', 1)]);
        // After 'a' and 'b', 500 / 501 = 0.998 >= 0.995 is covered.
        assert_eq!(required_chars(&words, 0.995, &[]).len(), 2);
        let replaced = replace_rare_chars(words, &all[..2]);
        assert_eq!(replaced[1], ("\u{2585}".to_string(), 1));
    }

    #[test]
    fn replaced_words_keep_the_table_order() {
        let mut rng = crate::models::unigram::SplitMix64::new(7);
        let pieces = ["▁", "a", "b", "ab", "x", "ba"];
        let words: Vec<(String, u64)> = (0..3_000)
            .map(|_| {
                let len = 1 + rng.next_u64() % 4;
                let w: String = (0..len)
                    .map(|_| pieces[(rng.next_u64() % 6) as usize])
                    .collect();
                (w, 1 + rng.next_u64() % 5)
            })
            .collect();
        let words = WordTable::from_counts(words).words;
        let keep: Vec<(char, u64)> = vec![('▁', 0), ('a', 0), ('b', 0)];
        let got = replace_rare_chars(words.clone(), &keep);
        // The plain way: replace every word, sum the equal ones, sort them all.
        let replaced = words
            .into_iter()
            .map(|(w, n)| (w.replace('x', "\u{2585}"), n));
        let want = WordTable::from_counts(replaced).words;
        assert!(got.iter().filter(|w| w.0.contains(UNK_CHAR)).count() > 100);
        assert_eq!(got, want);
    }

    #[test]
    fn forced_characters_come_first_until_coverage_is_reached() {
        let words = vec![("a".repeat(1000), 1), ("bc".to_string(), 1)];
        // The forced 'c' (1 of 1002) and the absent 'z' come first, then 'a' reaches
        // 1001 / 1002 >= 0.98, so 'b' is not added.
        let got = required_chars(&words, 0.98, &['z', 'c', 'c']);
        assert_eq!(got, vec![('c', 1), ('z', 0), ('a', 1000)]);
        assert_eq!(
            required_chars(&words, 1.0, &['b']),
            vec![('b', 1), ('a', 1000), ('c', 1)]
        );
        // Forced 'a' alone covers 1000 / 1002 >= 0.98: the forced 'c' after it is dropped.
        assert_eq!(required_chars(&words, 0.98, &['a', 'c']), vec![('a', 1000)]);
    }

    #[test]
    fn a_soft_vocab_limit_gives_what_the_corpus_yields() {
        let words = || WordTable::from_counts([("abcab", 3u64), ("bca", 2), ("cab", 1)]);
        let hard = UnigramConfig::new(500);
        let err = train(&hard, words(), &mut |_| ControlFlow::Continue(())).unwrap_err();
        assert!(err.to_string().contains("too large"), "{err}");
        let soft = UnigramConfig {
            hard_vocab_limit: false,
            ..UnigramConfig::new(500)
        };
        let proto = train(&soft, words(), &mut |_| ControlFlow::Continue(()))
            .unwrap()
            .unwrap();
        // The three meta pieces, the three characters and some learned pieces.
        assert!(proto.pieces.len() > 6 && proto.pieces.len() < 500);
    }
}
