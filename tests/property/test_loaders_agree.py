"""Random tokenizer files through both of their loaders: ``tokensmith.load`` and the
format's own loader (``Tokenizer.from_file``, ``load_tiktoken``, ``SentencePieceProcessor``)
either both accept a file and give the same ids on sample texts, or both refuse it with a
``TokensmithError``; neither crashes.

The files are built from random parts: valid components, and values a careless writer or a
corrupt file gives (wrong types, out-of-range ids, duplicates, unknown keys).
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tokensmith
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sentencepiece import sentencepiece_model_pb2 as pb
from tokensmith.errors import TokensmithError
from tokensmith.load import load_tiktoken

SAMPLES = ["Hello world, it's 2024!", "  spaced\tout\n", "日本語 ελληνικά", "ab ba aab <s>", ""]
# `make fuzz` sets TOKENSMITH_FUZZ=1 and a new --hypothesis-seed each round: fresh random inputs,
# many more of them. Without it (make test), the same deterministic pass every time.
FUZZING = os.environ.get("TOKENSMITH_FUZZ") == "1"
SETTINGS = settings(
    max_examples=60 * (5 if FUZZING else 1),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=not FUZZING,
)

pieces = st.text(alphabet="abAB <>/s▁Ġ##日\u0301\x00", min_size=1, max_size=6)


def rarely(draw: st.DrawFn) -> bool:
    """True about once in eight draws (hypothesis leans to the first of a sampled list)."""
    return draw(st.sampled_from([False] * 7 + [True]))


def _outcome(load: Any, encode: Any) -> tuple[str, Any]:
    """``("ok", ids per sample)`` or ``("refused", error class)``; any other exception fails."""
    try:
        tok = load()
    except TokensmithError as e:
        return "refused", type(e)
    try:
        return "ok", [encode(tok, text) for text in SAMPLES]
    except TokensmithError as e:
        return "refused at encode", type(e)


# The outcomes seen for each file suffix, so that the module can check both kinds occurred.
SEEN: dict[str, set[str]] = {}


@pytest.fixture(scope="module", autouse=True)
def _both_outcomes_occur() -> Iterator[None]:
    """After the module's tests: each format's random files were sometimes accepted and
    sometimes refused, so the agreement checks covered both paths (a generator that drifted
    to only broken files would otherwise pass without comparing a single id)."""
    yield
    for suffix, seen in SEEN.items():
        assert "ok" in seen, f"no random {suffix} file was accepted"
        assert seen - {"ok"}, f"no random {suffix} file was refused"


def _agree(a: tuple[str, Any], b: tuple[str, Any], same_ids: bool) -> None:
    assert a[0] == b[0], (a, b)
    if a[0] == "ok" and same_ids:
        assert a[1] == b[1]


def _both(
    suffix: str, data: bytes, first: Any, second: Any, encode: Any, same_ids: bool = True
) -> None:
    """Writes ``data`` to a temporary ``tok{suffix}`` and checks that the loaders agree: both
    accept it (with the same ids, unless ``same_ids`` is False: a sampling model) or both
    refuse it."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"tok{suffix}"
        path.write_bytes(data)
        a = _outcome(lambda: first(path), encode)
        _agree(a, _outcome(lambda: second(path), encode), same_ids)
        SEEN.setdefault(suffix, set()).add(a[0])


# tokenizer.json ---------------------------------------------------------------------------

