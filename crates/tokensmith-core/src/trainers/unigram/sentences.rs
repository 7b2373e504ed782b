//! From raw sentences to the (word, count) table the Unigram trainer learns from.
//!
//! A sentence's line ending (`\n` or `\r\n`) is dropped first. Each sentence then goes through what sentencepiece's `TrainerInterface::LoadSentences` does:
//! sentences longer than `max_sentence_length` bytes, or holding the reserved U+2585, are
//! skipped; the rest is normalized (`▁` for spaces, dummy prefix), every meta piece in it
//! (`<unk>`, `<s>`, `</s>`, control and user-defined symbols, byte pieces) is replaced by a
//! tab, so that none is learned as an ordinary piece, and it is split into words at each `▁`.
//!
//! Memory holds the distinct words and their counts, never the corpus: batches are normalized
//! and counted in parallel and then dropped. Only `input_sentence_size` keeps sentences, at
//! most that many (a reservoir sample, so every sentence has the same chance to be kept).
//!
//! Counts are sums, so the table does not depend on the thread count or on batch sizes.
//!
//! ```
//! use tokensmith_core::trainers::unigram::{SentenceCounter, UnigramConfig};
//! let mut counter = SentenceCounter::new(&UnigramConfig::new(100)).unwrap();
//! counter.add_texts(&["the cat", "the  dog"]);
//! let words = counter.finish();
//! assert_eq!(words.get("▁the"), 2);
//! assert_eq!(words.sentences, 2);
//! ```

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::config::UnigramConfig;
use super::file_lines;
use super::piece_rules::UNK_CHAR;
use crate::error::{Error, Result};
use crate::formats::sentencepiece_model::NormalizerSpec;
use crate::models::sentencepiece_parts::words_of;
use crate::models::unigram::SplitMix64;
use crate::normalizers::sentencepiece::SentencePieceNormalizer;
use crate::trainers::shards::{by_shard, Shards};

/// What replaces a meta piece in a sentence: sentencepiece's boundary, a tab. No piece may
/// hold it, and it does not split words; it becomes U+2585 with the other rare characters.
pub const BOUNDARY: char = '\t';
const BOUNDARY_STR: &str = "\t";

/// Sentences per rayon task.
const SENTENCES_PER_TASK: usize = 512;
/// Bytes of file lines per rayon task.
const BYTES_PER_TASK: usize = 1 << 16;
/// Bytes of normalized text per distinct word of a task, about (the room its word map is
/// made with; 64 KiB of the 50 MB benchmark corpus held about 4,400).
const BYTES_PER_DISTINCT_WORD: usize = 16;

/// The distinct words of a corpus with their counts, ordered by count (descending), then by
/// word (ascending), as sentencepiece orders them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WordTable {
    pub words: Vec<(String, u64)>,
    /// Sentences that were counted.
    pub sentences: u64,
    /// Sentences skipped for being longer than `max_sentence_length` or holding U+2585.
    pub skipped: u64,
    /// Invalid UTF-8 sequences replaced by U+FFFD in file lines
    /// ([`SentenceCounter::add_line_blocks`]).
    pub replaced: u64,
}

impl WordTable {
    /// A table from `(word, count)` pairs (summing repeated words).
    pub fn from_counts<S: AsRef<str>>(pairs: impl IntoIterator<Item = (S, u64)>) -> Self {
        let mut map: FxHashMap<String, u64> = FxHashMap::default();
        for (w, n) in pairs {
            *map.entry(w.as_ref().to_string()).or_insert(0) += n;
        }
        Self {
            words: sorted(map),
            sentences: 0,
            skipped: 0,
            replaced: 0,
        }
    }

