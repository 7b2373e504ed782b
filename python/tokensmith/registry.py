"""Named encodings that ship inside the package, and the model-to-encoding table.

The vocabulary files in ``tokensmith/vocab/`` are the published r50k_base, p50k_base,
cl100k_base and o200k_base files (``vocab/README.md`` says where each came from), so
``get_encoding`` never touches the network. The tests check their sha256 sums. Encodings that
other packages register in the ``tiktoken_ext`` plugin namespace are found too (see
:mod:`tokensmith.encoding_plugins`).

>>> import tokensmith
>>> tokensmith.list_encoding_names()[:4]
['gpt2', 'r50k_base', 'p50k_base', 'p50k_edit']
>>> tokensmith.encoding_for_model("gpt-4o").name
'o200k_base'
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from tokensmith._core import CL100K_PATTERN, O200K_PATTERN, R50K_PATTERN
from tokensmith.encoding import Encoding
from tokensmith.encoding_plugins import plugin_constructors
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
    # As in tiktoken, ids with no name of their own are reserved from 200013 on, 200018 (the
    # id of <|endofprompt|>) included, so that id has two names; the four below 200013 are
    # listed one by one.
    reserved = {f"<|reserved_{i}|>": i for i in (200000, 200001, 200004, 200009, 200010, 200011)}
    return named | reserved | {f"<|reserved_{i}|>": i for i in range(200013, 201088)}


@dataclass(frozen=True)
class EncodingSpec:
    """Where a bundled encoding's ranks live and how it splits text."""

    file: str
    pat_str: str
    special_tokens: dict[str, int] = field(default_factory=dict)
    explicit_n_vocab: int | None = None


_R50K_SPECIALS = {ENDOFTEXT: 50256}

# In tiktoken's order. gpt2 is built by tiktoken from GPT-2's data-gym files (vocab.bpe and
# encoder.json); its ranks are r50k_base's, one for one (a test checks this against tiktoken's
# own gpt2), so it reads the r50k_base file.
BUNDLED: dict[str, EncodingSpec] = {
    "gpt2": EncodingSpec("r50k_base.tiktoken.gz", R50K_PATTERN, _R50K_SPECIALS, 50257),
    "r50k_base": EncodingSpec("r50k_base.tiktoken.gz", R50K_PATTERN, _R50K_SPECIALS, 50257),
    "p50k_base": EncodingSpec("p50k_base.tiktoken.gz", R50K_PATTERN, _R50K_SPECIALS, 50281),
    "p50k_edit": EncodingSpec(
        "p50k_base.tiktoken.gz",
        R50K_PATTERN,
        {ENDOFTEXT: 50256, FIM_PREFIX: 50281, FIM_MIDDLE: 50282, FIM_SUFFIX: 50283},
    ),
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

_cache: dict[str, Encoding] = {}
_lock = threading.Lock()


def list_encoding_names() -> list[str]:
    """The names :func:`get_encoding` accepts: the bundled ones, then those of plugins."""
    return list(BUNDLED) + [name for name in plugin_constructors() if name not in BUNDLED]


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
            enc = _from_plugin(encoding_name)
        else:
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


def _from_plugin(encoding_name: str) -> Encoding:
    """Builds an encoding from the constructor a ``tiktoken_ext`` plugin registered for it."""
    constructors = plugin_constructors()
    if encoding_name not in constructors:
        raise UnknownEncodingError(
            f"unknown encoding {encoding_name!r}; known encodings: "
            f"{', '.join(list_encoding_names())}. Load any other .tiktoken file with "
            "tokensmith.load_tiktoken(path, pat_str=..., special_tokens=...)."
        )
    params = constructors[encoding_name]()
    enc = Encoding(
        params["name"],
        pat_str=params["pat_str"],
        mergeable_ranks=params["mergeable_ranks"],
        special_tokens=params["special_tokens"],
        explicit_n_vocab=params.get("explicit_n_vocab"),
    )
    # Pickled by name when the name finds it again.
    enc._bundled = enc.name == encoding_name
    return enc


# Model names and prefixes: tiktoken 0.14's tables (tiktoken/model.py), in its order, since
# the first prefix that matches wins.
MODEL_TO_ENCODING: dict[str, str] = {
    "o1": "o200k_base",
    "o3": "o200k_base",
    "o4-mini": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.1": "o200k_base",
    "gpt-4o": "o200k_base",
    "gpt-4": "cl100k_base",
    "gpt-3.5-turbo": "cl100k_base",
    "gpt-3.5": "cl100k_base",
    "gpt-35-turbo": "cl100k_base",
    "davinci-002": "cl100k_base",
    "babbage-002": "cl100k_base",
    "text-embedding-ada-002": "cl100k_base",
    "text-embedding-3-small": "cl100k_base",
    "text-embedding-3-large": "cl100k_base",
    "text-davinci-003": "p50k_base",
    "text-davinci-002": "p50k_base",
    "text-davinci-001": "r50k_base",
    "text-curie-001": "r50k_base",
    "text-babbage-001": "r50k_base",
    "text-ada-001": "r50k_base",
    "davinci": "r50k_base",
    "curie": "r50k_base",
    "babbage": "r50k_base",
    "ada": "r50k_base",
    "code-davinci-002": "p50k_base",
    "code-davinci-001": "p50k_base",
    "code-cushman-002": "p50k_base",
    "code-cushman-001": "p50k_base",
    "davinci-codex": "p50k_base",
    "cushman-codex": "p50k_base",
    "text-davinci-edit-001": "p50k_edit",
    "code-davinci-edit-001": "p50k_edit",
    "text-similarity-davinci-001": "r50k_base",
    "text-similarity-curie-001": "r50k_base",
    "text-similarity-babbage-001": "r50k_base",
    "text-similarity-ada-001": "r50k_base",
    "text-search-davinci-doc-001": "r50k_base",
    "text-search-curie-doc-001": "r50k_base",
    "text-search-babbage-doc-001": "r50k_base",
    "text-search-ada-doc-001": "r50k_base",
    "code-search-babbage-code-001": "r50k_base",
    "code-search-ada-code-001": "r50k_base",
    "gpt2": "gpt2",
    "gpt-2": "gpt2",
}

MODEL_PREFIX_TO_ENCODING: dict[str, str] = {
    "o1-": "o200k_base",
    "o3-": "o200k_base",
    "o4-mini-": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.5-": "o200k_base",
    "gpt-4.1-": "o200k_base",
    "chatgpt-4o-": "o200k_base",
    "gpt-4o-": "o200k_base",
    "gpt-4-": "cl100k_base",
    "gpt-3.5-turbo-": "cl100k_base",
    "gpt-35-turbo-": "cl100k_base",
    "gpt-oss-": "o200k_harmony",
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
        f"with one of: {', '.join(list_encoding_names())}"
    )


def encoding_for_model(model_name: str) -> Encoding:
    """The encoding a model uses.

    >>> import tokensmith
    >>> tokensmith.encoding_for_model("gpt-4").name
    'cl100k_base'
    """
    return get_encoding(encoding_name_for_model(model_name))
