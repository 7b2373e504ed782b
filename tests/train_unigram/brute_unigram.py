"""A brute-force Python Unigram trainer, written from sentencepiece's algorithm description,
to check tokensmith's Rust trainer on tiny corpora.

It shares no code with tokensmith: segmentations are enumerated one by one (exponential, so
only for words of a few characters), seed substrings are found by scanning every substring,
and every quantity is a plain float. Only ASCII text with the default options is handled
(so every piece is valid if it does not hold ``▁`` after its first character).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator

SPACE = "\u2581"


def words_of(sentences: list[str]) -> Counter[str]:
    """Identity normalization: collapse spaces, dummy prefix, split before each ``▁``."""
    words: Counter[str] = Counter()
    for s in sentences:
        text = " ".join(s.split(" ")).strip(" ")
        text = " ".join(t for t in text.split(" ") if t)
        if not text:
            continue
        normalized = SPACE + text.replace(" ", SPACE)
        for w in normalized.split(SPACE)[1:]:
            words[SPACE + w] += 1
    return words


def valid(piece: str, max_len: int = 16) -> bool:
    if not 1 <= len(piece) <= max_len or SPACE in piece[1:]:
        return False
    # One script: ASCII letters are Latin, everything else here is Common.
    kinds = {c.isalpha() for c in piece if c != SPACE}
    return len(kinds) <= 1


def seeds(words: Counter[str], seed_size: int) -> list[tuple[str, float]]:
    chars: Counter[str] = Counter()
    for w, n in words.items():
        for c in w:
            chars[c] += n
    freq: Counter[str] = Counter()
    for w, n in words.items():
        for a in range(len(w)):
            for b in range(a + 2, len(w) + 1):
                if valid(w[a:b]):
                    freq[w[a:b]] += n
    candidates = []
    for t, f in freq.items():
        if f < 2:
            continue
        # A string whose occurrences all continue with the same character, giving a valid
        # piece, is dominated by that longer string (same count, longer).
        dominated = any(
            g == f and e.startswith(t) and len(e) == len(t) + 1 for e, g in freq.items()
        )
        if not dominated:
            candidates.append((t, f * len(t)))
    candidates.sort(key=lambda x: (-x[1], x[0].encode()))
    ordered = sorted(chars.items(), key=lambda x: (-x[1], x[0]))
    out = [(c, float(n)) for c, n in ordered]
    out += [(t, float(s)) for t, s in candidates[: max(0, seed_size - len(out))]]
    total = sum(s for _, s in out)
    return [(p, math.log(s) - math.log(total)) for p, s in out]


def segmentations(word: str, vocab: dict[str, float]) -> Iterator[list[str]]:
    """Every way to cut ``word`` into pieces of ``vocab`` (characters missing from it would be
    unknown; the reference corpora never lose a character)."""
    if not word:
        yield []
        return
    for end in range(1, len(word) + 1):
        head = word[:end]
        if head in vocab:
            for rest in segmentations(word[end:], vocab):
                yield [head, *rest]


def e_step(words: Counter[str], vocab: dict[str, float]) -> dict[str, float]:
    expected = dict.fromkeys(vocab, 0.0)
    for w, n in words.items():
        paths = [(seg, sum(vocab[p] for p in seg)) for seg in segmentations(w, vocab)]
        z = sum(math.exp(s) for _, s in paths)
        for seg, s in paths:
            for p in seg:
                expected[p] += n * math.exp(s) / z
    return expected


def digamma(x: float) -> float:
    result = 0.0
    while x < 7:
        result -= 1 / x
        x += 1
    x -= 0.5
    xx = 1 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    return (
        result
        + math.log(x)
        + xx2 / 24
        - 7 / 960 * xx4
        + 31 / 8064 * xx4 * xx2
        - 127 / 30720 * xx4 * xx4
    )


def m_step(vocab: dict[str, float], expected: dict[str, float]) -> dict[str, float]:
    kept = {p: e for p, e in expected.items() if e >= 0.5}
    total = digamma(sum(kept.values()))
    return {p: digamma(e) - total for p, e in kept.items()}


def best(word: str, vocab: dict[str, float], without: str | None = None) -> list[str]:
    options = [s for s in segmentations(word, vocab) if s != [without]]
    return max(options, key=lambda seg: sum(vocab[p] for p in seg))


def prune(words: Counter[str], vocab: dict[str, float], desired: int) -> dict[str, float]:
    freq = dict.fromkeys(vocab, 0)
    for w, n in words.items():
        for p in best(w, vocab):
            freq[p] += n
    total_words = sum(words.values())
    total = sum(freq.values())
    kept: list[str] = []
    candidates: list[tuple[float, int, str]] = []
    for i, (piece, score) in enumerate(vocab.items()):
        if freq[piece] == 0:
            continue
        if len(piece) == 1:
            kept.append(piece)
            continue
        alt = best(piece, vocab, without=piece)
        if sum(vocab[p] for p in alt) > score:
            continue
        f = freq[piece]
        logprob = math.log(f) - math.log(total)
        log_total_alt = math.log(total + f * (len(alt) - 1))
        logprob_alt = sum(math.log(freq[a] + f) - log_total_alt for a in alt)
        candidates.append((-(f / total_words) * (logprob - logprob_alt), i, piece))
    target = max(desired, int(0.75 * len(vocab)))
    for _, _, piece in sorted(candidates):
        if len(kept) >= target:
            break
        kept.append(piece)
    return {p: vocab[p] for p in kept}


def train(sentences: list[str], vocab_size: int) -> list[tuple[str, float]]:
    """The learned pieces and scores (meta pieces excluded), in model order."""
    words = words_of(sentences)
    vocab = dict(seeds(words, 1000))
    desired = int(vocab_size * 1.1)
    while True:
        for _ in range(2):
            vocab = m_step(vocab, e_step(words, vocab))
        if len(vocab) <= desired:
            break
        vocab = prune(words, vocab, desired)
    chars: Counter[str] = Counter()
    for w, n in words.items():
        for c in w:
            chars[c] += n
    required = sorted(chars.items(), key=lambda x: (-x[1], x[0]))
    min_score = min(vocab.values())
    final: dict[str, float] = {}
    penalty = 0.0
    for c, _ in required:
        if c in vocab:
            final[c] = vocab[c]
        else:
            final[c] = min_score + penalty
            penalty += 0.0001
    size = vocab_size - 3
    for p, s in sorted(vocab.items(), key=lambda x: (-x[1], x[0].encode())):
        if len(final) >= size:
            break
        final.setdefault(p, s)
    return sorted(final.items(), key=lambda x: (-x[1], x[0].encode()))