    /// The count of `word` (0 if absent). Linear: for tests and examples.
    pub fn get(&self, word: &str) -> u64 {
        self.words
            .iter()
            .find(|(w, _)| w == word)
            .map_or(0, |&(_, n)| n)
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

fn sorted(map: FxHashMap<String, u64>) -> Vec<(String, u64)> {
    let mut words: Vec<(String, u64)> = map.into_iter().collect();
    crate::parallel::install(|| {
        words.par_sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    });
    words
}

/// Counts the words of sentences fed batch by batch. See the module documentation.
pub struct SentenceCounter {
    normalizer: SentencePieceNormalizer,
    meta: AhoCorasick,
    suffix: bool,
    split_by_whitespace: bool,
    max_sentence_length: usize,
    sample: Sample,
    counts: Shards<String>,
    sentences: u64,
    skipped: u64,
    replaced: u64,
}

impl SentenceCounter {
    pub fn new(config: &UnigramConfig) -> Result<Self> {
        config.validate()?;
        let spec = normalizer_spec(config)?;
        let normalizer =
            SentencePieceNormalizer::new(&spec, config.treat_whitespace_as_suffix, &[])?;
        let mut meta: Vec<String> = ["<unk>", "<s>", "</s>", "<pad>"]
            .iter()
            .zip([config.unk_id, config.bos_id, config.eos_id, config.pad_id])
            .filter(|(_, id)| *id >= 0)
            .map(|(s, _)| s.to_string())
            .collect();
        meta.extend(config.control_symbols.iter().cloned());
        meta.extend(config.user_defined_symbols.iter().cloned());
        if config.byte_fallback {
            meta.extend((0..=255u8).map(crate::sentencepiece::byte_piece));
        }
        let meta = AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&meta)
            .map_err(|e| Error::InvalidOption(format!("the meta pieces cannot be matched: {e}")))?;
        Ok(Self {
            normalizer,
            meta,
            suffix: config.treat_whitespace_as_suffix,
            split_by_whitespace: config.split_by_whitespace,
            max_sentence_length: config.max_sentence_length,
            sample: Sample {
                limit: config.input_sentence_size,
                shuffle: config.shuffle_input_sentence,
                rng: SplitMix64::new(config.seed),
                reservoir: Vec::new(),
                seen: 0,
            },
            counts: Shards::default(),
            sentences: 0,
            skipped: 0,
            replaced: 0,
        })
    }

    /// True once `input_sentence_size` sentences were taken without shuffling: later
    /// sentences would be ignored, so the caller may stop reading.
    pub fn is_full(&self) -> bool {
        let sample = &self.sample;
        sample.limit > 0 && !sample.shuffle && sample.seen >= sample.limit as u64
    }

    /// Adds a batch of sentences.
    pub fn add_texts<S: AsRef<str> + Sync>(&mut self, texts: &[S]) {
        self.add(texts, |t| (t.as_ref(), 1));
    }

    /// Adds a batch of sentences that each stand for `count` equal sentences: sentencepiece's
    /// `input_format=tsv` (`word<TAB>count` lines). Sampling with `input_sentence_size` keeps
    /// or drops a pair whole.
    pub fn add_weighted<S: AsRef<str> + Sync>(&mut self, pairs: &[(S, u64)]) {
        self.add(pairs, |(t, n)| (t.as_ref(), *n));
    }

    /// Adds blocks of whole lines read from text files, each line a sentence as
    /// sentencepiece reads a file's lines (see [`super::file_lines`]): the `\n` dropped and
    /// a `\r` kept, empty lines passed over, each byte of invalid UTF-8 made U+FFFD. A block
    /// may end without a `\n` only at the end of a file.
    pub fn add_line_blocks<B: AsRef<[u8]> + Sync>(&mut self, blocks: &[B]) {
        let pieces: Vec<&[u8]> = blocks
            .iter()
            .flat_map(|b| file_lines::pieces(b.as_ref(), BYTES_PER_TASK))
            .collect();
        self.take(&pieces, 1, |me, piece, out, found| {
            let mut decoded = String::new();
            for raw in file_lines::lines(piece) {
                if let Some((text, mark)) = me.file_line(raw, &mut decoded, out) {
                    found(out, text, 1, mark);
                }
            }
        });
    }

    /// The text of a file's line `raw` and the mark of its invalid bytes (see
    /// [`file_lines::decode_lossy`]), or `None` for a line that is empty or skipped (counted
    /// in `out`). The length limit applies to the bytes as read.
    fn file_line<'a>(
        &self,
        raw: &'a [u8],
        decoded: &'a mut String,
        out: &mut Normalized,
    ) -> Option<(&'a str, Option<char>)> {
        if raw.is_empty() {
            return None;
        }
        if raw.len() > self.max_sentence_length {
            out.skipped += 1;
            return None;
        }
        let line = file_lines::decode_lossy(raw, decoded);
        out.replaced += line.replaced as u64;
        if line.text.contains(UNK_CHAR) {
            out.skipped += 1;
            return None;
        }
        Some((line.text, line.mark))
    }

    fn add<T: Sync>(&mut self, items: &[T], get: impl Fn(&T) -> (&str, u64) + Sync) {
        self.take(items, SENTENCES_PER_TASK, |me, item, out, found| {
            let (text, n) = get(item);
            if let Some(text) = me.sentence(text, out) {
                found(out, text, n, None);
            }
        });
    }

