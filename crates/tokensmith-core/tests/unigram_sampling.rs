//! Exact answers for n-best, sampling and entropy on small Unigram models, checked against a
//! brute-force enumeration of every segmentation written here independently of the lattice.

use tokensmith_core::models::unigram::{SplitMix64, Unigram};

/// Every segmentation of `text` into pieces of `vocab`, with its probability (the product of
/// the pieces' probabilities).
fn enumerate(text: &str, vocab: &[(&str, f64)]) -> Vec<(Vec<String>, f64)> {
    if text.is_empty() {
        return vec![(Vec::new(), 1.0)];
    }
    let mut out = Vec::new();
    for &(piece, p) in vocab {
        if !piece.starts_with('<') && text.starts_with(piece) {
            for (mut rest, q) in enumerate(&text[piece.len()..], vocab) {
                rest.insert(0, piece.to_string());
                out.push((rest, p * q));
            }
        }
    }
    out
}

fn pieces(text: &str, spans: &[(usize, usize, u32)]) -> Vec<String> {
    spans
        .iter()
        .map(|&(s, e, _)| text[s..e].to_string())
        .collect()
}

const EXERCISE_2: [(&str, f64); 5] = [
    ("<unk>", 0.0),
    ("ab", 0.4),
    ("a", 0.3),
    ("b", 0.2),
    ("c", 0.1),
];

const RICHER: [(&str, f64); 9] = [
    ("<unk>", 0.0),
    ("a", 0.2),
    ("b", 0.15),
    ("c", 0.1),
    ("ab", 0.12),
    ("bc", 0.08),
    ("abc", 0.05),
    ("ca", 0.06),
    ("cab", 0.04),
];

/// Seed 004, exercise 2: [ab, c] (0.04) beats [a, b, c] (0.006), and with alpha = 1 sampling
/// picks it with probability 0.04 / 0.046 = 0.8696.
#[test]
fn exercise_2_viterbi_nbest_and_sampling() {
    let m = Unigram::from_probabilities(&EXERCISE_2, 0);
    assert_eq!(pieces("abc", &m.encode("abc")), ["ab", "c"]);
    let nbest = m.nbest("abc", 10);
    let lists: Vec<Vec<String>> = nbest.iter().map(|(s, _)| pieces("abc", s)).collect();
    assert_eq!(lists, [vec!["ab", "c"], vec!["a", "b", "c"]]);
    assert!((f64::from(nbest[0].1).exp() - 0.04).abs() < 1e-7);
    assert!((f64::from(nbest[1].1).exp() - 0.006).abs() < 1e-7);

    let mut rng = SplitMix64::new(2024);
    let n = 20_000;
    let hits = (0..n)
        .filter(|_| pieces("abc", &m.sample("abc", 1.0, &mut rng)) == ["ab", "c"])
        .count();
    let share = hits as f64 / n as f64;
    // 0.8696 with a standard error of 0.0024 at n = 20,000: 5 sigma is 0.012.
    assert!((share - 0.04 / 0.046).abs() < 0.012, "{share}");
}

/// Chi-square goodness of fit of sampled segmentations against the exact path probabilities
/// `p^alpha / Z`, over every segmentation of a text with 20 of them.
#[test]
fn sampling_frequencies_match_exact_path_probabilities() {
    let m = Unigram::from_probabilities(&RICHER, 0);
    let text = "abcabc";
    for alpha in [1.0f32, 0.5] {
        let paths = enumerate(text, &RICHER);
        assert!(paths.len() >= 15, "{}", paths.len());
        let weights: Vec<f64> = paths
            .iter()
            .map(|(_, p)| p.powf(f64::from(alpha)))
            .collect();
        let z: f64 = weights.iter().sum();
        let mut counts = vec![0usize; paths.len()];
        let mut rng = SplitMix64::new(7 + alpha.to_bits() as u64);
        let n = 40_000;
        for _ in 0..n {
            let got = pieces(text, &m.sample(text, alpha, &mut rng));
            let i = paths
                .iter()
                .position(|(p, _)| *p == got)
                .expect("a valid segmentation");
            counts[i] += 1;
        }
        let chi2: f64 = counts
            .iter()
            .zip(&weights)
            .map(|(&c, w)| {
                let expected = n as f64 * w / z;
                (c as f64 - expected).powi(2) / expected
            })
            .sum();
        // The 0.999 quantile of chi-square with k - 1 degrees of freedom (Wilson-Hilferty).
        let k = (paths.len() - 1) as f64;
        let q = k * (1.0 - 2.0 / (9.0 * k) + 3.0902 * (2.0 / (9.0 * k)).sqrt()).powi(3);
        assert!(
            chi2 < q,
            "alpha {alpha}: chi2 {chi2} >= {q}; counts {counts:?}"
        );
    }
}

/// The n-best list is the enumeration sorted by probability, with the right scores.
#[test]
fn nbest_is_the_sorted_enumeration() {
    let m = Unigram::from_probabilities(&RICHER, 0);
    let text = "abcabc";
    let mut paths = enumerate(text, &RICHER);
    paths.sort_by(|a, b| b.1.total_cmp(&a.1));
    let nbest = m.nbest(text, 1000);
    assert_eq!(nbest.len(), paths.len());
    for ((spans, score), (expected, p)) in nbest.iter().zip(&paths) {
        assert!((f64::from(*score) - p.ln()).abs() < 1e-5);
        // Equal probabilities may come in either order; the scores above pin the ranking.
        let got = pieces(text, spans);
        let same_p = paths.iter().filter(|(_, q)| (q - p).abs() < 1e-12);
        assert!(got == *expected || same_p.clone().any(|(e, _)| *e == got));
    }
}

/// Entropy equals -sum p log p over the enumerated segmentations.
#[test]
fn entropy_matches_the_enumeration() {
    let m = Unigram::from_probabilities(&RICHER, 0);
    for alpha in [1.0f32, 0.3] {
        let paths = enumerate("abcab", &RICHER);
        let w: Vec<f64> = paths
            .iter()
            .map(|(_, p)| p.powf(f64::from(alpha)))
            .collect();
        let z: f64 = w.iter().sum();
        let h: f64 = -w.iter().map(|x| x / z * (x / z).ln()).sum::<f64>();
        let got = f64::from(m.entropy("abcab", alpha));
        assert!((got - h).abs() < 1e-4, "alpha {alpha}: {got} vs {h}");
    }
}
