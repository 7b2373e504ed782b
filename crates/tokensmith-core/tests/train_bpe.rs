//! Exact-answer tests of the BPE trainer on the seed articles' worked examples, and property
//! tests against a textbook trainer that recounts every pair each round.

use proptest::prelude::*;
use tokensmith_core::pre_tokenizers::R50K_PATTERN;
use tokensmith_core::trainers::merge_loop::{LengthRule, MergeLoop, Sym};
use tokensmith_core::trainers::{train_bpe_bytes, BpeTrainer, Compat, WordCounts};

const SEED_WORDS: [(&str, u64); 4] = [("low", 5), ("lower", 2), ("newest", 6), ("widest", 3)];

fn seed_counts() -> WordCounts {
    SEED_WORDS.iter().copied().collect()
}

fn merge_strings(merges: &[(Vec<u8>, Vec<u8>)]) -> Vec<String> {
    merges
        .iter()
        .map(|(a, b)| {
            format!(
                "{}+{}",
                String::from_utf8_lossy(a),
                String::from_utf8_lossy(b)
            )
        })
        .collect()
}

#[test]
fn seed_round_zero_pair_counts() {
    let alphabet: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
    let words = SEED_WORDS
        .iter()
        .map(|(w, n)| (w.bytes().map(Sym::from).collect(), *n))
        .collect();
    let state = MergeLoop::new(alphabet, words, LengthRule::Unlimited);
    let counts = state.pair_counts();
    let count = |a: u8, b: u8| {
        counts
            .iter()
            .find(|(p, _)| *p == (a as Sym, b as Sym))
            .map_or(0, |(_, c)| *c)
    };
    assert_eq!(count(b'e', b's'), 9);
    assert_eq!(count(b's', b't'), 9);
    assert_eq!(count(b'w', b'e'), 8);
    assert_eq!(count(b'l', b'o'), 7);
    assert_eq!(count(b'o', b'w'), 7);
    assert_eq!(counts.iter().map(|(_, c)| *c).max(), Some(9));
}

#[test]
fn seed_merges_low_lower_newest_widest() {
    for compat in [Compat::Hf, Compat::Ranks] {
        let trained = BpeTrainer::new(10_000)
            .compat(compat)
            .train(&seed_counts())
            .unwrap();
        // The seed's rule is "highest count; ties go to the pair counted first". Its first
        // four merges agree with ours (smallest pair of ids on ties): (e,s) beats (s,t) and
        // (l,o) beats (o,w) either way. The fifth differs: the seed prints (n,e), which is
        // its own first-counted pair among (n,e)/(e,w)/(w,est) at 6 when the words carry no
        // leading space, whereas our rule takes the smallest ids, (e,w). (With the seed's own
        // pre-tokenizer the words are " low", " newest", ... and its rule would pick
        // (' ', low) fifth, so its printed output follows from neither reading.) We test our
        // documented rule.
        assert_eq!(
            merge_strings(&trained.merges),
            [
                "e+s", "es+t", "l+o", "lo+w", "e+w", "n+ew", "new+est", "d+est", "i+dest",
                "w+idest", "e+r", "low+er"
            ],
            "{compat:?}"
        );
        // Ranks are the order of application: the n-th merge makes token 256 + n.
        for (n, (a, b)) in trained.merges.iter().enumerate() {
            let token = [a.as_slice(), b.as_slice()].concat();
            let rank = trained.ranks.iter().find(|(t, _)| *t == token).unwrap().1;
            assert_eq!(rank as usize, 256 + n);
        }
        let enc = trained.into_encoding(R50K_PATTERN).unwrap();
        for (word, _) in SEED_WORDS {
            assert_eq!(enc.encode_ordinary(word).unwrap().len(), 1, "{word}");
        }
        // An unseen word is split by the learned merges, applied in order.
        let ids = enc.encode_ordinary("lowest").unwrap();
        let pieces: Vec<_> = ids.iter().map(|&i| enc.token_bytes(i).unwrap()).collect();
        assert_eq!(pieces, [b"low".as_slice(), b"est".as_slice()]);
    }
}

/// "low lower lowest", each once, as characters with a separate `</w>` symbol.
#[test]
fn seed_low_lower_lowest_with_end_of_word() {
    let alphabet: Vec<Vec<u8>> = ["</w>", "e", "l", "o", "r", "s", "t", "w"]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    let id = |c: char| alphabet.iter().position(|s| s == &[c as u8]).unwrap() as Sym;
    let words = ["low", "lower", "lowest"]
        .iter()
        .map(|w| {
            let mut syms: Vec<Sym> = w.chars().map(id).collect();
            syms.push(0);
            (syms, 1)
        })
        .collect();
    let mut state = MergeLoop::new(alphabet.clone(), words, LengthRule::Unlimited);
    // The seed says (l,o) occurs 2 times and (o,w) 3 times, so (o,w) merges first. In fact
    // all three words start with "lo": (l,o) = 3 = (o,w), and the tie goes to the smaller
    // pair of ids, (l,o). Both roads reach "low" after two merges and "lowe" after three, as
    // the seed shows.
    let counts = state.pair_counts();
    assert!(counts.contains(&((id('l'), id('o')), 3)));
    assert!(counts.contains(&((id('o'), id('w')), 3)));
    assert!(counts.contains(&((id('w'), id('e')), 2)));
    let mut learned = Vec::new();
    while let Some(m) = state.step(0) {
        learned.push(String::from_utf8(state.tokens()[m.merged as usize].clone()).unwrap());
    }
    assert_eq!(
        learned,
        [
            "lo",
            "low",
            "lowe",
            "r</w>",
            "st",
            "low</w>",
            "lower</w>",
            "lowest",
            "lowest</w>"
        ]
    );
}

