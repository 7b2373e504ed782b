"""Small tokenizers whose every split is known by hand, shared by the eval tests."""

from __future__ import annotations

from pathlib import Path

import tokensmith
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

DATA = Path(__file__).resolve().parents[1] / "data"

# Each merge joins two earlier tokens: hell = he + ll, hello = hell + o, " world" = " worl" + d.
TOY_MERGES = [b"he", b"ll", b"hell", b"hello", b" w", b"or", b" wor", b" worl", b" world"]
TOY_PATTERN = r" ?\S+|\s+"


def toy_encoding() -> tokensmith.Encoding:
    """256 bytes + the merges above. "hello world" -> [hello, " world"]; anything else is
    mostly single bytes, so a character of 3 UTF-8 bytes is 3 tokens."""
    ranks = {bytes([b]): b for b in range(256)}
    for i, token in enumerate(TOY_MERGES):
        ranks[token] = 256 + i
    return tokensmith.Encoding("toy", pat_str=TOY_PATTERN, mergeable_ranks=ranks, special_tokens={})


def byte_encoding() -> tokensmith.Encoding:
    """Only the 256 bytes: every token is one byte, so token counts are byte counts."""
    ranks = {bytes([b]): b for b in range(256)}
    return tokensmith.Encoding(
        "bytes", pat_str=TOY_PATTERN, mergeable_ranks=ranks, special_tokens={}
    )


def hf_byte_level(lines: list[str], vocab_size: int = 600) -> Tokenizer:
    """A small GPT-2-style byte-level BPE trained on ``lines`` (well under a second)."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(lines, trainer)
    return tok


def hf_with_unk(lines: list[str]) -> Tokenizer:
    """A character BPE over whitespace words, with [UNK] for characters it never saw."""
    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["[UNK]"], show_progress=False)
    tok.train_from_iterator(lines, trainer)
    return tok


def hf_byte_fallback() -> Tokenizer:
    """<0x00>..<0xFF> are ids 0..255, then a, b, ab: "abc" -> [ab, <0x63>]."""
    vocab = {f"<0x{b:02X}>": b for b in range(256)}
    vocab.update({"a": 256, "b": 257, "ab": 258})
    return Tokenizer(models.BPE(vocab=vocab, merges=[("a", "b")], byte_fallback=True))


class FakePiece:
    def __init__(self, token_id: int, begin: int, end: int) -> None:
        self.id, self.begin, self.end = token_id, begin, end


class FakeProto:
    def __init__(self, pieces: list[FakePiece]) -> None:
        self.pieces = pieces


class FakeSentencePiece:
    """The parts of ``SentencePieceProcessor`` the adapter uses (the snake_case names that
    both sentencepiece's and tokensmith's processors have), for a fixed tiny model.

    Ids: 0 ``<unk>``, 1..256 ``<0x00>``..``<0xFF>``, 257 ``▁hello``, 258 ``▁world``. A word
    that is not a piece is spelled with byte pieces (its ``▁`` too), except ``?``, which is
    unknown. Offsets are UTF-8 byte offsets, as sentencepiece gives them.
    """

    PIECES = ["<unk>", *(f"<0x{b:02X}>" for b in range(256)), "▁hello", "▁world"]

    def get_piece_size(self) -> int:
        return len(self.PIECES)

    def id_to_piece(self, i: int) -> str:
        return self.PIECES[i]

    def is_unknown(self, i: int) -> bool:
        return i == 0

    def is_byte(self, i: int) -> bool:
        return 1 <= i <= 256

    def is_control(self, i: int) -> bool:
        return False

    def EncodeAsImmutableProto(self, text: str) -> FakeProto:  # noqa: N802
        pieces: list[FakePiece] = []
        at = 0
        for word in text.split(" "):
            size = len(word.encode("utf-8"))
            begin = at if not pieces else at - 1  # the ▁ stands for the space before
            if "▁" + word in self.PIECES:
                pieces.append(FakePiece(self.PIECES.index("▁" + word), begin, at + size))
            elif word == "?":
                pieces.append(FakePiece(0, at, at + size))
            else:
                raw = ("▁" + word).encode("utf-8")
                pieces += [FakePiece(1 + b, begin, at + size) for b in raw]
            at += size + 1
        return FakeProto(pieces)

    def encode(self, text: str | list[str]) -> list[int] | list[list[int]]:
        if isinstance(text, list):
            return [[p.id for p in self.EncodeAsImmutableProto(t).pieces] for t in text]
        return [p.id for p in self.EncodeAsImmutableProto(text).pieces]

    def decode(self, ids: list[int]) -> str:
        out = bytearray()
        for i in ids:
            if self.is_byte(i):
                out.append(i - 1)
            elif i == 0:
                out += " ⁇ ".encode()
            else:
                out += self.PIECES[i].encode("utf-8")
        return out.decode("utf-8", "replace").replace("▁", " ").lstrip(" ")


def read_lines(name: str) -> list[str]:
    return (DATA / name).read_text(encoding="utf-8").splitlines(keepends=True)
