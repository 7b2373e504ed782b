"""Type stubs for the compiled module ``tokensmith._core`` (the Rust engine)."""

from collections.abc import Callable, Iterable, Mapping, Sequence
from os import PathLike
from typing import Literal

import numpy as np
import numpy.typing as npt

R50K_PATTERN: str
CL100K_PATTERN: str
O200K_PATTERN: str
UTF8_CONVERT_FROM: int
__version__: str

_Specials = str | Iterable[str]

class CoreEncoding:
    """Pre-tokenizer + byte-level BPE + special tokens. Immutable; releases the GIL."""

    @staticmethod
    def from_ranks(
        ranks: Sequence[tuple[bytes, int]],
        special_tokens: Sequence[tuple[str, int]],
        pattern: str,
    ) -> CoreEncoding: ...
    @staticmethod
    def from_file(
        path: str | PathLike[str],
        special_tokens: Sequence[tuple[str, int]],
        pattern: str,
    ) -> CoreEncoding: ...
    def encode_ordinary(self, text: str) -> list[int]: ...
    def encode(
        self, text: str, allowed_special: _Specials, disallowed_special: _Specials
    ) -> list[int]: ...
    def encode_to_numpy(
        self, text: str, allowed_special: _Specials, disallowed_special: _Specials
    ) -> npt.NDArray[np.uint32]: ...
    def count(
        self, text: str, allowed_special: _Specials, disallowed_special: _Specials
    ) -> int: ...
    def encode_ordinary_batch(self, texts: Sequence[str], num_threads: int) -> list[list[int]]: ...
    def encode_batch(
        self,
        texts: Sequence[str],
        num_threads: int,
        allowed_special: _Specials,
        disallowed_special: _Specials,
    ) -> list[list[int]]: ...
    def encode_batch_to_numpy(
        self,
        texts: Sequence[str],
        num_threads: int,
        allowed_special: _Specials,
        disallowed_special: _Specials,
    ) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint64]]: ...
    def decode_bytes(self, tokens: Sequence[int]) -> bytes: ...
    def decode_offsets(self, tokens: Sequence[int]) -> list[int]: ...
    def token_bytes(self, token: int) -> bytes: ...
    def tokens_bytes(self, tokens: Sequence[int]) -> list[bytes]: ...
    def single_token(self, raw: bytes) -> int | None: ...
    def sorted_token_bytes(self) -> list[bytes]: ...
    def mergeable_ranks(self) -> dict[bytes, int]: ...
    def special_tokens(self) -> list[tuple[str, int]]: ...
    def pre_tokenize(self, text: str) -> list[str]: ...
    @property
    def n_vocab(self) -> int: ...
    @property
    def n_mergeable(self) -> int: ...
    @property
    def pattern(self) -> str: ...

