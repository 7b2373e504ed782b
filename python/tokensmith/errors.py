"""The exceptions tokensmith raises.

Every one derives from :class:`TokensmithError`, and also from the built-in exception a user
would naturally catch (``ValueError``, ``KeyError``, ``OSError``), so existing
``except ValueError`` code keeps working after switching from tiktoken.

>>> import tokensmith
>>> try:
...     tokensmith.get_encoding("nope")
... except tokensmith.TokensmithError as e:
...     print(type(e).__name__)
UnknownEncodingError
"""

from __future__ import annotations


class TokensmithError(Exception):
    """Base class of every error raised by tokensmith."""


class InvalidVocabError(TokensmithError, ValueError):
    """A vocabulary given in memory is inconsistent (duplicate ranks, clashing ids, ...)."""


class VocabFormatError(TokensmithError, ValueError):
    """A vocabulary file is malformed. ``path`` and ``line`` (1-based) locate the fault."""

    path: str | None = None
    line: int | None = None


class PatternError(TokensmithError, ValueError):
    """A pre-tokenizer pattern does not compile, or matching it failed."""


class DisallowedSpecialTokenError(TokensmithError, ValueError):
    """The text holds a special token that the call does not allow."""


class MissingByteError(TokensmithError, ValueError):
    """The text needs a byte that the vocabulary has no token for."""


class UnknownEncodingError(TokensmithError, ValueError):
    """``get_encoding`` was given a name it does not know."""


class EncodingPluginError(TokensmithError, ValueError):
    """A ``tiktoken_ext`` plugin module is malformed or repeats an encoding name."""


class NetworkAccessError(TokensmithError, OSError):
    """A URL was given where tokensmith reads local files only: it never uses the network."""


class VocabHashError(TokensmithError, ValueError):
    """A vocabulary file's sha256 is not the one the caller expected."""


class UnknownModelError(TokensmithError, KeyError):
    """``encoding_for_model`` was given a model it cannot map to an encoding."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class UnknownTokenIdError(TokensmithError, KeyError):
    """A token id that the vocabulary does not hold."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class TokenIdRangeError(UnknownTokenIdError, OverflowError):
    """A token id below 0 or above 2**32 - 1 (``decode([-1])``): also an ``OverflowError``,
    which HF ``tokenizers`` and tiktoken raise there, so ``except OverflowError`` works."""


class PieceIdOutOfRangeError(UnknownTokenIdError, IndexError):
    """A SentencePiece piece id outside the vocabulary: an ``IndexError``, as sentencepiece
    raises, and an :class:`UnknownTokenIdError` like a bad id of the other faces."""


class SentencePieceOptionError(TokensmithError, ValueError, RuntimeError):
    """An option a ``SentencePieceProcessor`` call cannot apply (``nbest_size`` above 512,
    ``add_bos`` with a proto output): sentencepiece raises ``RuntimeError`` for these, so this
    is one, and a ``ValueError`` as tokensmith's other bad options are."""


class InputNotFoundError(TokensmithError, FileNotFoundError):
    """An input file does not exist."""


class InputReadError(TokensmithError, OSError):
    """An input file exists but could not be read."""


class EmptyCorpusError(TokensmithError, ValueError):
    """A trainer or an evaluation was given no text (or no parallel pairs) to work on."""


class InvalidTrainerOptionError(TokensmithError, ValueError):
    """A training option has a value that cannot work; the message names it and a fix."""


class CorpusFormatError(TokensmithError, ValueError):
    """A corpus file is malformed. The message gives the file and the 1-based line."""


class MissingDependencyError(TokensmithError, ImportError):
    """An optional package that a feature needs is not installed; the message names it."""


class UnknownTokenizerError(TokensmithError, ValueError):
    """A tokenizer spec is neither a known name, an existing file, nor a supported object."""


class UnknownFormatError(TokensmithError, ValueError):
    """``save`` or ``load`` cannot tell which file format is meant; the message lists them."""


class CorruptInputError(InputReadError):
    """An input file is damaged (a truncated or corrupt gzip, ...); the message names the file."""


class DatasetRecordError(CorpusFormatError):
    """A record of a dataset input cannot give a document: a JSONL line that is not JSON, or a
    field or column that is missing or not text. ``path`` and ``line`` (1-based) locate it."""

    path: str | None = None
    line: int | None = None


class DatasetFormatError(TokensmithError, ValueError):
    """A token shard or its index on disk does not match the documented layout."""


class OutputDirError(TokensmithError, FileExistsError):
    """An output directory holds another job's files; pass ``overwrite=True`` to replace them."""


class ModelFormatError(TokensmithError, ValueError):
    """A SentencePiece ``.model`` file is corrupt or truncated; the message names the problem."""


class UnsupportedFeatureError(TokensmithError, NotImplementedError):
    """A file uses a feature tokensmith does not implement yet; the message names it."""


class TokenizerJsonError(TokensmithError, ValueError):
    """A ``tokenizer.json`` is malformed. ``json_path`` names the part at fault, such as
    ``model.unk_token`` (``$`` when the file is not JSON at all)."""

    json_path: str | None = None


class UnsupportedComponentError(TokenizerJsonError, UnsupportedFeatureError):
    """A ``tokenizer.json`` component whose type tokensmith does not run yet; the message
    names it, its JSON path and the supported types."""


