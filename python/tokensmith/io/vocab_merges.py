"""``vocab.json`` + ``merges.txt``: GPT-2's pair of files, in a directory.

``vocab.json`` maps each token, spelled in GPT-2's printable byte alphabet, to its id (special
tokens included, as GPT-2's own file has ``<|endoftext|>``); ``merges.txt`` starts with a
``#version: 0.2`` line and has one ``left right`` merge per line, in rank order. Neither file
holds the split pattern, so a third file, ``tokensmith.json``, keeps the pattern, the special
tokens and the name. Without it, :func:`read` uses GPT-2's pattern and takes as special every
token that is neither a byte nor a merge (GPT-2's ``<|endoftext|>``).

Not handled: the three files are each written atomically, not all three as one.
"""

from __future__ import annotations

import json
import os
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokensmith._atomic import atomic_write
from tokensmith._core import R50K_PATTERN
from tokensmith.errors import VocabFormatError
from tokensmith.io._byte_level import ranks_from_merges, str_to_token, token_to_str
from tokensmith.io.hf_json import merges_of
from tokensmith.io.tiktoken_file import sidecar

if TYPE_CHECKING:
    from tokensmith.encoding import Encoding

VOCAB = "vocab.json"
MERGES = "merges.txt"
SIDECAR = "tokensmith.json"


def write(encoding: Encoding, directory: str | PathLike[str]) -> None:
    """Writes ``vocab.json``, ``merges.txt`` and ``tokensmith.json`` into ``directory``, as one
    set: into a temporary folder beside it, then moved into place (see
    :class:`~tokensmith.io.output_set.OutputSet`), so an error or Ctrl-C never leaves a new
    ``vocab.json`` beside an old ``merges.txt``."""
    from tokensmith.io.output_set import OutputSet

    outputs = OutputSet(Path(directory), [SIDECAR, VOCAB, MERGES], overwrite=True)
    entries = [(token_to_str(t), r) for t, r in encoding._mergeable_ranks.items()]
    entries += list(encoding._special_tokens.items())
    vocab = dict(sorted(entries, key=lambda kv: kv[1]))
    merges = merges_of(encoding)
    lines = ["#version: 0.2\n"] + [f"{token_to_str(a)} {token_to_str(b)}\n" for a, b in merges]
    with outputs.write() as tmp:
        atomic_write(tmp / SIDECAR, [_json_bytes(sidecar(encoding))])
        atomic_write(tmp / VOCAB, [_json_bytes(vocab)])
        atomic_write(tmp / MERGES, ["".join(lines).encode("utf-8")])


def _json_bytes(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def _fail(path: str, message: str, line: int | None = None) -> VocabFormatError:
    err = VocabFormatError(f"{path}{'' if line is None else f':{line}'}: {message}")
    err.path, err.line = path, line
    return err


def read(directory: str | PathLike[str], *, name: str) -> Encoding:
    """Loads ``vocab.json`` + ``merges.txt`` (and ``tokensmith.json`` if present)."""
    from tokensmith.encoding import Encoding

    d = os.fspath(directory)
    vocab_path, merges_path = os.path.join(d, VOCAB), os.path.join(d, MERGES)
    with open(vocab_path, encoding="utf-8") as f:
        try:
            vocab = json.load(f)
        except (ValueError, RecursionError) as e:
            raise _fail(vocab_path, f"not JSON ({e})") from None
    if not isinstance(vocab, dict) or not all(isinstance(i, int) for i in vocab.values()):
        raise _fail(vocab_path, "not a {token: id} map")
    merges = []
    with open(merges_path, "rb") as f:
        for n, raw in enumerate(f, start=1):
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as e:
                raise _fail(merges_path, f"not UTF-8 ({e.reason} at byte {e.start})", n) from None
            if not line or (n == 1 and line.startswith("#version")):
                continue
            pair = line.split(" ")
            if len(pair) != 2:
                raise _fail(merges_path, f"{line!r} is not 'left right'", n)
            where = f"{merges_path}:{n}: "
            merges.append((str_to_token(pair[0], where=where), str_to_token(pair[1], where=where)))
    pat_str = R50K_PATTERN
    specials: dict[str, int] | None = None
    side_path = os.path.join(d, SIDECAR)
    if os.path.exists(side_path):
        with open(side_path, encoding="utf-8") as f:
            try:
                side = json.load(f)
                pat_str, specials, name = (
                    side["pat_str"],
                    dict(side["special_tokens"]),
                    side["name"],
                )
            except (ValueError, KeyError, TypeError, RecursionError) as e:
                raise _fail(side_path, f"not a tokensmith sidecar ({e!r})") from None
    special_ids = set((specials or {}).values())
    ids: dict[bytes, int] = {}
    unmergeable: dict[str, int] = {}
    for text, i in vocab.items():
        if i in special_ids:
            continue
        try:
            ids[str_to_token(text)] = i
        except VocabFormatError:
            unmergeable[text] = i
    ranks = ranks_from_merges(merges, ids, where=f"{d}: ")
    if specials is None:
        # GPT-2's files mark no special token: any token that is no byte or merge is one.
        specials = dict(unmergeable)
        specials.update({token_to_str(t): i for t, i in ids.items() if t not in ranks})
    elif unmergeable or len(ranks) != len(ids):
        raise _fail(vocab_path, "holds tokens that are neither bytes, merges nor special tokens")
    return Encoding(name, pat_str=pat_str, mergeable_ranks=ranks, special_tokens=specials)
