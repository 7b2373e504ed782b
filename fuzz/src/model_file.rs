//! The SentencePiece `.model` reader on arbitrary bytes, then the processor it builds:
//! encode, n-best, sampling and decode on the sample texts, and a write-and-read-back.

use super::samples::TEXTS;
use tokensmith_core::sentencepiece::SentencePieceProcessor;

pub fn run(data: &[u8]) {
    let Ok(sp) = SentencePieceProcessor::from_bytes(data) else {
        return;
    };
    for text in TEXTS {
        let ids = sp.encode_ids(text);
        let pieces = sp.encode(text);
        assert_eq!(
            ids,
            pieces.iter().map(|(_, id)| *id).collect::<Vec<_>>(),
            "encode_ids and encode disagree"
        );
        sp.decode(&ids).expect("encoded ids decode");
        let _ = sp.encode_with_offsets(text);
        let _ = sp.nbest(text, 3);
        let _ = sp.sample(text, 0.5, -1, 7);
        let _ = sp.entropy(text, 0.5);
    }
    let n = sp.piece_size() as u32;
    let _ = sp.decode(&[0, n.saturating_sub(1), n, u32::MAX]);
    let again = SentencePieceProcessor::from_bytes(&sp.to_bytes())
        .expect("a model that loads can be written and read back");
    assert_eq!(again.piece_size(), sp.piece_size());
}
