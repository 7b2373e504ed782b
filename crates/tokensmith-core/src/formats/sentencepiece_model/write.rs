//! The writer: a [`ModelProto`] to the bytes of a `.model` file that sentencepiece loads.
//!
//! Fields are written in field-number order, as protobuf does. A loaded model's preserved
//! bytes are merged back in (see [`super::Preserved`]), so loading then saving an unmodified
//! sentencepiece-written file gives the same bytes. In a spec message, a known field is written
//! when it was in the loaded file or differs from the proto2 default; a new model (nothing
//! preserved) gets only its non-default fields.

use super::wire::{len_field, put_key, put_varint, split_fields, varint_field, WireType};
use super::{ModelProto, ModelType, NormalizerSpec, Piece, PieceType, TrainerSpec};

/// Encodes `model` as a `ModelProto` message.
///
/// ```
/// use tokensmith_core::formats::sentencepiece_model::*;
/// let model = ModelProto {
///     pieces: vec![Piece { piece: "<unk>".into(), score: 0.0, kind: PieceType::Unknown }],
///     ..Default::default()
/// };
/// let bytes = serialize(&model);
/// assert_eq!(parse(&bytes).unwrap().pieces, model.pieces);
/// ```
pub fn serialize(model: &ModelProto) -> Vec<u8> {
    let kept = &model.preserved;
    let mut fields: Vec<(u32, Vec<u8>)> = Vec::with_capacity(model.pieces.len() + 4);
    for (index, piece) in model.pieces.iter().enumerate() {
        let message = match kept.pieces.get(&index) {
            Some((as_read, raw)) if as_read == piece => raw.clone(),
            _ => piece_message(piece),
        };
        fields.push((1, len_field(1, &message)));
    }
    let trainer = trainer_spec_message(&model.trainer_spec, &kept.trainer_spec);
    if !(kept.lacks_trainer_spec && trainer.is_empty()) {
        fields.push((2, len_field(2, &trainer)));
    }
    let normalizer = normalizer_spec_message(&model.normalizer_spec, &kept.normalizer_spec);
    if !(kept.lacks_normalizer_spec && normalizer.is_empty()) {
        fields.push((3, len_field(3, &normalizer)));
    }
    if let Some(spec) = &model.denormalizer_spec {
        let message = normalizer_spec_message(spec, &kept.denormalizer_spec);
        fields.push((5, len_field(5, &message)));
    }
    fields.extend(kept.fields.iter().cloned());
    // Stable: pieces keep their order, and preserved fields keep theirs.
    fields.sort_by_key(|&(number, _)| number);
    fields.into_iter().flat_map(|(_, bytes)| bytes).collect()
}

/// The canonical `SentencePiece` message, as sentencepiece's trainer writes it: the piece, the
/// score (always), and the type unless it is NORMAL.
pub(super) fn piece_message(piece: &Piece) -> Vec<u8> {
    let mut out = Vec::new();
    put_piece_message(piece, &mut out);
    out
}

/// Appends [`piece_message`]'s bytes to `out`, with no allocation of its own (the reader
/// checks every piece of a model against this, so one buffer serves them all).
pub(super) fn put_piece_message(piece: &Piece, out: &mut Vec<u8>) {
    put_key(1, WireType::Len, out);
    put_varint(piece.piece.len() as u64, out);
    out.extend_from_slice(piece.piece.as_bytes());
    put_key(2, WireType::Fixed32, out);
    out.extend_from_slice(&piece.score.to_bits().to_le_bytes());
    if piece.kind != PieceType::Normal {
        put_key(3, WireType::Varint, out);
        put_varint(piece.kind.to_wire(), out);
    }
}

/// One known field of a spec message: its number, its encoding, and whether it holds the
/// proto2 default.
type Known = (u32, Vec<u8>, bool);