def read_tiktoken(path: str | PathLike[str]) -> list[tuple[bytes, int]]: ...
def get_limit(name: str) -> int: ...
def set_limit(name: str, value: int) -> None: ...
def train_bpe_bytes(
    texts: Iterable[str] | None,
    *,
    pattern: str,
    vocab_size: int,
    min_frequency: int = 0,
    special_tokens: Sequence[str] = ...,
    max_token_length: int | None = None,
    compat: Literal["hf", "ranks"] = "hf",
    chunk_size: int = 65536,
    counts: bytes | None = None,
    progress: Callable[[int], object] | None = None,
    progress_every: int = 100,
) -> tuple[list[tuple[bytes, int]], list[tuple[str, int]], list[tuple[bytes, bytes]]]: ...
def train_bpe_chars(
    texts: Iterable[str],
    *,
    pre_tokenizer: str,
    vocab_size: int,
    min_frequency: int = 0,
    special_tokens: Sequence[str] = ...,
    reserved: Sequence[str] = ...,
    limit_alphabet: int | None = None,
    initial_alphabet: Sequence[str] = ...,
    max_token_length: int | None = None,
    continuing_subword_prefix: str | None = None,
    end_of_word_suffix: str | None = None,
    variant_order: Sequence[str] = ...,
    compat: Literal["hf", "ranks"] = "hf",
    chunk_size: int = 4096,
    progress: Callable[[int], object] | None = None,
    progress_every: int = 100,
    normalizer: str | None = None,
    scoring: Literal["frequency", "likelihood"] = "frequency",
    keep_alphabet: bool = False,
) -> tuple[list[str], list[tuple[str, str]]]: ...
def count_words(texts: Iterable[str], *, pattern: str, chunk_size: int = 4096) -> bytes: ...
def merge_word_counts(blobs: Sequence[bytes]) -> bytes: ...
def extend_bpe_bytes(
    texts: Iterable[str],
    *,
    base: CoreEncoding,
    vocab_size: int,
    min_frequency: int = 0,
    chunk_size: int = 4096,
) -> tuple[list[tuple[bytes, int]], list[tuple[str, int]], list[tuple[bytes, bytes]]]: ...
def train_unigram_hf(
    words: Sequence[tuple[str, int]],
    *,
    vocab_size: int,
    keep: int,
    required: str = "",
    n_sub_iterations: int = 2,
    shrinking_factor: float = 0.75,
    max_piece_length: int = 16,
    seed_size: int = 1_000_000,
    progress: Callable[[int, int], object] | None = None,
) -> list[tuple[str, float]]: ...
def train_unigram(
    texts: Iterable[str] | Iterable[tuple[str, int]] | Iterable[bytes] | tuple[bytes, int, int],
    *,
    vocab_size: int,
    character_coverage: float = 0.9995,
    required_chars: str = "",
    byte_fallback: bool = False,
    split_digits: bool = False,
    max_piece_length: int = 16,
    user_defined_symbols: Sequence[str] = ...,
    control_symbols: Sequence[str] = ...,
    input_sentence_size: int = 0,
    shuffle_input_sentence: bool = True,
    seed: int = 0,
    shrinking_factor: float = 0.75,
    num_sub_iterations: int = 2,
    seed_sentencepiece_size: int = 1_000_000,
    max_sentence_length: int = 4192,
    split_by_whitespace: bool = True,
    split_by_unicode_script: bool = True,
    split_by_number: bool = True,
    treat_whitespace_as_suffix: bool = False,
    add_dummy_prefix: bool = True,
    remove_extra_whitespaces: bool = True,
    normalization_rule_name: str = "nmt_nfkc",
    num_threads: int = 0,
    progress: Callable[[str, Mapping[str, float]], None] | None = None,
    chunk_size: int = 4096,
    weighted: bool = False,
    model_type: str = "unigram",
    use_all_vocab: bool = False,
    hard_vocab_limit: bool = True,
    seeds_per_distinct_word: bool = False,
    lines: bool = False,
) -> CoreSentencePiece: ...
def count_unigram_words(
    texts: Iterable[str],
    *,
    byte_fallback: bool = False,
    user_defined_symbols: Sequence[str] = ...,
    control_symbols: Sequence[str] = ...,
    max_sentence_length: int = 4192,
    split_by_whitespace: bool = True,
    treat_whitespace_as_suffix: bool = False,
    add_dummy_prefix: bool = True,
    remove_extra_whitespaces: bool = True,
    normalization: str = "nmt_nfkc",
    num_threads: int = 0,
    chunk_size: int = 4096,
) -> tuple[bytes, int, int]: ...