    /// Takes the usable sentences that `each` finds in an item (it passes each one's text,
    /// count and mark to its last argument, and counts what it passes over in `out`): without
    /// `input_sentence_size`, normalized and counted on the pool, `per_task` items per task;
    /// with it, offered to the sample in order.
    fn take<T: Sync>(&mut self, items: &[T], per_task: usize, each: impl Each<T>) {
        if self.sample.limit == 0 {
            let me = &*self;
            let normalized = me.normalize_tasks(items, per_task, |item, out| {
                each(me, item, out, &mut |out, text, n, mark| {
                    me.push_normalized(text, n, mark, out)
                });
            });
            self.count_normalized(normalized);
            return;
        }
        let mut tally = Normalized::default();
        let mut sample = std::mem::take(&mut self.sample);
        for item in items {
            each(self, item, &mut tally, &mut |_, text, n, mark| {
                sample.offer(text, n, mark)
            });
        }
        self.sample = sample;
        self.skipped += tally.skipped;
        self.replaced += tally.replaced;
    }

    /// `text` without its line ending, or `None` if it is empty or skipped (counted in
    /// `out`): longer than `max_sentence_length` bytes, or holding U+2585.
    fn sentence<'a>(&self, text: &'a str, out: &mut Normalized) -> Option<&'a str> {
        let text = line(text);
        if text.is_empty() {
            return None;
        }
        if text.len() > self.max_sentence_length || text.contains(UNK_CHAR) {
            out.skipped += 1;
            return None;
        }
        Some(text)
    }

    /// `each` on every item, on the pool, `per_task` items per task; each task normalizes
    /// into one buffer, and the words are slices of it.
    fn normalize_tasks<T: Sync>(
        &self,
        items: &[T],
        per_task: usize,
        each: impl Fn(&T, &mut Normalized) + Sync,
    ) -> Vec<Normalized> {
        crate::parallel::install(|| {
            items
                .par_chunks(per_task)
                .map(|chunk| {
                    let mut out = Normalized::default();
                    for item in chunk {
                        each(item, &mut out);
                    }
                    out
                })
                .collect()
        })
    }

    /// Normalizes a usable sentence standing for `n` sentences onto the end of `out`
    /// (`mark`: see [`Self::normalize_into`]).
    fn push_normalized(&self, text: &str, n: u64, mark: Option<char>, out: &mut Normalized) {
        if n == 0 {
            return;
        }
        let mut buf = std::mem::take(&mut out.scratch);
        self.normalize_into(text, mark, &mut buf);
        if !buf.is_empty() {
            out.sentences += n;
            let start = out.text.len();
            out.text.push_str(&buf);
            out.spans.push((start, out.text.len(), n));
        }
        out.scratch = buf;
    }

    /// Splits the tasks' sentences into words and adds them to the counts.
    fn count_normalized(&mut self, normalized: Vec<Normalized>) {
        let (suffix, split) = (self.suffix, self.split_by_whitespace);
        let lists: Vec<Vec<Vec<(&str, u64)>>> = crate::parallel::install(|| {
            normalized
                .par_iter()
                .map(|task| {
                    let sentences = task
                        .spans
                        .iter()
                        .map(|&(start, end, n)| (&task.text[start..end], n));
                    let distinct = task.text.len() / BYTES_PER_DISTINCT_WORD;
                    if split {
                        let words = sentences.flat_map(|(sentence, n)| {
                            words_of(sentence, suffix).map(move |w| (w, n))
                        });
                        by_shard(words, distinct)
                    } else {
                        by_shard(sentences, distinct)
                    }
                })
                .collect()
        });
        for task in &normalized {
            self.sentences += task.sentences;
            self.skipped += task.skipped;
            self.replaced += task.replaced;
        }
        crate::parallel::install(|| self.counts.add_sharded(&lists));
    }

    /// Normalizes `text` into `out`, then puts [`BOUNDARY`] for each meta piece in it, as
    /// sentencepiece's `LoadSentences` does (after normalizing, so that `＜s＞` is one too).
    /// Each `mark` (an invalid byte of a file's line) becomes U+FFFD after normalizing.
    fn normalize_into(&self, text: &str, mark: Option<char>, out: &mut String) {
        self.normalizer.normalize_to(text, out);
        if let Some(mark) = mark {
            *out = out.replace(mark, "\u{fffd}");
        }
        if self.meta.is_match(out.as_str()) {
            let tabs = vec![BOUNDARY_STR; self.meta.patterns_len()];
            *out = self.meta.replace_all(out.as_str(), &tabs);
        }
    }

    /// The word table of everything added.
    pub fn finish(mut self) -> WordTable {
        let kept = std::mem::take(&mut self.sample.reservoir);
        let normalized = self.normalize_tasks(&kept, SENTENCES_PER_TASK, |(text, n, mark), out| {
            self.push_normalized(text, *n, *mark, out);
        });
        self.count_normalized(normalized);
        WordTable {
            words: crate::parallel::install(|| std::mem::take(&mut self.counts).into_sorted()),
            sentences: self.sentences,
            skipped: self.skipped,
            replaced: self.replaced,
        }
    }
}

