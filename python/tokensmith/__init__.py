"""tokensmith: train, run, convert and evaluate LLM tokenizers, on a fast Rust core.

The tiktoken-compatible face:

>>> import tokensmith
>>> enc = tokensmith.get_encoding("cl100k_base")
>>> enc.decode(enc.encode("tokensmith"))
'tokensmith'
"""

# HF's component modules, reachable as tokensmith.models etc., as tokenizers.models is.
from tokensmith import core as core
from tokensmith import decoders as decoders
from tokensmith import limits as limits
from tokensmith import model as model
from tokensmith import models as models
from tokensmith import normalizers as normalizers
from tokensmith import pre_tokenizers as pre_tokenizers
from tokensmith import processors as processors
from tokensmith import registry as registry
from tokensmith import trainers as trainers
from tokensmith._core import CL100K_PATTERN, O200K_PATTERN, R50K_PATTERN
from tokensmith._core import __version__ as __version__
from tokensmith.added_token import AddedToken
from tokensmith.components._base import Regex
from tokensmith.conversion import convert
from tokensmith.encoding import Encoding
from tokensmith.errors import (
    ConversionMismatchError,
    DisallowedSpecialTokenError,
    EmptyCorpusError,
    InexpressibleComponentError,
    InputNotFoundError,
    InputReadError,
    InvalidTrainerOptionError,
    InvalidVocabError,
    LimitError,
    MissingByteError,
    ModelFormatError,
    PatternError,
    TokenizerJsonError,
    TokensmithError,
    UnknownEncodingError,
    UnknownFormatError,
    UnknownModelError,
    UnknownTokenIdError,
    UnsupportedComponentError,
    UnsupportedFeatureError,
    VocabFormatError,
)
from tokensmith.hf_tokenizer import EncodingResult, Tokenizer
from tokensmith.io import save
from tokensmith.load import load as _load
from tokensmith.load import load_tiktoken, load_tiktoken_bpe
from tokensmith.registry import (
    encoding_for_model,
    encoding_name_for_model,
    get_encoding,
    list_encoding_names,
)
from tokensmith.sentencepiece import (
    SentencePieceNormalizer,
    SentencePieceProcessor,
    SentencePieceTrainer,
)
from tokensmith.sentencepiece_backend import SentencePieceTokenizer
from tokensmith.train.bpe import train_bpe
from tokensmith.train.unigram import train_unigram
from tokensmith.train.wordpiece import train_wordpiece

# Importing the submodule ``tokensmith.load`` binds that name to the module; the function wins.
load = _load

__all__ = [
    "AddedToken",
    "CL100K_PATTERN",
    "ConversionMismatchError",
    "DisallowedSpecialTokenError",
    "EmptyCorpusError",
    "Encoding",
    "EncodingResult",
    "InexpressibleComponentError",
    "InputNotFoundError",
    "InputReadError",
    "InvalidTrainerOptionError",
    "InvalidVocabError",
    "LimitError",
    "MissingByteError",
    "ModelFormatError",
    "O200K_PATTERN",
    "PatternError",
    "R50K_PATTERN",
    "SentencePieceNormalizer",
    "Regex",
    "SentencePieceProcessor",
    "SentencePieceTrainer",
    "SentencePieceTokenizer",
    "TokenizerJsonError",
    "Tokenizer",
    "TokensmithError",
    "UnknownEncodingError",
    "UnknownFormatError",
    "UnknownModelError",
    "UnknownTokenIdError",
    "UnsupportedComponentError",
    "UnsupportedFeatureError",
    "VocabFormatError",
    "convert",
    "encoding_for_model",
    "encoding_name_for_model",
    "get_encoding",
    "list_encoding_names",
    "load",
    "load_tiktoken",
    "load_tiktoken_bpe",
    "save",
    "train_bpe",
    "train_unigram",
    "train_wordpiece",
]
