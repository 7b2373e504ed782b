"""The Ray engine on a real local cluster (Ray Data reads the inputs on the workers) writes the
same bytes as the local engine, for every input kind, raises the same errors, and resumes."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import tokensmith
from datasets_helpers import MULTILINGUAL, lines, shard_bytes
from tokensmith.datasets import IndexedDataset, encode, encode_dataset
from tokensmith.errors import CorruptInputError, DatasetRecordError, UnsupportedFeatureError

OPTIONS = dict(tokenizer="o200k_base", append_eos=True, shard_size=20_000, progress=False)


def _inputs(kind: str, d: Path) -> list[Path]:
    """The committed text as ``kind`` input files (several files for "mixed")."""
    docs = lines()
    half = len(docs) // 2
    if kind == "txt":
        (d / "a.txt").write_text(MULTILINGUAL.read_text(encoding="utf-8"), encoding="utf-8")
        return [d / "a.txt"]
    if kind == "gz":
        (d / "a.txt.gz").write_bytes(gzip.compress(MULTILINGUAL.read_bytes()))
        return [d / "a.txt.gz"]
    if kind == "jsonl":
        body = "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(docs))
        (d / "a.jsonl.gz").write_bytes(gzip.compress(body.encode("utf-8")))
        return [d / "a.jsonl.gz"]
    if kind == "parquet":
        pq.write_table(pa.table({"text": docs}), d / "a.parquet", row_group_size=500)
        return [d / "a.parquet"]
    # mixed: three files of three kinds, read in the order given
    (d / "1.txt").write_text("\n".join(docs[:half]) + "\n", encoding="utf-8")
    pq.write_table(pa.table({"text": docs[half : half + 300]}), d / "2.parquet")
    rest = "".join(json.dumps({"text": t}) + "\n" for t in docs[half + 300 :])
    (d / "3.jsonl").write_text(rest, encoding="utf-8")
    return [d / "1.txt", d / "2.parquet", d / "3.jsonl"]


@pytest.mark.parametrize("kind", ["txt", "gz", "jsonl", "parquet", "mixed"])
def test_ray_shards_are_byte_identical_to_local(ray_cluster, tmp_path: Path, kind: str) -> None:
    inputs = _inputs(kind, tmp_path)
    runs = {}
    for name, extra in [("w1", {"workers": 1}), ("w2", {"workers": 2}), ("ray", {"engine": "ray"})]:
        runs[name] = encode_dataset(inputs, out_dir=tmp_path / name, **OPTIONS, **extra)
    local = runs["w1"]
    assert local.shards > 1 and local.documents == len(lines())
    for name in ("w2", "ray"):
        assert (runs[name].tokens, runs[name].shards) == (local.tokens, local.shards)
        assert runs[name].text_bytes == local.text_bytes
        assert shard_bytes(tmp_path / name) == shard_bytes(tmp_path / "w1")
    manifest = json.loads((tmp_path / "ray" / "manifest.json").read_text())
    assert "engine" not in manifest["job"], "the engine must not change the job's identity"


def test_ray_engine_with_a_custom_encoding(ray_cluster, tmp_path: Path) -> None:
    # Not bundled: the encoding travels to the workers by its ranks.
    enc = tokensmith.train_bpe(lines(), vocab_size=600)
    encode_dataset(
        [MULTILINGUAL], tokenizer=enc, out_dir=tmp_path / "r", engine="ray", progress=False
    )
    ds = IndexedDataset(str(sorted((tmp_path / "r").glob("*.idx"))[0].with_suffix("")))
    assert ds[0].tolist() == enc.encode_ordinary(lines()[0])


def test_the_driver_reads_no_input(ray_cluster, tmp_path: Path, monkeypatch) -> None:
    def no_reading(*args, **kwargs):
        raise AssertionError("the driver read an input")

    # The workers are other processes: only this one's readers are replaced.
    monkeypatch.setattr(encode, "read_documents", no_reading)
    s = encode_dataset([MULTILINGUAL], out_dir=tmp_path / "r", engine="ray", **OPTIONS)
    assert s.documents == len(lines())


def _error(tmp_path: Path, inputs: list[Path], **kwargs) -> dict[str, Exception]:
    """The exception each engine raises on ``inputs``."""
    raised = {}
    for engine in ("local", "ray"):
        with pytest.raises(Exception) as info:
            encode_dataset(inputs, out_dir=tmp_path / engine, engine=engine, **OPTIONS, **kwargs)
        raised[engine] = info.value
    return raised


def test_a_corrupt_gzip_raises_the_local_error(ray_cluster, tmp_path: Path) -> None:
    data = gzip.compress(MULTILINGUAL.read_bytes())
    (tmp_path / "bad.txt.gz").write_bytes(data[: len(data) // 2])
    raised = _error(tmp_path, [tmp_path / "bad.txt.gz"])
    assert type(raised["ray"]) is CorruptInputError
    assert str(raised["ray"]) == str(raised["local"])


@pytest.mark.parametrize(
    "line, field", [('{"body": "x"}', "text"), ('{"text": 7}', "text"), ('{"text": "a"}', "body")]
)
def test_bad_records_raise_the_local_error_with_file_and_line(
    ray_cluster, tmp_path: Path, line: str, field: str
) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "a", "body": "b"}\n' * 3 + line + "\n", encoding="utf-8")
    raised = _error(tmp_path, [path], text_field=field)
    assert type(raised["ray"]) is DatasetRecordError
    assert str(raised["ray"]) == str(raised["local"])
    assert (raised["ray"].path, raised["ray"].line) == (str(path), 4)


def test_a_missing_parquet_column_raises_the_local_error(ray_cluster, tmp_path: Path) -> None:
    pq.write_table(pa.table({"body": ["x", "y"]}), tmp_path / "c.parquet")
    raised = _error(tmp_path, [tmp_path / "c.parquet"])
    assert type(raised["ray"]) is DatasetRecordError
    assert str(raised["ray"]) == str(raised["local"])


def test_skipped_records_are_counted_as_locally(ray_cluster, tmp_path: Path) -> None:
    body = "".join(
        json.dumps({"text": t} if i % 97 else {"text": None}) + "\n" for i, t in enumerate(lines())
    )
    (tmp_path / "c.jsonl").write_text(body + "not json\n", encoding="utf-8")
    runs = {
        engine: encode_dataset(
            [tmp_path / "c.jsonl"],
            out_dir=tmp_path / engine,
            engine=engine,
            on_error="skip",
            **OPTIONS,
        )  # fmt: skip
        for engine in ("local", "ray")
    }
    assert runs["local"].skipped_records == len(range(0, len(lines()), 97)) + 1
    assert runs["ray"].skipped_records == runs["local"].skipped_records
    assert runs["ray"].first_skipped == runs["local"].first_skipped
    assert shard_bytes(tmp_path / "ray") == shard_bytes(tmp_path / "local")


def test_an_interrupted_ray_run_resumes_to_identical_bytes(
    ray_cluster, tmp_path: Path, monkeypatch
) -> None:
    inputs = _inputs("jsonl", tmp_path)
    clean = encode_dataset(inputs, out_dir=tmp_path / "clean", **OPTIONS)
    real = encode._finish_shard
    calls: list[int] = []

    def crash_after_two(*args, **kw):
        if len(calls) == 2:
            raise KeyboardInterrupt("simulated crash")
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(encode, "_finish_shard", crash_after_two)
    out = tmp_path / "resumed"
    with pytest.raises(KeyboardInterrupt):
        encode_dataset(inputs, out_dir=out, engine="ray", **OPTIONS)
    assert len(json.loads((out / "manifest.json").read_text())["shards"]) == 2
    monkeypatch.setattr(encode, "_finish_shard", real)
    s = encode_dataset(inputs, out_dir=out, engine="ray", **OPTIONS)
    assert s.resumed_shards == 2 and (s.shards, s.tokens) == (clean.shards, clean.tokens)
    assert shard_bytes(out) == shard_bytes(tmp_path / "clean")


def test_an_hf_dataset_is_refused_with_a_way_out(tmp_path: Path) -> None:
    import datasets

    ds = datasets.Dataset.from_dict({"text": ["a", "b"]})
    with pytest.raises(UnsupportedFeatureError, match="to_parquet"):
        encode_dataset(ds, out_dir=tmp_path / "r", engine="ray", **OPTIONS)


@pytest.mark.parametrize("text_mode", ["line", "file"])
def test_replaced_utf8_and_whole_files_as_locally(ray_cluster, tmp_path: Path, text_mode) -> None:
    paths = []
    for i, chunk in enumerate([lines()[:400], lines()[400:900], lines()[900:]]):
        raw = "\n".join(chunk).encode("utf-8")
        cut = raw.index(b"\n", 5000)  # between characters
        paths.append(tmp_path / f"{i}.txt")
        paths[-1].write_bytes(raw[:cut] + b"\xff\xfe" + raw[cut:] + b"\n\xc3\n")
    runs = {
        engine: encode_dataset(
            paths,
            out_dir=tmp_path / engine,
            engine=engine,
            errors="replace",
            text_mode=text_mode,
            **OPTIONS,
        )  # fmt: skip
        for engine in ("local", "ray")
    }
    assert "\ufffd" not in "".join(lines())
    decoded = [p.read_bytes().decode("utf-8", "replace") for p in paths]
    assert runs["local"].replaced_utf8 == sum(d.count("\ufffd") for d in decoded) == 9
    assert runs["local"].documents == (3 if text_mode == "file" else len(lines()) + 3)
    for key in ("replaced_utf8", "documents", "tokens", "shards", "text_bytes"):
        assert getattr(runs["ray"], key) == getattr(runs["local"], key), key
    assert shard_bytes(tmp_path / "ray") == shard_bytes(tmp_path / "local")
