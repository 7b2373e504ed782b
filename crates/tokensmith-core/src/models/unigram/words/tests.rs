//! Unit tests of the word cache: slots at their limits, eviction order, the batched word walk.

use super::*;

/// The pieces a cached word gives back, if it is cached.
fn cached(c: &mut WordCache, text: &[u8], start: usize, end: usize) -> Option<Vec<(usize, u32)>> {
    c.get(text, start, end).map(|h| h.pieces())
}

/// Spans of `n` one-byte pieces covering `len` bytes (the last one takes the rest), with
/// ids from `first_id` on.
fn spans(len: usize, n: usize, first_id: u32) -> Vec<Span> {
    (0..n)
        .map(|i| (i, if i + 1 == n { len } else { i + 1 }, first_id + i as u32))
        .collect()
}

#[test]
fn cache_round_trip_and_collisions_replace() {
    let tag = new_tag();
    let got = with_cache(tag, |c| {
        c.put(b"\xe2\x96\x81ab", &[(0, 3, 7), (3, 5, 9)], 1.5);
        let text = b"\xe2\x96\x81ab\xe2\x96\x81ac";
        let hit = cached(c, text, 0, 5);
        let margin = c.get(text, 0, 5).map(|h| h.margin());
        let miss = c.get(text, 5, 10).is_some();
        (hit, margin, miss)
    });
    assert_eq!(got, Some((Some(vec![(3, 7), (5, 9)]), Some(1.5), false)));
    // Too long to cache: not stored.
    let long = [b'a'; MAX_WORD + 1];
    let stored = with_cache(tag, |c| {
        c.put(&long, &[(0, long.len(), 1)], 0.0);
        c.get(&long, 0, long.len()).is_some()
    });
    assert_eq!(stored, Some(false));
}

/// Words at each size limit land in the slot kind that holds them, and come back whole:
/// short words with few pieces, short words with too many pieces (through the long table),
/// words of exactly `MAX_WORD` bytes and `MAX_PIECES` pieces, and the largest id a slot
/// holds; one piece too many, or an id of 2^24, and the word is not cached.
#[test]
fn every_slot_kind_round_trips_at_its_limits() {
    let cases: Vec<(Vec<u8>, Vec<Span>)> = vec![
        (vec![b'x'; SHORT_WORD], spans(SHORT_WORD, SHORT_PIECES, 5)),
        (
            vec![b'y'; SHORT_WORD],
            spans(SHORT_WORD, SHORT_PIECES + 1, 5),
        ),
        (b"max".to_vec(), vec![(0, 3, (1 << 24) - 1)]),
        (vec![b'z'; SHORT_WORD + 1], spans(SHORT_WORD + 1, 2, 9)),
        (
            vec![b'w'; MAX_WORD],
            spans(MAX_WORD, MAX_PIECES, (1 << 24) - MAX_PIECES as u32),
        ),
        (b"one".to_vec(), spans(3, MAX_PIECES, 1)),
        (b"twenty".to_vec(), spans(6, 20, 7)),
    ];
    with_cache(new_tag(), |c| {
        for (word, s) in &cases {
            c.put(word, s, 2.5);
        }
        for (word, s) in &cases {
            let want: Vec<(usize, u32)> = s.iter().map(|&(_, e, id)| (e, id)).collect();
            assert_eq!(cached(c, word, 0, word.len()), Some(want), "{word:?}");
        }
        // One piece too many, or an id too large for three bytes: not cached.
        let word = vec![b'v'; 20];
        c.put(&word, &spans(20, MAX_PIECES + 1, 1), 1.0);
        assert_eq!(cached(c, &word, 0, 20), None);
        for word in [&b"big"[..], &[b'u'; SHORT_WORD + 1][..]] {
            c.put(word, &[(0, 1, 3), (1, word.len(), 1 << 24)], 1.0);
            assert_eq!(cached(c, word, 0, word.len()), None, "{word:?}");
        }
    });
}