class CoreSentencePiece:
    @staticmethod
    def from_file(path: str | PathLike[str]) -> CoreSentencePiece: ...
    @staticmethod
    def from_bytes(data: bytes) -> CoreSentencePiece: ...
    @staticmethod
    def from_pieces(
        pieces: list[tuple[str, float, str]],
        model_type: str,
        byte_fallback: bool,
        add_dummy_prefix: bool,
        remove_extra_whitespaces: bool,
        treat_whitespace_as_suffix: bool,
    ) -> CoreSentencePiece: ...
    def with_pieces(self, pieces: list[tuple[str, float, str]]) -> CoreSentencePiece: ...
    def pieces(self) -> list[tuple[str, float, str]]: ...
    def serialize(self) -> bytes: ...
    def model_type(self) -> str: ...
    def encode_ids(self, text: str) -> list[int]: ...
    def encode_pieces(self, text: str) -> list[str]: ...
    def encode(self, text: str) -> tuple[list[str], list[int]]: ...
    def encode_offsets(self, text: str) -> tuple[list[str], list[int], list[tuple[int, int]]]: ...
    def encode_byte_offsets(
        self, text: str
    ) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32], npt.NDArray[np.uint32]]: ...
    def encode_ids_batch(self, texts: Iterable[str], num_threads: int) -> list[list[int]]: ...
    def encode_pieces_batch(self, texts: Iterable[str], num_threads: int) -> list[list[str]]: ...
    def nbest(self, text: str, n: int) -> list[tuple[list[str], list[int], float]]: ...
    def sample(
        self, text: str, alpha: float, nbest_size: int, seed: int
    ) -> tuple[list[str], list[int]]: ...
    def entropy(self, text: str, alpha: float) -> float: ...
    def normalize(self, text: str) -> str: ...
    def decode(self, ids: Sequence[int]) -> str: ...
    def decode_pieces(self, pieces: Sequence[str]) -> str: ...
    def piece_size(self) -> int: ...
    def id_to_piece(self, id: int) -> str: ...
    def piece_to_id(self, piece: str) -> int: ...
    def piece_id(self, piece: str) -> int | None: ...
    def get_score(self, id: int) -> float: ...
    def piece_type(self, id: int) -> str: ...
    def special_ids(self) -> tuple[int, int, int, int]: ...
    def encode_proto(self, text: str) -> list[tuple[str, int, int, int, bool]]: ...
    def nbest_proto(
        self, text: str, n: int
    ) -> list[tuple[list[tuple[str, int, int, int, bool]], float]]: ...
    def sample_proto(
        self, text: str, alpha: float, nbest_size: int, seed: int
    ) -> list[tuple[str, int, int, int, bool]]: ...
    def normalize_offsets(self, text: str) -> tuple[str, list[int]]: ...
    def decode_spans(self, ids: Sequence[int]) -> tuple[str, list[tuple[int, int]]]: ...
    def decode_pieces_spans(self, pieces: Sequence[str]) -> tuple[str, list[tuple[int, int]]]: ...
    def plain_encode(
        self, slow: Callable[..., object], as_ids: bool, threads: int
    ) -> PlainEncode: ...

class PlainEncode:
    """``SentencePieceProcessor.encode`` compiled, for a processor with plain defaults."""

    def encode(
        self,
        input: object,
        out_type: object = None,
        add_bos: object = None,
        add_eos: object = None,
        reverse: object = None,
        emit_unk_piece: object = None,
        enable_sampling: object = None,
        nbest_size: object = None,
        alpha: object = None,
        num_threads: object = None,
        return_type: object = None,
        thread_pool: object = None,
        return_bytes: object = None,
    ) -> object: ...
    def method(self) -> Callable[..., object]:
        """``encode`` as a builtin method bound to this object; a call with one ``str`` and
        no other argument skips the parsing of the options."""

