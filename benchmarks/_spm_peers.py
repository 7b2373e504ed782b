"""The peers that ``encode_spm.py`` times beside tokensmith on a SentencePiece ``.model``.

- splintr (PyPI ``splintr-rs``) is built from the model's pieces and scores, as read by
  sentencepiece's own protobuf module: ``SentencePieceTokenizer`` for a Unigram model (Viterbi
  over the pieces), ``SpmTokenizer`` for a BPE model (llama.cpp's merge of the best-scoring
  adjacent pieces). Its ``encode_raw`` gives the ids with no BOS or EOS; ``encode_batch`` adds
  none either, since no BOS is given. It applies none of the model's normalization (charsmap,
  removal of extra spaces): it sees the text as it is.
- tokie loads the ``tokenizer.json`` that ``transformers``' own converter writes from the model
  (``SpmConverter.build_tokenizer_from_spm_proto``, which follows the model's normalizer spec),
  offline, in a temporary folder.

Each peer gives one encoder per loaded tokenizer (ids of one text) and a batch call (ids of
many texts, on the peer's own thread pool).

What this module does not handle: whether a peer is exact (``encode_spm.py`` checks every
peer's ids against sentencepiece's), and models other than Unigram and BPE.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

UNIGRAM, BPE = 1, 2  # TrainerSpec.model_type in sentencepiece_model.proto


@dataclass(frozen=True)
class SpmPeer:
    """How to load one peer from a serialized model, and its calls that are timed."""

    distribution: str
    load: Callable[[bytes], Any]
    encoder: Callable[[Any], Callable[[str], list[int]]]
    batch: Callable[[Any, list[str]], list[list[int]]]


def model_proto(proto: bytes) -> Any:
    """The parsed ``ModelProto`` of a serialized model."""
    from sentencepiece import sentencepiece_model_pb2

    model = sentencepiece_model_pb2.ModelProto()
    model.ParseFromString(proto)
    return model


def model_type(model: Any) -> int:
    kind: int = model.trainer_spec.model_type
    if kind not in (UNIGRAM, BPE):
        raise ValueError(f"model type {kind} is neither Unigram nor BPE")
    return kind


def splintr_of(proto: bytes) -> Any:
    import splintr

    model = model_proto(proto)
    tokens = [p.piece for p in model.pieces]
    scores = [p.score for p in model.pieces]
    if model_type(model) == UNIGRAM:
        return splintr.SentencePieceTokenizer(tokens, scores, model.trainer_spec.eos_id)
    return splintr.SpmTokenizer(tokens, scores)


def tokie_of(proto: bytes) -> Any:
    import tokie
    from transformers.convert_slow_tokenizer import SpmConverter

    model = model_proto(proto)
    pieces = [(p.piece, p.score) for p in model.pieces]
    # the converter builds a Unigram from a list of pieces and a BPE from a piece -> id dict
    vocab = pieces if model_type(model) == UNIGRAM else {p: i for i, (p, _) in enumerate(pieces)}
    converted = SpmConverter.build_tokenizer_from_spm_proto(model, vocab)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tokenizer.json"
        converted.save(str(path))
        return tokie.Tokenizer.from_json(str(path))


PEERS: dict[str, SpmPeer] = {
    "splintr": SpmPeer(
        "splintr-rs",
        splintr_of,
        lambda tok: tok.encode_raw,
        lambda tok, lines: tok.encode_batch(lines),
    ),
    "tokie": SpmPeer(
        "tokie",
        tokie_of,
        lambda tok: lambda x: tok.encode(x).ids,
        lambda tok, lines: [e.ids for e in tok.encode_batch(lines)],
    ),
}