fn trainer_spec_message(spec: &TrainerSpec, kept: &[u8]) -> Vec<u8> {
    let d = TrainerSpec::default();
    let model_type = match spec.model_type {
        ModelType::Unigram => 1,
        ModelType::Bpe => 2,
        ModelType::Word => 3,
        ModelType::Char => 4,
    };
    let int = |n: u32, v: i32, dv: i32| (n, varint_field(n, i64::from(v)), v == dv);
    let flag = |n: u32, v: bool, dv: bool| (n, varint_field(n, i64::from(v)), v == dv);
    let text = |n: u32, v: &str, dv: &str| (n, len_field(n, v.as_bytes()), v == dv);
    let known = vec![
        (
            3,
            varint_field(3, model_type),
            spec.model_type == d.model_type,
        ),
        int(4, spec.vocab_size, d.vocab_size),
        int(
            20,
            spec.max_sentencepiece_length,
            d.max_sentencepiece_length,
        ),
        flag(
            24,
            spec.treat_whitespace_as_suffix,
            d.treat_whitespace_as_suffix,
        ),
        flag(25, spec.split_digits, d.split_digits),
        flag(35, spec.byte_fallback, d.byte_fallback),
        int(40, spec.unk_id, d.unk_id),
        int(41, spec.bos_id, d.bos_id),
        int(42, spec.eos_id, d.eos_id),
        int(43, spec.pad_id, d.pad_id),
        (
            44,
            len_field(44, spec.unk_surface.as_bytes()),
            spec.unk_surface == d.unk_surface,
        ),
        text(45, &spec.unk_piece, &d.unk_piece),
        text(46, &spec.bos_piece, &d.bos_piece),
        text(47, &spec.eos_piece, &d.eos_piece),
        text(48, &spec.pad_piece, &d.pad_piece),
    ];
    merge(known, kept, "TrainerSpec")
}

fn normalizer_spec_message(spec: &NormalizerSpec, kept: &[u8]) -> Vec<u8> {
    let d = NormalizerSpec::default();
    let flag = |n: u32, v: bool, dv: bool| (n, varint_field(n, i64::from(v)), v == dv);
    let known = vec![
        (1, len_field(1, spec.name.as_bytes()), spec.name == d.name),
        (
            2,
            len_field(2, &spec.precompiled_charsmap),
            spec.precompiled_charsmap.is_empty(),
        ),
        flag(3, spec.add_dummy_prefix, d.add_dummy_prefix),
        flag(4, spec.remove_extra_whitespaces, d.remove_extra_whitespaces),
        flag(5, spec.escape_whitespaces, d.escape_whitespaces),
    ];
    merge(known, kept, "NormalizerSpec")
}