normalizer = st.one_of(
    st.none(),
    st.just({"type": "Lowercase"}),
    st.just({"type": "NFKC"}),
    st.builds(
        lambda a, b: {"type": "Replace", "pattern": {"String": a}, "content": b}, pieces, pieces
    ),
    st.just({"type": "NoSuchNormalizer"}),
    st.just({"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "StripAccents"}]}),
)
pre_tokenizer = st.one_of(
    st.none(),
    st.just({"type": "Whitespace"}),
    st.builds(
        lambda prefix, regex: {
            "type": "ByteLevel",
            "add_prefix_space": prefix,
            "trim_offsets": True,
            "use_regex": regex,
        },
        st.booleans(),
        st.booleans(),
    ),
    st.just({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}),
    st.builds(
        lambda pattern, behavior: {
            "type": "Split",
            "pattern": {"Regex": pattern},
            "behavior": behavior,
            "invert": False,
        },
        st.sampled_from([r"\s+", r"(a|aa)+(?=b)|.", "[", r"\p{L}+|\p{N}"]),
        st.sampled_from(["Isolated", "Removed", "MergedWithPrevious", "Contiguous", "Bogus"]),
    ),
)


@st.composite
def bpe_model(draw: st.DrawFn) -> dict[str, Any]:
    alphabet = draw(st.lists(pieces, min_size=1, max_size=12, unique=True))
    vocab = {tok: i for i, tok in enumerate(alphabet)}
    merges = []
    for a, b in draw(
        st.lists(st.tuples(st.sampled_from(alphabet), st.sampled_from(alphabet)), max_size=6)
    ):
        merges.append([a, b] if " " in a + b or draw(st.booleans()) else f"{a} {b}")
        vocab.setdefault(a + b, len(vocab))
    if rarely(draw):
        vocab[draw(pieces)] = draw(st.integers(-2, 2**33))
    model: dict[str, Any] = {"type": "BPE", "vocab": vocab, "merges": merges}
    if draw(st.booleans()):
        model["unk_token"] = alphabet[0] if not rarely(draw) else "<missing>"
    for key, values in [
        ("byte_fallback", st.booleans()),
        ("dropout", st.sampled_from([None, 0.5, 2.0])),
    ]:
        if draw(st.booleans()):
            model[key] = draw(values)
    return model


@st.composite
def wordpiece_or_level(draw: st.DrawFn) -> dict[str, Any]:
    words = draw(st.lists(pieces, min_size=1, max_size=12, unique=True))
    vocab = {w: i for i, w in enumerate(words)}
    unk = words[0] if not rarely(draw) else "[UNK]"
    if draw(st.booleans()):
        return {
            "type": "WordPiece",
            "vocab": vocab,
            "unk_token": unk,
            "continuing_subword_prefix": "##",
        }
    return {"type": "WordLevel", "vocab": vocab, "unk_token": unk}


@st.composite
def unigram_model(draw: st.DrawFn) -> dict[str, Any]:
    words = draw(st.lists(pieces, min_size=1, max_size=12, unique=True))
    scores = draw(st.lists(st.floats(-20, 0), min_size=len(words), max_size=len(words)))
    unk = 0 if not rarely(draw) else draw(st.sampled_from([None, -1, len(words), "0"]))
    vocab = [[w, s] for w, s in zip(words, scores, strict=True)]
    return {"type": "Unigram", "vocab": vocab, "unk_id": unk}


@st.composite
def tokenizer_json(draw: st.DrawFn) -> bytes:
    model = draw(st.one_of(bpe_model(), wordpiece_or_level(), unigram_model()))
    data: dict[str, Any] = {
        "version": "1.0",
        "truncation": draw(
            st.one_of(
                st.none(),
                st.builds(
                    lambda n, s: {
                        "direction": "Right",
                        "max_length": n,
                        "strategy": "LongestFirst",
                        "stride": s,
                    },
                    st.integers(0, 8),
                    st.integers(0, 3),
                ),
            )
        ),
        "padding": draw(
            st.one_of(
                st.none(),
                st.builds(
                    lambda n: {
                        "strategy": {"Fixed": n},
                        "direction": "Right",
                        "pad_to_multiple_of": None,
                        "pad_id": 0,
                        "pad_type_id": 0,
                        "pad_token": "[PAD]",
                    },
                    st.sampled_from([4, 16, 10**12]),
                ),
            )
        ),
        "added_tokens": [
            {
                "id": i,
                "content": c,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": n,
                "special": s,
            }
            for c, i, n, s in draw(
                st.lists(
                    st.tuples(pieces, st.integers(0, 40), st.booleans(), st.booleans()), max_size=3
                )
            )
        ],
        "normalizer": draw(normalizer),
        "pre_tokenizer": draw(pre_tokenizer),
        "model": model,
        "post_processor": None,
        "decoder": None,
    }
    if rarely(draw):
        data[draw(st.sampled_from(["model", "normalizer", "added_tokens", "version"]))] = draw(
            st.sampled_from([None, 7, "x", [], {}])
        )
    if rarely(draw):
        data["unknown_key"] = 1
    return json.dumps(data, ensure_ascii=False).encode()


def _hf_ids(tok: Any, text: str) -> list[int]:
    if isinstance(tok, tokensmith.Encoding):
        return tok.encode(text, allowed_special="all")
    return tok.encode(text).ids


@SETTINGS
@given(tokenizer_json())
def test_tokenizer_json_loaders_agree(data: bytes) -> None:
    # BPE dropout strictly between 0 and 1 samples merges: two runs of one file differ.
    model = json.loads(data)["model"]
    dropout = model.get("dropout") if isinstance(model, dict) else None
    sampling = isinstance(dropout, float) and 0.0 < dropout < 1.0
    _both(".json", data, tokensmith.load, tokensmith.Tokenizer.from_file, _hf_ids, not sampling)


# .tiktoken --------------------------------------------------------------------------------


@st.composite
def tiktoken_file(draw: st.DrawFn) -> bytes:
    singles = [bytes([b]) for b in draw(st.lists(st.integers(0, 255), max_size=40, unique=True))]
    if draw(st.booleans()):
        singles = [bytes([b]) for b in range(256)]
    tokens = singles + draw(st.lists(st.binary(min_size=2, max_size=4), max_size=8, unique=True))
    ranks = list(range(len(tokens)))
    if draw(st.booleans()):
        ranks = draw(st.permutations(ranks))
    lines = [b"%s %d" % (base64.b64encode(t), r) for t, r in zip(tokens, ranks, strict=True)]
    if lines and rarely(draw):
        i = draw(st.integers(0, len(lines) - 1))
        lines[i] = draw(
            st.sampled_from([b"", b"!!!! 3", b"YQ== -1", b"YQ== 99999999999", b"YQ==", lines[0]])
        )
    data = b"\n".join(lines) + b"\n"
    return gzip.compress(data, mtime=0) if draw(st.booleans()) else data


def _ordinary(enc: Any, text: str) -> list[int]:
    return enc.encode_ordinary(text)


@SETTINGS
@given(tiktoken_file())
def test_tiktoken_loaders_agree(data: bytes) -> None:
    _both(".tiktoken", data, tokensmith.load, load_tiktoken, _ordinary)


# .model -----------------------------------------------------------------------------------

PIECE_TYPES = [pb.ModelProto.SentencePiece.NORMAL, pb.ModelProto.SentencePiece.UNKNOWN,
               pb.ModelProto.SentencePiece.CONTROL, pb.ModelProto.SentencePiece.USER_DEFINED,
               pb.ModelProto.SentencePiece.BYTE, pb.ModelProto.SentencePiece.UNUSED]  # fmt: skip


@st.composite
def model_file(draw: st.DrawFn) -> bytes:
    m = pb.ModelProto()
    m.trainer_spec.model_type = draw(st.sampled_from([1, 2])) if not rarely(draw) else 3
    m.trainer_spec.byte_fallback = draw(st.booleans())
    m.trainer_spec.unk_id = 0 if not rarely(draw) else draw(st.integers(-1, 3))
    m.trainer_spec.bos_id = draw(st.integers(-1, 3))
    m.trainer_spec.eos_id = draw(st.integers(-1, 3))
    m.trainer_spec.pad_id = draw(st.integers(-1, 3))
    m.normalizer_spec.add_dummy_prefix = draw(st.booleans())
    m.normalizer_spec.remove_extra_whitespaces = draw(st.booleans())
    m.normalizer_spec.escape_whitespaces = draw(st.booleans())
    unknown, control = PIECE_TYPES[1], PIECE_TYPES[2]
    for special, usual in [("<unk>", unknown), ("<s>", control), ("</s>", control)]:
        p = m.pieces.add()
        p.piece, p.score = special, 0.0
        p.type = usual if not rarely(draw) else draw(st.sampled_from(PIECE_TYPES))
    if m.trainer_spec.byte_fallback and not rarely(draw):
        for b in range(256):
            p = m.pieces.add()
            p.piece, p.score, p.type = f"<0x{b:02X}>", 0.0, pb.ModelProto.SentencePiece.BYTE
    taken = {"<unk>", "<s>", "</s>"} if not rarely(draw) else set()
    for text in draw(st.lists(pieces.filter(lambda t: t not in taken), max_size=12, unique=True)):
        p = m.pieces.add()
        p.piece = text
        p.score = draw(st.one_of(st.floats(-20, 0), st.sampled_from([float("nan"), float("inf")])))
        p.type = draw(st.sampled_from(PIECE_TYPES[:1] * 4 + PIECE_TYPES))
    data = m.SerializeToString()
    if rarely(draw):
        data = data[: draw(st.integers(0, len(data)))]
    return data


def _spm_ids(tok: Any, text: str) -> list[int]:
    if isinstance(tok, tokensmith.SentencePieceProcessor):
        return tok.encode(text)
    return tok.encode(text).ids


@SETTINGS
@given(model_file())
def test_model_loaders_agree(data: bytes) -> None:
    _both(".model", data, tokensmith.load, _processor, _spm_ids)


def _processor(path: Path) -> tokensmith.SentencePieceProcessor:
    return tokensmith.SentencePieceProcessor(model_file=path)
