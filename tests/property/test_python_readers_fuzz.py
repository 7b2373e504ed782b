"""The readers written in Python, and the chat template sandbox, on random hostile input: each
gives a result or a ``TokensmithError``, never another exception.

The Rust readers have coverage-guided fuzz targets (``fuzz/``, ``make fuzz``); these readers
live in the Python package, so hypothesis plays that part for them:

- ``vocab.json`` + ``merges.txt`` (``tokensmith.io.vocab_merges``), through ``tokensmith.load``;
- ``vocab.txt`` (``tokensmith.io.vocab_txt``), through ``tokensmith.load``;
- the Megatron ``.idx``/``.bin`` pair (``tokensmith.datasets.megatron.IndexedDataset``);
- chat templates (``tokensmith.chat.render_chat``), built from Jinja fragments.

Each file starts from a valid one and is then corrupted by random byte edits, so most inputs
get past the first checks.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import tokensmith
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokensmith.chat import render_chat
from tokensmith.datasets.megatron import HEADER, MAGIC, IndexedDataset, index_bytes
from tokensmith.errors import ChatTemplateError, TokensmithError
from tokensmith.limits import DEFAULTS, set_limits

# `make fuzz` sets TOKENSMITH_FUZZ=1 and a new --hypothesis-seed each round: fresh random inputs,
# many more of them. Without it (make test), the same deterministic pass every time.
FUZZING = os.environ.get("TOKENSMITH_FUZZ") == "1"
SETTINGS = settings(
    max_examples=150 * (5 if FUZZING else 1),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=not FUZZING,
)
SAMPLES = ["Hello world, it's 2024!", "  spaced\tout\n", "日本語 ελληνικά", ""]


@st.composite
def corrupted(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` after up to four random edits: flip, erase, insert, duplicate or cut."""
    out = bytearray(data)
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(out)))
        kind = draw(st.sampled_from(["flip", "erase", "insert", "dup", "cut"]))
        if kind == "flip" and at < len(out):
            out[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "erase":
            del out[at : at + draw(st.integers(1, 16))]
        elif kind == "insert":
            special = [b"\x00", b"\xff\xfe", b'"', b"}", b"\n", b" ", b"99999999999", b"-1", b"["]
            out[at:at] = draw(st.sampled_from(special) | st.binary(min_size=1, max_size=8))
        elif kind == "dup":
            out[at:at] = out[at : at + draw(st.integers(1, 64))]
        elif kind == "cut":
            del out[at:]
    return bytes(out)


def _encode_all(tok: Any) -> None:
    """Encodes and decodes the samples; a refusal must be a ``TokensmithError``."""
    for text in SAMPLES:
        try:
            encoded = tok.encode(text)
        except TokensmithError:
            continue
        ids = encoded if isinstance(encoded, list) else encoded.ids
        tok.decode(ids)


def _load(path: Path) -> None:
    try:
        tok = tokensmith.load(path)
    except TokensmithError:
        return
    _encode_all(tok)


# vocab.json + merges.txt ------------------------------------------------------------------

_GPT2_VOCAB = {chr(c): i for i, c in enumerate(range(ord("!"), ord("~") + 1))}
_MERGES = [("h", "e"), ("l", "l"), ("he", "ll"), ("o", "!")]


def _vocab_merges_files() -> tuple[bytes, bytes]:
    vocab = dict(_GPT2_VOCAB)
    for a, b in _MERGES:
        vocab[a + b] = len(vocab)
    vocab["<|endoftext|>"] = len(vocab)
    merges = "#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in _MERGES)
    return json.dumps(vocab).encode(), merges.encode()


@SETTINGS
@given(st.data())
def test_vocab_merges_gives_a_result_or_a_typed_error(data: st.DataObject) -> None:
    vocab, merges = _vocab_merges_files()
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "vocab.json").write_bytes(data.draw(corrupted(vocab)))
        (Path(tmp) / "merges.txt").write_bytes(data.draw(corrupted(merges)))
        _load(Path(tmp))


# vocab.txt --------------------------------------------------------------------------------


