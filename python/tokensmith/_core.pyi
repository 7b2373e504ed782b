"""Type stubs for the compiled module ``tokensmith._core`` (the Rust engine)."""

from collections.abc import Iterable, Sequence
from os import PathLike
from typing import Literal

R50K_PATTERN: str
CL100K_PATTERN: str
O200K_PATTERN: str
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
    def encode_to_bytes(
        self, text: str, allowed_special: _Specials, disallowed_special: _Specials
    ) -> bytes: ...
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
    def encode_batch_to_bytes(
        self,
        texts: Sequence[str],
        num_threads: int,
        allowed_special: _Specials,
        disallowed_special: _Specials,
    ) -> tuple[bytes, bytes]: ...
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
def train_bpe_bytes(
    texts: Iterable[str],
    *,
    pattern: str,
    vocab_size: int,
    min_frequency: int = 0,
    special_tokens: Sequence[str] = ...,
    max_token_length: int | None = None,
    compat: Literal["hf", "ranks"] = "hf",
    chunk_size: int = 4096,
) -> tuple[list[tuple[bytes, int]], list[tuple[str, int]], list[tuple[bytes, bytes]]]: ...
