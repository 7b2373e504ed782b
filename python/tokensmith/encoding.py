"""The tiktoken-compatible :class:`Encoding`.

Switching from tiktoken is a one-line change::

    import tokensmith as tiktoken

Every method has tiktoken's name, arguments and results. The work happens in the Rust core,
which releases the GIL, so one ``Encoding`` can be shared by many threads.

>>> import tokensmith
>>> enc = tokensmith.get_encoding("o200k_base")
>>> enc.encode("hello world")
[24912, 2375]
>>> enc.decode([24912, 2375])
'hello world'
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from collections.abc import Set as AbstractSet
from os import PathLike
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from tokensmith._args import check_threads, ids_error, texts_error
from tokensmith._core import CoreEncoding

if TYPE_CHECKING:
    # numpy is imported only by the methods that return arrays: importing it starts
    # OpenBLAS's threads, which would compete with the encoder's own.
    import numpy as np
    import numpy.typing as npt

AllowedSpecial = Literal["all"] | AbstractSet[str]
DisallowedSpecial = Literal["all"] | Collection[str]

_DEFAULT_THREADS = 8


def _scrub_surrogates(text: str) -> str:
    """Replaces lone surrogates with U+FFFD and joins surrogate pairs, as tiktoken does.

    >>> _scrub_surrogates("a\\ud83d\\ude00b\\udc00")
    'a😀b\\ufffd'
    """
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


_T = TypeVar("_T")


def _as_list(texts: Sequence[str]) -> list[str]:
    """``texts`` itself when it is a list, else a list of its items.

    The core takes its own reference to each text before encoding, so a caller's list needs no
    copy; copying it touched each text object once more per call, and at the start of a batch
    those objects are mostly out of the cache (some 8 µs for 217 texts of 4 KB).

    >>> t = ["a", "b"]
    >>> _as_list(t) is t, _as_list(("a", "b"))
    (True, ['a', 'b'])
    """
    return texts if type(texts) is list else list(texts)


def _scrubbing(call: Callable[..., _T], texts: str | list[str], *args: object) -> _T:
    """``call(texts, *args)``; if a text holds lone surrogates (which cannot cross into Rust
    as UTF-8), retries once with them scrubbed as tiktoken does. The one place that policy lives.
    """
    try:
        return call(texts, *args)
    except UnicodeEncodeError:
        if isinstance(texts, str):
            return call(_scrub_surrogates(texts), *args)
        return call([_scrub_surrogates(t) for t in texts], *args)
    except (TypeError, OverflowError) as e:
        raise texts_error(texts, e) from None


def _decoding(call: Callable[[Any], _T], tokens: Any) -> _T:
    """``call(tokens)``, with ids the core cannot convert reported as a typed error."""
    try:
        return call(tokens)
    except (TypeError, OverflowError) as e:
        raise ids_error(tokens, e) from None


class Encoding:
    """A byte-level BPE encoding: a split pattern, mergeable ranks and special tokens.

    Args:
        name: A name for the encoding (shown in ``repr``).
        pat_str: The regex that splits text into pieces before BPE. The patterns of
            gpt2/r50k, cl100k and o200k run on hand-written splitters; any other runs on a
            backtracking regex engine with tiktoken's semantics.
        mergeable_ranks: Token bytes to rank; the rank is the token's id.
        special_tokens: Special-token text to id.
        explicit_n_vocab: If given, checked against the number of tokens.
    """

    def __init__(
        self,
        name: str,
        *,
        pat_str: str,
        mergeable_ranks: dict[bytes, int],
        special_tokens: dict[str, int],
        explicit_n_vocab: int | None = None,
    ) -> None:
        core = CoreEncoding.from_ranks(
            list(mergeable_ranks.items()), list(special_tokens.items()), pat_str
        )
        self._init(name, core, explicit_n_vocab)

    @classmethod
    def from_tiktoken_file(
        cls,
        name: str,
        path: str | PathLike[str],
        *,
        pat_str: str,
        special_tokens: dict[str, int],
        explicit_n_vocab: int | None = None,
    ) -> Encoding:
        """Loads the ranks from a ``.tiktoken`` file (plain or gzipped), parsed in Rust."""
        core = CoreEncoding.from_file(str(path), list(special_tokens.items()), pat_str)
        self = cls.__new__(cls)
        self._init(name, core, explicit_n_vocab)
        return self

    # The merges a trainer recorded, in order (``None`` when built from ranks, as tiktoken
    # files are). Merge-list formats use them rather than rebuilding merges from the ranks.
    _bpe_merges: list[tuple[bytes, bytes]] | None = None

    def _init(self, name: str, core: CoreEncoding, explicit_n_vocab: int | None) -> None:
        self.name = name
        self._core = core
        self._pat_str: str = core.pattern
        self._special_tokens: dict[str, int] = dict(core.special_tokens())
        self._special_ids: frozenset[int] = frozenset(self._special_tokens.values())
        self.max_token_value: int = core.n_vocab - 1
        if explicit_n_vocab is not None:
            n_tokens = core.n_mergeable + len(self._special_tokens)
            if n_tokens != explicit_n_vocab or self.max_token_value != explicit_n_vocab - 1:
                from tokensmith.errors import InvalidVocabError

                raise InvalidVocabError(
                    f"explicit_n_vocab={explicit_n_vocab}, but the encoding has {n_tokens} "
                    f"tokens and its largest id is {self.max_token_value}"
                )

    # Set by ``get_encoding`` on the encodings it builds, so pickling can refer to them by name.
    _bundled: bool = False

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        """Pickles a bundled encoding by name and any other by its parts.

        Pickling is what ``multiprocessing`` and ``datasets.map(num_proc=...)`` do to the
        functions they ship to workers.

        >>> import pickle, tokensmith
        >>> pickle.loads(pickle.dumps(tokensmith.get_encoding("o200k_base"))).name
        'o200k_base'
        """
        if self._bundled:
            from tokensmith.registry import get_encoding

            return (get_encoding, (self.name,))
        return (
            _rebuild,
            (
                self.name,
                self._pat_str,
                self._mergeable_ranks,
                self._special_tokens,
                self._bpe_merges,
            ),
        )

    def __copy__(self) -> Encoding:
        """A copy that shares this encoding's (immutable) compiled core."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        return twin

    def __deepcopy__(self, memo: dict[int, Any]) -> Encoding:
        """As :meth:`__copy__`, with the Python attributes (name, special tokens, merges)
        deep-copied; the core is immutable, so sharing it is as good as copying it."""
        import copy

        twin = object.__new__(type(self))
        for key, value in self.__dict__.items():
            twin.__dict__[key] = value if key == "_core" else copy.deepcopy(value, memo)
        return twin

    def __repr__(self) -> str:
        return f"<Encoding {self.name!r}>"

    # ------------------------------------------------------------------ encoding

    def encode_ordinary(self, text: str) -> list[int]:
        """Encodes text, treating special-token text as ordinary text.

        >>> import tokensmith
        >>> tokensmith.get_encoding("cl100k_base").encode_ordinary("hello <|endoftext|>")
        [15339, 83739, 8862, 728, 428, 91, 29]
        """
        try:
            return self._core.encode_ordinary(text)
        except (UnicodeEncodeError, TypeError, OverflowError):
            return _scrubbing(self._core.encode_ordinary, text)

    def encode(
        self,
        text: str,
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> list[int]:
        """Encodes text, with special tokens handled as tiktoken does.

        By default, text that contains any special token raises
        :class:`~tokensmith.errors.DisallowedSpecialTokenError` (a ``ValueError``) whose
        message shows how to allow it. Pass ``allowed_special={"<|endoftext|>"}`` (or
        ``"all"``) to encode those as special ids, or ``disallowed_special=()`` to encode them
        as ordinary text.

        >>> import tokensmith
        >>> enc = tokensmith.get_encoding("cl100k_base")
        >>> enc.encode("hi<|endoftext|>", allowed_special="all")
        [6151, 100257]
        """
        try:
            return self._core.encode(text, allowed_special, disallowed_special)
        except (UnicodeEncodeError, TypeError, OverflowError):
            return _scrubbing(self._core.encode, text, allowed_special, disallowed_special)

    def encode_with_unstable(
        self,
        text: str,
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> tuple[list[int], list[list[int]]]:
        """Encodes a prefix of a longer text: ``(stable tokens, possible completions)``.

        The stable tokens are those no continuation of ``text`` can change; each completion is
        a token sequence the unstable tail may become. tiktoken's semantics (see
        :mod:`tokensmith.unstable`), in the same order on every run (tiktoken's order
        varies). Special tokens are handled as by :meth:`encode`.

        >>> import tokensmith
        >>> enc = tokensmith.get_encoding("cl100k_base")
        >>> stable, completions = enc.encode_with_unstable("hello wor")
        >>> enc.decode(stable), enc.encode(" world") in completions
        ('hello', True)
        """
        from tokensmith.unstable import encode_with_unstable

        return encode_with_unstable(
            self, text, allowed_special=allowed_special, disallowed_special=disallowed_special
        )

    def encode_to_numpy(
        self,
        text: str,
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> npt.NDArray[np.uint32]:
        """Like :meth:`encode`, returning a new ``numpy.uint32`` array (numpy is imported on
        the first call).

        >>> import tokensmith
        >>> tokensmith.get_encoding("o200k_base").encode_to_numpy("hello world").tolist()
        [24912, 2375]
        """
        # The plain call first, inline: on ~4 KB texts a wrapper's call costs a few percent.
        try:
            return self._core.encode_to_numpy(text, allowed_special, disallowed_special)
        except (UnicodeEncodeError, TypeError, OverflowError):
            return _scrubbing(self._core.encode_to_numpy, text, allowed_special, disallowed_special)

    def count(
        self,
        text: str,
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> int:
        """The number of tokens :meth:`encode` would return, without building the list.

        >>> import tokensmith
        >>> tokensmith.get_encoding("o200k_base").count("hello world")
        2
        """
        try:
            return self._core.count(text, allowed_special, disallowed_special)
        except (UnicodeEncodeError, TypeError, OverflowError):
            return _scrubbing(self._core.count, text, allowed_special, disallowed_special)

    def encode_ordinary_batch(
        self, text: Sequence[str], *, num_threads: int = _DEFAULT_THREADS
    ) -> list[list[int]]:
        """Encodes many texts in parallel on up to ``num_threads`` threads, in order."""
        check_threads(num_threads)
        return _scrubbing(self._core.encode_ordinary_batch, _as_list(text), num_threads)

    def encode_batch(
        self,
        text: Sequence[str],
        *,
        num_threads: int = _DEFAULT_THREADS,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> list[list[int]]:
        """Encodes many texts in parallel, with :meth:`encode`'s special-token rules."""
        check_threads(num_threads)
        texts = _as_list(text)
        return _scrubbing(
            self._core.encode_batch, texts, num_threads, allowed_special, disallowed_special
        )

    def encode_ordinary_batch_to_numpy(
        self, text: Sequence[str], *, num_threads: int = _DEFAULT_THREADS
    ) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint64]]:
        """Encodes many texts into one flat array, without building Python lists.

        Returns ``(tokens, offsets)``: the ids of text ``i`` are
        ``tokens[offsets[i]:offsets[i + 1]]``.

        >>> import tokensmith
        >>> toks, offs = tokensmith.get_encoding("o200k_base").encode_ordinary_batch_to_numpy(
        ...     ["hello", "hello world"])
        >>> toks.tolist(), offs.tolist()
        ([24912, 24912, 2375], [0, 1, 3])
        """
        check_threads(num_threads)
        texts = _as_list(text)
        ordinary: frozenset[str] = frozenset()
        return _scrubbing(self._core.encode_batch_to_numpy, texts, num_threads, ordinary, ())

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of text that is exactly one token (mergeable or special).

        Raises :class:`~tokensmith.errors.UnknownTokenIdError` (a ``KeyError``) otherwise.
        """
        raw = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else text_or_bytes
        token = self._core.single_token(raw)
        if token is None:
            from tokensmith.errors import UnknownTokenIdError

            raise UnknownTokenIdError(f"{text_or_bytes!r} is not a single token of {self.name}")
        return token

    # ------------------------------------------------------------------ decoding

    def decode_bytes(self, tokens: Sequence[int]) -> bytes:
        """The bytes of a token sequence.

        >>> import tokensmith
        >>> tokensmith.get_encoding("o200k_base").decode_bytes([24912, 2375])
        b'hello world'
        """
        return _decoding(self._core.decode_bytes, tokens)

    def decode(self, tokens: Sequence[int], errors: str = "replace") -> str:
        """Decodes tokens to text. Invalid UTF-8 becomes U+FFFD unless ``errors="strict"``.

        ``errors`` takes any of Python's codec error handlers.
        """
        return _decoding(self._core.decode_bytes, tokens).decode("utf-8", errors=errors)

    def decode_single_token_bytes(self, token: int) -> bytes:
        """The bytes of one token.

        >>> import tokensmith
        >>> tokensmith.get_encoding("o200k_base").decode_single_token_bytes(2375)
        b' world'
        """
        try:
            return self._core.token_bytes(token)
        except (TypeError, OverflowError) as e:
            raise ids_error([token], e, "token") from None

    def decode_tokens_bytes(self, tokens: Sequence[int]) -> list[bytes]:
        """The bytes of each token."""
        return _decoding(self._core.tokens_bytes, tokens)

    def decode_with_offsets(self, tokens: Sequence[int]) -> tuple[str, list[int]]:
        """Decodes tokens and gives the character offset at which each token starts.

        A token that begins in the middle of a character gets that character's offset.

        >>> import tokensmith
        >>> tokensmith.get_encoding("o200k_base").decode_with_offsets([24912, 2375])
        ('hello world', [0, 5])
        """
        offsets = _decoding(self._core.decode_offsets, tokens)
        return self.decode(tokens, errors="strict"), offsets

    def decode_batch(
        self,
        batch: Sequence[Sequence[int]],
        *,
        errors: str = "replace",
        num_threads: int = _DEFAULT_THREADS,
    ) -> list[str]:
        """Decodes many token sequences."""
        del num_threads  # decoding is a copy per token; threads do not pay for themselves
        return [self.decode(tokens, errors=errors) for tokens in batch]

    def decode_bytes_batch(
        self, batch: Sequence[Sequence[int]], *, num_threads: int = _DEFAULT_THREADS
    ) -> list[bytes]:
        """The bytes of many token sequences."""
        del num_threads
        return [self.decode_bytes(tokens) for tokens in batch]

    # ------------------------------------------------------------------ vocabulary

    def token_byte_values(self) -> list[bytes]:
        """Every mergeable token's bytes, sorted."""
        return self._core.sorted_token_bytes()

    @property
    def eot_token(self) -> int:
        """The id of ``<|endoftext|>``."""
        return self._special_tokens["<|endoftext|>"]

    @property
    def special_tokens_set(self) -> set[str]:
        """The special tokens' texts."""
        return set(self._special_tokens)

    def is_special_token(self, token: int) -> bool:
        """Whether an id is a special token."""
        return token in self._special_ids

    @property
    def n_vocab(self) -> int:
        """One more than the largest id, special tokens included."""
        return self.max_token_value + 1

    @property
    def _mergeable_ranks(self) -> dict[bytes, int]:
        """Token bytes to rank, built on demand (for code that reads tiktoken's attribute)."""
        return self._core.mergeable_ranks()

    def apply_chat_template(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        chat_template: str = "chatml",
        add_generation_prompt: bool = False,
        tokenize: bool = True,
        tools: Sequence[Mapping[str, Any]] | None = None,
        **variables: Any,
    ) -> list[int] | str:
        """Renders a conversation with a chat template and encodes it; see
        :func:`tokensmith.chat.apply_chat_template` (the template's control tokens must be
        special tokens of this encoding)."""
        from tokensmith.chat import apply_chat_template

        return apply_chat_template(
            self,
            messages,
            chat_template=chat_template,
            add_generation_prompt=add_generation_prompt,
            tokenize=tokenize,
            tools=tools,
            **variables,
        )

    def save(self, path: str | PathLike[str], *, overwrite: bool = False) -> None:
        """Writes the encoding; the format follows the path (see :func:`tokensmith.save`).

        ``NAME.tiktoken`` (+ ``NAME.tiktoken.json``), ``NAME.json`` (HF ``tokenizer.json``) or a
        directory (``vocab.json`` + ``merges.txt``). Each file is written atomically.

        Raises:
            OutputDirError: a file it would write exists and ``overwrite`` is false (checked
                before anything is written).
        """
        from tokensmith.io import save

        save(self, path, overwrite=overwrite)

    def pre_tokenize(self, text: str) -> list[str]:
        """The pieces the split pattern cuts ``text`` into, before BPE.

        >>> import tokensmith
        >>> tokensmith.get_encoding("cl100k_base").pre_tokenize("I'm 12345")
        ['I', "'m", ' ', '123', '45']
        """
        return self._core.pre_tokenize(text)


def _rebuild(
    name: str,
    pat_str: str,
    mergeable_ranks: dict[bytes, int],
    special_tokens: dict[str, int],
    merges: list[tuple[bytes, bytes]] | None,
) -> Encoding:
    """Unpickles an :class:`Encoding` that is not bundled."""
    enc = Encoding(
        name, pat_str=pat_str, mergeable_ranks=mergeable_ranks, special_tokens=special_tokens
    )
    enc._bpe_merges = merges
    return enc
