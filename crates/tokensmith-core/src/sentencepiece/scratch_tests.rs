//! A long text does not pin its working memory to the thread that encoded it (see
//! [`crate::scratch`]), while a short text's buffers stay for the next call.

use super::{kept_bytes, SentencePieceProcessor};
use crate::formats::sentencepiece_model::{self, ModelType};
use crate::models::{sentencepiece_bpe, unigram};
use crate::scratch::KEEP_BYTES;

fn shipped(name: &str) -> Vec<u8> {
    let path = format!("{}/../../tests/data/spm/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// All the thread's kept encode buffers, in bytes.
fn kept() -> usize {
    kept_bytes() + unigram::kept_table_bytes() + sentencepiece_bpe::kept_bytes()
}

/// About 12 MB of English words, and the same with the spaces taken out (one unspaced run
/// that takes the whole-text Viterbi).
fn long_texts() -> [String; 2] {
    let botchan = String::from_utf8(shipped("botchan.txt")).unwrap();
    let spaced: String = botchan
        .lines()
        .cycle()
        .take(200_000)
        .collect::<Vec<_>>()
        .join(" ");
    let unspaced: String = spaced
        .chars()
        .filter(|c| !c.is_whitespace())
        .take(6_000_000)
        .collect();
    [spaced, unspaced]
}

fn check(sp: &SentencePieceProcessor, what: &str) {
    // Each thread has its own buffers: a fresh thread starts from none.
    std::thread::scope(|scope| {
        scope.spawn(|| {
            sp.encode_ids("a short text to start with");
            let short = kept();
            assert!(short > 0, "{what}: a short text's buffers are kept");
            for text in long_texts() {
                assert!(text.len() > KEEP_BYTES);
                let ids = sp.encode_ids(&text);
                assert!(ids.len() > KEEP_BYTES / 4, "{what}: {} ids", ids.len());
                // At most what a short text keeps, plus one buffer just under the limit.
                let after = kept();
                assert!(
                    after <= short + KEEP_BYTES,
                    "{what}: {after} bytes kept after a long text"
                );
            }
            sp.encode_ids("a short text again");
            assert!(
                kept() > 0,
                "{what}: buffers are kept again after a short text"
            );
        });
    });
}

#[test]
fn unigram_buffers_are_freed_after_a_long_text() {
    let sp = SentencePieceProcessor::from_bytes(&shipped("test_model.model")).unwrap();
    check(&sp, "unigram");
}

#[test]
fn bpe_buffers_are_freed_after_a_long_text() {
    let mut proto = sentencepiece_model::parse(&shipped("test_model.model")).unwrap();
    proto.trainer_spec.model_type = ModelType::Bpe;
    let sp = SentencePieceProcessor::from_proto(proto).unwrap();
    check(&sp, "bpe");
}
