"""The Hugging Face-compatible face: run a ``tokenizer.json`` with ``tokenizers``' API.

>>> import tokensmith
>>> tok = tokensmith.Tokenizer.from_str('''{"model": {"type": "WordPiece",
...     "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "hi": 1, "##s": 2}}}''')
>>> enc = tok.encode("his")
>>> enc.tokens, enc.offsets
(['hi', '##s'], [(0, 2), (2, 3)])

Added tokens are found in the input first, as HF does (``special``, ``normalized``,
``lstrip``, ``rstrip`` and ``single_word`` included). The components that run are
BertNormalizer, NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Strip, Prepend, Replace,
Precompiled, ByteLevel, Nmt, Sequence; BertPreTokenizer, Whitespace, WhitespaceSplit, Punctuation,
Digits, CharDelimiterSplit, Metaspace, Split, ByteLevel, UnicodeScripts, FixedLength,
Sequence; WordPiece, BPE (dropout included), Unigram and WordLevel; TemplateProcessing,
BertProcessing, RobertaProcessing, ByteLevel, Sequence; the WordPiece, Metaspace, BPEDecoder,
ByteFallback, Fuse, Strip, Replace, ByteLevel, CTC and Sequence decoders. Any other component
type raises :class:`~tokensmith.errors.UnsupportedComponentError` naming it. Truncation
(every strategy, direction and stride) and padding (fixed, or to the longest of a batch) are
applied as the file configures them, or as :meth:`Tokenizer.enable_truncation` and
:meth:`Tokenizer.enable_padding` set; what truncation cuts off is in the
result's ``overflowing`` list, as in HF:

>>> tok.enable_truncation(1)
>>> enc = tok.encode("his")
>>> enc.ids, [o.tokens for o in enc.overflowing]
([1], [['##s']])
>>> tok.no_truncation()

An :class:`EncodingResult` keeps the encoding in Rust and builds each list (``ids``,
``tokens``, ``offsets``, ``type_ids``, ``attention_mask``, ``special_tokens_mask``,
``word_ids``, ``sequence_ids``) when it is read, so keeping many results, or reading only
``ids``, is cheap. It has every method of HF's ``Encoding``: the alignment queries
(``char_to_token``, ``char_to_word``, ``token_to_chars``, ``token_to_word``,
``token_to_sequence``, ``word_to_tokens``, ``word_to_chars``), ``set_sequence_id``, ``pad``,
``truncate`` and the static ``merge``, each answering as HF's does:

>>> enc = tok.encode("his", "hi")
>>> enc.sequence_ids, enc.char_to_token(2), enc.char_to_token(1, sequence_index=1)
([0, 0, 1], 1, 2)
>>> enc.word_to_tokens(0), enc.token_to_chars(1)
((0, 2), (2, 3))

``encode_batch`` and ``decode_batch`` run on several threads with the GIL released:

>>> [e.ids for e in tok.encode_batch(["his", ("hi", "his")], add_special_tokens=False)]
[[1, 2], [1, 1, 2]]
>>> tok.decode_batch([[1, 2], [1]])
['hi ##s', 'hi']
"""

from __future__ import annotations

import contextlib
import json as _json
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from tokensmith._args import check_count, check_threads, ids_error, texts_error
from tokensmith._core import CoreHfTokenizer, EncodingResult
from tokensmith.added_token import AddedToken
from tokensmith.components.models import Model
from tokensmith.components.pipeline import ComponentSlots, build_core, model_json
from tokensmith.components.tokenizer_async import TokenizerAsync
from tokensmith.components.tokenizer_post import TokenizerPost
from tokensmith.components.tokenizer_queries import TokenizerQueries
from tokensmith.components.training import TokenizerTraining
from tokensmith.errors import (
    ArgumentTypeError,
    PaddingRangeError,
    TruncationRangeError,
)
from tokensmith.limits import exceeded, get_limit

if TYPE_CHECKING:
    from tokensmith.pretrained import TokenizerConfig

__all__ = ["EncodingResult", "Tokenizer"]