@SETTINGS
@given(st.data())
def test_vocab_txt_gives_a_result_or_a_typed_error(data: st.DataObject) -> None:
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "world", "##s", "##ing", "日", ","]
    text = "".join(t + "\n" for t in tokens).encode()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "vocab.txt"
        path.write_bytes(data.draw(corrupted(text)))
        if data.draw(st.booleans()):
            config = json.dumps({"do_lower_case": data.draw(st.sampled_from([False, 1, None]))})
            (Path(tmp) / "tokenizer_config.json").write_bytes(data.draw(corrupted(config.encode())))
        _load(path)


# Megatron .idx / .bin ---------------------------------------------------------------------


@SETTINGS
@given(st.data())
def test_megatron_index_gives_documents_or_a_typed_error(data: st.DataObject) -> None:
    lengths = np.array(data.draw(st.lists(st.integers(0, 5), max_size=6)), dtype=np.int64)
    dtype = np.dtype(data.draw(st.sampled_from(["uint16", "int32"])))
    tokens = np.arange(int(lengths.sum()), dtype=dtype.newbyteorder("<")).tobytes()
    idx = index_bytes(lengths, dtype)
    if data.draw(st.booleans()):
        # A header that claims other counts than the arrays hold.
        n_seq, n_doc = data.draw(st.integers(0, 2**64 - 1)), data.draw(st.integers(0, 2**64 - 1))
        idx = HEADER.pack(MAGIC, 1, idx[17], n_seq, n_doc) + idx[HEADER.size :]
    with tempfile.TemporaryDirectory() as tmp:
        prefix = Path(tmp) / "shard"
        (Path(tmp) / "shard.idx").write_bytes(data.draw(corrupted(idx)))
        (Path(tmp) / "shard.bin").write_bytes(data.draw(corrupted(tokens)))
        try:
            ds = IndexedDataset(prefix)
            docs = [ds[i] for i in range(len(ds))]
        except TokensmithError:
            return
        # The document indices the reader accepted split the sequences without gaps.
        assert sum(len(d) for d in docs) == ds.num_tokens


def test_a_dataset_without_tokens_reads_back(tmp_path: Path) -> None:
    # Its .bin is empty, which mmap refuses; found by the test above.
    (tmp_path / "shard.idx").write_bytes(index_bytes(np.zeros(2, np.int64), np.dtype("uint16")))
    (tmp_path / "shard.bin").write_bytes(b"")
    ds = IndexedDataset(tmp_path / "shard")
    assert [len(ds[i]) for i in range(len(ds))] == [0, 0] and ds.num_tokens == 0


# Chat templates ---------------------------------------------------------------------------

_FRAGMENTS = [
    "{{ m.content }}",
    "{{ m['role'] }}",
    "{% for m in messages %}",
    "{% endfor %}",
    "{% if add_generation_prompt %}",
    "{% endif %}",
    "{{ messages[0].content | upper }}",
    "{{ 'a' * 1000 }}",
    "{% for i in range(1000) %}{{ i }}{% endfor %}",
    "{{ raise_exception('no') }}",
    "{{ messages[99] }}",
    "{{ 1 / 0 }}",
    "{{ '%d' % 'x' }}",
    "{{ messages | tojson }}",
    "{% set x = namespace(n=0) %}{% set x.n = x.n + 1 %}",
    "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}",
    "{{ ''.__class__ }}",
    "{{ lipsum(2) }}",
    "{{ 10 ** 10 ** 3 }}",
    "{{ (messages | first).content[5:] }}",
    "{{ bos_token }}",
    "{% generation %}x{% endgeneration %}",
    "{{ strftime_now('%Y') }}",
    "{{",
    "}}",
    "{%",
    "\n",
    "text",
]


@SETTINGS
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=8), st.text(max_size=20))
def test_chat_templates_render_or_raise_a_chat_template_error(
    parts: list[str], content: str
) -> None:
    messages = [{"role": "user", "content": content}, {"role": "assistant", "content": "ok"}]
    set_limits(template_render_seconds=2.0, template_loop_iterations=100_000)
    try:
        out = render_chat("".join(parts), messages, add_generation_prompt=True, bos_token="<s>")
    except ChatTemplateError:
        pass
    else:
        assert isinstance(out, str)
    finally:
        set_limits(
            template_render_seconds=DEFAULTS["template_render_seconds"],
            template_loop_iterations=DEFAULTS["template_loop_iterations"],
        )
