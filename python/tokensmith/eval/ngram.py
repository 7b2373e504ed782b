"""An interpolated Kneser-Ney n-gram language model over token ids, scored in bits per byte.

Seed 004 builds a bigram model by counting, ``P(w | v) = C(v, w) / C(v)``, and shows its flaw:
any pair unseen in training gets probability 0. Kneser-Ney fixes that by taking a fixed
discount ``D`` off every seen count and handing the freed mass to a lower-order distribution,
and by making that lower-order distribution count *in how many contexts* a token appears
rather than how often (Kneser & Ney 1995; Chen & Goodman 1998):

    P_k(w | h) = max(a_k(h w) - D_k, 0) / A_k(h)  +  D_k * N_k(h) / A_k(h) * P_{k-1}(w | h')

where ``h'`` drops the oldest token of ``h``, ``A_k(h) = sum_w a_k(h w)`` and ``N_k(h)`` is the
number of distinct ``w`` with ``a_k(h w) > 0``. A context never seen (``A_k(h) = 0``) passes
straight to ``P_{k-1}``. The counts ``a_k`` are raw counts at the highest order, and
*continuation* counts below it: the number of distinct tokens seen just before ``h w``. The
recursion ends in the continuation unigram interpolated with the uniform distribution over the
vocabulary, so every token has a probability above 0 and each ``P_k(. | h)`` sums to 1.

Sequences start with a BOS context symbol (never predicted). As in KenLM, n-grams that start
with BOS keep their raw counts at lower orders, since nothing can precede them. The default
discount per order is ``D = n1 / (n1 + 2 n2)`` (Ney, Essen & Kneser 1994), from the number of
n-grams of that order with count 1 and 2.

Why bits per byte: a tokenizer with a larger vocabulary makes fewer, harder predictions, so
per-token perplexities of different tokenizers cannot be compared. The total information
``-sum log2 p`` divided by the UTF-8 bytes of the scored text can: it is the cost of
compressing that text with this model.

Counting is numpy throughout: each order's n-grams get integer ids by ``np.unique`` over
``(id of the (k-1)-gram) * W + next token`` keys, built order by order.

Not handled: modified KN's three discounts per order, pruning, and ARPA export.

>>> lm = KneserNeyLM.fit([[0, 1, 0, 1, 2]], vocab_size=3, order=2, discount=0.5)
>>> lm.distribution([0]).round(4).tolist()
[0.125, 0.8125, 0.0625]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tokensmith.errors import InvalidArgumentError
from tokensmith.eval.adapters import IntArray, TokenBatch, TokenizerSpec, flatten, load_tokenizer
from tokensmith.eval.corpus import Tokenized, tokenize

FloatArray = npt.NDArray[np.float64]
Sequences = TokenBatch | Tokenized | Sequence[Sequence[int]] | Sequence[IntArray]

MIN_ORDER, MAX_ORDER = 2, 4


@dataclass(frozen=True)
class _Level:
    """One order ``k >= 2``: its n-grams (as sorted keys) and their counts per context."""

    keys: IntArray  # sorted: context gram id * W + token
    counts: IntArray  # a_k, aligned with keys
    context_total: FloatArray  # A_k, indexed by context gram id
    context_types: FloatArray  # N_k, indexed by context gram id
    discount: float


def _as_batch(sequences: Sequences) -> TokenBatch:
    if isinstance(sequences, Tokenized):
        return sequences.batch
    if isinstance(sequences, TokenBatch):
        return sequences
    return flatten([np.asarray(s, dtype=np.int64) for s in sequences])


def _discount(counts: IntArray) -> float:
    n1 = int(np.count_nonzero(counts == 1))
    n2 = int(np.count_nonzero(counts == 2))
    return n1 / (n1 + 2 * n2) if n1 and n2 else 0.5


def _lookup(keys: IntArray, wanted: IntArray) -> IntArray:
    """Index of each wanted key in the sorted ``keys``, or -1."""
    idx = np.searchsorted(keys, wanted)
    inside = idx < keys.size
    found = np.zeros(wanted.shape, dtype=bool)
    found[inside] = keys[idx[inside]] == wanted[inside]
    return np.where(found, idx, -1)


@dataclass(frozen=True)
class _Stream:
    """Sequences laid end to end, each behind a BOS (and before an EOS, if modelled)."""

    tokens: IntArray
    seq_start: IntArray  # per position: where its sequence (its BOS) starts
    seq_end: IntArray  # per position: one past its sequence's end

    @classmethod
    def of(cls, batch: TokenBatch, bos: int, eos: int | None) -> _Stream:
        lengths = batch.lengths()
        extra = 1 if eos is None else 2
        sizes = lengths + extra
        starts = np.zeros(sizes.size, dtype=np.int64)
        np.cumsum(sizes[:-1], out=starts[1:])
        tokens = np.full(int(sizes.sum()), bos, dtype=np.int64)
        seq_of_token = np.repeat(np.arange(lengths.size), lengths)
        within = np.arange(batch.ids.size) - batch.offsets[:-1][seq_of_token]
        tokens[starts[seq_of_token] + 1 + within] = batch.ids
        if eos is not None:
            tokens[starts + sizes - 1] = eos
        return cls(tokens, np.repeat(starts, sizes), np.repeat(starts + sizes, sizes))


class KneserNeyLM:
    """An interpolated Kneser-Ney model of order 2 to 4 over ids ``0 <= id < vocab_size``.

    Build it with :meth:`fit`. ``bos`` is a context-only id (``vocab_size + 1``); with
    ``eos=True`` the model also predicts an end-of-sequence id ``eos`` (``vocab_size``), and
    its distributions cover ``vocab_size + 1`` outcomes.
    """

    def __init__(
        self,
        *,
        vocab_size: int,
        order: int,
        eos: bool,
        unigram: IntArray,
        unigram_discount: float,
        levels: list[_Level],
    ) -> None:
        self.vocab_size = vocab_size
        self.order = order
        self.models_eos = eos
        self._width = vocab_size + 2
        self._unigram = unigram
        self._unigram_discount = unigram_discount
        self._levels = levels

    @property
    def bos(self) -> int:
        """The id that stands for "start of sequence" in a context."""
        return self.vocab_size + 1

    @property
    def eos(self) -> int:
        """The id of "end of sequence" (predicted only when the model was fit with eos=True)."""
        return self.vocab_size

    @property
    def n_outcomes(self) -> int:
        """How many ids each distribution covers."""
        return self.vocab_size + (1 if self.models_eos else 0)

    @property
    def discounts(self) -> tuple[float, ...]:
        """``D_1 .. D_order``."""
        return (self._unigram_discount, *(lv.discount for lv in self._levels))

    @classmethod
    def fit(
        cls,
        sequences: Sequences,
        *,
        vocab_size: int,
        order: int = 3,
        discount: float | Sequence[float] | None = None,
        eos: bool = False,
    ) -> KneserNeyLM:
        """Counts n-grams of ``sequences`` (each one a text's token ids).

        Args:
            sequences: Token id sequences, a :class:`TokenBatch` or a :class:`Tokenized`.
            vocab_size: Ids are ``0 .. vocab_size - 1``.
            order: 2 (bigram) to 4.
            discount: One ``D`` for every order, or ``D_1 .. D_order``; each in ``[0, 1)``.
                ``None`` estimates ``n1 / (n1 + 2 n2)`` per order. ``D = 0`` at the highest
                order gives the maximum-likelihood estimate for seen contexts.
            eos: Also model the end of each sequence.
        """
        if not MIN_ORDER <= order <= MAX_ORDER:
            raise InvalidArgumentError(f"order must be {MIN_ORDER} to {MAX_ORDER}, not {order}")
        if vocab_size < 1:
            raise InvalidArgumentError(f"vocab_size must be positive, not {vocab_size}")
        batch = _as_batch(sequences)
        _check_ids(batch.ids, vocab_size)
        discounts = _discounts(discount, order)
        width = vocab_size + 2
        bos = vocab_size + 1
        stream = _Stream.of(batch, bos, vocab_size if eos else None)
        s = stream.tokens
        positions = np.arange(s.size)

        # gram_ids[k][p]: id of the k-gram starting at p (-1 past the sequence end).
        gram_ids: dict[int, IntArray] = {1: s}
        keys: dict[int, IntArray] = {}
        raw: dict[int, IntArray] = {}
        first_at: dict[int, IntArray] = {}
        for k in range(2, order + 1):
            valid = positions + k - 1 < stream.seq_end
            at = np.flatnonzero(valid)
            key = gram_ids[k - 1][at] * width + s[at + k - 1]
            uniq, first, inverse, counts = np.unique(
                key, return_index=True, return_inverse=True, return_counts=True
            )
            ids = np.full(s.size, -1, dtype=np.int64)
            ids[at] = inverse.reshape(-1)
            gram_ids[k], keys[k], raw[k], first_at[k] = ids, uniq, counts, at[first]

        def continuation(k: int, size: int) -> IntArray:
            # Distinct left neighbours of each k-gram: its (k+1)-gram types, by suffix.
            suffix = gram_ids[k][first_at[k + 1] + 1] if k > 1 else s[first_at[2] + 1]
            return np.bincount(suffix, minlength=size).astype(np.int64)

        levels: list[_Level] = []
        for k in range(2, order + 1):
            if k == order:
                adjusted = raw[k]
            else:
                adjusted = continuation(k, keys[k].size)
                starts_bos = s[first_at[k]] == bos
                adjusted[starts_bos] = raw[k][starts_bos]
            n_contexts = width if k == 2 else keys[k - 1].size
            context = keys[k] // width
            given = discounts[k - 1]
            d = _discount(adjusted) if given is None else given
            levels.append(
                _Level(
                    keys=keys[k],
                    counts=adjusted,
                    context_total=np.bincount(
                        context, weights=adjusted, minlength=n_contexts
                    ).astype(np.float64),
                    context_types=np.bincount(context[adjusted > 0], minlength=n_contexts).astype(
                        np.float64
                    ),
                    discount=float(d),
                )
            )
        unigram = continuation(1, width)
        unigram[bos] = 0
        given = discounts[0]
        d1 = _discount(unigram[unigram > 0]) if given is None else given
        return cls(
            vocab_size=vocab_size,
            order=order,
            eos=eos,
            unigram=unigram,
            unigram_discount=float(d1),
            levels=levels,
        )

    # ------------------------------------------------------------------ probabilities

    def _interpolate(self, nxt: IntArray, contexts: list[IntArray]) -> FloatArray:
        """``P(nxt | context)`` for each position; ``contexts[j]`` holds the gram id of the
        last ``j + 1`` context tokens (-1: unseen or not available)."""
        a1 = self._unigram.astype(np.float64)
        total = float(a1.sum())
        if total == 0:
            return np.full(nxt.shape, 1.0 / self.n_outcomes)
        d = self._unigram_discount
        types = float(np.count_nonzero(a1))
        p = np.maximum(a1[nxt] - d, 0) / total + d * types / total / self.n_outcomes
        for level, ctx in zip(self._levels, contexts, strict=True):
            seen = np.flatnonzero(ctx >= 0)
            seen = seen[level.context_total[ctx[seen]] > 0]
            if seen.size == 0:
                continue
            c = ctx[seen]
            at = _lookup(level.keys, c * self._width + nxt[seen])
            count = np.where(at >= 0, level.counts[np.maximum(at, 0)], 0).astype(np.float64)
            big_a = level.context_total[c]
            d = level.discount
            p[seen] = (
                np.maximum(count - d, 0) / big_a + d * level.context_types[c] / big_a * p[seen]
            )
        return p

    def _extend(self, ids: IntArray, token: IntArray, k: int) -> IntArray:
        """Gram ids of k-grams made of (k-1)-gram ``ids`` and ``token`` (-1 if unseen)."""
        out = np.full(ids.shape, -1, dtype=np.int64)
        ok = ids >= 0
        out[ok] = _lookup(self._levels[k - 2].keys, ids[ok] * self._width + token[ok])
        return out

    def distribution(self, context: Sequence[int]) -> FloatArray:
        """``P(w | context)`` for every ``w`` in ``0 .. n_outcomes - 1``.

        ``context`` is the most recent history, oldest first; start it with :attr:`bos` to
        mean "at the start of a sequence". Only its last ``order - 1`` ids matter.
        """
        hist = np.asarray(list(context), dtype=np.int64)
        if hist.size and (hist.min() < 0 or hist.max() > self.bos):
            raise InvalidArgumentError(f"context ids must be in 0..{self.bos}")
        contexts: list[IntArray] = []
        for k in range(2, self.order + 1):
            m = k - 1
            gid = np.array([-1], dtype=np.int64)
            if hist.size >= m:
                tail = hist[hist.size - m :]
                gid = tail[:1].copy()
                for j in range(1, m):
                    gid = self._extend(gid, tail[j : j + 1], j + 1)
            contexts.append(np.full(self.n_outcomes, gid[0], dtype=np.int64))
        return self._interpolate(np.arange(self.n_outcomes, dtype=np.int64), contexts)

    def log2_probs(self, sequences: Sequences) -> FloatArray:
        """``log2 P(token | history)`` for every predicted token of every sequence, in order
        (EOS included when the model predicts it)."""
        batch = _as_batch(sequences)
        _check_ids(batch.ids, self.vocab_size)
        stream = _Stream.of(batch, self.bos, self.eos if self.models_eos else None)
        s = stream.tokens
        positions = np.arange(s.size)
        targets = np.flatnonzero(positions != stream.seq_start)
        gram = s  # ids of 1-grams are the tokens themselves
        contexts: list[IntArray] = []
        for k in range(2, self.order + 1):
            if k > 2:
                # (k-1)-gram ids at every position, from (k-2)-gram ids and the next token.
                nxt = np.where(positions + k - 2 < stream.seq_end, positions + k - 2, 0)
                grown = self._extend(gram, s[nxt], k - 1)
                gram = np.where(positions + k - 2 < stream.seq_end, grown, -1)
            start = targets - (k - 1)
            ok = start >= stream.seq_start[targets]
            contexts.append(np.where(ok, gram[np.maximum(start, 0)], -1))
        return np.log2(self._interpolate(s[targets], contexts))

    def bits(self, sequences: Sequences) -> float:
        """Total information ``-sum log2 p`` of ``sequences``, in bits."""
        return float(-self.log2_probs(sequences).sum())


def _check_ids(ids: IntArray, vocab_size: int) -> None:
    if ids.size and (ids.min() < 0 or ids.max() >= vocab_size):
        raise InvalidArgumentError(f"token ids must be in 0..{vocab_size - 1}")


def _discounts(discount: float | Sequence[float] | None, order: int) -> list[float | None]:
    if discount is None:
        return [None] * order
    values = [float(discount)] * order if isinstance(discount, (int, float)) else list(discount)
    if len(values) != order:
        raise InvalidArgumentError(
            f"give one discount or {order} (D_1 .. D_{order}), not {len(values)}"
        )
    for d in values:
        if not 0 <= d < 1:
            raise InvalidArgumentError(f"discounts must be in [0, 1), not {d}")
    return [float(d) for d in values]


@dataclass(frozen=True)
class NgramScore:
    """How well an n-gram model of a tokenizer's output predicts held-out text.

    Attributes:
        tokenizer: The tokenizer's name.
        order: The model's order.
        n_tokens: Tokens scored.
        n_bytes: UTF-8 bytes of the scored text.
        bits: ``-sum log2 p`` over the scored tokens.
        discounts: ``D_1 .. D_order`` used.
    """

    tokenizer: str
    order: int
    n_tokens: int
    n_bytes: int
    bits: float
    discounts: tuple[float, ...]

    @property
    def bits_per_byte(self) -> float:
        """``bits / n_bytes``: comparable across tokenizers."""
        return self.bits / self.n_bytes if self.n_bytes else math.nan

    @property
    def bits_per_token(self) -> float:
        """``bits / n_tokens``: comparable only within one tokenizer."""
        return self.bits / self.n_tokens if self.n_tokens else math.nan


def split_train_test(
    texts: Iterable[str], *, test_fraction: float = 0.1
) -> tuple[list[str], list[str]]:
    """Splits texts deterministically: every ``round(1 / test_fraction)``-th text is test.

    Interleaving (rather than taking the tail) keeps both splits drawn from the whole corpus.

    >>> split_train_test("abcdef", test_fraction=0.5)
    (['a', 'c', 'e'], ['b', 'd', 'f'])
    """
    if not 0 < test_fraction < 1:
        raise InvalidArgumentError(f"test_fraction must be in (0, 1), not {test_fraction}")
    every = max(2, round(1 / test_fraction))
    train: list[str] = []
    test: list[str] = []
    for i, text in enumerate(texts):
        (test if i % every == every - 1 else train).append(text)
    return train, test


def ngram_bits_per_byte(
    tokenizer: TokenizerSpec,
    train_texts: Iterable[str],
    test_texts: Iterable[str],
    *,
    order: int = 3,
    discount: float | Sequence[float] | None = None,
) -> NgramScore:
    """Fits :class:`KneserNeyLM` on ``train_texts`` and scores ``test_texts`` in bits per byte.

    Each text is one sequence (the history restarts at each). End of sequence is not
    predicted, so the bits are exactly those of the text's tokens.
    """
    adapter = load_tokenizer(tokenizer)
    train = tokenize(adapter, train_texts)
    test = tokenize(adapter, test_texts)
    lm = KneserNeyLM.fit(train, vocab_size=adapter.vocab_size, order=order, discount=discount)
    return NgramScore(adapter.name, order, test.n_tokens, test.n_bytes, lm.bits(test), lm.discounts)
