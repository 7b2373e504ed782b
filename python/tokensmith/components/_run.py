"""Runs one component alone through the Rust core, for HF's helper methods.

Each helper builds the smallest ``tokenizer.json`` around the component and encodes or
decodes with it, so ``normalize_str``, ``pre_tokenize_str``, ``decode`` and
``num_special_tokens_to_add`` give what the same component gives inside a tokenizer:

- the model is a Unigram whose one piece is a noncharacter (U+FFFF) and whose unknown id is
  that piece: HF's Unigram fuses a run of unknown characters into one token spelled as the
  text, so each pre-token comes back whole, spelled as the pipeline left it, with its
  offsets in the original string (a text holding U+FFFF itself would be cut there);
- a decoder decodes ids of a WordLevel vocabulary made of the tokens given.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from tokensmith._core import CoreHfTokenizer, EncodingResult
from tokensmith.components._base import dumps

_PIECE = "\uffff"
_WHOLE = {"type": "Unigram", "unk_id": 0, "vocab": [[_PIECE, 0.0]], "byte_fallback": False}


def _encode(text: str, pair: str | None = None, **parts: Any) -> EncodingResult:
    core = CoreHfTokenizer.from_str(dumps({"model": _WHOLE, **parts}))
    return core.encode(text, pair, True)


def normalize_str(normalizer: dict[str, Any], text: str) -> str:
    """``text`` as ``normalizer`` normalizes it."""
    return "".join(_encode(text, normalizer=normalizer).tokens)


def pre_tokenize_str(pre_tokenizer: dict[str, Any], text: str) -> list[tuple[str, tuple[int, int]]]:
    """The pre-tokens of ``text`` with their character offsets, as HF lists them."""
    enc = _encode(text, pre_tokenizer=pre_tokenizer)
    return list(zip(enc.tokens, enc.offsets, strict=True))


def _special_ids(post_processor: dict[str, Any]) -> dict[int, str]:
    """Every special token ``post_processor`` adds, by id."""
    found: dict[int, str] = {}
    for key in ("sep", "cls"):
        if key in post_processor:
            token, id_ = post_processor[key]
            found[id_] = token
    for entry in post_processor.get("special_tokens", {}).values():
        found.update(zip(entry["ids"], entry["tokens"], strict=True))
    for child in post_processor.get("processors", []):
        found.update(_special_ids(child))
    return found


def num_special_tokens_to_add(post_processor: dict[str, Any], is_pair: bool) -> int:
    """How many tokens ``post_processor`` adds to one sequence or a pair: the length of the
    encoding of empty texts, under a Unigram model that holds its special tokens at their
    ids (the core checks each id against the vocabulary)."""
    specials = _special_ids(post_processor)
    size = max(specials, default=-1) + 1
    vocab = [[specials.get(i, f"{_PIECE}{i}"), 0.0] for i in range(size)]
    model = {**_WHOLE, "vocab": [*vocab, [_PIECE, 0.0]], "unk_id": size}
    core = CoreHfTokenizer.from_str(dumps({"model": model, "post_processor": post_processor}))
    return len(core.encode("", "" if is_pair else None, True).ids)


def decode(decoder: dict[str, Any], tokens: Sequence[str]) -> str:
    """``tokens`` joined by ``decoder``, as HF's ``Decoder.decode`` does."""
    vocab: dict[str, int] = {}
    for token in tokens:
        vocab.setdefault(token, len(vocab))
    # WordLevel needs its unknown token in the vocabulary; one that no token can be.
    filler = "".join(vocab) + _PIECE
    vocab[filler] = len(vocab)
    model = {"type": "WordLevel", "vocab": vocab, "unk_token": filler}
    core = CoreHfTokenizer.from_str(dumps({"model": model, "decoder": decoder}))
    return core.decode([vocab[t] for t in tokens], False)


def tokenize(
    model: dict[str, Any], sequence: str, sampling: tuple[float | None, int | None] = (None, None)
) -> EncodingResult:
    """``sequence`` encoded by ``model`` alone, as one word (a Unigram model sampling with
    ``sampling``: HF's ``alpha`` and ``nbest_size``)."""
    core = CoreHfTokenizer.from_str(dumps({"model": model}))
    if sampling[0] is not None:
        core = core.with_unigram_sampling(*sampling)
    return core.encode(sequence, None, False)


def word_counts(
    texts: Iterable[str],
    *,
    normalizer: dict[str, Any] | None,
    pre_tokenizer: dict[str, Any] | None,
    batch: int = 1024,
) -> Counter[str]:
    """How often each word (pre-token, as the pipeline spells it) occurs in ``texts``, the
    texts encoded in batches on the core's threads."""
    core = CoreHfTokenizer.from_str(
        dumps({"model": _WHOLE, "normalizer": normalizer, "pre_tokenizer": pre_tokenizer})
    )
    counts: Counter[str] = Counter()
    chunk: list[tuple[str, str | None]] = []
    for text in texts:
        chunk.append((text, None))
        if len(chunk) == batch:
            counts.update(t for e in core.encode_batch(chunk, False, 2) for t in e.tokens)
            chunk = []
    counts.update(t for e in core.encode_batch(chunk, False, 2) for t in e.tokens)
    return counts
