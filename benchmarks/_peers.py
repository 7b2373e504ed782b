"""The libraries the benchmarks compare, each loaded for one encoding behind one small interface.

Every peer that accepts a vocabulary is built from the shared ranks (``_common.encoding_params``);
bpe-openai and quicktok can only load the vocabularies bundled in their wheels, so they use those
and are checked token for token against tiktoken like everyone else. Imports happen inside the
loaders, so a missing library costs nothing until asked for, and load times include the import.

What this module does not handle: special tokens. Every call here is ``encode_ordinary`` semantics.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from _common import encoding_params, read_vocab_file, tiktoken_encoding

HF_CACHE_DIR = Path(tempfile.gettempdir()) / "tokensmith-bench"
HF_CACHE_VERSION = 1  # bump when hf_tokenizer_from_ranks changes

Tokens = Sequence[int]
# (tokens, offsets) numpy arrays: doc i is tokens[offsets[i]:offsets[i+1]]
FlatBatch = tuple[Any, Any]


@dataclass(frozen=True)
class Peer:
    """One library loaded for one encoding, seen through the calls that the benchmarks time."""

    encode: Callable[[str], Tokens]
    decode: Callable[[Tokens], str] | None = None
    batch: Callable[[list[str], int], Sequence[Tokens]] | None = None
    batch_numpy: Callable[[list[str], int], Any] | None = None
    # how batch_numpy's result splits into one id list per document (flat tokens + offsets unless
    # the library returns another shape)
    batch_numpy_lists: Callable[[Any], list[list[int]]] | None = None
    numpy: Callable[[str], Any] | None = None  # one text to one numpy array of ids
    count: Callable[[str], int] | None = None  # the number of ids of one text, no list built


def split_flat(result: FlatBatch) -> list[list[int]]:
    """(tokens, offsets) as one list per document: doc i is tokens[offsets[i]:offsets[i+1]].

    >>> import numpy as np
    >>> split_flat((np.array([5, 6, 7]), np.array([0, 2, 3])))
    [[5, 6], [7]]
    """
    tokens, offsets = result
    return [tokens[a:b].tolist() for a, b in zip(offsets[:-1], offsets[1:], strict=True)]


@dataclass(frozen=True)
class PeerSpec:
    """How to find, load and describe a library."""

    name: str
    distribution: str  # for importlib.metadata
    module: str  # the import name
    construction: str
    batch_note: str
    load: Callable[[str], Peer]


# --------------------------------------------------------------------------------------------------
# Loaders, one per library
# --------------------------------------------------------------------------------------------------


def load_tiktoken(encoding: str) -> Peer:
    enc = tiktoken_encoding(encoding)
    return Peer(
        encode=enc.encode_ordinary,
        decode=enc.decode,
        batch=lambda texts, n: enc.encode_ordinary_batch(texts, num_threads=n),
    )


def load_tokensmith(encoding: str) -> Peer:
    import tokensmith

    enc = tokensmith.get_encoding(encoding)
    to_numpy = getattr(enc, "encode_ordinary_batch_to_numpy", None)
    return Peer(
        encode=enc.encode_ordinary,
        decode=enc.decode,
        batch=lambda texts, n: enc.encode_ordinary_batch(texts, num_threads=n),
        batch_numpy=None if to_numpy is None else (lambda texts, n: to_numpy(texts, num_threads=n)),
        numpy=lambda text: enc.encode_to_numpy(text, disallowed_special=()),
        count=lambda text: enc.count(text, disallowed_special=()),
    )


def load_riptoken(encoding: str) -> Peer:
    import riptoken

    params = encoding_params(encoding)
    core = riptoken.CoreBPE(params["mergeable_ranks"], params["special_tokens"], params["pat_str"])
    return Peer(
        encode=core.encode_ordinary,
        decode=core.decode,  # type: ignore[attr-defined]  # present, missing from its stub
        # riptoken sizes its rayon pool from RAYON_NUM_THREADS, not per call
        batch=lambda texts, n: core.encode_ordinary_batch(texts),
    )


def load_bpe_openai(encoding: str) -> Peer:
    from bpe_openai import _bindings

    raw = _bindings.tokenizer_for_encoding(encoding)

    @cache
    def wrapper() -> Any:
        # The tiktoken-style wrapper parses its ranks in Python; only the batch API needs it, so it
        # is built on first use (the untimed check) and kept out of the load time.
        import bpe_openai

        return bpe_openai.get_encoding(encoding)

    return Peer(
        encode=raw.encode,
        decode=raw.decode,
        batch=lambda texts, n: wrapper().encode_ordinary_batch(texts, num_threads=n),
    )


def load_tokendagger(encoding: str) -> Peer:
    import tokendagger

    params = encoding_params(encoding)
    enc = tokendagger.Encoding(
        params["name"],
        pat_str=params["pat_str"],
        mergeable_ranks=params["mergeable_ranks"],
        special_tokens=params["special_tokens"],
    )
    return Peer(
        encode=enc.encode_ordinary,
        decode=enc.decode,
        batch=lambda texts, n: enc.encode_batch(texts, num_threads=n, disallowed_special=()),
    )


def load_quicktok(encoding: str) -> Peer:
    import quicktok

    enc = quicktok.get_encoding(encoding)
    return Peer(
        encode=enc.encode_ordinary,
        decode=enc.decode,
        batch_numpy=lambda texts, n: enc.encode_batch(texts, n),
    )


def load_hf_tokenizers(encoding: str) -> Peer:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(hf_tokenizer_json(encoding)))
    return Peer(
        encode=lambda text: tok.encode(text, add_special_tokens=False).ids,
        decode=tok.decode,
        batch=lambda texts, n: [
            e.ids for e in tok.encode_batch_fast(texts, add_special_tokens=False)
        ],
    )


def cached_file(path: Path, write: Callable[[Path], None]) -> Path:
    """``path``, first written by ``write`` into a temporary name and renamed if it is missing
    or empty, so that a process that stops half-way never leaves a partial file behind."""
    if not path.exists() or path.stat().st_size == 0:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        write(partial)
        os.replace(partial, path)
    return path


def tiktoken_file(encoding: str) -> Path:
    """The encoding's uncompressed ``.tiktoken`` ranks from the shared folder, in a cache file."""
    return cached_file(
        HF_CACHE_DIR / f"{encoding}.tiktoken",
        lambda partial: partial.write_bytes(read_vocab_file(encoding)),
    )


