//! The SentencePiece normalizer (the `nmt_nfkc` charsmap of `tests/data/spm/test_model.model`)
//! under every combination of its options, and that model's encoder, on arbitrary text.
//!
//! The first byte holds the options; the rest is the text (invalid UTF-8 replaced).

use std::sync::OnceLock;
use tokensmith_core::formats::sentencepiece_model::{parse, NormalizerSpec};
use tokensmith_core::normalizers::sentencepiece::SentencePieceNormalizer;
use tokensmith_core::sentencepiece::SentencePieceProcessor;

const MODEL: &[u8] = include_bytes!("../../tests/data/spm/test_model.model");

/// User-defined symbols, matched before the charsmap.
const USER_DEFINED: [&str; 3] = ["<sep>", "▁▁", "ﬁ"];

fn model() -> &'static SentencePieceProcessor {
    static MODEL_SP: OnceLock<SentencePieceProcessor> = OnceLock::new();
    MODEL_SP.get_or_init(|| SentencePieceProcessor::from_bytes(MODEL).expect("test model loads"))
}

fn normalizer(options: u8) -> SentencePieceNormalizer {
    static SPEC: OnceLock<NormalizerSpec> = OnceLock::new();
    let base = SPEC.get_or_init(|| parse(MODEL).expect("test model parses").normalizer_spec);
    let spec = NormalizerSpec {
        add_dummy_prefix: options & 1 != 0,
        remove_extra_whitespaces: options & 2 != 0,
        escape_whitespaces: options & 4 != 0,
        precompiled_charsmap: if options & 16 != 0 {
            base.precompiled_charsmap.clone()
        } else {
            Vec::new()
        },
        ..base.clone()
    };
    let user_defined: &[&str] = if options & 32 != 0 {
        &USER_DEFINED
    } else {
        &[]
    };
    SentencePieceNormalizer::new(&spec, options & 8 != 0, user_defined)
        .expect("the test model's normalizer builds")
}

pub fn run(data: &[u8]) {
    let Some((&options, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let norm = normalizer(options);
    let plain = norm.normalize(&text);
    let (with_offsets, to_orig) = norm.normalize_with_offsets(&text);
    assert_eq!(
        plain, with_offsets,
        "normalize and normalize_with_offsets disagree"
    );
    // As sentencepiece's, an input that normalizes to nothing (empty, or spaces removed)
    // may have no offsets at all, not even its end.
    if !with_offsets.is_empty() {
        assert_eq!(
            to_orig.len(),
            with_offsets.len() + 1,
            "one offset per byte, and the end"
        );
    }
    assert!(
        to_orig.windows(2).all(|w| w[0] <= w[1]) && to_orig.iter().all(|&o| o <= text.len()),
        "offsets must rise and stay inside the input"
    );
    let sp = model();
    let ids = sp.encode_ids(&text);
    sp.decode(&ids).expect("encoded ids decode");
    let _ = sp.encode_with_offsets(&text);
}
