"""Verifying a conversion: run the source and the target tokenizer on the same texts.

The texts are the built-in probe set (:mod:`tokensmith.conversion.probes`) and the lines of
the user's files. The report gives the fraction of texts on which both give the same ids, the
first texts that differ with the tokens of each side, and the differences between the two
vocabularies, special tokens and added tokens.

>>> import tokensmith
>>> enc = tokensmith.get_encoding("cl100k_base")
>>> report = verify_pair(enc, enc)
>>> report.identical == report.texts, report.vocabulary_differences
(True, [])
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from os import PathLike, fspath
from typing import Any

from tokensmith.conversion.probes import probe_texts
from tokensmith.encoding import Encoding
from tokensmith.errors import InputNotFoundError, InputReadError
from tokensmith.hf_tokenizer import Tokenizer
from tokensmith.io._byte_level import token_to_str
from tokensmith.sentencepiece_backend import SentencePieceTokenizer

__all__ = ["Mismatch", "VerifyReport", "token_sets", "verify_pair"]

#: How many differing texts a report shows.
SHOWN = 5


@dataclass
class Mismatch:
    """A text on which the two tokenizers differ.

    Attributes:
        where: ``probe N`` or ``FILE:LINE``.
        text: The text.
        source / target: The tokens of each side, as ``id:token`` strings, from the first
            difference on (``first`` is its index).
    """

    where: str
    text: str
    first: int
    source: list[str]
    target: list[str]


@dataclass
class VerifyReport:
    """What :func:`verify_pair` found; :meth:`ok` when nothing differs."""

    texts: int = 0
    identical: int = 0
    probes_only: bool = True
    files: list[str] = field(default_factory=list)
    mismatches: list[Mismatch] = field(default_factory=list)
    vocabulary_differences: list[str] = field(default_factory=list)
    special_token_differences: list[str] = field(default_factory=list)
    added_token_differences: list[str] = field(default_factory=list)

    @property
    def fraction_identical(self) -> float:
        return self.identical / self.texts if self.texts else 1.0

    @property
    def ok(self) -> bool:
        """Same ids on every text and the same vocabulary (text -> id). Which tokens are
        marked special or added is reported but not required to match: a ``.model``'s
        control pieces, for one, are plain vocabulary entries in a ``tokenizer.json``, as HF
        would match an added token in text where sentencepiece does not."""
        return self.identical == self.texts and not self.vocabulary_differences

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["fraction_identical"] = self.fraction_identical
        out["ok"] = self.ok
        return out

    def summary(self) -> str:
        """A few lines for a terminal."""
        scope = "the built-in probe set only (pass --verify FILE to add yours)"
        if not self.probes_only:
            scope = "the built-in probe set and " + ", ".join(self.files)
        lines = [
            f"verified on {scope}: {self.identical}/{self.texts} texts identical "
            f"({self.fraction_identical:.2%})"
        ]
        for m in self.mismatches:
            lines.append(f"  {m.where}: {m.text[:60]!r}")
            lines.append(f"    source[{m.first}:] {' '.join(m.source[:8])}")
            lines.append(f"    target[{m.first}:] {' '.join(m.target[:8])}")
        for title, diffs in (
            ("vocabulary", self.vocabulary_differences),
            ("special tokens", self.special_token_differences),
            ("added tokens", self.added_token_differences),
        ):
            if diffs:
                lines.append(f"  {title} differ: " + "; ".join(diffs[:SHOWN]))
        return "\n".join(lines)


def _run(tok: Encoding | Tokenizer, text: str) -> tuple[list[int], list[str]]:
    """Ids and token texts; an Encoding matches its special tokens, as a tokenizer.json's
    added tokens are matched."""
    if isinstance(tok, Encoding):
        ids = tok.encode(text, allowed_special="all")
        return ids, [token_to_str(tok.decode_single_token_bytes(i)) for i in ids]
    result = tok.encode(text)
    return list(result.ids), list(result.tokens)


def token_sets(tok: Encoding | Tokenizer) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """``(vocabulary, special tokens, added tokens)``, each text -> id. The vocabulary holds
    every token (byte-level tokens in GPT-2's alphabet); SentencePiece control pieces are its
    special tokens and user-defined pieces its added ones."""
    if isinstance(tok, Encoding):
        vocab = {token_to_str(t): i for t, i in tok._mergeable_ranks.items()}
        vocab.update(tok._special_tokens)
        return vocab, dict(tok._special_tokens), {}
    vocab = dict(tok.get_vocab())
    if isinstance(tok, SentencePieceTokenizer):
        pieces = tok.processor.pieces()
        special = {p: i for i, (p, _, kind) in enumerate(pieces) if kind == "control"}
        added = {p: i for i, (p, _, kind) in enumerate(pieces) if kind == "user_defined"}
        return vocab, special, added
    tokens = json.loads(tok.to_str()).get("added_tokens") or []
    special = {t["content"]: t["id"] for t in tokens if t.get("special", False)}
    added = {t["content"]: t["id"] for t in tokens if not t.get("special", False)}
    return vocab, special, added


def _map_differences(a: dict[str, int], b: dict[str, int]) -> list[str]:
    out = []
    for text in sorted(set(a) | set(b), key=lambda t: (a.get(t, b.get(t, 0)), t)):
        if a.get(text) != b.get(text):
            out.append(f"{text!r}: {a.get(text)} -> {b.get(text)}")
    return out


def _file_texts(paths: Sequence[str | PathLike[str]]) -> list[tuple[str, str]]:
    texts = []
    for path in paths:
        p = fspath(path)
        try:
            with open(p, encoding="utf-8") as f:
                for n, line in enumerate(f, start=1):
                    texts.append((f"{p}:{n}", line.rstrip("\n")))
        except FileNotFoundError:
            raise InputNotFoundError(f"{p}: no such file to verify on") from None
        except (OSError, UnicodeDecodeError) as e:
            raise InputReadError(f"{p}: cannot read it as UTF-8 text ({e})") from None
    return texts


def verify_pair(
    source: Encoding | Tokenizer,
    target: Encoding | Tokenizer,
    files: Sequence[str | PathLike[str]] = (),
) -> VerifyReport:
    """Runs both tokenizers on the probe set and on each line of ``files``.

    Raises:
        InputNotFoundError, InputReadError: a file cannot be read.
    """
    vocab_a, special_a, added_a = token_sets(source)
    vocab_b, special_b, added_b = token_sets(target)
    marked = {**special_a, **special_b, **added_a, **added_b}
    probes = [(f"probe {n}", t) for n, t in enumerate(probe_texts(marked))]
    texts = probes + _file_texts(files)
    report = VerifyReport(probes_only=not files, files=[fspath(f) for f in files])
    for where, text in texts:
        ids_a, toks_a = _run(source, text)
        ids_b, toks_b = _run(target, text)
        report.texts += 1
        if ids_a == ids_b:
            report.identical += 1
            continue
        if len(report.mismatches) < SHOWN:
            first = next(
                (i for i, (x, y) in enumerate(zip(ids_a, ids_b, strict=False)) if x != y),
                min(len(ids_a), len(ids_b)),
            )
            report.mismatches.append(
                Mismatch(
                    where,
                    text,
                    first,
                    [f"{i}:{t}" for i, t in zip(ids_a[first:], toks_a[first:], strict=False)],
                    [f"{i}:{t}" for i, t in zip(ids_b[first:], toks_b[first:], strict=False)],
                )
            )
    report.vocabulary_differences = _map_differences(vocab_a, vocab_b)
    report.special_token_differences = _map_differences(special_a, special_b)
    report.added_token_differences = _map_differences(added_a, added_b)
    return report
