"""Megatron-LM indexed datasets: a ``.bin`` of tokens and an ``.idx`` ("MMIDIDX") index.

The layout follows ``megatron/core/datasets/indexed_dataset.py`` in NVIDIA/Megatron-LM; it is
written out byte by byte in ``docs/datasets.md``. In short, all little-endian::

    .idx: b"MMIDIDX\\x00\\x00"  u64 version = 1  u8 dtype code
          u64 sequence count S  u64 document-index count D (= documents + 1)
          i32 sequence lengths [S]  i64 sequence byte pointers [S]  i64 document indices [D]
    .bin: the tokens of every sequence, back to back, in the dtype of the code

tokensmith writes one sequence per document, so ``S`` is the number of documents and the
document indices are ``0, 1, ..., S``. The token dtype is the one Megatron's
``DType.optimal_dtype(vocab_size)`` picks: uint16 when the vocabulary has fewer than 65,500
tokens, int32 otherwise.

>>> megatron_dtype(50_257), megatron_dtype(100_277)
(dtype('uint16'), dtype('int32'))

Not handled: the multimodal ``sequence_modes`` array, and documents split into several
sequences (sentence-split data); :class:`IndexedDataset` reads both kinds of document
index but never the modes.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import numpy as np
import numpy.typing as npt

from tokensmith._atomic import AtomicFile
from tokensmith.datasets.shard import AtomicShard, Lengths, TokenArray
from tokensmith.errors import DatasetFormatError, InputNotFoundError

MAGIC = b"MMIDIDX\x00\x00"
VERSION = 1
HEADER = struct.Struct("<9sQBQQ")  # magic, version, dtype code, sequences, document indices

# Megatron's DType enum: the code stored in the header for each numpy dtype.
DTYPE_CODES: dict[int, np.dtype[np.generic]] = {
    1: np.dtype(np.uint8),
    2: np.dtype(np.int8),
    3: np.dtype(np.int16),
    4: np.dtype(np.int32),
    5: np.dtype(np.int64),
    6: np.dtype(np.float64),
    7: np.dtype(np.float32),
    8: np.dtype(np.uint16),
}
_CODE_OF = {dtype: code for code, dtype in DTYPE_CODES.items()}


def megatron_dtype(vocab_size: int) -> np.dtype[np.generic]:
    """The token dtype Megatron's ``DType.optimal_dtype`` gives a vocabulary of this size."""
    return np.dtype(np.uint16) if vocab_size < 65500 else np.dtype(np.int32)


def index_bytes(lengths: npt.NDArray[np.integer], dtype: np.dtype[np.generic]) -> bytes:
    """The whole ``.idx`` file for documents of these token counts, one sequence each.

    >>> b = index_bytes(np.array([2, 3]), np.dtype(np.uint16))
    >>> len(b), b[:9], b[-24:] == np.array([0, 1, 2], "<i8").tobytes()
    (82, b'MMIDIDX\\x00\\x00', True)
    """
    n = len(lengths)
    if n and int(lengths.max()) > np.iinfo(np.int32).max:
        raise DatasetFormatError(
            "a document is longer than 2**31 - 1 tokens, which .idx cannot hold"
        )
    sizes = np.asarray(lengths, dtype="<i4")
    pointers = np.zeros(n, dtype="<i8")
    if n:
        np.cumsum(sizes[:-1].astype("<i8") * dtype.itemsize, out=pointers[1:])
    doc_index = np.arange(n + 1, dtype="<i8")
    header = HEADER.pack(MAGIC, VERSION, _CODE_OF[dtype], n, n + 1)
    return header + sizes.tobytes() + pointers.tobytes() + doc_index.tobytes()


class MegatronShardWriter(AtomicShard):
    """Writes ``<prefix>.bin`` and ``<prefix>.idx``."""

    def __init__(self, prefix: Path, dtype: np.dtype[np.generic]) -> None:
        self.dtype = dtype
        self.bin = AtomicFile(prefix.with_name(prefix.name + ".bin"))
        self.idx = AtomicFile(prefix.with_name(prefix.name + ".idx"))
        super().__init__([self.bin, self.idx])
        self.lengths: list[Lengths] = []

    def add(self, tokens: TokenArray, lengths: Lengths) -> None:
        self.bin.write(np.ascontiguousarray(tokens, dtype=self.dtype.newbyteorder("<")).data)
        self.lengths.append(lengths)

    def finish(self) -> None:
        lengths = np.concatenate(self.lengths) if self.lengths else np.zeros(0, np.int64)
        self.idx.write(index_bytes(lengths, self.dtype))
        self.sync_all()


