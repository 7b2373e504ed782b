"""The calls real code makes on ``sentencepiece.SentencePieceProcessor`` give the same
answers on ``tokensmith.SentencePieceProcessor``."""

from __future__ import annotations

import pickle

import pytest
import sentencepiece as spm
import tokensmith
from spm_helpers import trained

OPTIONS = [
    dict(add_bos=True),
    dict(add_eos=True),
    dict(add_bos=True, add_eos=True, reverse=True),
    dict(reverse=True),
    dict(emit_unk_piece=True),
    dict(add_bos=True, emit_unk_piece=True),
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "+".join(o))
def test_encode_options(models, lines, options):
    ours, ref = models
    for line in lines[::9]:
        for out_type in (int, str):
            got = ours.encode(line, out_type=out_type, **options)
            assert got == ref.encode(line, out_type=out_type, **options), (line, out_type)
    batch = lines[:40]
    assert ours.encode(batch, out_type=str, **options) == ref.encode(
        batch, out_type=str, **options
    )


def test_constructor_defaults_apply_to_every_call(lines):
    proto = trained("unigram_byte_fallback")
    kwargs = dict(out_type=str, add_bos=True, add_eos=True)
    ours = tokensmith.SentencePieceProcessor(model_proto=proto, **kwargs)
    ref = spm.SentencePieceProcessor(model_proto=proto, **kwargs)
    for line in lines[:50]:
        assert ours.encode(line) == ref.encode(line)
        assert ours.EncodeAsIds(line) == ref.EncodeAsIds(line)


def test_batch_encode_and_decode(models, lines):
    ours, ref = models
    batch = lines[:300]
    ids = ref.encode(batch)
    assert ours.encode(batch) == ids
    assert ours.encode(batch, out_type=str, num_threads=2) == ref.encode(batch, out_type=str)
    assert ours.decode(ids) == ref.decode(ids)
    pieces = ref.encode(batch, out_type=str)
    assert ours.decode(pieces) == ref.decode(pieces)
    assert ours.decode_pieces(pieces[7]) == ref.decode_pieces(pieces[7])
    assert ours.decode_ids(ids[3]) == ref.decode_ids(ids[3])
    assert ours.decode([]) == ref.decode([]) == ""
    assert ours.decode(ids[3][0]) == ref.decode(ids[3][0])


def test_vocabulary_calls_on_lists(models):
    ours, ref = models
    ids = list(range(0, ref.get_piece_size(), 37))
    pieces = ref.id_to_piece(ids)
    assert ours.id_to_piece(ids) == pieces
    assert ours.IdToPiece(ids) == ref.IdToPiece(ids)
    assert ours.piece_to_id(pieces + ["✗✗✗"]) == ref.piece_to_id(pieces + ["✗✗✗"])
    assert ours.get_score(ids) == ref.get_score(ids)
    for method in ("is_unknown", "is_control", "is_unused", "is_byte"):
        assert getattr(ours, method)(ids) == getattr(ref, method)(ids), method
    assert ours.vocab_size() == ours.GetPieceSize() == ref.vocab_size() == len(ref)
    assert ours["▁"] == ref["▁"]


def test_sampling_spellings_give_valid_encodings(sampling_models, lines):
    ours, ref = sampling_models
    for line in lines[:30]:
        for call in (ours.SampleEncodeAsIds, ours.sample_encode_as_ids):
            ids = call(line, nbest_size=-1, alpha=0.1)
            assert ours.decode(ids) == ref.decode(ref.encode(line))
        ids = ours.encode(line, enable_sampling=True, nbest_size=-1, alpha=0.1, add_bos=True)
        assert ids[0] == ref.bos_id()


def test_load_spellings_and_pickle(tmp_path, lines):
    proto = trained("bpe_user_defined")
    path = tmp_path / "m.model"
    path.write_bytes(proto)
    ref = spm.SentencePieceProcessor(model_file=str(path))
    loaded = [
        tokensmith.SentencePieceProcessor(model_file=path),
        tokensmith.SentencePieceProcessor.from_file(path),
        tokensmith.SentencePieceProcessor.from_proto(proto),
    ]
    for make in ("Load", "LoadFromFile", "load_from_file"):
        sp = tokensmith.SentencePieceProcessor()
        getattr(sp, make)(str(path))
        loaded.append(sp)
    sp = tokensmith.SentencePieceProcessor()
    sp.LoadFromSerializedProto(proto)
    loaded.append(sp)
    loaded.append(pickle.loads(pickle.dumps(loaded[0])))
    for sp in loaded:
        assert sp.encode(lines[:20], out_type=str) == ref.encode(lines[:20], out_type=str)
