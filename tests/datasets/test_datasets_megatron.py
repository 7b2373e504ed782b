"""The Megatron .idx/.bin layout, read back by an independent reader written from the spec.

The reader below follows docs/datasets.md only (struct.unpack, no numpy, no tokensmith code).
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
import tokensmith
from datasets_helpers import MULTILINGUAL, byte_encoding, lines
from tokensmith.datasets import IndexedDataset, encode_dataset, megatron_dtype
from tokensmith.errors import DatasetFormatError

ITEMSIZE = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 8, 7: 4, 8: 2}
STRUCT_CODE = {1: "B", 2: "b", 3: "h", 4: "i", 5: "q", 6: "d", 7: "f", 8: "H"}


def read_idx(path: Path) -> dict[str, object]:
    data = path.read_bytes()
    magic, version, code, n_seq, n_doc = struct.unpack_from("<9sQBQQ", data, 0)
    pos = 9 + 8 + 1 + 8 + 8
    lengths = struct.unpack_from(f"<{n_seq}i", data, pos)
    pos += 4 * n_seq
    pointers = struct.unpack_from(f"<{n_seq}q", data, pos)
    pos += 8 * n_seq
    doc_idx = struct.unpack_from(f"<{n_doc}q", data, pos)
    pos += 8 * n_doc
    return dict(magic=magic, version=version, code=code, lengths=lengths, pointers=pointers,
                doc_idx=doc_idx, trailing=len(data) - pos)  # fmt: skip


def read_sequence(bin_path: Path, code: int, pointer: int, length: int) -> list[int]:
    with open(bin_path, "rb") as f:
        f.seek(pointer)
        raw = f.read(length * ITEMSIZE[code])
    return list(struct.unpack(f"<{length}{STRUCT_CODE[code]}", raw))


@pytest.mark.parametrize(("enc_name", "code"), [("cl100k_base", 4), ("bytes", 8)])
def test_independent_reader_agrees(tmp_path: Path, enc_name: str, code: int) -> None:
    enc = byte_encoding() if enc_name == "bytes" else tokensmith.get_encoding(enc_name)
    src = tmp_path / "in.txt"
    docs = lines()[:300]
    src.write_text("\n".join(docs), encoding="utf-8")
    out = tmp_path / "out"
    encode_dataset([src], tokenizer=enc, out_dir=out, append_eos=True, shard_size=10**9,
                   progress=False)  # fmt: skip
    idx = read_idx(out / "shard_00000.idx")
    assert idx["magic"] == b"MMIDIDX\x00\x00" and idx["version"] == 1 and idx["code"] == code
    assert idx["trailing"] == 0
    n = len(docs)
    assert idx["doc_idx"] == tuple(range(n + 1))  # documents + 1 entries
    lengths, pointers = idx["lengths"], idx["pointers"]
    assert isinstance(lengths, tuple) and isinstance(pointers, tuple) and len(lengths) == n
    size = ITEMSIZE[code]
    assert pointers[0] == 0
    assert all(pointers[i + 1] == pointers[i] + lengths[i] * size for i in range(n - 1))
    bin_path = out / "shard_00000.bin"
    assert bin_path.stat().st_size == sum(lengths) * size
    ds = IndexedDataset(out / "shard_00000")
    assert len(ds) == n
    for i in range(0, n, 7):
        theirs = read_sequence(bin_path, code, pointers[i], lengths[i])
        assert theirs == ds[i].tolist() == enc.encode_ordinary(docs[i]) + [enc.eot_token]


def test_dtype_rule_matches_megatron() -> None:
    assert megatron_dtype(65499) == np.uint16
    assert megatron_dtype(65500) == np.int32


def test_indexed_dataset_is_zero_copy_and_validates(tmp_path: Path) -> None:
    out = tmp_path / "out"
    encode_dataset([MULTILINGUAL], tokenizer="o200k_base", out_dir=out, progress=False)
    ds = IndexedDataset(str(out / "shard_00000.idx"))
    first = ds[0]
    assert not first.flags.owndata and not first.flags.writeable
    assert ds[-1].tolist() == ds[len(ds) - 1].tolist()
    with pytest.raises(IndexError):
        ds[len(ds)]
    bin_path = out / "shard_00000.bin"
    bin_path.write_bytes(bin_path.read_bytes()[:-4])
    with pytest.raises(DatasetFormatError, match="shorter"):
        IndexedDataset(out / "shard_00000")
    (out / "shard_00000.idx").write_bytes(b"NOTANIDX" + bytes(40))
    with pytest.raises(DatasetFormatError, match="MMIDIDX"):
        IndexedDataset(out / "shard_00000")
