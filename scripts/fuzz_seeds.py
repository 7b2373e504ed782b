"""Writes the seed corpus of the fuzz targets (fuzz/seeds/<target>/) from tests/data.

Seeds are small, valid inputs that the fuzzer mutates: tiny tokenizers trained with the
reference libraries on slices of the test texts, and short slices of the texts themselves.
They are committed; run this again only to change them.

    python scripts/fuzz_seeds.py
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
import struct
import tempfile
from collections.abc import Iterator
from pathlib import Path

import sentencepiece as spm
from tokenizers import (
    Tokenizer,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    processors,
    trainers,
)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
SEEDS = ROOT / "fuzz" / "seeds"


def _slices(path: Path, n: int, size: int) -> Iterator[str]:
    text = path.read_text(encoding="utf-8")
    step = max(1, len(text) // n)
    for start in range(0, step * n, step):
        yield text[start : start + size]


def _corpus() -> list[str]:
    lines = list(_slices(DATA / "multilingual.txt", 40, 400))
    lines += list(_slices(DATA / "code.txt", 20, 400))
    return lines


def _write(target: str, data: bytes) -> None:
    folder = SEEDS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


def _bytes_of_unicode() -> dict[str, int]:
    """The inverse of GPT-2's byte-to-character table that byte-level BPE writes tokens in."""
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[chr(b)] = b
        else:
            chars[chr(256 + extra)] = b
            extra += 1
    return chars


def _hf_tokenizers() -> list[Tokenizer]:
    corpus = _corpus()
    built = []

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(
        corpus,
        trainers.BpeTrainer(
            vocab_size=300,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            special_tokens=["<|endoftext|>"],
        ),
    )
    built.append(bpe)

    wordpiece = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    wordpiece.normalizer = normalizers.BertNormalizer(lowercase=True)
    wordpiece.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    wordpiece.decoder = decoders.WordPiece()
    wordpiece.train_from_iterator(
        corpus,
        trainers.WordPieceTrainer(
            vocab_size=120, special_tokens=["[UNK]", "[CLS]", "[SEP]", "[PAD]"]
        ),
    )
    wordpiece.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[
            ("[CLS]", wordpiece.token_to_id("[CLS]")),
            ("[SEP]", wordpiece.token_to_id("[SEP]")),
        ],
    )
    wordpiece.enable_padding(
        pad_id=wordpiece.token_to_id("[PAD]"), pad_token="[PAD]", pad_to_multiple_of=8
    )
    wordpiece.enable_truncation(max_length=64, stride=4)
    built.append(wordpiece)

    unigram = Tokenizer(models.Unigram())
    unigram.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace("``", '"')])
    unigram.pre_tokenizer = pre_tokenizers.Metaspace()
    unigram.decoder = decoders.Metaspace()
    english = list(_slices(DATA / "spm" / "botchan.txt", 40, 400))
    unigram.train_from_iterator(
        english,
        trainers.UnigramTrainer(vocab_size=150, special_tokens=["<unk>"], unk_token="<unk>"),
    )
    built.append(unigram)

    wordlevel = Tokenizer(models.WordLevel(unk_token="<unk>"))
    wordlevel.normalizer = normalizers.Lowercase()
    wordlevel.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Whitespace(), pre_tokenizers.Digits(individual_digits=True)]
    )
    wordlevel.train_from_iterator(
        corpus, trainers.WordLevelTrainer(vocab_size=80, special_tokens=["<unk>", "<s>", "</s>"])
    )
    wordlevel.add_tokens(["hello world", " strip "])
    built.append(wordlevel)
    return built


def tokenizer_json() -> None:
    for tok in _hf_tokenizers():
        data = json.loads(tok.to_str())
        _write(
            "tokenizer_json", json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
        )


def tiktoken_file() -> None:
    bpe = _hf_tokenizers()[0]
    to_byte = _bytes_of_unicode()
    ranks = sorted(
        (rank, bytes(to_byte[c] for c in token))
        for token, rank in bpe.get_vocab(with_added_tokens=False).items()
    )
    for limit in (40, 300):
        text = "".join(f"{base64.b64encode(b).decode()} {r}\n" for r, b in ranks[:limit]).encode()
        _write("tiktoken_file", text)
        _write("tiktoken_file", gzip.compress(text, mtime=0))


def model_file() -> None:
    """Tiny SentencePiece models of each type; one carries a charsmap from a few custom rules."""
    botchan = (DATA / "spm" / "botchan.txt").read_text(encoding="utf-8")[:20000]
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus.txt"
        corpus.write_text(botchan, encoding="utf-8")
        rules = Path(tmp) / "rules.tsv"
        # sentencepiece's rule format: source and target code points in hex.
        rules.write_text("41\t61\nFB01\t66 69\n3000\t20\n", encoding="utf-8")
        kinds = [
            ("unigram", {"normalization_rule_name": "identity"}),
            ("bpe", {"normalization_rule_name": "identity", "byte_fallback": True}),
            ("char", {"normalization_rule_tsv": str(rules)}),
            ("word", {"normalization_rule_name": "identity", "user_defined_symbols": ["<sep>"]}),
        ]
        for kind, extra in kinds:
            prefix = Path(tmp) / kind
            spm.SentencePieceTrainer.train(
                input=str(corpus),
                model_prefix=str(prefix),
                model_type=kind,
                vocab_size=80 if kind != "bpe" else 400,
                num_threads=1,
                hard_vocab_limit=False,
                **extra,
            )
            _write("model_file", prefix.with_suffix(".model").read_bytes())


def texts() -> None:
    snippets = list(_slices(DATA / "multilingual.txt", 12, 160))
    snippets += list(_slices(DATA / "code.txt", 6, 160))
    for path in sorted((DATA / "parallel").glob("*.tsv"))[::12]:
        snippets.append(path.read_text(encoding="utf-8").splitlines()[1][:160])
    for i, text in enumerate(snippets):
        data = text.encode()
        _write("encode", bytes([i % 3]) + data)
        _write("sp_normalizer", bytes([(i * 7) % 64]) + data)
    names = ["<|endoftext|>", "<s>", "</s>", "[CLS]", "<|im_start|>", "▁▁"]
    for i, text in enumerate(snippets[::3]):
        chosen = names[i % 3 : i % 3 + 3]
        mixed = chosen[0] + text[:40] + chosen[1] + text[40:80] + chosen[2]
        _write("special_split", "\0".join([*chosen, mixed]).encode())


def counts_format() -> None:
    """Word counts of slices of the test texts in the counts format of
    ``crates/tokensmith-core/src/trainers/counts_format.rs``, sorted by word bytes; one holds
    counts near 2**64, which summing must not wrap."""
    for i, text in enumerate(_slices(DATA / "multilingual.txt", 4, 300)):
        counts: dict[bytes, int] = {}
        for word in re.findall(r"\S+|\s+", text):
            counts[word.encode()] = counts.get(word.encode(), 0) + 1
        if i == 3:
            counts = {w: 2**64 - 1 - n for w, n in counts.items()}
        entries = sorted(counts.items())
        out = [b"TSWC\x01\x00\x00\x00", struct.pack("<Q", len(entries))]
        for word, n in entries:
            out += [struct.pack("<I", len(word)), word, struct.pack("<Q", n)]
        _write("counts_format", b"".join(out))


if __name__ == "__main__":
    tokenizer_json()
    tiktoken_file()
    model_file()
    texts()
    counts_format()
