"""``input_format="tsv"`` (``sentence<TAB>count`` lines) and ``required_chars``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import sentencepiece as spm
import tokensmith
from tokensmith.errors import CorpusFormatError, InvalidTrainerOptionError

DATA = Path(__file__).parent.parent / "data"


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines()[:600]


def pieces(sp: tokensmith.SentencePieceProcessor) -> list[tuple[str, float]]:
    return [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.piece_size())]


def test_tsv_counts_train_the_same_model_as_the_repeated_lines(
    lines: list[str], tmp_path: Path
) -> None:
    counts = Counter(line for line in lines if line)
    # Every sentence twice more, so that counts above 1 matter.
    counts.update({line: 2 for line in counts})
    tsv = tmp_path / "counts.tsv"
    tsv.write_text("".join(f"{s}\t{n}\n" for s, n in counts.items()), encoding="utf-8")
    repeated = [s for s, n in counts.items() for _ in range(n)]
    from_tsv = tokensmith.train_unigram(files=tsv, input_format="tsv", vocab_size=800)
    from_text = tokensmith.train_unigram(repeated, vocab_size=800)
    assert pieces(from_tsv) == pieces(from_text)
    pairs = [f"{s}\t{n}" for s, n in counts.items()]
    assert pieces(tokensmith.train_unigram(pairs, input_format="tsv", vocab_size=800)) == pieces(
        from_text
    )


def test_tsv_input_reads_sentencepiece_s_format(tmp_path: Path) -> None:
    # The file sentencepiece reads with input_format=tsv: both learn the same alphabet and
    # vocabulary size from it, and the frequent words become whole pieces in ours.
    tsv = tmp_path / "words.tsv"
    words = {"hello": 500, "help": 40, "world": 300, "word": 60, "low": 20, "yellow": 30}
    words |= {"hold": 10, "dollar": 5, "red": 7}
    tsv.write_text("".join(f"{w}\t{n}\n" for w, n in words.items()), encoding="utf-8")
    prefix = tmp_path / "ref"
    spm.SentencePieceTrainer.train(
        input=str(tsv), input_format="tsv", model_prefix=str(prefix), vocab_size=18, minloglevel=2
    )
    ref = spm.SentencePieceProcessor(model_file=f"{prefix}.model")
    ours = tokensmith.train_unigram(
        files=tsv, input_format="tsv", vocab_size=18, seed_sentencepiece_size=1000
    )
    assert ours.piece_size() == ref.piece_size()

    def alphabet(sp: object) -> set[str]:
        return {p for i in range(18) if len(p := sp.id_to_piece(i)) == 1}  # type: ignore[attr-defined]

    assert alphabet(ours) == alphabet(ref)
    assert ours.encode("hello world", out_type=str) == ["▁hello", "▁world"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("good\t3\nbad line\n", r"counts\.tsv:2: expected word<TAB>count, got 'bad line'"),
        ("good\t3\nx\ty\tz\n", r"counts\.tsv:2: expected word<TAB>count"),
        ("a\t1\nb\t1\nword\tmany\n", r"counts\.tsv:3: the count 'many' is not an integer >= 1"),
        ("word\t0\n", r"counts\.tsv:1: the count '0'"),
        ("word\t-4\n", r"counts\.tsv:1: the count '-4'"),
    ],
)
def test_bad_tsv_lines_are_named(tmp_path: Path, content: str, message: str) -> None:
    tsv = tmp_path / "counts.tsv"
    tsv.write_text(content, encoding="utf-8")
    with pytest.raises(CorpusFormatError, match=message):
        tokensmith.train_unigram(files=tsv, input_format="tsv", vocab_size=20)


def test_tsv_items_name_their_index() -> None:
    with pytest.raises(CorpusFormatError, match=r"texts:2: "):
        tokensmith.train_unigram(["a\t1", "b"], input_format="tsv", vocab_size=20)


def test_tsv_refuses_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"text": "a\\t1"}\n', encoding="utf-8")
    with pytest.raises(InvalidTrainerOptionError, match="x.jsonl"):
        tokensmith.train_unigram(files=path, input_format="tsv", vocab_size=20)


def test_required_chars_are_kept_whatever_the_coverage(lines: list[str]) -> None:
    base = tokensmith.train_unigram(lines, vocab_size=1000, character_coverage=0.98)
    vocab = {base.id_to_piece(i) for i in range(base.piece_size())}
    chars = Counter(c for line in lines for c in base.normalize(line))
    rare = sorted(c for c in chars if c not in vocab)[:3]
    assert rare, "0.98 coverage should leave some characters out"
    absent = "Ж☃"
    assert not set(absent) & set(chars)
    kept = tokensmith.train_unigram(
        lines, vocab_size=1000, character_coverage=0.98, required_chars="".join(rare) + absent
    )
    vocab = {kept.id_to_piece(i) for i in range(kept.piece_size())}
    assert set(rare) | set(absent) <= vocab
    assert kept.piece_size() == 1000
    assert kept.encode("☃", out_type=str) == ["▁", "☃"]