/// What [`SentenceCounter::take`] calls on each item: `(counter, item, out, found)`, where
/// `found(out, text, count, mark)` takes one usable sentence.
trait Each<T>:
    Fn(
        &SentenceCounter,
        &T,
        &mut Normalized,
        &mut dyn FnMut(&mut Normalized, &str, u64, Option<char>),
    ) + Sync
{
}

impl<T, F> Each<T> for F where
    F: Fn(
            &SentenceCounter,
            &T,
            &mut Normalized,
            &mut dyn FnMut(&mut Normalized, &str, u64, Option<char>),
        ) + Sync
{
}

/// The `input_sentence_size` sample: the first sentences, or a uniform sample (a reservoir)
/// with `shuffle_input_sentence`.
#[derive(Default)]
struct Sample {
    limit: usize,
    shuffle: bool,
    rng: SplitMix64,
    /// Sampled sentences, with their count and mark (see
    /// [`SentenceCounter::normalize_into`]).
    reservoir: Vec<(String, u64, Option<char>)>,
    seen: u64,
}

impl Sample {
    /// Offers a sentence standing for `n` sentences.
    fn offer(&mut self, text: &str, n: u64, mark: Option<char>) {
        let k = self.seen;
        self.seen += 1;
        if (k as usize) < self.limit {
            self.reservoir.push((text.to_string(), n, mark));
        } else if self.shuffle {
            let j = self.rng.below(k + 1) as usize;
            if j < self.limit {
                self.reservoir[j] = (text.to_string(), n, mark);
            }
        }
    }
}

/// The normalized sentences of one task: their text, end to end, and each one's
/// `(start, end, count)`; and what the task passed over.
#[derive(Default)]
struct Normalized {
    text: String,
    spans: Vec<(usize, usize, u64)>,
    sentences: u64,
    skipped: u64,
    replaced: u64,
    /// One sentence being normalized.
    scratch: String,
}

/// A text without its line ending (files give lines with `\n`; sentencepiece reads lines).
fn line(text: &str) -> &str {
    let text = text.strip_suffix('\n').unwrap_or(text);
    text.strip_suffix('\r').unwrap_or(text)
}

