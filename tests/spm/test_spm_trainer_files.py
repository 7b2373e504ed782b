"""Training from ``--input`` files: tokensmith reads text files in blocks and splits their
lines in Rust. Its model must be the one the Python iterator path trains from the same
lines, and sentencepiece's own where the two readers could differ: ``\\r\\n`` line ends,
invalid UTF-8, empty and too long lines (a line longer than the 1 MiB read block too), and
several files."""

from __future__ import annotations

import random
import warnings
from pathlib import Path

import pytest
import sentencepiece as spm
import tokensmith
from sentencepiece import sentencepiece_model_pb2 as pb
from spm_helpers import DATA
from tokensmith.errors import CorpusFormatError
from tokensmith.sentencepiece_trainer import SentencePieceTrainer
from tokensmith.train import InvalidUtf8Warning


def _pieces(model: bytes) -> list[tuple[str, float]]:
    proto = pb.ModelProto()
    proto.ParseFromString(model)
    return [(p.piece, p.score) for p in proto.pieces]


def _ours_and_sentencepiece(tmp_path: Path, files: list[Path], **flags: object) -> tuple:
    inputs = ",".join(str(f) for f in files)
    spm.SentencePieceTrainer.train(
        input=inputs, model_prefix=str(tmp_path / "ref"), model_type="bpe", minloglevel=2,
        **flags,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InvalidUtf8Warning)
        SentencePieceTrainer.train(
            input=inputs, model_prefix=str(tmp_path / "ours"), model_type="bpe", **flags
        )
    return (
        _pieces((tmp_path / "ours.model").read_bytes()),
        _pieces((tmp_path / "ref.model").read_bytes()),
    )


def _lines(seed: int, n: int = 1500) -> list[str]:
    rng = random.Random(seed)
    words = ["".join(rng.choice("abcdeé") for _ in range(rng.randint(1, 6))) for _ in range(150)]
    return [" ".join(rng.choice(words) for _ in range(rng.randint(1, 12))) for _ in range(n)]


@pytest.mark.parametrize("model_type", ["bpe", "unigram"])
def test_file_reader_trains_what_the_iterator_trains(model_type: str) -> None:
    path = DATA / "multilingual.txt"
    flags = dict(vocab_size=4000, model_type=model_type, seed_sentencepiece_size=20000)
    from_file = tokensmith.train_unigram(files=[str(path)], **flags)  # type: ignore[arg-type]
    lines = path.read_text(encoding="utf-8").splitlines()
    from_lines = tokensmith.train_unigram(lines, **flags)  # type: ignore[arg-type]
    assert from_file.serialized_model_proto() == from_lines.serialized_model_proto()


@pytest.mark.parametrize("rule", ["nmt_nfkc", "identity"])
def test_crlf_lines_keep_their_carriage_return(tmp_path: Path, rule: str) -> None:
    # sentencepiece drops only the "\n": under identity the "\r" is a character it learns.
    corpus = tmp_path / "crlf.txt"
    corpus.write_bytes(("\r\n".join(_lines(1)) + "\r\n").encode())
    ours, ref = _ours_and_sentencepiece(
        tmp_path, [corpus], vocab_size=120, normalization_rule_name=rule
    )
    assert ours == ref
    assert any(p == "\r" for p, _ in ref) == (rule == "identity")