# What an AddedToken-like object (tokensmith's or HF's) must have.
_TOKEN_FIELDS = ("content", "single_word", "lstrip", "rstrip", "normalized", "special")


def _saved(token: tuple[int, str, bool, bool, bool, bool, bool]) -> dict[str, Any]:
    """An added token as HF writes it in ``added_tokens``."""
    return dict(zip(("id", *_TOKEN_FIELDS), token, strict=True))


def _words(value: Any, argument: str) -> list[str]:
    """A pre-tokenized input: a list or tuple of str."""
    if isinstance(value, list | tuple) and all(isinstance(w, str) for w in value):
        return list(value)
    from tokensmith.errors import EncodeInputError

    raise EncodeInputError(f"with is_pretokenized=True, {argument} must be a list of str")


# ``encode_batch`` and ``decode_batch`` use one thread per core unless told otherwise.
_DEFAULT_THREADS = os.cpu_count() or 1


class Tokenizer(ComponentSlots, TokenizerQueries, TokenizerTraining, TokenizerAsync, TokenizerPost):
    """A loaded ``tokenizer.json``, or (``Tokenizer(model)``, as in HF) a pipeline of one
    :mod:`tokensmith.models` model to which components are then set (see
    :mod:`tokensmith.components.pipeline`). ``decode``, the batch calls and ``encode`` of
    inputs from 1 KiB release the GIL (a shorter encode is over sooner than a switch)."""

    __slots__ = ("_core", "_json", "_config")

    def __init__(self, core: CoreHfTokenizer | Model, json: str | None = None) -> None:
        if isinstance(core, Model):
            json = model_json(core)
            # An UnbuiltCore stands in for a core the JSON cannot build yet.
            core = cast(CoreHfTokenizer, build_core(json, core._sampling()))
        self._core: CoreHfTokenizer = core
        self._json = json
        self._config: TokenizerConfig | None = None

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        """Pickles the ``tokenizer.json`` text (added tokens, truncation and padding included),
        the folder's configuration and ``encode_special_tokens``; loading parses the text
        again, so no compiled state or per-thread cache travels in the pickle.

        Pickling is how ``multiprocessing`` spawn workers and ``datasets.map(num_proc=...)``
        receive a tokenizer, and how ``datasets`` fingerprints it for its cache.

        >>> import pickle
        >>> tok = Tokenizer.from_str('{"model": {"type": "WordLevel", "unk_token": "?",'
        ...     ' "vocab": {"?": 0, "a": 1}}, "pre_tokenizer": {"type": "Whitespace"}}')
        >>> tok.enable_truncation(1)
        >>> pickle.loads(pickle.dumps(tok)).encode("a a").ids
        [1]
        """
        return (
            _unpickle_tokenizer,
            (type(self), self.to_str(), self._config, self.encode_special_tokens),
        )

    def __copy__(self) -> Tokenizer:
        """A tokenizer that shares this one's (immutable) compiled core: changing either one
        later (truncation, padding, added tokens) replaces its own core only."""
        twin = object.__new__(type(self))
        twin._core, twin._json, twin._config = self._core, self._json, self._config
        return twin

    def __deepcopy__(self, memo: dict[int, Any]) -> Tokenizer:
        """As :meth:`__copy__`, with the folder's configuration deep-copied."""
        import copy

        twin = self.__copy__()
        twin._config = copy.deepcopy(self._config, memo)
        return twin

    @classmethod
    def from_pretrained_dir(cls, folder: str | os.PathLike[str]) -> Tokenizer:
        """Loads a folder as transformers saves it: ``tokenizer.json`` with
        ``tokenizer_config.json`` (special tokens, chat template), never the network.

        Raises:
            InputNotFoundError: the folder or its ``tokenizer.json`` is missing.
            TokenizerJsonError: a file is malformed (the message names it and the field).
        """
        from tokensmith.errors import InputNotFoundError
        from tokensmith.pretrained import read_config

        path = os.path.join(os.fspath(folder), "tokenizer.json")
        config = read_config(folder)
        if not os.path.exists(path):
            raise InputNotFoundError(f"{path}: no such file (a tokenizer folder holds one)")
        tok = cls.from_file(path)
        tok._config = config
        return tok

    @property
    def config(self) -> TokenizerConfig:
        """The folder's configuration (empty for a tokenizer loaded from a file alone)."""
        from tokensmith.pretrained import TokenizerConfig

        return self._config or TokenizerConfig()

    def apply_chat_template(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        add_generation_prompt: bool = False,
        tokenize: bool = True,
        tools: Sequence[Mapping[str, Any]] | None = None,
        chat_template: str | None = None,
        **kwargs: Any,
    ) -> list[int] | str:
        """Renders ``messages`` with the folder's chat template (or ``chat_template``: Jinja2
        text or a built-in name such as ``chatml``), as transformers does, then encodes it
        without adding special tokens; the template's special tokens are matched as added
        tokens. ``kwargs`` are template variables; they override the folder's special tokens.

        Raises:
            ChatTemplateError: no template is known, or it fails to render.
            ChatTemplateSecurityError: the template reached for something the sandbox forbids.
        """
        from tokensmith.chat import render_chat, resolve_template
        from tokensmith.errors import ChatTemplateError

        config = self.config
        source = chat_template or config.chat_template
        if source is None:
            raise ChatTemplateError(
                "this tokenizer has no chat template (tokenizer_config.json sets none); "
                "pass chat_template='chatml' (or another built-in name, or Jinja2 text)"
            )
        chosen = resolve_template(config.chat_templates.get(source, source))
        text = render_chat(
            chosen.source,
            messages,
            add_generation_prompt=add_generation_prompt,
            tools=tools,
            **{**chosen.variables, **config.special_tokens, **kwargs},
        )
        if not tokenize:
            return text
        return self.encode(text, add_special_tokens=False).ids

    def to_transformers(self) -> Any:
        """A ``transformers.PreTrainedTokenizerFast`` for the same tokenizer.json, with the
        folder's special tokens and chat template.

        Raises:
            MissingDependencyError: transformers (or tokenizers) is not installed.
        """
        from tokensmith.errors import MissingDependencyError

        try:
            from tokenizers import Tokenizer as HfTokenizer
            from transformers import PreTrainedTokenizerFast
        except ImportError as e:
            raise MissingDependencyError(
                "to_transformers() needs transformers: pip install transformers"
            ) from e
        config = self.config
        fast: Any = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
            tokenizer_object=HfTokenizer.from_str(self.to_str()), **config.special_tokens
        )
        if config.chat_template is not None:
            fast.chat_template = config.chat_template
        if config.model_max_length is not None:
            fast.model_max_length = config.model_max_length
        return fast

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Tokenizer:
        """Loads a ``tokenizer.json`` file; a malformed or unsupported one raises
        :class:`~tokensmith.errors.TokenizerJsonError` naming the JSON path at fault."""
        core = CoreHfTokenizer.from_file(os.fspath(path))
        with open(path, encoding="utf-8") as f:
            return cls(core, f.read())

    @classmethod
    def from_str(cls, json: str) -> Tokenizer:
        """Loads the text of a ``tokenizer.json``."""
        return cls(CoreHfTokenizer.from_str(json), json)

    @classmethod
    def from_str_outlined(cls, json: str) -> tuple[Tokenizer, str]:
        """Loads the text of a ``tokenizer.json`` (parsed once) and gives its outline too:
        the same JSON without ``model.vocab`` and ``model.merges``."""
        core, outline = CoreHfTokenizer.from_str_outlined(json)
        return cls(core, json), outline

    def to_str(self) -> str:
        """The ``tokenizer.json`` text this tokenizer was loaded from (or trained into)."""
        if self._json is None:
            raise ArgumentTypeError("this tokenizer was not made from a tokenizer.json")
        return self._json

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the ``tokenizer.json`` atomically (HF ``tokenizers`` and ``transformers``
        load it). The path must end in ``.json``: ``Tokenizer.save("x.model")`` raises
        :class:`~tokensmith.errors.UnknownFormatError` (``tokensmith convert`` writes
        ``.model`` files)."""
        from tokensmith._atomic import write_text_atomic
        from tokensmith.io import check_extension

        check_extension(path, "tokenizer.json")
        write_text_atomic(path, self.to_str())

    def encode(
        self,
        sequence: str | Sequence[str],
        pair: str | Sequence[str] | None = None,
        is_pretokenized: bool = False,
        add_special_tokens: bool = True,
    ) -> EncodingResult:
        """Encodes ``sequence`` (and ``pair`` after it) as HF ``tokenizers`` does, then
        truncates and pads it as configured (padding to the longest pads it to its own
        length, rounded up to ``pad_to_multiple_of``). With ``is_pretokenized`` each is a
        list of words, each run through the pipeline alone: word ``i``'s tokens have word id
        ``i`` and offsets from the start of that word, as in HF.

        Raises:
            TruncationError: the truncation strategy cannot be satisfied for this input.
            EncodeInputError: with ``is_pretokenized``, words that are not a list of str
                (a TypeError; a text that is not a str raises TypeError too).
        """
        if is_pretokenized:
            return self._core.encode_pretokenized(
                _words(sequence, "sequence"),
                None if pair is None else _words(pair, "pair"),
                add_special_tokens,
            )
        # A non-str text is left to the core's argument check (a TypeError): this is the
        # hot path of single-text encoding.
        try:
            return self._core.encode(sequence, pair, add_special_tokens)  # type: ignore[arg-type]
        except (TypeError, OverflowError) as e:
            raise texts_error([sequence] if pair is None else [sequence, pair], e) from None

    def enable_truncation(
        self,
        max_length: int,
        stride: int = 0,
        strategy: str = "longest_first",
        direction: str = "right",
    ) -> None:
        """Truncates every later encoding to ``max_length`` tokens (special tokens included),
        as HF's ``enable_truncation`` does: ``strategy`` is ``longest_first``, ``only_first``
        or ``only_second``; ``direction`` ``right`` or ``left``; the tokens cut off come back
        in ``overflowing`` windows that repeat the ``stride`` tokens before them. The
        ``tokenizer.json`` text (:meth:`to_str`, :meth:`save`) records it.

        Raises:
            TruncationError: an unknown strategy or direction, or a stride not below
                ``max_length`` minus the special tokens of one sequence. Encoding raises it
                later when a strategy cannot be satisfied (``only_second`` without a pair,
                a sequence too short to lose enough tokens), with HF's reasons.
        """
        check_count("max_length", max_length, TruncationRangeError)
        check_count("stride", stride, TruncationRangeError)
        self._core = self._core.with_truncation(max_length, stride, strategy, direction)
        self._set_json_truncation()

    def no_truncation(self) -> None:
        """Stops truncating."""
        self._core = self._core.with_truncation(None, 0, "longest_first", "right")
        self._set_json_truncation()

    @property
    def truncation(self) -> dict[str, Any] | None:
        """The truncation in force, as HF reports it (``max_length``, ``stride``,
        ``strategy``, ``direction``), or None."""
        t = self._core.truncation()
        if t is None:
            return None
        return dict(zip(("max_length", "stride", "strategy", "direction"), t, strict=True))

    def _set_json_truncation(self) -> None:
        """Writes the truncation in force into the kept ``tokenizer.json`` text."""
        t = self.truncation
        self._set_json(
            "truncation",
            t
            and {
                "direction": t["direction"].capitalize(),
                "max_length": t["max_length"],
                "strategy": "".join(w.capitalize() for w in t["strategy"].split("_")),
                "stride": t["stride"],
            },
        )

    def _set_json(self, key: str, value: Any) -> None:
        """Sets ``key`` of the kept ``tokenizer.json`` text (if any) to ``value``."""
        if self._json is None:
            return
        data = _json.loads(self._json)
        data[key] = value
        self._json = _json.dumps(data, ensure_ascii=False, indent=2)

    def enable_padding(
        self,
        direction: str = "right",
        pad_id: int = 0,
        pad_type_id: int = 0,
        pad_token: str = "[PAD]",
        length: int | None = None,
        pad_to_multiple_of: int | None = None,
    ) -> None:
        """Pads every later encoding as HF's ``enable_padding`` does: to ``length`` tokens,
        or (``length=None``) to the longest encoding of each :meth:`encode_batch` call,
        rounded up to a multiple of ``pad_to_multiple_of``; on the ``right`` or ``left``,
        with ``pad_id``, ``pad_type_id`` and ``pad_token`` (any id and token, as in HF).
        Overflowing parts are padded to the same length; nothing is ever cut. The
        ``tokenizer.json`` text (:meth:`to_str`, :meth:`save`) records it.

        >>> tok = Tokenizer.from_str('{"model": {"type": "WordLevel", "unk_token": "?",'
        ...     ' "vocab": {"<pad>": 0, "a": 1, "?": 2}}, "pre_tokenizer": {"type": "Whitespace"}}')
        >>> tok.enable_padding(pad_token="<pad>", pad_to_multiple_of=4)
        >>> [e.ids for e in tok.encode_batch(["a", "a a a a a"])]
        [[1, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 0, 0, 0]]
        >>> tok.padding["length"], tok.padding["direction"]
        (None, 'right')

        Raises:
            PaddingError: an unknown direction, or (``PaddingRangeError``, also an
                ``OverflowError`` as in HF) a negative length, multiple or id; the message
                names the option.
        """
        counts = (
            ("length", length),
            ("pad_to_multiple_of", pad_to_multiple_of),
            ("pad_id", pad_id),
            ("pad_type_id", pad_type_id),
        )
        for option, value in counts:
            if value is not None:
                check_count(f"padding {option}", value, PaddingRangeError)
        self._core = self._core.with_padding(
            True, length, direction, pad_id, pad_type_id, pad_token, pad_to_multiple_of
        )
        self._set_json_padding()

    def no_padding(self) -> None:
        """Stops padding."""
        self._core = self._core.with_padding(False, None, "right", 0, 0, "", None)
        self._set_json_padding()

    @property
    def padding(self) -> dict[str, Any] | None:
        """The padding in force, as HF reports it (``length``, ``pad_to_multiple_of``,
        ``pad_id``, ``pad_token``, ``pad_type_id``, ``direction``), or None."""
        p = self._core.padding()
        if p is None:
            return None
        keys = ("length", "pad_to_multiple_of", "pad_id", "pad_token", "pad_type_id", "direction")
        return dict(zip(keys, p, strict=True))

    def _set_json_padding(self) -> None:
        """Writes the padding in force into the kept ``tokenizer.json`` text, as HF saves it."""
        p = self.padding
        self._set_json(
            "padding",
            p
            and {
                "strategy": "BatchLongest" if p["length"] is None else {"Fixed": p["length"]},
                "direction": p["direction"].capitalize(),
                "pad_to_multiple_of": p["pad_to_multiple_of"],
                "pad_id": p["pad_id"],
                "pad_type_id": p["pad_type_id"],
                "pad_token": p["pad_token"],
            },
        )

    def encode_batch(
        self,
        input: Sequence[Any],
        is_pretokenized: bool = False,
        add_special_tokens: bool = True,
        *,
        num_threads: int = _DEFAULT_THREADS,
    ) -> list[EncodingResult]:
        """Encodes each input (a text, or a ``(text, pair)`` tuple; with ``is_pretokenized``
        a list of words, or a ``(words, pair words)`` tuple) as :meth:`encode` does, on up
        to ``num_threads`` threads with the GIL released; results keep input order. With
        padding to the longest (:meth:`enable_padding` without a ``length``), every result,
        and its overflowing parts, is padded to the longest result of the batch.

        Raises:
            EncodeInputError: an input of another shape.
        """
        return self._encode_batch(input, is_pretokenized, add_special_tokens, num_threads, False)

    def _encode_batch(
        self,
        input: Sequence[Any],
        is_pretokenized: bool,
        add_special_tokens: bool,
        num_threads: int,
        blank: bool,
    ) -> list[EncodingResult]:
        """:meth:`encode_batch`, or (``blank``) :meth:`encode_batch_fast`."""
        check_threads(num_threads)
        if is_pretokenized:
            words: list[tuple[list[str], list[str] | None]] = [
                (_words(x[0], "input"), _words(x[1], "pair"))
                if isinstance(x, tuple) and len(x) == 2 and not isinstance(x[0], str)
                else (_words(x, "input"), None)
                for x in input
            ]
            return self._core.encode_batch_pretokenized(
                words, add_special_tokens, num_threads, blank
            )
        pairs: list[tuple[str, str | None]] = [
            (x, None) if isinstance(x, str) else (x[0], x[1]) for x in input
        ]
        return self._core.encode_batch(pairs, add_special_tokens, num_threads, blank)

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        """The text of ``ids``; ids with no token are skipped, as in HF."""
        try:
            return self._core.decode(list(ids), skip_special_tokens)
        except (TypeError, OverflowError) as e:
            raise ids_error(ids, e, "ids") from None

    def decode_batch(
        self,
        sequences: Sequence[Sequence[int]],
        skip_special_tokens: bool = True,
        *,
        num_threads: int = _DEFAULT_THREADS,
    ) -> list[str]:
        """Decodes each id list as :meth:`decode` does, on up to ``num_threads`` threads."""
        lists = [list(s) for s in sequences]
        try:
            return self._core.decode_batch(lists, skip_special_tokens, num_threads)
        except (TypeError, OverflowError) as e:
            for i, ids in enumerate(lists):
                error = ids_error(ids, e, f"sequences[{i}]")
                if error is not e:
                    raise error from None
            raise

    def token_to_id(self, token: str) -> int | None:
        return self._core.token_to_id(token)

    def id_to_token(self, id: int) -> str | None:
        try:
            return self._core.id_to_token(id)
        except (TypeError, OverflowError) as e:
            raise ids_error([id], e, "id") from None

    def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]:
        """Every token and its id, the added tokens included when ``with_added_tokens``."""
        if isinstance(self._core, CoreHfTokenizer):
            return self._core.get_vocab(with_added_tokens)
        return self._core.get_vocab()

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        """The model's vocabulary size, plus (``with_added_tokens``) the added tokens the
        model does not hold, as HF counts it."""
        if isinstance(self._core, CoreHfTokenizer):
            return self._core.get_vocab_size(with_added_tokens)
        return len(self._core.get_vocab())

    def add_tokens(self, tokens: Sequence[str | AddedToken]) -> int:
        """Adds ``tokens`` (str, or :class:`~tokensmith.AddedToken` or HF's ``AddedToken``)
        as HF's ``add_tokens`` does, and returns how many count as added: all but the empty
        ones and those already added with the same flags (re-adding one with other flags
        updates it). A token the vocabulary holds keeps its id; a new one takes the larger of
        the model's vocabulary size and the highest added id plus one. Later encodings match
        them before the pipeline runs; :meth:`to_str` and :meth:`save` record them.

        >>> tok = Tokenizer.from_str('{"model": {"type": "WordLevel", "unk_token": "?",'
        ...     ' "vocab": {"?": 0, "a": 1}}, "pre_tokenizer": {"type": "Whitespace"}}')
        >>> tok.add_tokens(["a", "<x>", "", "<x>"])
        2
        >>> tok.encode("a<x>a").ids, tok.token_to_id("<x>")
        ([1, 2, 1], 2)

        Raises:
            AddedTokenError: ``tokens`` is not a list of str or AddedToken (a TypeError).
        """
        return self._add(tokens, special=False)

    def add_special_tokens(self, tokens: Sequence[str | AddedToken]) -> int:
        """Adds ``tokens`` as special tokens (``decode`` with ``skip_special_tokens`` drops
        them; a str is not normalized), as HF's ``add_special_tokens`` does: each
        :class:`~tokensmith.AddedToken` given is made special. Returns the count as
        :meth:`add_tokens` does.

        Raises:
            AddedTokenError: ``tokens`` is not a list of str or AddedToken (a TypeError).
        """
        return self._add(tokens, special=True)

    def _add(self, tokens: Sequence[str | AddedToken], *, special: bool) -> int:
        from tokensmith.errors import AddedTokenError, UnsupportedFeatureError

        if not isinstance(self._core, CoreHfTokenizer):
            raise UnsupportedFeatureError("adding tokens needs a tokenizer.json tokenizer")
        if not isinstance(tokens, list | tuple):
            raise AddedTokenError(
                f"tokens must be a list of str or AddedToken, got {type(tokens).__name__}"
            )
        flags: list[tuple[str, bool, bool, bool, bool, bool]] = []
        for i, token in enumerate(tokens):
            if isinstance(token, str):
                flags.append((token, False, False, False, not special, special))
                continue
            if not all(hasattr(token, a) for a in _TOKEN_FIELDS) or not isinstance(
                token.content, str
            ):
                raise AddedTokenError(
                    f"tokens[{i}] must be a str or an AddedToken, got {type(token).__name__}"
                )
            if special:
                # HF sets it on the object given (its own AddedToken included), which also
                # turns an unset ``normalized`` off.
                with contextlib.suppress(AttributeError):
                    token.special = True
            flags.append(
                (
                    token.content,
                    bool(token.single_word),
                    bool(token.lstrip),
                    bool(token.rstrip),
                    bool(token.normalized),
                    special or bool(token.special),
                )
            )
        longest = max((len(f[0].encode("utf-8", "surrogatepass")) for f in flags), default=0)
        if longest > get_limit("max_token_bytes"):
            raise exceeded("max_token_bytes", "an added token's length in bytes", longest)
        self._core, added = self._core.with_added_tokens(flags)
        self._set_json("added_tokens", [_saved(t) for t in self._core.added_tokens()])
        return added

    @property
    def encode_special_tokens(self) -> bool:
        """Whether special added tokens written in the input are encoded as plain text (not
        matched, so ``"[CLS]"`` becomes ``[``, ``cl``, ``##s``, ``]``), as HF's
        ``Tokenizer.encode_special_tokens`` does. False when loaded; never saved in the JSON,
        as in HF. Tokens the post-processor adds, and ``decode``, are not affected.

        >>> tok = Tokenizer.from_str('{"model": {"type": "WordLevel", "unk_token": "?",'
        ...     ' "vocab": {"?": 0, "s": 1}}, "pre_tokenizer": {"type": "Whitespace"}}')
        >>> tok.add_special_tokens(["<s>"])
        1
        >>> tok.encode("<s>").ids
        [2]
        >>> tok.encode_special_tokens = True
        >>> tok.encode("<s>").tokens
        ['?', 's', '?']

        Raises:
            AddedTokenError: the value set is not a bool (a TypeError, as HF raises).
            UnsupportedFeatureError: set on a tokenizer that is not a tokenizer.json one.
        """
        if not isinstance(self._core, CoreHfTokenizer):
            return False
        return self._core.encode_special_tokens()

    @encode_special_tokens.setter
    def encode_special_tokens(self, value: bool) -> None:
        from tokensmith.errors import AddedTokenError, UnsupportedFeatureError

        if not isinstance(self._core, CoreHfTokenizer):
            raise UnsupportedFeatureError("encode_special_tokens needs a tokenizer.json tokenizer")
        if not isinstance(value, bool):
            raise AddedTokenError(
                f"encode_special_tokens must be a bool, got {type(value).__name__}"
            )
        self._core = self._core.with_encode_special_tokens(value)


def _unpickle_tokenizer(
    cls: type[Tokenizer], json: str, config: TokenizerConfig | None, encode_special: bool
) -> Tokenizer:
    """Rebuilds a pickled :class:`Tokenizer` (see :meth:`Tokenizer.__reduce__`)."""
    tok = cls.__new__(cls)
    # A tokenizer built from parts may not be buildable yet (an untrained model): its
    # stand-in core keeps raising why, as the original did.
    Tokenizer.__init__(tok, cast(CoreHfTokenizer, build_core(json)), json)
    tok._config = config
    if encode_special:
        tok.encode_special_tokens = True
    return tok