def awkward_lists(result: Any) -> list[list[int]]:
    """An awkward array of id lists (gigatoken's batch output) as Python lists."""
    return [list(map(int, ids)) for ids in result.to_list()]


def load_gigatoken(encoding: str) -> Peer:
    import gigatoken

    params = encoding_params(encoding)
    tok = gigatoken.Tokenizer.from_tiktoken(
        str(tiktoken_file(encoding)), special_tokens=params["special_tokens"]
    )
    compat = tok.as_tiktoken()
    # gigatoken's batches run on its process-wide rayon pool (RAYON_NUM_THREADS), not per call
    return Peer(
        encode=compat.encode_ordinary,
        decode=compat.decode,
        batch=lambda texts, n: tok.encode_batch_list(texts, parallel=n > 1),
        batch_numpy=lambda texts, n: tok.encode_batch(texts, parallel=n > 1),
        batch_numpy_lists=awkward_lists,
        numpy=tok.encode,
    )


def load_toktok(encoding: str) -> Peer:
    import toktok

    enc = toktok._encoding(encoding)  # bundled vocabularies; the public API only counts
    return Peer(
        encode=enc.encode_ordinary,
        decode=enc.decode,
        # rayon pool sized by RAYON_NUM_THREADS; returns flat (ids, offsets) numpy arrays
        batch_numpy=lambda texts, n: enc.encode_batch_to_numpy(texts),
        numpy=enc.encode_to_numpy,
        count=enc.count,
    )


def load_splintr(encoding: str) -> Peer:
    import splintr

    # from_bytes compiles tiktoken's pattern with an engine that refuses possessive
    # quantifiers; its bundled vocabularies come with patterns it accepts
    tok = splintr.Tokenizer.from_pretrained(encoding)
    return Peer(
        encode=tok.encode_ordinary,
        decode=tok.decode,
        batch=lambda texts, n: tok.encode_batch(texts),  # rayon, RAYON_NUM_THREADS
    )


def load_tokie(encoding: str) -> Peer:
    import tokie

    tok = tokie.Tokenizer.from_json(str(hf_tokenizer_json(encoding)))
    return Peer(
        encode=lambda text: tok.encode(text, add_special_tokens=False).ids,
        decode=tok.decode,
        batch=lambda texts, n: [e.ids for e in tok.encode_batch(texts, add_special_tokens=False)],
        count=tok.count_tokens,
    )


