//! The doubling rule and the move into doubled tables.

use super::super::{new_tag, with_cache, Probe, Span, WordCache, SHORT_SETS, SHORT_WAYS};
use super::*;

/// The spans of a one-piece word with this id.
fn one_piece(word: &[u8], id: u32) -> [Span; 1] {
    [(0, word.len(), id)]
}

/// Looks each word up and puts it when missing, as the encoder does; the number of misses.
fn pass(c: &mut WordCache, words: &[Vec<u8>]) -> usize {
    let mut missed = 0;
    for (i, w) in words.iter().enumerate() {
        if c.get(w, 0, w.len()).is_none() {
            c.put(w, &one_piece(w, i as u32), 1.0);
            missed += 1;
        }
    }
    missed
}

fn words(prefix: &str, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| format!("{prefix}{i}").into_bytes())
        .collect()
}

/// A stream of words each seen once fills and turns over the tables but never brings a word
/// back: the tables keep their size.
#[test]
fn words_seen_once_never_double_the_tables() {
    with_cache(new_tag(), |c| {
        let slots = SHORT_SETS * SHORT_WAYS;
        assert_eq!(pass(c, &words("once", 4 * slots)), 4 * slots);
        assert_eq!((c.doublings(), c.short_sets()), (0, SHORT_SETS));
    });
}

/// A set of words that fits, read again and again, never doubles the tables.
#[test]
fn a_text_that_fits_never_doubles_the_tables() {
    let text = words("fits", SHORT_SETS);
    with_cache(new_tag(), |c| {
        for _ in 0..20 {
            pass(c, &text);
        }
        assert_eq!((c.doublings(), c.short_sets()), (0, SHORT_SETS));
    });
}

/// A text with three times as many words as the starting tables hold, read again: the words
/// let go come back, the tables double up to their limit, and then hold nearly all of them
/// (at the starting size, most of each pass would miss).
#[test]
fn a_text_read_again_that_overflows_the_tables_doubles_them() {
    let text = words("again", 3 * SHORT_SETS * SHORT_WAYS);
    with_cache(new_tag(), |c| {
        let misses: Vec<usize> = (0..6).map(|_| pass(c, &text)).collect();
        assert_eq!(c.doublings(), MAX_DOUBLINGS);
        assert_eq!(c.short_sets(), SHORT_SETS << MAX_DOUBLINGS);
        assert_eq!(misses[0], text.len());
        let last = misses[misses.len() - 1];
        assert!(misses[1] * 2 > text.len(), "misses per pass {misses:?}");
        assert!(last * 4 < text.len(), "misses per pass {misses:?}");
    });
}

/// A stream where every `every`-th word comes from a pool of recurring words too large for the
/// starting tables, the others seen once; whether the tables doubled.
fn doubles_with_one_return_in(every: usize) -> bool {
    // Scrambled numbers: the words of `words` differ in few bits, and share filter bits more
    // often than a text's words do.
    let scrambled = |prefix: &str, n: usize| -> Vec<Vec<u8>> {
        (0..n as u64)
            .map(|i| format!("{prefix}{:x}", i.wrapping_mul(0x2545_f491_4f6c_dd1d)).into_bytes())
            .collect()
    };
    let pool = scrambled("b", 2 * SHORT_SETS * SHORT_WAYS / every);
    let once = scrambled("o", 12 * SHORT_SETS * SHORT_WAYS);
    let mut pool_at = 0;
    let stream: Vec<Vec<u8>> = once
        .into_iter()
        .enumerate()
        .map(|(i, w)| {
            if i % every != 0 {
                return w;
            }
            pool_at = (pool_at + 1) % pool.len();
            pool[pool_at].clone()
        })
        .collect();
    with_cache(new_tag(), |c| {
        pass(c, &stream);
        c.doublings() > 0
    })
    .expect("this thread's table is free")
}

/// A diverse text where a word let go comes back in one put in five (the 50 MB corpus had 11%
/// to 20% in a table of 12 MiB) doubles the tables; one return in twenty does not.
#[test]
fn frequent_returns_among_new_words_double_the_tables() {
    assert!(doubles_with_one_return_in(5));
    assert!(!doubles_with_one_return_in(20));
}

/// A cached word's pieces, as `(end, id)`, and margin.
type Kept = (Vec<(usize, u32)>, f32);

/// The words and their segmentations a cache gives back, per word (`None`: not cached).
fn snapshot(c: &mut WordCache, text: &[Vec<u8>]) -> Vec<Option<Kept>> {
    text.iter()
        .map(|w| c.get(w, 0, w.len()).map(|h| (h.pieces(), h.margin())))
        .collect()
}

/// The words of each non-empty set of a short table, most recently used first.
fn short_orders(c: &WordCache) -> Vec<Vec<(u8, [u64; 5])>> {
    c.short
        .iter()
        .map(|set| {
            set.ways
                .iter()
                .filter(|s| !s.is_empty())
                .map(|s| s.word())
                .collect::<Vec<_>>()
        })
        .filter(|ws| !ws.is_empty())
        .collect()
}

/// Doubling keeps every word with its pieces and margin (short words, short words whose
/// pieces sit in the long table, long words), loses none, and keeps the order of use of the
/// words that shared a set.
#[test]
fn doubling_keeps_every_word_and_each_sets_order() {
    let mut text = words("w", 3 * SHORT_SETS);
    text.extend(words(
        "a word long enough for the long table, number ",
        3000,
    ));
    let many: Vec<Span> = (0..12).map(|i| (i, i + 1, 100 + i as u32)).collect();
    with_cache(new_tag(), |c| {
        for (i, w) in text.iter().enumerate() {
            if i % 7 == 0 && w.len() >= 12 {
                let mut spans = many.clone();
                spans[11].1 = w.len();
                c.put(w, &spans, i as f32);
            } else {
                c.put(w, &[(0, 1, 7), (1, w.len(), i as u32)], i as f32 / 3.0);
            }
        }
        // Hits reorder some sets (a word pushed out by its set's later words just misses).
        for w in text.iter().step_by(5) {
            let _ = c.get(w, 0, w.len());
        }
        let before = snapshot(c, &text);
        let orders = short_orders(c);
        assert!(before.iter().filter(|b| b.is_some()).count() > text.len() / 2);
        c.grow();
        assert_eq!(c.short_sets(), 2 * SHORT_SETS);
        // Each old set's words, in order, are the merge of two new sets' words.
        let mut position = std::collections::HashMap::new();
        for (set, words) in short_orders(c).into_iter().enumerate() {
            for (at, word) in words.into_iter().enumerate() {
                position.insert(word, (set, at));
            }
        }
        for old in &orders {
            for pair in old.windows(2) {
                let (set_a, at_a) = position[&pair[0]];
                let (set_b, at_b) = position[&pair[1]];
                assert!(set_a != set_b || at_a < at_b, "order of use lost");
            }
        }
        // The snapshot reads every word again, which reorders sets: take it last.
        assert_eq!(snapshot(c, &text), before);
    });
}

/// The probe's sets in the doubled tables are the old sets with one more bit of the hash.
#[test]
fn a_word_moves_to_one_of_its_old_sets_two_halves() {
    for w in words("s", 1000) {
        let p = Probe::new(&w, 0, w.len());
        let old = p.short_set(SHORT_SETS);
        let new = p.short_set(2 * SHORT_SETS);
        assert!(new == old || new == old + SHORT_SETS);
    }
}