class EncodingResult:
    """One encoded sequence (or pair): every list has one entry per token.

    ``offsets`` are ``(start, end)`` in characters of the sequence the token came from, and
    ``(0, 0)`` for special tokens; ``word_ids`` is ``None`` for special tokens. Each list is
    built when it is read.
    """

    def __init__(
        self,
        ids: Sequence[int],
        tokens: Sequence[str],
        offsets: Sequence[tuple[int, int]],
        type_ids: Sequence[int],
        attention_mask: Sequence[int],
        special_tokens_mask: Sequence[int],
        word_ids: Sequence[int | None],
        overflowing: Sequence[EncodingResult] | None = None,
        sequence_ranges: Sequence[tuple[int, tuple[int, int]]] | None = None,
    ) -> None:
        """Raises InvalidArgumentError when a list is neither empty nor of ``len(ids)``
        entries, or a sequence range ``(sequence id, (start, end))`` is not within the
        tokens."""
    @property
    def ids(self) -> list[int]: ...
    @property
    def tokens(self) -> list[str]: ...
    @property
    def offsets(self) -> list[tuple[int, int]]: ...
    @property
    def type_ids(self) -> list[int]: ...
    @property
    def attention_mask(self) -> list[int]: ...
    @property
    def special_tokens_mask(self) -> list[int]: ...
    @property
    def word_ids(self) -> list[int | None]: ...
    @property
    def overflowing(self) -> list[EncodingResult]:
        """The windows truncation cut off, each a complete result (special tokens and
        padding included), as HF ``tokenizers`` builds them."""
    @property
    def words(self) -> list[int | None]:
        """``word_ids`` under HF's deprecated name (reading it warns)."""
    @property
    def sequence_ids(self) -> list[int | None]:
        """The sequence (0 or 1) of each token; None for special and padding tokens."""
    @property
    def n_sequences(self) -> int:
        """How many sequences the result holds."""
    def set_sequence_id(self, sequence_id: int) -> None:
        """Marks every token as one of sequence ``sequence_id``."""
    def char_to_token(self, char_pos: int, sequence_index: int = 0) -> int | None:
        """The index of the token of sequence ``sequence_index`` holding ``char_pos``."""
    def char_to_word(self, char_pos: int, sequence_index: int = 0) -> int | None:
        """The word of sequence ``sequence_index`` holding character ``char_pos``."""
    def token_to_chars(self, token_index: int) -> tuple[int, int] | None:
        """The offsets of token ``token_index`` in its sequence."""
    def token_to_sequence(self, token_index: int) -> int | None:
        """The sequence of token ``token_index``."""
    def token_to_word(self, token_index: int) -> int | None:
        """The word (in its sequence) of token ``token_index``."""
    def word_to_tokens(self, word_index: int, sequence_index: int = 0) -> tuple[int, int] | None:
        """The tokens ``(first, last + 1)`` of a word of sequence ``sequence_index``."""
    def word_to_chars(self, word_index: int, sequence_index: int = 0) -> tuple[int, int] | None:
        """The characters ``(first, last + 1)`` a word of sequence ``sequence_index`` spans."""
    @staticmethod
    def merge(encodings: Sequence[EncodingResult], growing_offsets: bool = True) -> EncodingResult:
        """The results joined into one, as HF's ``Encoding.merge``."""
    def __len__(self) -> int: ...
    def pad(
        self,
        length: int,
        direction: str = "right",
        pad_id: int = 0,
        pad_type_id: int = 0,
        pad_token: str = "[PAD]",
    ) -> None:
        """Pads to ``length`` tokens in place (never cuts), its overflowing results too, as
        HF's ``Encoding.pad``. Raises PaddingError naming a bad option (an unknown direction,
        a negative length or id)."""
    def truncate(self, max_length: int, stride: int = 0, direction: str = "right") -> None:
        """Truncates to ``max_length`` tokens in place, as HF's ``Encoding.truncate``: the
        tokens cut off become ``overflowing`` windows repeating ``stride`` tokens (the
        overflowing results it had are dropped). Raises TruncationError naming a bad option
        (a stride not below ``max_length``, where HF panics; an unknown direction; a negative
        number)."""

