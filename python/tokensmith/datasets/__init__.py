"""Training-ready token shards from text corpora: the local engine of ``encode-dataset``.

Usage::

    from tokensmith.datasets import encode_dataset, IndexedDataset
    encode_dataset(["corpus.jsonl.gz"], tokenizer="o200k_base", out_dir="out",
                   format="megatron", append_eos=True)
    IndexedDataset("out/shard_00000")[0]    # the first document's ids, memory-mapped

One module per concept: :mod:`.readers` (inputs to numbered documents), :mod:`.megatron`,
:mod:`.nanogpt`, :mod:`.npy` (shard formats), :mod:`.manifest` (progress and job identity),
:mod:`.encode` (the job), :mod:`.verify` (round-trip check), :mod:`.main` (the CLI entry).
The byte layouts are in ``docs/datasets.md``.
"""

from tokensmith.datasets.encode import EncodeSummary, encode_dataset
from tokensmith.datasets.main import main_encode_dataset
from tokensmith.datasets.megatron import IndexedDataset, megatron_dtype
from tokensmith.datasets.nanogpt import nanogpt_dtype
from tokensmith.datasets.readers import Document, read_documents

__all__ = [
    "Document",
    "EncodeSummary",
    "IndexedDataset",
    "encode_dataset",
    "main_encode_dataset",
    "megatron_dtype",
    "nanogpt_dtype",
    "read_documents",
]