def _map(path: str) -> npt.NDArray[np.uint8]:
    """The bytes of ``path``, memory-mapped (an empty array for an empty file, which ``mmap``
    refuses: a dataset of no tokens has an empty ``.bin``)."""
    if os.path.getsize(path) == 0:
        return np.zeros(0, dtype=np.uint8)
    return np.memmap(path, dtype=np.uint8, mode="r")


class IndexedDataset:
    """Reads a Megatron ``.bin``/``.idx`` pair without copying: ``ds[i]`` is a memmap view.

    >>> # ds = IndexedDataset("out/shard_00000"); len(ds); ds[0][:5]

    The index is validated against the file sizes before use, so a truncated or foreign file
    raises :class:`~tokensmith.errors.DatasetFormatError` instead of returning garbage.
    """

    def __init__(self, path_prefix: str | os.PathLike[str]) -> None:
        prefix = os.fspath(path_prefix)
        for suffix in (".bin", ".idx"):
            if prefix.endswith(suffix):
                prefix = prefix[: -len(suffix)]
        self.path_prefix = prefix
        idx_path, bin_path = prefix + ".idx", prefix + ".bin"
        for p in (idx_path, bin_path):
            if not os.path.isfile(p):
                raise InputNotFoundError(f"Megatron dataset file not found: {p}")
        idx = _map(idx_path)
        if len(idx) < HEADER.size:
            raise DatasetFormatError(f"{idx_path}: too short for an MMIDIDX header")
        magic, version, code, n_seq, n_doc = HEADER.unpack(bytes(idx[: HEADER.size]))
        if magic != MAGIC or version != VERSION:
            raise DatasetFormatError(f"{idx_path}: not an MMIDIDX version-1 index")
        if code not in DTYPE_CODES:
            raise DatasetFormatError(f"{idx_path}: unknown dtype code {code}")
        expected = HEADER.size + 12 * n_seq + 8 * n_doc
        if len(idx) < expected or n_doc < 1:
            raise DatasetFormatError(f"{idx_path}: {len(idx)} bytes, the header implies {expected}")
        self.dtype: np.dtype[np.generic] = DTYPE_CODES[code].newbyteorder("<")
        off = HEADER.size
        self.sequence_lengths = np.frombuffer(idx, dtype="<i4", count=n_seq, offset=off)
        off += 4 * n_seq
        self.sequence_pointers = np.frombuffer(idx, dtype="<i8", count=n_seq, offset=off)
        off += 8 * n_seq
        self.document_indices = np.frombuffer(idx, dtype="<i8", count=n_doc, offset=off)
        self._bin = _map(bin_path)
        self._check(bin_path)

    def _check(self, bin_path: str) -> None:
        doc = self.document_indices
        n_seq = len(self.sequence_lengths)
        if doc[0] != 0 or doc[-1] != n_seq or np.any(np.diff(doc) < 0):
            raise DatasetFormatError(f"{self.path_prefix}.idx: document indices are not 0..{n_seq}")
        if n_seq:
            ends = (
                self.sequence_pointers
                + self.sequence_lengths.astype(np.int64) * self.dtype.itemsize
            )
            if np.any(self.sequence_lengths < 0) or int(ends.max()) > len(self._bin):
                raise DatasetFormatError(f"{bin_path}: shorter than its index says")

    def __len__(self) -> int:
        """The number of documents."""
        return len(self.document_indices) - 1

    def __getitem__(self, i: int) -> npt.NDArray[np.generic]:
        """The tokens of document ``i`` (all its sequences), as a read-only view."""
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"document {i} out of range for {n} documents")
        i %= n
        first, last = int(self.document_indices[i]), int(self.document_indices[i + 1])
        count = int(self.sequence_lengths[first:last].sum()) if last > first else 0
        if count == 0:
            return np.zeros(0, dtype=self.dtype)
        start = int(self.sequence_pointers[first])
        return np.frombuffer(self._bin, dtype=self.dtype, count=count, offset=start)

    @property
    def num_tokens(self) -> int:
        return int(self.sequence_lengths.sum(dtype=np.int64))
