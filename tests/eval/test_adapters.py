"""load_tokenizer accepts every documented form, and each adapter agrees with its library."""

from __future__ import annotations

import gzip
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
import tokensmith
import tokensmith.eval as ev
from eval_helpers import (
    DATA,
    FakeSentencePiece,
    hf_byte_fallback,
    hf_byte_level,
    hf_with_unk,
    read_lines,
    toy_encoding,
)
from tokensmith.errors import (
    InputNotFoundError,
    TokensmithError,
    UnknownTokenizerError,
    VocabFormatError,
)
from tokensmith.eval.adapters import IntArray, TokenBatch, TokenizerAdapter
from tokensmith.reference import tiktoken_encoding
from tokensmith.registry import vocab_path

TEXTS = ["hello world", "", "naïve 東京 🙂 12345", "tabs\tand\nnewlines  "]


def test_load_by_name_object_and_adapter() -> None:
    by_name = ev.load_tokenizer("o200k_base")
    assert by_name.name == "o200k_base" and by_name.vocab_size == 200019
    enc = tokensmith.get_encoding("cl100k_base")
    assert ev.load_tokenizer(enc).vocab_size == enc.n_vocab
    assert ev.load_tokenizer(by_name) is by_name
    assert isinstance(by_name, TokenizerAdapter)


def test_tiktoken_object_matches_its_own_encode() -> None:
    ref = tiktoken_encoding("cl100k_base")
    adapter = ev.load_tokenizer(ref)
    batch = adapter.encode_batch(TEXTS)
    for i, text in enumerate(TEXTS):
        got = batch.ids[batch.offsets[i] : batch.offsets[i + 1]].tolist()
        assert got == ref.encode_ordinary(text)
        assert adapter.decode(got) == text


def test_tiktoken_file_path(tmp_path: Path) -> None:
    path = tmp_path / "cl.tiktoken"
    path.write_bytes(gzip.decompress(Path(str(vocab_path("cl100k_base.tiktoken.gz"))).read_bytes()))
    adapter = ev.load_tokenizer(path, pat_str=tokensmith.CL100K_PATTERN)
    assert adapter.name == "cl.tiktoken"
    text = "Loading a file: 12345 ünïcödé"
    assert adapter.encode(text) == tokensmith.get_encoding("cl100k_base").encode_ordinary(text)


def test_token_byte_lengths_match_decode_single_token_bytes() -> None:
    adapter = ev.load_tokenizer("cl100k_base")
    enc = tokensmith.get_encoding("cl100k_base")
    lengths = ev.tokenize(adapter, ["x"]).token_byte_lengths
    for token in [0, 255, 256, 1000, 50000, 100255, 100257]:
        assert lengths[token] == len(enc.decode_single_token_bytes(token))
    assert lengths[100261] == 0  # a hole between the special tokens


def test_hf_byte_level_token_bytes_concatenate_to_the_text(tmp_path: Path) -> None:
    lines = read_lines("multilingual.txt")[:400]
    tok = hf_byte_level(lines)
    adapter = ev.load_tokenizer(tok)
    for text in ["hello world", "naïve 東京 🙂"]:
        ids = tok.encode(text, add_special_tokens=False).ids
        assert b"".join(adapter.token_bytes(i) for i in ids) == text.encode("utf-8")
    # The same tokenizer.json on disk runs on tokensmith's encoder (a GPT-2-style file needs
    # no HF pipeline) and encodes every line the same way.
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    from_file = ev.load_tokenizer(path)
    assert isinstance(from_file, ev.TiktokenLikeAdapter)
    assert [from_file.encode(t) for t in lines] == [e.ids for e in tok.encode_batch(lines)]


