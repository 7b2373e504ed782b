"""tokensmith: train, run, convert and evaluate LLM tokenizers, on a fast Rust core.

The tiktoken-compatible face:

>>> import tokensmith
>>> enc = tokensmith.get_encoding("cl100k_base")
>>> enc.decode(enc.encode("tokensmith"))
'tokensmith'
"""

from tokensmith._core import CL100K_PATTERN, O200K_PATTERN, R50K_PATTERN
from tokensmith._core import __version__ as __version__
from tokensmith.encoding import Encoding
from tokensmith.errors import (
    DisallowedSpecialTokenError,
    EmptyCorpusError,
    InputNotFoundError,
    InputReadError,
    InvalidTrainerOptionError,
    InvalidVocabError,
    MissingByteError,
    PatternError,
    TokensmithError,
    UnknownEncodingError,
    UnknownFormatError,
    UnknownModelError,
    UnknownTokenIdError,
    VocabFormatError,
)
from tokensmith.io import load as _load
from tokensmith.io import save
from tokensmith.load import load_tiktoken, load_tiktoken_bpe
from tokensmith.registry import (
    encoding_for_model,
    encoding_name_for_model,
    get_encoding,
    list_encoding_names,
)
from tokensmith.train import train_bpe

# Importing the submodule ``tokensmith.load`` binds that name to the module; the function wins.
load = _load

__all__ = [
    "CL100K_PATTERN",
    "DisallowedSpecialTokenError",
    "EmptyCorpusError",
    "Encoding",
    "InputNotFoundError",
    "InputReadError",
    "InvalidTrainerOptionError",
    "InvalidVocabError",
    "MissingByteError",
    "O200K_PATTERN",
    "PatternError",
    "R50K_PATTERN",
    "TokensmithError",
    "UnknownEncodingError",
    "UnknownFormatError",
    "UnknownModelError",
    "UnknownTokenIdError",
    "VocabFormatError",
    "encoding_for_model",
    "encoding_name_for_model",
    "get_encoding",
    "list_encoding_names",
    "load",
    "load_tiktoken",
    "load_tiktoken_bpe",
    "save",
    "train_bpe",
]
