"""Fingerprints are equal across the formats of one tokenizer and change with one merge, one
normalizer flag or one special id; ``diff`` names the difference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tokensmith
from tokensmith.cli import app
from tokensmith.conversion.fingerprint import diff, fingerprint
from tokensmith.conversion.probes import probe_texts
from typer.testing import CliRunner


@pytest.fixture(scope="module")
def trained(multilingual_lines: list[str]) -> tokensmith.Encoding:
    return tokensmith.train_bpe(
        multilingual_lines[:2000], vocab_size=1200, special_tokens=["<|a|>", "<|b|>"], name="t"
    )


def test_equal_across_formats(trained: tokensmith.Encoding, tmp_path: Path) -> None:
    for out in ("t.tiktoken", "tokenizer.json", "vm"):
        tokensmith.save(trained, tmp_path / out)
    prints = {
        fingerprint(trained),
        fingerprint(tmp_path / "t.tiktoken"),
        fingerprint(tmp_path / "tokenizer.json"),
        fingerprint(tokensmith.Tokenizer.from_file(tmp_path / "tokenizer.json")),
        fingerprint(tmp_path / "vm"),
    }
    assert len(prints) == 1
    tokensmith.save(tokensmith.get_encoding("cl100k_base"), tmp_path / "cl.json")
    assert fingerprint("cl100k_base") == fingerprint(
        tokensmith.Tokenizer.from_file(tmp_path / "cl.json")
    )


def test_equal_for_a_model_and_its_tokenizer_json(
    tmp_path: Path, multilingual_lines: list[str]
) -> None:
    """A ``.model`` marks <s>, </s> and its control pieces; the converted tokenizer.json
    holds them as plain vocabulary with the same ids: one fingerprint, and HF's ids (the
    real library) on the probe set equal sentencepiece's, so the canonical form is shared."""
    import sentencepiece
    from tokenizers import Tokenizer as HfTokenizer

    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(multilingual_lines), model_prefix=str(tmp_path / "m"),
        vocab_size=3000, model_type="bpe", byte_fallback=True, control_symbols=["<ctl>"],
        minloglevel=2,
    )  # fmt: skip
    model = tmp_path / "m.model"
    tokensmith.convert(model, tmp_path / "tokenizer.json")
    sp = sentencepiece.SentencePieceProcessor(model_file=str(model))
    hf = HfTokenizer.from_file(str(tmp_path / "tokenizer.json"))
    probes = probe_texts(["<s>", "</s>", "<unk>", "<ctl>"])
    assert [sp.encode(t) for t in probes] == [hf.encode(t).ids for t in probes]
    assert fingerprint(model) == fingerprint(tmp_path / "tokenizer.json")
    assert fingerprint(model) == fingerprint(sp)


def test_equal_for_vocab_txt_and_its_tokenizer_json(tmp_path: Path) -> None:
    tok = tokensmith.train_wordpiece(["Low lower lowest, newer Ünïcödé!"] * 20, vocab_size=60)
    tokensmith.convert(tok, tmp_path / "vocab.txt")
    tokensmith.convert(tmp_path / "vocab.txt", tmp_path / "tokenizer.json")
    assert fingerprint(tmp_path / "vocab.txt") == fingerprint(tmp_path / "tokenizer.json")


