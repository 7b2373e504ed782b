"""The shard formats by name: the token dtype each picks, and the files each shard has.

>>> shard_files("megatron", 3), shard_files("npy", 0)
(['shard_00003.bin', 'shard_00003.idx'], ['shard_00000.tokens.npy', 'shard_00000.offsets.npy'])
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np

from tokensmith.datasets.megatron import MegatronShardWriter, megatron_dtype
from tokensmith.datasets.nanogpt import NanoGPTShardWriter, nanogpt_dtype
from tokensmith.datasets.npy import NpyShardWriter
from tokensmith.datasets.shard import ShardWriter
from tokensmith.errors import InvalidArgumentError

Format = Literal["megatron", "nanogpt", "npy"]
FORMATS: tuple[Format, ...] = ("megatron", "nanogpt", "npy")
_SUFFIXES: dict[str, tuple[str, ...]] = {
    "megatron": (".bin", ".idx"),
    "nanogpt": (".bin",),
    "npy": (".tokens.npy", ".offsets.npy"),
}


def check_format(fmt: str) -> Format:
    if fmt not in FORMATS:
        raise InvalidArgumentError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return fmt


def token_dtype(fmt: Format, n_vocab: int) -> np.dtype[np.generic]:
    """The dtype a format stores a vocabulary's ids in."""
    return megatron_dtype(n_vocab) if fmt == "megatron" else nanogpt_dtype(n_vocab)


def shard_prefix(index: int) -> str:
    return f"shard_{index:05d}"


def shard_files(fmt: Format, index: int) -> list[str]:
    return [shard_prefix(index) + s for s in _SUFFIXES[fmt]]


def open_shard(fmt: Format, out_dir: Path, index: int, dtype: np.dtype[np.generic]) -> ShardWriter:
    prefix = out_dir / shard_prefix(index)
    if fmt == "megatron":
        return MegatronShardWriter(prefix, dtype)
    if fmt == "nanogpt":
        return NanoGPTShardWriter(prefix, dtype)
    return NpyShardWriter(prefix, dtype)