#[test]
fn specials_follow_the_learned_tokens() {
    let trained = BpeTrainer::new(256 + 3 + 2)
        .special_tokens(["<|endoftext|>", "<|pad|>"])
        .train(&seed_counts())
        .unwrap();
    assert_eq!(trained.ranks.len(), 259);
    assert_eq!(
        trained.specials,
        [
            ("<|endoftext|>".to_string(), 259),
            ("<|pad|>".to_string(), 260)
        ]
    );
    let enc = trained.into_encoding(R50K_PATTERN).unwrap();
    assert_eq!(enc.n_vocab(), 261);
}

#[test]
fn min_frequency_and_max_token_length() {
    let trained = BpeTrainer::new(10_000)
        .min_frequency(6)
        .train(&seed_counts())
        .unwrap();
    assert!(trained.merges.len() < 12);
    assert!(trained.merges.len() >= 4);
    let short = BpeTrainer::new(10_000)
        .compat(Compat::Ranks)
        .max_token_length(Some(3))
        .train(&seed_counts())
        .unwrap();
    assert!(short.ranks.iter().all(|(t, _)| t.len() <= 3));
    let hf = BpeTrainer::new(10_000)
        .max_token_length(Some(3))
        .train(&seed_counts())
        .unwrap();
    // HF's rule keeps formed tokens strictly below the limit.
    assert!(hf.ranks.iter().all(|(t, _)| t.len() <= 2));
}

#[test]
fn same_result_on_any_thread_count() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/multilingual.txt"
    ))
    .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let trainer = BpeTrainer::new(800).min_frequency(2);
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| train_bpe_bytes(&lines, R50K_PATTERN, &trainer).unwrap())
    };
    let one = run(1);
    assert_eq!(one.ranks.len(), 800);
    assert_eq!(one, run(2));
    assert_eq!(one, run(3));
}

/// Recounts every pair each round; ties go to the smallest pair of ranks.
fn textbook(words: &[(Vec<u8>, u64)], n_merges: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut tokens: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
    let mut seqs: Vec<(Vec<usize>, u64)> = words
        .iter()
        .map(|(w, n)| (w.iter().map(|&b| b as usize).collect(), *n))
        .collect();
    let mut merges = Vec::new();
    for _ in 0..n_merges {
        let mut counts = std::collections::BTreeMap::new();
        for (s, n) in &seqs {
            for p in s.windows(2) {
                *counts.entry((p[0], p[1])).or_insert(0u64) += n;
            }
        }
        let Some((&best, _)) = counts.iter().max_by(|x, y| x.1.cmp(y.1).then(y.0.cmp(x.0))) else {
            break;
        };
        let bytes = [tokens[best.0].clone(), tokens[best.1].clone()].concat();
        let new = tokens.iter().position(|t| *t == bytes).unwrap_or_else(|| {
            tokens.push(bytes);
            tokens.len() - 1
        });
        merges.push((tokens[best.0].clone(), tokens[best.1].clone()));
        for (s, _) in &mut seqs {
            let mut out = Vec::new();
            let mut i = 0;
            while i < s.len() {
                if i + 1 < s.len() && (s[i], s[i + 1]) == best {
                    out.push(new);
                    i += 2;
                } else {
                    out.push(s[i]);
                    i += 1;
                }
            }
            *s = out;
        }
    }
    merges
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn incremental_loop_matches_textbook(
        words in prop::collection::vec(("[abc]{1,8}", 1u64..5), 1..12),
    ) {
        let counts: WordCounts = words.iter().map(|(w, c)| (w.as_bytes(), *c)).collect();
        let mut list: Vec<(Vec<u8>, u64)> = counts.iter().map(|(w, c)| (w.to_vec(), c)).collect();
        list.sort();
        let trained = BpeTrainer::new(100_000).compat(Compat::Ranks).train(&counts).unwrap();
        let expect = textbook(&list, trained.merges.len() + 1);
        prop_assert_eq!(&trained.merges, &expect);
    }

    #[test]
    fn trained_vocabulary_round_trips(
        texts in prop::collection::vec("[a-c é你 ]{0,20}", 1..10),
        extra in 0usize..60,
    ) {
        prop_assume!(texts.iter().any(|t| !t.is_empty()));
        let trainer = BpeTrainer::new(256 + extra).special_tokens(Vec::<String>::new());
        let trained = train_bpe_bytes(&texts, R50K_PATTERN, &trainer).unwrap();
        prop_assert!(trained.ranks.len() <= 256 + extra);
        let enc = trained.into_encoding(R50K_PATTERN).unwrap();
        for t in &texts {
            let ids = enc.encode_ordinary(t).unwrap();
            prop_assert_eq!(enc.decode_bytes(&ids).unwrap(), t.as_bytes());
        }
    }
}