/// A short word takes a short slot with up to `NARROW_PIECES` pieces when all its ids are
/// below 2^16, else with up to `SHORT_PIECES`; past that it goes through the long table.
/// Every case comes back whole, ids and ends, at the edges of both formats.
#[test]
fn narrow_and_wide_short_slots_round_trip() {
    let with_ids = |len: usize, ids: &[u32]| -> Vec<Span> {
        let mut s = spans(len, ids.len(), 0);
        for (span, &id) in s.iter_mut().zip(ids) {
            span.2 = id;
        }
        s
    };
    let narrow_max: Vec<u32> = (0..NARROW_PIECES as u32).map(|i| 65_535 - 7 * i).collect();
    let mut wide_max: Vec<u32> = (0..SHORT_PIECES as u32).map(|i| 3 * i).collect();
    wide_max[SHORT_PIECES - 1] = 65_536;
    let mut wide_over: Vec<u32> = (0..SHORT_PIECES as u32 + 1).collect();
    wide_over[0] = (1 << 24) - 1;
    let cases: Vec<(Vec<u8>, Vec<Span>, bool)> = vec![
        (b"narrow ten".to_vec(), with_ids(10, &narrow_max), true),
        (
            vec![b'n'; SHORT_WORD],
            with_ids(SHORT_WORD, &narrow_max),
            true,
        ),
        (
            b"narrow eleven".to_vec(),
            spans(13, NARROW_PIECES + 1, 1),
            false,
        ),
        (b"wide eight".to_vec(), with_ids(10, &wide_max), true),
        (b"wide nine!".to_vec(), with_ids(10, &wide_over), false),
    ];
    with_cache(new_tag(), |c| {
        for (word, s, _) in &cases {
            c.put(word, s, 2.5);
        }
        for (word, s, short) in &cases {
            let want: Vec<(usize, u32)> = s.iter().map(|&(_, e, id)| (e, id)).collect();
            let hit = c.get(word, 0, word.len());
            assert_eq!(matches!(hit, Some(Cached::Short(_))), *short, "{word:?}");
            assert_eq!(hit.map(|h| h.pieces()), Some(want), "{word:?}");
        }
    });
}

/// The words whose keys fall in one short set: the most recently used ones stay, a hit
/// moves a word first, and one word too many pushes out the least recently used one.
#[test]
fn a_set_keeps_its_most_recently_used_words() {
    let target = Probe::new(b"w0", 0, 2).short_set(SHORT_SETS);
    let words: Vec<Vec<u8>> = (0..1_000_000u32)
        .map(|i| format!("w{i}").into_bytes())
        .filter(|w| Probe::new(w, 0, w.len()).short_set(SHORT_SETS) == target)
        .take(SHORT_WAYS + 1)
        .collect();
    assert_eq!(words.len(), SHORT_WAYS + 1, "too few colliding words found");
    let piece = |w: &[u8], id: u32| vec![(w.len(), id)];
    with_cache(new_tag(), |c| {
        for (i, w) in words[..SHORT_WAYS].iter().enumerate() {
            c.put(w, &[(0, w.len(), i as u32)], 1.0);
        }
        // All fit; the first word put is the least recently used until a hit moves it.
        for (i, w) in words[..SHORT_WAYS].iter().enumerate() {
            assert_eq!(cached(c, w, 0, w.len()), Some(piece(w, i as u32)));
        }
        assert_eq!(cached(c, &words[0], 0, 2), Some(piece(&words[0], 0)));
        // Now the second word is the least recently used: one more word pushes it out.
        let last = &words[SHORT_WAYS];
        c.put(last, &[(0, last.len(), 99)], 1.0);
        assert_eq!(cached(c, &words[1], 0, words[1].len()), None);
        for (i, w) in words.iter().enumerate().filter(|&(i, _)| i != 1) {
            let id = if i == SHORT_WAYS { 99 } else { i as u32 };
            assert_eq!(cached(c, w, 0, w.len()), Some(piece(w, id)), "word {i}");
        }
        // Putting a cached word again replaces it rather than taking a second way.
        c.put(last, &[(0, 1, 4), (1, last.len(), 5)], 1.0);
        assert_eq!(
            cached(c, last, 0, last.len()),
            Some(vec![(1, 4), (last.len(), 5)])
        );
        for (i, w) in words
            .iter()
            .enumerate()
            .take(SHORT_WAYS)
            .filter(|&(i, _)| i != 1)
        {
            assert_eq!(
                cached(c, w, 0, w.len()),
                Some(piece(w, i as u32)),
                "word {i}"
            );
        }
    });
}

/// `n` words whose keys fall in the same short set.
fn colliding_words(n: usize) -> Vec<Vec<u8>> {
    let target = Probe::new(b"v0", 0, 2).short_set(SHORT_SETS);
    let words: Vec<Vec<u8>> = (0..1_000_000u32)
        .map(|i| format!("v{i}").into_bytes())
        .filter(|w| Probe::new(w, 0, w.len()).short_set(SHORT_SETS) == target)
        .take(n)
        .collect();
    assert_eq!(words.len(), n, "too few colliding words found");
    words
}

