"""One reader for training and encode-dataset: Parquet and HF ``datasets`` objects feed both,
and bad records, bad bytes and bad compression get the same errors in both."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import tokensmith
from datasets_helpers import MULTILINGUAL, byte_encoding, lines, shard_bytes
from tokensmith.corpus import Corpus
from tokensmith.datasets import IndexedDataset, encode_dataset, read_documents
from tokensmith.errors import CorpusFormatError, CorruptInputError, DatasetRecordError


def _raw_lines() -> list[str]:
    return MULTILINGUAL.read_text(encoding="utf-8").splitlines(keepends=True)


def _parquet(path: Path, column: list[object], name: str = "text") -> Path:
    table = pa.table({name: column, "id": list(range(len(column)))})
    pq.write_table(table, path, row_group_size=700)  # several row groups and batches
    return path


def test_training_reads_parquet_like_the_same_texts(tmp_path: Path) -> None:
    texts = _raw_lines()
    src = _parquet(tmp_path / "c.parquet", texts)
    assert list(Corpus(src)) == texts
    from_parquet = tokensmith.train_bpe(files=src, vocab_size=700)
    from_texts = tokensmith.train_bpe(texts, vocab_size=700)
    assert from_parquet._bpe_merges == from_texts._bpe_merges


def test_training_reads_hf_datasets_by_column(tmp_path: Path) -> None:
    texts = _raw_lines()
    ds = datasets.Dataset.from_dict({"body": texts, "n": list(range(len(texts)))})
    expected = tokensmith.train_bpe(texts, vocab_size=700)._bpe_merges
    assert tokensmith.train_bpe(files=ds, field="body", vocab_size=700)._bpe_merges == expected
    streamed = ds.to_iterable_dataset(num_shards=3)
    assert list(Corpus(streamed, field="body")) == texts
    assert (
        tokensmith.train_bpe(files=streamed, field="body", vocab_size=700)._bpe_merges == expected
    )


def test_encode_dataset_from_hf_datasets_equals_the_text_file(tmp_path: Path) -> None:
    docs = lines()
    ds = datasets.Dataset.from_dict({"text": docs})
    options = dict(tokenizer=byte_encoding(), format="megatron", append_eos=True,
                   shard_size=50_000, progress=False)  # fmt: skip
    from_file = encode_dataset([MULTILINGUAL], out_dir=tmp_path / "f", **options)
    from_ds = encode_dataset(ds, out_dir=tmp_path / "d", **options)
    from_iter = encode_dataset(ds.to_iterable_dataset(), out_dir=tmp_path / "i", **options)
    assert from_file.shards > 1 and from_ds.documents == from_iter.documents == len(docs)
    assert shard_bytes(tmp_path / "f") == shard_bytes(tmp_path / "d") == shard_bytes(tmp_path / "i")
    manifest = json.loads((tmp_path / "d" / "manifest.json").read_text())
    assert manifest["job"]["inputs"][0]["rows"] == len(docs)
    first = IndexedDataset(str(tmp_path / "d" / "shard_00000"))[0].tolist()
    assert first == byte_encoding().encode_ordinary(docs[0]) + [256]


def test_hf_dataset_missing_column_and_non_text_rows(tmp_path: Path) -> None:
    ds = datasets.Dataset.from_dict({"body": ["a", "b"]})
    with pytest.raises(DatasetRecordError, match=r"no column 'text' \(columns: body\)"):
        list(read_documents([ds]))
    with pytest.raises(DatasetRecordError, match="no column 'text'"):
        tokensmith.train_bpe(files=ds, vocab_size=300)
    mixed = datasets.Dataset.from_dict({"text": ["one", None, "three"]})
    with pytest.raises(DatasetRecordError, match=r"Dataset\(.*\):2: column 'text' holds a null"):
        list(read_documents([mixed]))
    s = encode_dataset(mixed, tokenizer="cl100k_base", out_dir=tmp_path / "o", format="npy",
                       on_error="skip", progress=False)  # fmt: skip
    assert (s.documents, s.skipped_records) == (2, 1)
    assert list(Corpus(mixed)) == ["one", "three"], "training passes over nulls"


def test_parquet_missing_column_and_non_text_value(tmp_path: Path) -> None:
    src = _parquet(tmp_path / "p.parquet", ["x", "y"], name="body")
    with pytest.raises(DatasetRecordError, match=r"p\.parquet: no column 'text'"):
        list(Corpus(src))
    ints = _parquet(tmp_path / "i.parquet", [1, 2])
    with pytest.raises(DatasetRecordError, match=r"i\.parquet:1: column 'text' holds a int"):
        list(read_documents([ints]))


def test_non_text_jsonl_value_is_skipped_or_fatal_in_training_too(tmp_path: Path) -> None:
    src = tmp_path / "c.jsonl"
    src.write_text('{"text": "abc"}\n{"text": [1]}\n{"text": "abd"}\n', encoding="utf-8")
    with pytest.raises(DatasetRecordError, match=r"c\.jsonl:2: field 'text' holds a list") as e:
        tokensmith.train_bpe(files=src, vocab_size=300)
    assert isinstance(e.value, CorpusFormatError) and e.value.line == 2
    corpus = Corpus(src, on_error="skip")
    assert list(corpus) == ["abc", "abd"] and corpus.stats.skipped == 1


def test_corrupt_gzip_is_the_same_error_for_both(tmp_path: Path) -> None:
    bad = tmp_path / "cut.txt.gz"
    bad.write_bytes(gzip.compress(b"hello world\n" * 1000)[:-40])
    with pytest.raises(CorruptInputError, match=r"cut\.txt\.gz: read failed"):
        list(Corpus(bad))
    with pytest.raises(CorruptInputError, match=r"cut\.txt\.gz: read failed"):
        list(read_documents([bad]))
    not_gzip = tmp_path / "plain.txt.gz"
    not_gzip.write_bytes(b"this is not gzip\n")
    with pytest.raises(CorruptInputError, match="plain.txt.gz"):
        list(Corpus(not_gzip))


def test_invalid_utf8_in_encode_dataset_strict_or_replaced(tmp_path: Path) -> None:
    src = tmp_path / "bad.txt"
    src.write_bytes(b"fine\ncaf\xe9 ok\n")
    with pytest.raises(CorpusFormatError, match=r"bad\.txt:2: invalid UTF-8 at byte offset 8"):
        encode_dataset([src], tokenizer="cl100k_base", out_dir=tmp_path / "s", progress=False)
    s = encode_dataset([src], tokenizer="cl100k_base", out_dir=tmp_path / "r", format="npy",
                       errors="replace", progress=False)  # fmt: skip
    assert (s.documents, s.replaced_utf8) == (2, 1)
    enc = tokensmith.get_encoding("cl100k_base")
    assert s.tokens == len(enc.encode_ordinary("fine")) + len(enc.encode_ordinary("caf\ufffd ok"))