@pytest.mark.parametrize("rule", ["nmt_nfkc", "identity"])
def test_invalid_utf8_becomes_one_replacement_per_byte(tmp_path: Path, rule: str) -> None:
    # Each invalid byte is a U+FFFD after normalization (a U+FFFD in the text is a space
    # under nmt_nfkc); the runs here are 1, 2 and 3 bytes long.
    raw = [
        line.encode() + (b" \xff\xfe x\xc3 \xef\xbf\xbd \xe2\x96" if i % 5 == 0 else b"")
        for i, line in enumerate(_lines(2))
    ]
    corpus = tmp_path / "bad.txt"
    corpus.write_bytes(b"\n".join(raw))
    ours, ref = _ours_and_sentencepiece(
        tmp_path, [corpus], vocab_size=120, character_coverage=1.0, normalization_rule_name=rule
    )
    assert ours == ref
    assert any("\ufffd\ufffd" in p for p, _ in ref)
    with pytest.warns(InvalidUtf8Warning, match="1200 invalid UTF-8 sequences in 1 files"):
        tokensmith.train_unigram(files=[str(corpus)], vocab_size=120, model_type="bpe")
    with pytest.raises(CorpusFormatError, match=r"bad.txt:1: invalid UTF-8"):
        tokensmith.train_unigram(
            files=[str(corpus)], errors="strict", vocab_size=120, model_type="bpe"
        )


def test_long_lines_are_skipped_whole(tmp_path: Path) -> None:
    # A line over max_sentence_length is skipped, not cut; one longer than the 1 MiB read
    # block is skipped without being held, or trained on whole when the limit allows it.
    lines = _lines(3)
    rng = random.Random(4)
    huge = " ".join(rng.choice(lines[:50]) for _ in range(40000))
    assert len(huge.encode()) > 1 << 20
    lines = [line * (40 if i % 9 == 0 else 1) for i, line in enumerate(lines)]
    corpus = tmp_path / "long.txt"
    corpus.write_text("\n".join(lines[:700] + [huge] + lines[700:] + [huge]), encoding="utf-8")
    for limit in (300, 4192, 3 << 20):
        ours, ref = _ours_and_sentencepiece(
            tmp_path, [corpus], vocab_size=120, max_sentence_length=limit
        )
        assert ours == ref, limit
    seen: dict[str, float] = {}
    tokensmith.train_unigram(
        files=[str(corpus)], vocab_size=120, model_type="bpe", max_sentence_length=300,
        progress=lambda kind, info: seen.update(info) if kind == "counted" else None,
    )
    too_long = sum(len(line.encode()) > 300 for line in lines) + 2
    assert seen["skipped"] == too_long


def test_empty_lines_do_not_count_towards_input_sentence_size(tmp_path: Path) -> None:
    corpus = tmp_path / "empty.txt"
    corpus.write_text(
        "\n".join(line if i % 3 else "" for i, line in enumerate(_lines(5))), encoding="utf-8"
    )
    ours, ref = _ours_and_sentencepiece(
        tmp_path, [corpus], vocab_size=120, input_sentence_size=400,
        shuffle_input_sentence=False,
    )
    assert ours == ref


def test_several_files_are_read_in_order(tmp_path: Path) -> None:
    # The first file ends without a newline: its last line is still a line of its own.
    lines = _lines(6)
    files = [tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "c.txt"]
    files[0].write_text("\n".join(lines[:500]), encoding="utf-8")
    files[1].write_text("\n".join(lines[500:1000]) + "\n", encoding="utf-8")
    files[2].write_text("\n".join(lines[1000:]) + "\n", encoding="utf-8")
    ours, ref = _ours_and_sentencepiece(tmp_path, files, vocab_size=120)
    assert ours == ref
    together = tokensmith.train_unigram(lines, vocab_size=120, model_type="bpe")
    assert _pieces(together.serialized_model_proto()) == ours


def test_a_jsonl_named_input_is_read_as_lines(tmp_path: Path) -> None:
    # sentencepiece does not look at file names: JSON lines are text lines to it (braces,
    # quotes and keys included), and tokensmith's SentencePieceTrainer reads them the same.
    corpus = tmp_path / "records.jsonl"
    corpus.write_text("".join(f'{{"text": "{line}"}}\n' for line in _lines(7)), encoding="utf-8")
    ours, ref = _ours_and_sentencepiece(tmp_path, [corpus], vocab_size=150)
    assert ours == ref
    assert any('"' in p for p, _ in ref)