class ChatTemplateError(TokensmithError, ValueError):
    """A chat template failed: a syntax error (with its line), a ``raise_exception`` call in
    the template, or messages it cannot render; the message says which."""


class ChatTemplateSecurityError(ChatTemplateError):
    """A chat template tried to reach something the sandbox forbids (Python internals such as
    ``__class__``, mutation of its inputs, unsafe callables)."""


class ModelNotLoadedError(TokensmithError, RuntimeError):
    """A ``SentencePieceProcessor`` was used before a model was loaded into it."""


class TruncationError(TokensmithError, ValueError):
    """Truncation cannot be applied as configured: ``only_second`` without a pair, a sequence
    too short to lose enough tokens, or a stride not below the length left for a sequence."""


class PaddingError(TokensmithError, ValueError):
    """A padding option has a value that cannot work (an unknown direction, a negative
    length); the message names the option."""


class InexpressibleComponentError(TokensmithError, ValueError):
    """A conversion's target format cannot express a component of the source; the message
    names the component (``normalizer.normalizers[1] Lowercase``) and the target format."""


class ConversionMismatchError(TokensmithError, ValueError):
    """A converted tokenizer gives other ids than its source on the verification texts; the
    message shows the first differences. Nothing was written."""


class LimitError(TokensmithError, ValueError):
    """A size or id above one of the resource limits of :mod:`tokensmith.limits`. ``limit``
    names it; the message says how to raise it when the input is trusted."""

    limit: str | None = None


class ChatTemplateLimitError(ChatTemplateError, LimitError):
    """A chat template passed its output-size, loop or time budget; the message names the
    template line and the limit (``template_output_chars``, ``template_loop_iterations``,
    ``template_render_seconds``)."""


class OutputWriteError(TokensmithError, OSError):
    """An output cannot be written (a read-only or missing folder, a full disk); the message
    names the path. Checked before long work starts where possible."""


class ArgumentTypeError(TokensmithError, TypeError):
    """An argument of the wrong type (a str where a list of texts is meant, an id that is not
    an int); the message names the argument and what it takes."""


class InvalidArgumentError(TokensmithError, ValueError):
    """An argument has a value that cannot work (a negative ``num_threads``, a sampling
    ``alpha`` below 0); the message names the argument."""


class IndexRangeError(InvalidArgumentError, OverflowError):
    """A position or index argument below 0 or too large (``token_to_chars(-1)``,
    ``char_to_token(-1)``): also an ``OverflowError``, which HF ``tokenizers`` raises there."""


class TruncationRangeError(TruncationError, OverflowError):
    """A negative truncation length or stride: also an ``OverflowError``, as HF raises."""


class PaddingRangeError(PaddingError, OverflowError):
    """A negative padding length, multiple or id: also an ``OverflowError``, as HF raises."""


class InternalError(TokensmithError, RuntimeError):
    """A bug in tokensmith (a worker thread that stopped on an internal error); the message
    says what and asks for a report."""


class AddedTokenError(TokensmithError, TypeError):
    """``add_tokens``/``add_special_tokens`` got something other than a list of str or
    AddedToken, ``AddedToken`` a non-str content or a non-bool flag, or
    ``encode_special_tokens`` a non-bool (HF raises TypeError there too)."""


__all__ = [
    "AddedTokenError",
    "ArgumentTypeError",
    "ChatTemplateError",
    "ChatTemplateLimitError",
    "ChatTemplateSecurityError",
    "ComponentTypeError",
    "ConversionMismatchError",
    "CorpusFormatError",
    "CorruptInputError",
    "DatasetFormatError",
    "DatasetRecordError",
    "DisallowedSpecialTokenError",
    "EmptyCorpusError",
    "EncodeInputError",
    "EncodingPluginError",
    "IndexRangeError",
    "InexpressibleComponentError",
    "InputNotFoundError",
    "InputReadError",
    "InternalError",
    "InvalidArgumentError",
    "InvalidTrainerOptionError",
    "InvalidVocabError",
    "LimitError",
    "MissingByteError",
    "MissingDependencyError",
    "ModelFormatError",
    "ModelNotLoadedError",
    "NetworkAccessError",
    "OutputDirError",
    "OutputWriteError",
    "PaddingError",
    "PaddingRangeError",
    "PatternError",
    "PieceIdOutOfRangeError",
    "SentencePieceOptionError",
    "TokenIdRangeError",
    "TokenizerJsonError",
    "TokensmithError",
    "TruncationError",
    "TruncationRangeError",
    "UnknownEncodingError",
    "UnknownFormatError",
    "UnknownModelError",
    "UnknownTokenIdError",
    "UnknownTokenizerError",
    "UnsupportedComponentError",
    "UnsupportedFeatureError",
    "VocabFormatError",
    "VocabHashError",
]


class ComponentTypeError(TokensmithError, TypeError):
    """A pipeline component argument of the wrong type: a ``Sequence`` given something other
    than a list of its components, or a ``Tokenizer`` slot set to another family's one."""


class EncodeInputError(TokensmithError, TypeError):
    """``Tokenizer.encode`` got a text that is not a str, or (``is_pretokenized=True``)
    words that are not a list of str."""
