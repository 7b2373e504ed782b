"""Vocabulary-size sweeps from one BPE vocabulary.

A BPE vocabulary is built merge by merge, and a token's rank is the step that created it. The
first ``k`` ranks are therefore exactly the vocabulary BPE would have produced had training
stopped at ``k``: the smaller vocabularies are nested inside the larger one (the first 256
ranks are the single bytes). Encoding a corpus with each prefix traces seed 000's "vocabulary
size vs compression vs parameters" trade-off from real data, with one training run.

Sizes count mergeable tokens only; special tokens are left out of every prefix.

>>> rows = vocab_size_sweep("cl100k_base", ["hello world, hello tokens"], sizes=[256, 100256])
>>> [(r.vocab_size, r.n_tokens) for r in rows]
[(256, 25), (100256, 5)]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tokensmith.errors import ArgumentTypeError, InvalidArgumentError, InvalidVocabError
from tokensmith.eval.adapters.tiktoken_like import default_threads
from tokensmith.eval.corpus import scrub_surrogates
from tokensmith.eval.cost import embedding_params

DEFAULT_D_MODEL = 4096


@dataclass(frozen=True)
class SweepRow:
    """Compression and cost at one vocabulary size.

    Attributes:
        vocab_size: Mergeable tokens in the prefix (ranks ``0 .. vocab_size - 1``).
        n_tokens: Tokens the corpus takes.
        n_bytes: UTF-8 bytes of the corpus.
        embedding_params: Embedding (+ LM head unless tied) parameters at ``d_model``.
    """

    vocab_size: int
    n_tokens: int
    n_bytes: int
    embedding_params: int

    @property
    def bytes_per_token(self) -> float:
        """``n_bytes / n_tokens``."""
        return self.n_bytes / self.n_tokens if self.n_tokens else float("inf")


def default_sizes(full: int, *, first: int = 1024) -> list[int]:
    """``1024, 2048, 4096, ...`` below ``full``, then ``full``.

    >>> default_sizes(5000)
    [1024, 2048, 4096, 5000]
    """
    sizes = []
    k = first
    while k < full:
        sizes.append(k)
        k *= 2
    return [*sizes, full]


def _ranks_and_pattern(encoding: Any) -> tuple[dict[bytes, int], str, str]:
    if isinstance(encoding, str):
        from tokensmith import get_encoding

        encoding = get_encoding(encoding)
    ranks = getattr(encoding, "_mergeable_ranks", None)
    pattern = getattr(encoding, "_pat_str", None)
    if not isinstance(ranks, dict) or not isinstance(pattern, str):
        raise ArgumentTypeError(
            f"a sweep needs a BPE encoding with ranks and a split pattern "
            f"(tokensmith.Encoding, tiktoken.Encoding or a bundled name), "
            f"not {type(encoding).__name__}"
        )
    return ranks, pattern, str(getattr(encoding, "name", "bpe"))


def nested_ranks(ranks: dict[bytes, int]) -> list[tuple[bytes, int]]:
    """The ranks in order, checked to be nested: ids ``0..n-1`` with the 256 bytes first.

    Raises :class:`~tokensmith.errors.InvalidVocabError` otherwise.
    """
    ordered = sorted(ranks.items(), key=lambda item: item[1])
    if [r for _, r in ordered] != list(range(len(ordered))):
        raise InvalidVocabError("a sweep needs ranks 0..n-1 with no gaps")
    if len(ordered) < 256 or {t for t, _ in ordered[:256]} != {bytes([b]) for b in range(256)}:
        raise InvalidVocabError(
            "a sweep needs the 256 single bytes at ranks 0..255 (a byte-level BPE vocabulary)"
        )
    return ordered


def vocab_size_sweep(
    encoding: Any,
    texts: Iterable[str],
    *,
    sizes: Sequence[int] | None = None,
    d_model: int = DEFAULT_D_MODEL,
    tied: bool = False,
    num_threads: int | None = None,
) -> list[SweepRow]:
    """Compression of ``texts`` at nested prefixes of a BPE vocabulary.

    Args:
        encoding: A :class:`tokensmith.Encoding`, a ``tiktoken.Encoding`` or a bundled name.
        texts: The corpus.
        sizes: Prefix sizes (``256 <= k <= full``); default :func:`default_sizes`.
        d_model: Model width for the parameter column.
        tied: Whether input and output embeddings are shared.
        num_threads: Encoder threads (default: the cores, at most 8).

    Returns one :class:`SweepRow` per size, in increasing size.
    """
    from tokensmith import Encoding

    ranks, pattern, name = _ranks_and_pattern(encoding)
    ordered = nested_ranks(ranks)
    chosen = sorted(set(sizes if sizes is not None else default_sizes(len(ordered))))
    for k in chosen:
        if not 256 <= k <= len(ordered):
            raise InvalidArgumentError(f"sweep sizes must be in 256..{len(ordered)}, not {k}")
    threads = num_threads or default_threads()
    corpus = [scrub_surrogates(t) for t in texts]
    n_bytes = sum(len(t.encode("utf-8")) for t in corpus)
    rows: list[SweepRow] = []
    for k in chosen:
        prefix = Encoding(
            f"{name}[:{k}]", pat_str=pattern, mergeable_ranks=dict(ordered[:k]), special_tokens={}
        )
        tokens, _ = prefix.encode_ordinary_batch_to_numpy(corpus, num_threads=threads)
        cost = embedding_params(k, d_model, tied=tied).total
        rows.append(SweepRow(k, int(tokens.size), n_bytes, cost))
    return rows
