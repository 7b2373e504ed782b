"""Checks that sampled documents read back from the shards decode to their exact input text.

The sample is drawn with a fixed seed from the document count, so the same job checks the
same documents every time. A document fails when its BOS/EOS ids are missing, or when its
tokens do not decode to exactly the bytes of its text.

Not handled: nanoGPT shards, which keep no document boundaries to read back.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from tokensmith.datasets.any_tokenizer import DatasetEncoder, TokenizerEncoder
from tokensmith.datasets.formats import shard_prefix
from tokensmith.datasets.manifest import Manifest
from tokensmith.datasets.megatron import IndexedDataset
from tokensmith.datasets.readers import Document


def verify_shards(
    out: Path,
    manifest: Manifest,
    enc: DatasetEncoder,
    k: int,
    docs_of: Callable[[], Iterator[Document]],
) -> tuple[int, list[str]]:
    """Returns ``(documents checked, failure descriptions)``."""
    total = manifest.next_document
    sample = sorted(random.Random(total).sample(range(total), min(k, total)))
    wanted = set(sample)
    originals: dict[int, Document] = {}
    for original in docs_of():
        if original.index in wanted:
            originals[original.index] = original
            if len(originals) == len(wanted):
                break
    starts = [s.first_document for s in manifest.shards]
    readers: dict[int, _ShardReader] = {}
    bos, eos = manifest.job["bos_id"], manifest.job["eos_id"]
    failures: list[str] = []
    for idx in sample:
        shard = bisect.bisect_right(starts, idx) - 1
        if shard not in readers:
            readers[shard] = _ShardReader(out, manifest.job["format"], shard)
        tokens = readers[shard].document(idx - starts[shard]).tolist()
        doc = originals.get(idx)
        where = f"document {idx}" + (f" ({doc.path}:{doc.line})" if doc else "")
        problem = _check(tokens, doc, enc, bos, eos)
        if problem:
            failures.append(f"{where}: {problem}")
    return len(sample), failures


def _check(
    tokens: list[int], doc: Document | None, enc: DatasetEncoder, bos: int | None, eos: int | None
) -> str | None:
    if doc is None:
        return "not found in the inputs any more"
    if bos is not None:
        if not tokens or tokens[0] != bos:
            return f"does not start with BOS {bos}"
        tokens = tokens[1:]
    if eos is not None:
        if not tokens or tokens[-1] != eos:
            return f"does not end with EOS {eos}"
        tokens = tokens[:-1]
    if isinstance(enc, TokenizerEncoder):
        # Decoding need not give the text back (normalizers); encoding must give the ids.
        if tokens != enc.encode_ids(doc.text):
            return "holds other ids than encoding its text gives"
        return None
    try:
        expected = doc.text.encode("utf-8")
    except UnicodeEncodeError:
        return "the text holds lone surrogates, which encoding replaces with U+FFFD"
    got = enc.decode_bytes(tokens)
    if got != expected:
        common = min(len(got), len(expected))
        at = next((i for i in range(common) if got[i] != expected[i]), common)
        return f"decodes to different text (first difference at byte {at})"
    return None


class _ShardReader:
    def __init__(self, out: Path, fmt: str, shard: int) -> None:
        prefix = out / shard_prefix(shard)
        self.megatron: IndexedDataset | None = None
        self.tokens: Any = None
        self.offsets: Any = None
        if fmt == "megatron":
            self.megatron = IndexedDataset(prefix)
        else:
            self.tokens = np.load(f"{prefix}.tokens.npy", mmap_mode="r")
            self.offsets = np.load(f"{prefix}.offsets.npy", mmap_mode="r")

    def document(self, i: int) -> np.ndarray[Any, Any]:
        if self.megatron is not None:
            return self.megatron[i]
        return np.asarray(self.tokens[int(self.offsets[i]) : int(self.offsets[i + 1])])
