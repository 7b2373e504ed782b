"""Named encodings that ship inside the package, and the model-to-encoding table.

The vocabulary files in ``tokensmith/vocab/`` are the published cl100k_base and o200k_base
files, so ``get_encoding`` never touches the network. The tests check their sha256 sums.

>>> import tokensmith
>>> tokensmith.list_encoding_names()
['cl100k_base', 'o200k_base', 'o200k_harmony']
>>> tokensmith.encoding_for_model("gpt-4o").name
'o200k_base'
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from tokensmith._core import CL100K_PATTERN, O200K_PATTERN, R50K_PATTERN
from tokensmith.encoding import Encoding
from tokensmith.errors import ArgumentTypeError, UnknownEncodingError, UnknownModelError

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"


def _harmony_specials() -> dict[str, int]:
    named = {
        "<|startoftext|>": 199998,
        ENDOFTEXT: 199999,
        "<|return|>": 200002,
        "<|constrain|>": 200003,
        "<|channel|>": 200005,
        "<|start|>": 200006,
        "<|end|>": 200007,
        "<|message|>": 200008,
        "<|call|>": 200012,
        ENDOFPROMPT: 200018,
    }
    taken = set(named.values())
    reserved = {f"<|reserved_{i}|>": i for i in range(200000, 201088) if i not in taken}
    return named | reserved


@dataclass(frozen=True)
class EncodingSpec:
    """Where a bundled encoding's ranks live and how it splits text."""

    file: str
    pat_str: str
    special_tokens: dict[str, int] = field(default_factory=dict)
    explicit_n_vocab: int | None = None


BUNDLED: dict[str, EncodingSpec] = {
    "cl100k_base": EncodingSpec(
        "cl100k_base.tiktoken.gz",
        CL100K_PATTERN,
        {
            ENDOFTEXT: 100257,
            FIM_PREFIX: 100258,
            FIM_MIDDLE: 100259,
            FIM_SUFFIX: 100260,
            ENDOFPROMPT: 100276,
        },
    ),
    "o200k_base": EncodingSpec(
        "o200k_base.tiktoken.gz", O200K_PATTERN, {ENDOFTEXT: 199999, ENDOFPROMPT: 200018}
    ),
    "o200k_harmony": EncodingSpec("o200k_base.tiktoken.gz", O200K_PATTERN, _harmony_specials()),
}

# Encodings tiktoken knows whose vocabularies are not bundled: load them from a file with
# load_tiktoken(path, pat_str=tokensmith.R50K_PATTERN, ...).
NOT_BUNDLED = {
    "gpt2": R50K_PATTERN,
    "r50k_base": R50K_PATTERN,
    "p50k_base": R50K_PATTERN,
    "p50k_edit": R50K_PATTERN,
}

_cache: dict[str, Encoding] = {}
_lock = threading.Lock()


def list_encoding_names() -> list[str]:
    """The names :func:`get_encoding` accepts."""
    return list(BUNDLED)


def vocab_path(filename: str) -> Path:
    """The path of a vocabulary file shipped in the package."""
    return Path(__file__).resolve().parent / "vocab" / filename


def get_encoding(encoding_name: str) -> Encoding:
    """Returns a bundled encoding by name, loading it once per process.

    >>> import tokensmith
    >>> tokensmith.get_encoding("cl100k_base").n_vocab
    100277
    """
    if not isinstance(encoding_name, str):
        raise ArgumentTypeError(f"encoding_name must be a str, not {type(encoding_name).__name__}")
    with _lock:
        if encoding_name in _cache:
            return _cache[encoding_name]
        spec = BUNDLED.get(encoding_name)
        if spec is None:
            known = ", ".join(BUNDLED)
            hint = ""
            if encoding_name in NOT_BUNDLED:
                hint = (
                    f" {encoding_name}'s vocabulary is not bundled; load your copy with "
                    f"tokensmith.load_tiktoken(path, pat_str=tokensmith.R50K_PATTERN, "
                    f"special_tokens={{'<|endoftext|>': 50256}})."
                )
            raise UnknownEncodingError(
                f"unknown encoding {encoding_name!r}; known encodings: {known}.{hint}"
            )
        enc = Encoding.from_tiktoken_file(
            encoding_name,
            str(vocab_path(spec.file)),
            pat_str=spec.pat_str,
            special_tokens=spec.special_tokens,
            explicit_n_vocab=spec.explicit_n_vocab,
        )
        enc._bundled = True
        _cache[encoding_name] = enc
        return enc


# Model names and prefixes, from OpenAI's published model-to-encoding table.
MODEL_TO_ENCODING: dict[str, str] = {
    "gpt-4o": "o200k_base",
    "gpt-4.1": "o200k_base",
    "gpt-4.5": "o200k_base",
    "gpt-5": "o200k_base",
    "o1": "o200k_base",
    "o3": "o200k_base",
    "o4-mini": "o200k_base",
    "gpt-oss-120b": "o200k_harmony",
    "gpt-oss-20b": "o200k_harmony",
    "gpt-4": "cl100k_base",
    "gpt-3.5-turbo": "cl100k_base",
    "gpt-3.5": "cl100k_base",
    "gpt-35-turbo": "cl100k_base",
    "text-embedding-ada-002": "cl100k_base",
    "text-embedding-3-small": "cl100k_base",
    "text-embedding-3-large": "cl100k_base",
    "davinci-002": "cl100k_base",
    "babbage-002": "cl100k_base",
}

MODEL_PREFIX_TO_ENCODING: dict[str, str] = {
    "o1-": "o200k_base",
    "o3-": "o200k_base",
    "o4-mini-": "o200k_base",
    "gpt-5-": "o200k_base",
    "gpt-4.5-": "o200k_base",
    "gpt-4.1-": "o200k_base",
    "chatgpt-4o-": "o200k_base",
    "gpt-4o-": "o200k_base",
    "gpt-oss-": "o200k_harmony",
    "gpt-4-": "cl100k_base",
    "gpt-3.5-turbo-": "cl100k_base",
    "gpt-35-turbo-": "cl100k_base",
    "ft:gpt-4o": "o200k_base",
    "ft:gpt-4": "cl100k_base",
    "ft:gpt-3.5-turbo": "cl100k_base",
    "ft:davinci-002": "cl100k_base",
    "ft:babbage-002": "cl100k_base",
}


def encoding_name_for_model(model_name: str) -> str:
    """The encoding name a model uses, by exact name, then by prefix."""
    if model_name in MODEL_TO_ENCODING:
        return MODEL_TO_ENCODING[model_name]
    for prefix, name in MODEL_PREFIX_TO_ENCODING.items():
        if model_name.startswith(prefix):
            return name
    raise UnknownModelError(
        f"cannot map model {model_name!r} to an encoding; use tokensmith.get_encoding(name) "
        f"with one of: {', '.join(BUNDLED)}"
    )


def encoding_for_model(model_name: str) -> Encoding:
    """The encoding a model uses.

    >>> import tokensmith
    >>> tokensmith.encoding_for_model("gpt-4").name
    'cl100k_base'
    """
    return get_encoding(encoding_name_for_model(model_name))