def test_byte_level_tokenizer_json_runs_on_tokensmith_with_hf_ids(tmp_path: Path) -> None:
    from tokenizers import Tokenizer

    lines = read_lines("multilingual.txt")
    path = tmp_path / "trained.json"
    tokensmith.train_bpe(lines[:2000], vocab_size=1500).save(path)
    adapter = ev.load_tokenizer(path)
    assert isinstance(adapter, ev.TiktokenLikeAdapter)
    hf = Tokenizer.from_file(str(path))
    sample = lines[2000:2400]
    assert [adapter.encode(t) for t in sample] == [e.ids for e in hf.encode_batch(sample)]


def test_hf_unknown_and_byte_fallback_ids() -> None:
    unk = ev.load_tokenizer(hf_with_unk(read_lines("multilingual.txt")[:100]))
    assert unk.unknown_ids().tolist() == [0]
    assert unk.byte_fallback_ids().size == 0
    fallback = ev.load_tokenizer(hf_byte_fallback())
    assert fallback.byte_fallback_ids().tolist() == list(range(256))
    assert fallback.token_bytes(0x63) == b"c" and fallback.token_bytes(258) == b"ab"
    assert fallback.unknown_ids().size == 0


def test_sentencepiece_object_through_the_adapter() -> None:
    adapter = ev.load_tokenizer(FakeSentencePiece())
    assert isinstance(adapter, ev.SentencePieceAdapter)
    assert adapter.vocab_size == 259
    assert adapter.unknown_ids().tolist() == [0]
    assert adapter.byte_fallback_ids().tolist() == list(range(1, 257))
    assert adapter.token_bytes(257) == b" hello" and adapter.token_bytes(1 + 0x41) == b"A"
    batch = adapter.encode_batch(["hello world", "hello zz"])
    # "▁zz" is spelled with the bytes of "▁" (3) and "zz" (2).
    assert batch.lengths().tolist() == [2, 6]
    assert batch.starts is not None and batch.span_unit == "byte"
    assert adapter.decode(adapter.encode("hello world")) == "hello world"


def test_model_files_load_with_tokensmith_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sentencepiece as spm

    prefix = tmp_path / "m"
    spm.SentencePieceTrainer.train(
        input=str(DATA / "multilingual.txt"),
        model_prefix=str(prefix),
        vocab_size=3000,
        minloglevel=2,
    )
    reference = spm.SentencePieceProcessor(model_file=f"{prefix}.model")
    lines = [line.strip() for line in read_lines("multilingual.txt")[:200]]
    monkeypatch.setitem(sys.modules, "sentencepiece", None)  # as if not installed
    adapter = ev.load_tokenizer(f"{prefix}.model")
    assert isinstance(adapter, ev.SentencePieceAdapter)
    assert adapter.vocab_size == reference.get_piece_size()
    assert [adapter.encode(t) for t in lines] == reference.encode(lines)
    lengths = adapter.encode_batch(lines).lengths().tolist()
    assert lengths == [len(ids) for ids in reference.encode(lines)]
    broken = tmp_path / "broken.model"
    broken.write_bytes(b"\x0a\xff\xff")
    with pytest.raises(TokensmithError, match="broken.model"):
        ev.load_tokenizer(broken)


def test_bad_specs_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(UnknownTokenizerError, match="o200k_base") as e:
        ev.load_tokenizer("o300k_base")
    assert isinstance(e.value, ValueError)
    with pytest.raises(InputNotFoundError, match="nope.json"):
        ev.load_tokenizer(tmp_path / "nope.json")
    odd = tmp_path / "vocab.bin"
    odd.write_bytes(b"")
    with pytest.raises(VocabFormatError, match="vocab.bin: the file is empty"):
        ev.load_tokenizer(odd)
    with pytest.raises(UnknownTokenizerError, match="int"):
        ev.load_tokenizer(42)


