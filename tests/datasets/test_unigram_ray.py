"""``train_unigram(..., engine="ray")`` on a real local Ray cluster: the workers read and
count, the merge tasks sum, the EM runs here, and the model is the local one, byte for byte."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import tokensmith
import tokensmith.train.unigram_ray as unigram_ray
from datasets_helpers import MULTILINGUAL
from tokensmith.cli import app
from tokensmith.corpus import Corpus
from tokensmith.errors import CorruptInputError, InvalidTrainerOptionError
from typer.testing import CliRunner

VOCAB = 3000


def _raw_lines() -> list[str]:
    return MULTILINGUAL.read_text(encoding="utf-8").splitlines(keepends=True)


def _files(d: Path) -> list[Path]:
    """The committed text as a gzipped text file and a JSONL file, in two halves."""
    texts = _raw_lines()
    half = len(texts) // 2
    (d / "a.txt.gz").write_bytes(gzip.compress("".join(texts[:half]).encode("utf-8")))
    rows = "".join(json.dumps({"text": t}) + "\n" for t in texts[half:])
    (d / "b.jsonl").write_text(rows, encoding="utf-8")
    return [d / "a.txt.gz", d / "b.jsonl"]


def test_ray_training_from_files_gives_the_local_model(
    ray_cluster, tmp_path: Path, monkeypatch
) -> None:
    # Small batches: several count tasks per file and two levels of merge tasks.
    monkeypatch.setattr(unigram_ray, "BATCH_ROWS", 150)
    files = _files(tmp_path)
    options = dict(vocab_size=VOCAB, user_defined_symbols=["<sep>"], byte_fallback=True)
    local = tokensmith.train_unigram(files=files, **options)

    def no_reading(self):
        raise AssertionError("the driver read the corpus")

    monkeypatch.setattr(Corpus, "__iter__", no_reading)
    seen: list[int] = []
    corpus = Corpus(files, on_progress=seen.append)
    remote = tokensmith.train_unigram(files=corpus, engine="ray", **options)
    assert remote.serialized_model_proto() == local.serialized_model_proto()
    assert remote.piece_size() == VOCAB
    # What the workers read reaches the corpus' statistics and progress callback.
    assert (corpus.stats.files, corpus.stats.lines) == (2, len(_raw_lines()))
    assert seen == [corpus.total_bytes]


@pytest.mark.parametrize("rule", ["nmt_nfkc", "nfkc_cf", "identity"])
def test_ray_training_from_texts_gives_the_local_model(
    ray_cluster, tmp_path: Path, monkeypatch, rule: str
) -> None:
    """The workers count under the same normalization rule as local training."""
    monkeypatch.setattr(unigram_ray, "CHUNK_TEXTS", 100)
    texts = _raw_lines()
    options = {"vocab_size": VOCAB, "normalization_rule_name": rule}
    local = tokensmith.train_unigram(texts, **options)  # type: ignore[arg-type]
    remote = tokensmith.train_unigram(iter(texts), engine="ray", **options)  # type: ignore[arg-type]
    pieces = [(local.id_to_piece(i), local.get_score(i)) for i in range(VOCAB)]
    assert [(remote.id_to_piece(i), remote.get_score(i)) for i in range(VOCAB)] == pieces
    assert remote.serialized_model_proto() == local.serialized_model_proto()


def test_the_cli_trains_on_ray_to_the_same_model(ray_cluster, tmp_path: Path) -> None:
    models, counted = {}, {}
    for engine in ("local", "ray"):
        out = tmp_path / f"{engine}.model"
        args = ["train", "unigram", str(MULTILINGUAL), "-v", str(VOCAB), "-o", str(out), "--json"]
        result = CliRunner().invoke(app, [*args, "--engine", engine])
        assert result.exit_code == 0, result.output
        summary = json.loads(result.stdout)
        assert summary["lines"] == len(_raw_lines()) and summary["files"] == 1
        models[engine] = out.read_bytes()
        counted[engine] = (summary["counted.sentences"], summary["counted.words"])
    assert models["ray"] == models["local"]
    assert counted["ray"] == counted["local"] and counted["ray"][0] > 1000


def test_ray_training_errors_are_the_local_ones(ray_cluster, tmp_path: Path) -> None:
    data = gzip.compress(MULTILINGUAL.read_bytes())
    (tmp_path / "bad.txt.gz").write_bytes(data[: len(data) // 2])
    messages = []
    for engine in ("local", "ray"):
        with pytest.raises(CorruptInputError) as info:
            tokensmith.train_unigram(files=tmp_path / "bad.txt.gz", vocab_size=VOCAB, engine=engine)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    with pytest.raises(InvalidTrainerOptionError, match="input_sentence_size"):
        tokensmith.train_unigram(
            _raw_lines(), vocab_size=VOCAB, engine="ray", input_sentence_size=10
        )
    with pytest.raises(InvalidTrainerOptionError, match="input_format"):
        tokensmith.train_unigram(["a\t3"], vocab_size=VOCAB, engine="ray", input_format="tsv")
    with pytest.raises(InvalidTrainerOptionError, match="engine"):
        tokensmith.train_unigram(_raw_lines(), vocab_size=VOCAB, engine="spark")  # type: ignore[arg-type]