def _edited(trained: tokensmith.Encoding, tmp_path: Path, name: str, edit) -> Path:
    tokensmith.save(trained, tmp_path / "base.json", overwrite=True)
    doc = json.loads((tmp_path / "base.json").read_text(encoding="utf-8"))
    edit(doc)
    path = tmp_path / name
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def test_one_merge_or_one_special_id_changes_it(
    trained: tokensmith.Encoding, tmp_path: Path
) -> None:
    base = fingerprint(trained)

    def drop_merge(doc: dict) -> None:
        del doc["model"]["merges"][len(doc["model"]["merges"]) // 2]

    def renumber(doc: dict) -> None:
        token = doc["added_tokens"][1]
        del doc["model"]["vocab"][token["content"]]
        token["id"] = len(doc["model"]["vocab"]) + 1  # what HF gives a token not in the vocab
        doc["model"]["vocab"][token["content"]] = token["id"]

    fewer = _edited(trained, tmp_path, "fewer.json", drop_merge)
    moved = _edited(trained, tmp_path, "moved.json", renumber)
    assert fingerprint(fewer) != base
    assert fingerprint(moved) != base
    found = diff(trained, moved)
    assert not found["same"] and found["special_token_differences"]


def test_a_normalizer_flag_changes_it(tmp_path: Path) -> None:
    tok = tokensmith.train_wordpiece(["Low lower lowest, newer Ünïcödé!"] * 20, vocab_size=60)
    doc = json.loads(tok.to_str())
    doc["normalizer"]["lowercase"] = not doc["normalizer"]["lowercase"]
    other = tokensmith.Tokenizer.from_str(json.dumps(doc))
    assert fingerprint(tok) != fingerprint(other)
    lowercase = doc["normalizer"]["lowercase"]
    assert diff(tok, other)["normalizer"] == [
        {"field": "normalizer.lowercase", "a": not lowercase, "b": lowercase}
    ]
    assert diff(tok, tok)["normalizer"] == []


def test_diff_lists_merges_removed_added_and_reordered(
    trained: tokensmith.Encoding, tmp_path: Path
) -> None:
    tokensmith.save(trained, tmp_path / "base.json")
    merges = json.loads((tmp_path / "base.json").read_text(encoding="utf-8"))["model"]["merges"]
    text = [m if isinstance(m, str) else " ".join(m) for m in merges]

    def edit(doc: dict) -> None:
        listed = doc["model"]["merges"]
        gone = listed.pop(300)
        listed[10], listed[11] = listed[11], listed[10]  # one of the two moved
        listed.insert(500, gone)  # re-added later: moved, not removed
        del listed[700]  # the first 700 are back in place: this is merge 700
        left, right = text[0].split(" ")
        doc["model"]["vocab"][(left + right) * 2] = max(doc["model"]["vocab"].values()) + 1
        listed.append([left + right, left + right] if isinstance(listed[0], list) else
                      f"{left + right} {left + right}")  # fmt: skip

    found = diff(tmp_path / "base.json", _edited(trained, tmp_path, "v.json", edit))["merges"]
    assert found["removed"] == [{"rank": 700, "merge": text[700]}]
    joined = text[0].replace(" ", "")
    assert found["added"] == [{"rank": len(text) - 1, "merge": f"{joined} {joined}"}]
    moved = {m["merge"]: (m["rank_a"], m["rank_b"]) for m in found["reordered"]}
    assert len(moved) == 2 and moved[text[300]] == (300, 500)
    assert moved.get(text[10]) == (10, 11) or moved.get(text[11]) == (11, 10)
    assert diff(trained, tmp_path / "base.json")["merges"] is None


def test_diff_names_normalizer_fields(tmp_path: Path) -> None:
    """Hand-made variants: one step added to a Sequence, and a .model's dummy prefix."""
    tok = tokensmith.train_wordpiece(["Low lower lowest, newer Ünïcödé!"] * 20, vocab_size=60)
    doc = json.loads(tok.to_str())
    doc["normalizer"] = {"type": "Sequence", "normalizers": [{"type": "NFC"}]}
    one = tokensmith.Tokenizer.from_str(json.dumps(doc))
    doc["normalizer"]["normalizers"].append({"type": "Lowercase"})
    two = tokensmith.Tokenizer.from_str(json.dumps(doc))
    assert diff(one, two)["normalizer"] == [
        {"field": "normalizer.normalizers[1].type", "a": None, "b": "Lowercase"}
    ]
    pieces = [("<unk>", 0.0, "unknown"), ("\u2581a", -1.0, "normal"), ("a", -2.0, "normal")]
    models = [
        tokensmith.SentencePieceProcessor.from_pieces(pieces, add_dummy_prefix=flag)
        for flag in (True, False)
    ]
    assert diff(*models)["normalizer"] == [
        {"field": "normalizer.add_dummy_prefix", "a": True, "b": False}
    ]


def test_cli_fingerprint_and_diff(trained: tokensmith.Encoding, tmp_path: Path) -> None:
    tokensmith.save(trained, tmp_path / "a.json")
    tokensmith.save(trained, tmp_path / "a.tiktoken")
    runner = CliRunner()
    one = runner.invoke(app, ["fingerprint", str(tmp_path / "a.json"), "--json"])
    two = runner.invoke(app, ["fingerprint", str(tmp_path / "a.tiktoken")])
    assert one.exit_code == two.exit_code == 0, one.output + two.output
    assert json.loads(one.stdout)["fingerprint"] == two.stdout.strip()
    same = runner.invoke(app, ["diff", str(tmp_path / "a.json"), str(tmp_path / "a.tiktoken")])
    assert same.exit_code == 0 and "same behaviour" in same.stdout
    other = runner.invoke(app, ["diff", str(tmp_path / "a.json"), "cl100k_base", "--json"])
    assert other.exit_code == 1 and json.loads(other.stdout)["same"] is False


def test_the_users_files_join_the_digest(
    trained: tokensmith.Encoding, tmp_path: Path, multilingual_lines: list[str]
) -> None:
    """Ids on the user's own files are hashed too: the digest with a file differs from the
    one without it, and is equal across formats and in the CLI (``--file``)."""
    tokensmith.save(trained, tmp_path / "t.json")
    text = tmp_path / "own.txt"
    text.write_text("".join(multilingual_lines[:50]), encoding="utf-8")
    with_file = fingerprint(trained, files=[text])
    assert with_file == fingerprint(tmp_path / "t.json", files=[text])
    assert with_file != fingerprint(trained)
    runner = CliRunner()
    cli = runner.invoke(app, ["fingerprint", str(tmp_path / "t.json"), "--file", str(text)])
    assert cli.exit_code == 0, cli.output
    assert cli.stdout.strip() == with_file