/// One word more than a set holds, looked up in turn and put when missing, pass after pass
/// (a text read again): new words enter last, so the first `SHORT_WAYS - 1` words stay and
/// only the last way turns over, two misses a pass (were new words put first, each word
/// would leave just before its turn and all five would miss every pass).
#[test]
fn words_that_come_back_in_turn_keep_all_ways_but_one() {
    let words = colliding_words(SHORT_WAYS + 1);
    with_cache(new_tag(), |c| {
        let mut misses = Vec::new();
        for _ in 0..4 {
            let mut missed = 0;
            for (i, w) in words.iter().enumerate() {
                if cached(c, w, 0, w.len()).is_none() {
                    c.put(w, &[(0, w.len(), i as u32)], 1.0);
                    missed += 1;
                }
            }
            misses.push(missed);
        }
        assert_eq!(misses, [SHORT_WAYS + 1, 2, 2, 2]);
    });
}

/// Words put once and never looked up again take turns in the last way: the words put
/// before them stay, however recent the newcomers are.
#[test]
fn words_used_once_leave_before_the_words_before_them() {
    let words = colliding_words(SHORT_WAYS + 3);
    with_cache(new_tag(), |c| {
        for (i, w) in words.iter().enumerate() {
            c.put(w, &[(0, w.len(), i as u32)], 1.0);
        }
        let kept: Vec<bool> = words
            .iter()
            .map(|w| c.get(w, 0, w.len()).is_some())
            .collect();
        let mut want = vec![true; SHORT_WAYS - 1];
        want.extend([false, false, false, true]);
        assert_eq!(kept, want);
    });
}

/// The prefetching walk hands `f` the same words, in the same order, as the plain split,
/// for word counts below, at and past its ring's size, and stops where `f` stops it.
#[test]
fn for_each_word_with_prefetch_matches_the_split() {
    for n in [0, 1, AHEAD - 1, AHEAD, AHEAD + 1, 3 * AHEAD + 5] {
        let text: String = (0..n).map(|i| format!("▁w{i}")).collect();
        for split in [WordSplit::Prefix, WordSplit::Suffix] {
            let mut want = Vec::new();
            split.for_each_word(text.as_bytes(), |s, e| {
                want.push(&text[s..e]);
                true
            });
            let mut got = Vec::new();
            with_cache(new_tag(), |c| {
                assert!(c.for_each_word(split, text.as_bytes(), |_, p| {
                    got.push(&text[p.start..p.end]);
                    true
                }));
            });
            assert_eq!(got, want, "{n} words");
            for stop in [0, n / 2, n.saturating_sub(1)] {
                let mut seen = 0;
                let done = with_cache(new_tag(), |c| {
                    c.for_each_word(split, text.as_bytes(), |_, _| {
                        seen += 1;
                        seen <= stop
                    })
                });
                let stopped = stop < want.len();
                assert_eq!(done, Some(!stopped), "{n} words, stop {stop}");
                assert_eq!(seen, if stopped { stop + 1 } else { want.len() });
            }
        }
    }
}

#[test]
fn eight_bytes_at_reads_every_position_of_every_short_text() {
    // The reference: byte i of the word is text[from + i], zero past the text's end.
    for len in 1..=20usize {
        let text: Vec<u8> = (0..len)
            .map(|i| 0x11u8.wrapping_mul(i as u8 + 1) | 0x80)
            .collect();
        for from in 0..len {
            let mut want = [0u8; 8];
            for (i, b) in want.iter_mut().enumerate() {
                *b = text.get(from + i).copied().unwrap_or(0);
            }
            assert_eq!(
                eight_bytes_at(&text, from),
                u64::from_le_bytes(want),
                "text of {len} bytes from {from}"
            );
        }
    }
}

/// Whether this thread holds tables for `tag`.
fn holds_tables(tag: u64) -> bool {
    TABLES.with(|cell| cell.borrow().iter().any(|(t, _)| *t == tag))
}

#[test]
fn a_dropped_models_tables_go_at_the_next_lookup_and_a_clones_stay() {
    let tag = CacheTag::new();
    let clone = std::sync::Arc::clone(&tag);
    let number = tag.get();
    let other = CacheTag::new();
    with_cache(number, |c| c.put(b"\xe2\x96\x81ab", &[(0, 5, 7)], 1.0));
    with_cache(other.get(), |_| ());
    assert!(holds_tables(number) && holds_tables(other.get()));
    // One of two holders dropped: the model is still there, and so are its tables.
    drop(tag);
    with_cache(other.get(), |_| ());
    assert!(holds_tables(number));
    let kept = with_cache(number, |c| {
        c.get(b"\xe2\x96\x81ab", 0, 5).map(|h| h.pieces())
    });
    assert_eq!(kept, Some(Some(vec![(5, 7)])));
    // The last holder dropped: the next lookup, for any model, frees its tables only.
    drop(clone);
    assert!(holds_tables(number));
    with_cache(other.get(), |_| ());
    assert!(!holds_tables(number));
    assert!(holds_tables(other.get()));
}