def load_wordchipper(encoding: str) -> Peer:
    """wordchipper downloads its vocabularies into a cache folder; it is given the shared ranks
    there first, under the names it looks for, so it never reaches the network."""
    folder = HF_CACHE_DIR / "wordchipper"
    cached_file(
        folder / "openai" / encoding / f"{encoding}.tiktoken",
        lambda partial: partial.write_bytes(read_vocab_file(encoding)),
    )
    os.environ["WORDCHIPPER_CACHE_DIR"] = str(folder)
    import wordchipper

    tok = wordchipper.Tokenizer.from_pretrained(encoding)
    return Peer(
        encode=tok.encode,
        decode=tok.decode,
        batch=lambda texts, n: tok.encode_batch(texts),
    )


# --------------------------------------------------------------------------------------------------
# HF tokenizers: a byte-level BPE equivalent to a tiktoken encoding
# --------------------------------------------------------------------------------------------------


def byte_to_unicode() -> dict[int, str]:
    """GPT-2's reversible map from bytes to printable characters.

    Printable Latin-1 bytes stand for themselves; the other 68 take code points from 256 upward.

    >>> m = byte_to_unicode(); m[ord("a")], m[ord(" ")], m[0]
    ('a', 'Ġ', 'Ā')
    """
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    mapping = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + extra)
            extra += 1
    return mapping


def merge_parts(token: bytes, ranks: dict[bytes, int]) -> tuple[bytes, bytes]:
    """The pair whose merge creates ``token``: byte-pair merging restricted to lower ranks.

    >>> merge_parts(b"abc", {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abc": 4})
    (b'ab', b'c')
    """
    limit = ranks[token]
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 2:
        best_rank, best_at = limit, -1
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1], limit)
            if rank < best_rank:
                best_rank, best_at = rank, i
        if best_at < 0:
            break
        parts[best_at : best_at + 2] = [parts[best_at] + parts[best_at + 1]]
    if len(parts) != 2:
        raise ValueError(f"token {token!r} is not reachable by merges of lower rank")
    return parts[0], parts[1]


def vocab_and_merges(ranks: dict[bytes, int]) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """HF's byte-level vocab and merge list, merges ordered by the rank of the token they create."""
    show = byte_to_unicode()

    def text(b: bytes) -> str:
        return "".join(show[x] for x in b)

    vocab = {text(token): rank for token, rank in ranks.items()}
    merges = [
        (text(a), text(b))
        for token, _ in sorted(ranks.items(), key=lambda item: item[1])
        if len(token) > 1
        for a, b in [merge_parts(token, ranks)]
    ]
    return vocab, merges


def oniguruma_pattern(pat_str: str) -> str:
    """The tiktoken pattern as HF's Oniguruma reads it the same way.

    Oniguruma takes ``{1,3}+`` as "repeat the group", not as a possessive quantifier; since a run
    of 1-3 digits followed by anything but a digit cannot be extended, the plain form is equivalent.
    """
    return pat_str.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")