/// The known fields that were present in `kept` or are not at their default, and every other
/// field of `kept` as it was, in field-number order.
fn merge(known: Vec<Known>, kept: &[u8], message: &'static str) -> Vec<u8> {
    // `kept` was parsed successfully when it was loaded, so splitting it cannot fail.
    let kept_fields = split_fields(kept, message).unwrap_or_default();
    let was_present = |n: u32| kept_fields.iter().any(|&(f, _)| f == n);
    let mut fields: Vec<(u32, Vec<u8>)> = kept_fields
        .iter()
        .filter(|&&(f, _)| !known.iter().any(|&(n, _, _)| n == f))
        .map(|&(f, bytes)| (f, bytes.to_vec()))
        .collect();
    for (n, bytes, is_default) in known {
        if !is_default || was_present(n) {
            fields.push((n, bytes));
        }
    }
    fields.sort_by_key(|&(n, _)| n);
    fields.into_iter().flat_map(|(_, bytes)| bytes).collect()
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;
    use proptest::prelude::*;

    fn kind(i: u8) -> PieceType {
        [
            PieceType::Normal,
            PieceType::Unknown,
            PieceType::Control,
            PieceType::UserDefined,
            PieceType::Unused,
            PieceType::Byte,
        ][usize::from(i % 6)]
    }

    /// Typed fields only, so equality after a round trip compares what matters.
    fn typed(m: &ModelProto) -> ModelProto {
        ModelProto {
            preserved: Default::default(),
            ..m.clone()
        }
    }

    #[test]
    fn keeps_unknown_fields_and_orders_by_number() {
        // A trainer spec with an unknown field 7 between known fields 3 and 35, and a
        // top-level field 4 (self_test_data) after the normalizer spec.
        let mut trainer = varint_field(3, 2);
        trainer.extend(len_field(7, b"kept"));
        trainer.extend(varint_field(35, 1));
        let mut bytes = len_field(
            1,
            &piece_message(&Piece {
                piece: "<unk>".into(),
                score: 0.0,
                kind: PieceType::Unknown,
            }),
        );
        bytes.extend(len_field(2, &trainer));
        bytes.extend(len_field(3, &varint_field(3, 0)));
        bytes.extend(len_field(4, b"\x0a\x00"));
        let mut model = parse(&bytes).unwrap();
        assert_eq!(serialize(&model), bytes);
        // An edit re-encodes the known field and keeps the unknown one in place.
        model.trainer_spec.vocab_size = 300;
        let edited = parse(&serialize(&model)).unwrap();
        assert_eq!(edited.trainer_spec.vocab_size, 300);
        assert!(edited.trainer_spec.byte_fallback);
        let mut expected = varint_field(3, 2);
        expected.extend(varint_field(4, 300));
        expected.extend(len_field(7, b"kept"));
        expected.extend(varint_field(35, 1));
        assert_eq!(edited.preserved.trainer_spec, expected);
        assert_eq!(
            edited.preserved.fields,
            vec![(4, len_field(4, b"\x0a\x00"))]
        );
    }

    #[test]
    fn piece_messages_are_canonical_and_others_are_kept_as_read() {
        let unk = Piece {
            piece: "<unk>".into(),
            score: 0.0,
            kind: PieceType::Unknown,
        };
        let a = Piece {
            piece: "a".into(),
            score: -1.5,
            kind: PieceType::Normal,
        };
        // Field 1 (len), field 2 (fixed32, -1.5 is 0xBFC00000), field 3 (varint) unless NORMAL.
        let unk_bytes = b"\x0a\x05<unk>\x15\x00\x00\x00\x00\x18\x02".to_vec();
        let a_bytes = b"\x0a\x01a\x15\x00\x00\xc0\xbf".to_vec();
        let mut out = b"before".to_vec();
        put_piece_message(&a, &mut out);
        assert_eq!(out[6..], a_bytes[..]);
        assert_eq!(piece_message(&unk), unk_bytes);
        // The same NORMAL piece with its type written out is not canonical: kept as read.
        let mut a_typed = a_bytes.clone();
        a_typed.extend(b"\x18\x01");
        let mut bytes = len_field(1, &unk_bytes);
        bytes.extend(len_field(1, &a_bytes));
        bytes.extend(len_field(1, &a_typed));
        let model = parse(&bytes).unwrap();
        assert_eq!(model.pieces, vec![unk, a.clone(), a]);
        let kept: Vec<usize> = model.preserved.pieces.keys().copied().collect();
        assert_eq!(kept, vec![2]);
        assert_eq!(serialize(&model), bytes);
    }

    #[test]
    fn a_new_model_writes_only_non_defaults() {
        let model = ModelProto {
            pieces: vec![Piece {
                piece: "a".into(),
                score: -1.5,
                kind: PieceType::Normal,
            }],
            ..Default::default()
        };
        let mut expected = len_field(1, &piece_message(&model.pieces[0]));
        expected.extend(len_field(2, &[]));
        expected.extend(len_field(3, &[]));
        assert_eq!(serialize(&model), expected);
    }

    proptest! {
        #[test]
        fn typed_fields_round_trip(
            pieces in proptest::collection::vec(("\\PC{1,6}", any::<f32>(), any::<u8>()), 1..20),
            vocab_size in any::<i32>(),
            pad_id in -1i32..5,
            flags in any::<[bool; 6]>(),
            name in "[a-z_]{0,10}",
            charsmap in proptest::collection::vec(any::<u8>(), 0..40),
            denormalizer in any::<bool>(),
        ) {
            let mut model = ModelProto {
                pieces: pieces
                    .into_iter()
                    .map(|(piece, score, k)| Piece { piece, score, kind: kind(k) })
                    .collect(),
                ..Default::default()
            };
            let t = &mut model.trainer_spec;
            t.model_type = if flags[0] { ModelType::Bpe } else { ModelType::Unigram };
            t.vocab_size = vocab_size;
            t.pad_id = pad_id;
            t.byte_fallback = flags[1];
            t.split_digits = flags[2];
            t.treat_whitespace_as_suffix = flags[3];
            let n = &mut model.normalizer_spec;
            n.name = name;
            n.precompiled_charsmap = charsmap;
            n.add_dummy_prefix = flags[4];
            n.remove_extra_whitespaces = flags[5];
            if denormalizer {
                model.denormalizer_spec = Some(NormalizerSpec::default());
            }
            let bytes = serialize(&model);
            let back = parse(&bytes).unwrap();
            // NaN scores compare unequal; compare their bits instead.
            let bits = |m: &ModelProto| m.pieces.iter().map(|p| p.score.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&back), bits(&model));
            let (mut a, mut b) = (typed(&back), typed(&model));
            a.pieces.iter_mut().chain(b.pieces.iter_mut()).for_each(|p| p.score = 0.0);
            prop_assert_eq!(a, b);
            prop_assert_eq!(serialize(&back), bytes);
        }

        #[test]
        fn whatever_parses_writes_back_identically(
            bytes in proptest::collection::vec(any::<u8>(), 0..200),
        ) {
            if let Ok(model) = parse(&bytes) {
                let written = serialize(&model);
                let again = parse(&written).unwrap();
                prop_assert_eq!(serialize(&again), written);
            }
        }
    }
}