class CoreHfTokenizer:
    """A tokenizer.json pipeline (BERT-style components). Immutable; releases the GIL."""

    @staticmethod
    def from_file(path: str | PathLike[str]) -> CoreHfTokenizer: ...
    @staticmethod
    def from_str(json: str) -> CoreHfTokenizer: ...
    @staticmethod
    def from_str_outlined(json: str) -> tuple[CoreHfTokenizer, str]:
        """The tokenizer and the file's outline (the JSON without ``model.vocab`` and
        ``model.merges``), parsed once."""
    def byte_level_ranks(self) -> tuple[dict[bytes, int], list[int]] | None:
        """``({token bytes: id}, other ids)`` for a byte-level BPE whose ids are in merge
        order: the 256 bytes and the merged tokens, and the ids of the other vocabulary
        entries; else None."""
    def encode(self, text: str, pair: str | None, add_special_tokens: bool) -> EncodingResult: ...
    def encode_pretokenized(
        self, words: list[str], pair: list[str] | None, add_special_tokens: bool
    ) -> EncodingResult: ...
    def encode_batch_pretokenized(
        self,
        inputs: list[tuple[list[str], list[str] | None]],
        add_special_tokens: bool,
        threads: int,
        blank: bool = False,
    ) -> list[EncodingResult]: ...
    @property
    def fast_ids(self) -> bool:
        """Whether this file's ids come from an ids-only engine, byte-level BPE or BERT-style
        (tokens and offsets are then computed when first read)."""
    def ids_only(
        self, text: str, pair: str | None, add_special_tokens: bool
    ) -> list[int] | None:
        """The ids of this call from the ids-only engine, or None when the call takes the
        character pipeline (the configuration, or a text the engine does not handle)."""
    def with_truncation(
        self, max_length: int | None, stride: int, strategy: str, direction: str
    ) -> CoreHfTokenizer:
        """A copy with truncation set (removed when ``max_length`` is None)."""
    def truncation(self) -> tuple[int, int, str, str] | None:
        """``(max_length, stride, strategy, direction)`` in HF's names, or None."""
    def with_padding(
        self,
        enabled: bool,
        length: int | None,
        direction: str,
        pad_id: int,
        pad_type_id: int,
        pad_token: str,
        pad_to_multiple_of: int | None,
    ) -> CoreHfTokenizer:
        """A copy with padding set (removed when ``enabled`` is false)."""
    def padding(self) -> tuple[int | None, int | None, int, str, int, str] | None:
        """``(length, pad_to_multiple_of, pad_id, pad_token, pad_type_id, direction)``."""
    def encode_batch(
        self,
        inputs: list[tuple[str, str | None]],
        add_special_tokens: bool,
        threads: int,
        blank: bool = False,
    ) -> list[EncodingResult]: ...
    def post_process(
        self, encoding: EncodingResult, pair: EncodingResult | None, add_special_tokens: bool
    ) -> EncodingResult: ...
    def decode_batch(
        self, sequences: list[list[int]], skip_special_tokens: bool, threads: int
    ) -> list[str]: ...
    def decode(self, ids: Sequence[int], skip_special_tokens: bool) -> str: ...
    def token_to_id(self, token: str) -> int | None: ...
    def id_to_token(self, id: int) -> str | None: ...
    def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]: ...
    def get_vocab_size(self, with_added_tokens: bool = True) -> int: ...
    def with_added_tokens(
        self, tokens: list[tuple[str, bool, bool, bool, bool, bool]]
    ) -> tuple[CoreHfTokenizer, int]:
        """A copy with ``(content, single_word, lstrip, rstrip, normalized, special)`` tokens
        added, and how many count as added."""
    def added_tokens(self) -> list[tuple[int, str, bool, bool, bool, bool, bool]]:
        """``(id, content, single_word, lstrip, rstrip, normalized, special)`` by id."""
    def with_encode_special_tokens(self, value: bool) -> CoreHfTokenizer:
        """A copy that encodes special added tokens in the input as plain text, or not."""
    def encode_special_tokens(self) -> bool: ...
    def with_unigram_sampling(
        self, alpha: float | None, nbest_size: int | None
    ) -> CoreHfTokenizer:
        """A copy whose Unigram model samples with HF's alpha and nbest_size."""
    def unigram_sampling(self) -> tuple[float, int | None] | None: ...

def count_words_bounded(
    texts: Iterable[str],
    *,
    pattern: str,
    max_memory: int,
    mode: str = "exact",
    spill_dir: str,
    chunk_size: int = 4096,
) -> tuple[bytes, int, int, int, int]: ...

def spm_normalizer(
    model: bytes,
    add_dummy_prefix: bool | None,
    escape_whitespaces: bool | None,
    remove_extra_whitespaces: bool | None,
) -> tuple[CoreSentencePiece, bytes]: ...
def spm_rule_charsmap(name: str) -> bytes: ...
def spm_set_nbest_timeout(ms: int) -> None: ...
def spm_compile_charsmap(pairs: list[tuple[str, str]]) -> bytes: ...
def spm_decompile_charsmap(blob: bytes) -> list[tuple[str, str]]: ...