def hf_tokenizer_from_ranks(encoding: str) -> Any:
    """A ``tokenizers.Tokenizer`` with tiktoken's ordinary ids: Split(pattern), ByteLevel, BPE."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

    params = encoding_params(encoding)
    vocab, merges = vocab_and_merges(params["mergeable_ranks"])
    # ignore_merges: a piece that is a whole token maps to it directly, as tiktoken does
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(
                Regex(oniguruma_pattern(params["pat_str"])), behavior="isolated", invert=False
            ),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    return tok


def hf_tokenizer_json(encoding: str) -> Path:
    """A ``tokenizer.json`` equivalent to the encoding, built on first use and kept in a cache.

    Deriving the merges takes seconds of Python; HF users load a ``tokenizer.json``, so that is
    what the load-time and worst-case processes do.
    """
    import tokenizers

    path = HF_CACHE_DIR / f"{encoding}-tokenizers-{tokenizers.__version__}-v{HF_CACHE_VERSION}.json"
    return cached_file(
        path, lambda partial: hf_tokenizer_from_ranks(encoding).save(str(partial), pretty=False)
    )


# --------------------------------------------------------------------------------------------------
# The registry
# --------------------------------------------------------------------------------------------------

FROM_RANKS = "built from the shared ranks"

PEERS: tuple[PeerSpec, ...] = (
    PeerSpec(
        name="tiktoken",
        distribution="tiktoken",
        module="tiktoken",
        construction=f"`tiktoken.Encoding(**params)`, {FROM_RANKS}",
        batch_note="`encode_ordinary_batch(num_threads=2)`",
        load=load_tiktoken,
    ),
    PeerSpec(
        name="tokensmith",
        distribution="tokensmith",
        module="tokensmith",
        construction="`tokensmith.get_encoding(name)`",
        batch_note="`encode_ordinary_batch(num_threads=2)`, `encode_ordinary_batch_to_numpy`",
        load=load_tokensmith,
    ),
    PeerSpec(
        name="hf-tokenizers",
        distribution="tokenizers",
        module="tokenizers",
        construction=(
            f"BPE(vocab, merges) + Split(pattern) + ByteLevel {FROM_RANKS}, saved once as "
            "tokenizer.json, then `Tokenizer.from_file`"
        ),
        batch_note="`encode_batch_fast` (rayon, RAYON_NUM_THREADS=2)",
        load=load_hf_tokenizers,
    ),
    PeerSpec(
        name="riptoken",
        distribution="riptoken",
        module="riptoken",
        construction=f"`riptoken.CoreBPE(ranks, specials, pat_str)`, {FROM_RANKS}",
        batch_note="`CoreBPE.encode_ordinary_batch` (rayon, RAYON_NUM_THREADS=2)",
        load=load_riptoken,
    ),
    PeerSpec(
        name="bpe-openai",
        distribution="bpe-openai",
        module="bpe_openai",
        construction="raw `bpe_openai._bindings.tokenizer_for_encoding(name)`, bundled vocab",
        batch_note="wrapper `encode_ordinary_batch(num_threads=2)` (Python thread pool)",
        load=load_bpe_openai,
    ),
    PeerSpec(
        name="tokendagger",
        distribution="tokendagger",
        module="tokendagger",
        construction=f"`tokendagger.Encoding(name, pat_str=, mergeable_ranks=, ...)`, {FROM_RANKS}",
        batch_note="`encode_batch(num_threads=2)` (Python thread pool)",
        load=load_tokendagger,
    ),
    PeerSpec(
        name="quicktok",
        distribution="quicktok-v1",
        module="quicktok",
        construction="`quicktok.get_encoding(name)`, bundled vocab",
        batch_note="`encode_batch(texts, 2)`: numpy (tokens, offsets)",
        load=load_quicktok,
    ),
    PeerSpec(
        name="gigatoken",
        distribution="gigatoken",
        module="gigatoken",
        construction=f"`gigatoken.Tokenizer.from_tiktoken(path, special_tokens=)`, {FROM_RANKS}",
        batch_note=(
            "`encode_batch` (awkward array of ids), `encode_batch_list` (rayon, "
            "RAYON_NUM_THREADS=2); lists through `as_tiktoken()`"
        ),
        load=load_gigatoken,
    ),
    PeerSpec(
        name="toktok",
        distribution="toktok-rs",
        module="toktok",
        construction="`toktok._encoding(name)`, bundled vocab",
        batch_note="`encode_batch_to_numpy` (rayon, RAYON_NUM_THREADS=2)",
        load=load_toktok,
    ),
    PeerSpec(
        name="splintr",
        distribution="splintr-rs",
        module="splintr",
        construction="`splintr.Tokenizer.from_pretrained(name)`, bundled vocab",
        batch_note="`encode_batch` (rayon, RAYON_NUM_THREADS=2)",
        load=load_splintr,
    ),
    PeerSpec(
        name="tokie",
        distribution="tokie",
        module="tokie",
        construction="`tokie.Tokenizer.from_json` on the HF tokenizer.json built from the ranks",
        batch_note="`encode_batch` (its own thread pool)",
        load=load_tokie,
    ),
    PeerSpec(
        name="wordchipper",
        distribution="wordchipper",
        module="wordchipper",
        construction="`wordchipper.Tokenizer.from_pretrained(name)`, cache filled from the ranks",
        batch_note="`encode_batch` (its own thread pool)",
        load=load_wordchipper,
    ),
)

PEERS_BY_NAME = {spec.name: spec for spec in PEERS}