def test_custom_adapter_is_accepted_as_is() -> None:
    class Letters:
        """One token per character of a-z; everything else is id 26."""

        name = "letters"
        vocab_size = 27

        def encode(self, text: str) -> list[int]:
            return [ord(c) - 97 if "a" <= c <= "z" else 26 for c in text]

        def encode_batch(self, texts: Sequence[str]) -> TokenBatch:
            return ev.adapters.flatten([self.encode(t) for t in texts])

        def decode(self, ids: Sequence[int]) -> str:
            return "".join(chr(97 + i) if i < 26 else "?" for i in ids)

        def token_bytes(self, token_id: int) -> bytes:
            return bytes([97 + token_id]) if token_id < 26 else b"?"

        def unknown_ids(self) -> IntArray:
            return np.array([26], dtype=np.int64)

        def byte_fallback_ids(self) -> IntArray:
            return np.zeros(0, dtype=np.int64)

    m = ev.evaluate(Letters(), ["abc de", "x!"])
    assert m["bytes_per_token"] == 1.0
    assert m["unk_rate"] == pytest.approx(2 / 8)  # the space and "!"
    assert m["round_trip_rate"] == 0.0


def test_toy_encoding_splits_as_designed() -> None:
    enc = toy_encoding()
    pieces = [enc.decode_single_token_bytes(t) for t in enc.encode_ordinary("hello world")]
    assert pieces == [b"hello", b" world"]


def test_other_tokenizer_json_runs_on_tokensmith_tokenizer_with_hf_ids(tmp_path: Path) -> None:
    """A non-byte-level file (character BPE, Whitespace, [UNK]) runs on tokensmith.Tokenizer,
    and every metric input (ids, spans, token bytes) equals what the HF adapter gives."""
    lines = read_lines("multilingual.txt")
    hf = hf_with_unk(lines[:300])
    path = tmp_path / "char.json"
    hf.save(str(path))
    ours = ev.load_tokenizer(path)
    assert isinstance(ours, ev.HFTokenizerAdapter)
    assert isinstance(ours.tokenizer, tokensmith.Tokenizer)
    theirs = ev.load_tokenizer(hf)
    sample = lines[300:700]
    a, b = ours.encode_batch(sample), theirs.encode_batch(sample)
    assert a.ids.tolist() == b.ids.tolist() and a.offsets.tolist() == b.offsets.tolist()
    assert a.starts.tolist() == b.starts.tolist() and a.ends.tolist() == b.ends.tolist()
    assert ours.vocab_size == theirs.vocab_size
    assert ours.unknown_ids().tolist() == theirs.unknown_ids().tolist() == [0]
    some_ids = sorted(set(a.ids.tolist()))[:50]
    assert [ours.token_bytes(i) for i in some_ids] == [theirs.token_bytes(i) for i in some_ids]
    assert ours.decode(a.ids[:20].tolist()) == theirs.decode(a.ids[:20].tolist())


def test_tokenizer_json_runs_in_eval_as_in_tokensmith_up_to_its_error(tmp_path: Path) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers

    # A BPE model whose unknown token is not in its vocabulary: HF and tokensmith run it until
    # an unknown character comes, then fail. Evaluation loads through tokensmith's loader, so
    # it gives the same ids and the same typed error rather than silently measuring HF.
    vocab = {"h": 0, "e": 1, "he": 2}
    hf = Tokenizer(models.BPE(vocab, [("h", "e")], unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    path = tmp_path / "no_unk.json"
    hf.save(str(path))
    assert Tokenizer.from_file(str(path)).encode("he eh").ids == [2, 1, 0]
    with pytest.raises(Exception, match="UNK"):
        Tokenizer.from_file(str(path)).encode("hx")
    adapter = ev.load_tokenizer(path)
    assert isinstance(adapter, ev.HFTokenizerAdapter)
    assert isinstance(adapter.tokenizer, tokensmith.Tokenizer)
    assert adapter.encode_batch(["he eh"]).ids.tolist() == [2, 1, 0]
    with pytest.raises(TokensmithError, match="unk_token"):
        tokensmith.Tokenizer.from_file(path).encode("hx")
    with pytest.raises(TokensmithError, match="unk_token"):
        adapter.encode_batch(["hx"])