/// The `NormalizerSpec` the trainer normalizes with, and writes into the model (with the
/// charsmap of its rule, so that sentencepiece normalizes as the trainer did).
pub fn normalizer_spec(config: &UnigramConfig) -> Result<NormalizerSpec> {
    Ok(NormalizerSpec {
        name: config.normalization.name().to_string(),
        precompiled_charsmap: config.normalization.precompiled_charsmap()?,
        add_dummy_prefix: config.add_dummy_prefix,
        remove_extra_whitespaces: config.remove_extra_whitespaces,
        escape_whitespaces: true,
        has_rule_tsv: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(config: &UnigramConfig, texts: &[&str]) -> WordTable {
        let mut c = SentenceCounter::new(config).unwrap();
        c.add_texts(texts);
        c.finish()
    }

    #[test]
    fn words_are_counted_and_sorted() {
        let t = table(&UnigramConfig::new(100), &["a b a", " b  c ", "", "   "]);
        assert_eq!(
            t.words,
            vec![("▁a".into(), 2), ("▁b".into(), 2), ("▁c".into(), 1)]
        );
        assert_eq!(t.sentences, 2);
    }

    #[test]
    fn meta_pieces_become_tabs_and_long_lines_are_skipped() {
        let config = UnigramConfig {
            user_defined_symbols: vec!["<sep>".into()],
            max_sentence_length: 16,
            ..UnigramConfig::new(100)
        };
        let t = table(
            &config,
            &["x<sep>y</s>z", "this line is too long", "a\u{2585}"],
        );
        // sentencepiece replaces them after normalizing, by a tab that splits no word.
        assert_eq!(t.get("▁x\ty\tz"), 1);
        assert_eq!(t.words.len(), 1);
        assert_eq!(t.skipped, 2);
    }

    #[test]
    fn file_lines_count_as_the_same_texts() {
        let config = UnigramConfig {
            max_sentence_length: 12,
            ..UnigramConfig::new(100)
        };
        let texts = [
            "the cat",
            "",
            "a dog and the cat",
            "the\u{2585}",
            "dog  cat",
        ];
        let mut counter = SentenceCounter::new(&config).unwrap();
        counter.add_line_blocks(&[b"the cat\n\n".as_slice(), b"a dog and the cat\n"]);
        counter.add_line_blocks(&["the\u{2585}\ndog  cat".as_bytes()]);
        let lines = counter.finish();
        assert_eq!(lines, table(&config, &texts));
        assert_eq!((lines.sentences, lines.skipped), (2, 2));
    }

    #[test]
    fn file_lines_keep_carriage_returns_and_mark_invalid_bytes() {
        let config = UnigramConfig {
            normalization: super::super::Normalization::Identity,
            ..UnigramConfig::new(100)
        };
        let mut counter = SentenceCounter::new(&config).unwrap();
        // A U+FFFD of the text is a space under nmt_nfkc; an invalid byte is U+FFFD itself.
        counter.add_line_blocks(&[b"a\r\nb\xffc\n".as_slice()]);
        let words = counter.finish();
        assert_eq!(words.get("▁a\r"), 1);
        assert_eq!(words.get("▁b\u{fffd}c"), 1);
        assert_eq!(words.replaced, 1);
        let mut counter = SentenceCounter::new(&UnigramConfig::new(100)).unwrap();
        counter.add_line_blocks(&[["x\u{fffd}y\n".as_bytes(), b"x\xffy"].concat()]);
        let words = counter.finish();
        assert_eq!((words.get("▁x"), words.get("▁x\u{fffd}y")), (1, 1));
    }

    #[test]
    fn empty_lines_are_not_sampled() {
        let config = UnigramConfig {
            input_sentence_size: 2,
            shuffle_input_sentence: false,
            ..UnigramConfig::new(100)
        };
        let mut counter = SentenceCounter::new(&config).unwrap();
        counter.add_line_blocks(&[b"\na\n\n\nb\nc\n".as_slice()]);
        let words = counter.finish();
        assert_eq!(
            (words.get("▁a"), words.get("▁b"), words.get("▁c")),
            (1, 1, 0)
        );
        let mut counter = SentenceCounter::new(&config).unwrap();
        counter.add_texts(&["", "a", "\n", "b", "c"]);
        assert_eq!(counter.finish(), words);
    }

    #[test]
    fn weighted_sentences_count_as_many() {
        let mut c = SentenceCounter::new(&UnigramConfig::new(100)).unwrap();
        c.add_weighted(&[("the cat", 3), ("cat", 2), ("dog", 0)]);
        c.add_texts(&["the"]);
        let t = c.finish();
        assert_eq!(t.get("▁the"), 4);
        assert_eq!(t.get("▁cat"), 5);
        assert_eq!(t.get("▁dog"), 0);
        assert_eq!(t.sentences, 6);
    }

    #[test]
    fn sampling_is_seeded_and_bounded() {
        let texts: Vec<String> = (0..1000).map(|i| format!("w{i}")).collect();
        let sample = |seed, shuffle| {
            let config = UnigramConfig {
                input_sentence_size: 10,
                shuffle_input_sentence: shuffle,
                seed,
                ..UnigramConfig::new(100)
            };
            let mut c = SentenceCounter::new(&config).unwrap();
            for batch in texts.chunks(77) {
                c.add_texts(batch);
            }
            assert_eq!(c.is_full(), !shuffle);
            let mut words: Vec<String> = c.finish().words.into_iter().map(|w| w.0).collect();
            words.sort();
            words
        };
        assert_eq!(sample(1, true).len(), 10);
        assert_eq!(sample(1, true), sample(1, true));
        assert_ne!(sample(1, true), sample(2, true));
        let first: Vec<String> = {
            let mut v: Vec<String> = (0..10).map(|i| format!("▁w{i}")).collect();
            v.sort();
            v
        };
        assert_eq!(sample(1, false), first);
    }
}
