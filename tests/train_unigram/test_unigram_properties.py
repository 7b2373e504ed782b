"""Properties of trained Unigram models on the committed multilingual text: determinism across
thread counts, the exact vocabulary size, required characters, score order, options."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from pathlib import Path

import pytest
import tokensmith

DATA = Path(__file__).parent.parent / "data"
VOCAB = 3000


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines()


def snapshot(sp: tokensmith.SentencePieceProcessor) -> list[tuple[str, float]]:
    return [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.piece_size())]


def train(lines: list[str], **options: object) -> tokensmith.SentencePieceProcessor:
    options.setdefault("vocab_size", VOCAB)
    return tokensmith.train_unigram(lines, **options)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def model(lines: list[str]) -> tokensmith.SentencePieceProcessor:
    return train(lines, num_threads=2)


def test_same_model_whatever_the_thread_count(
    lines: list[str], model: tokensmith.SentencePieceProcessor
) -> None:
    for threads in (1, 3):
        assert snapshot(train(lines, num_threads=threads)) == snapshot(model)


def test_vocabulary_size_is_exact(lines: list[str]) -> None:
    for size in (2500, 3456):
        assert train(lines, vocab_size=size).piece_size() == size


def test_meta_pieces_then_scores_in_decreasing_order(
    model: tokensmith.SentencePieceProcessor,
) -> None:
    assert [model.id_to_piece(i) for i in range(3)] == ["<unk>", "<s>", "</s>"]
    assert model.is_unknown(0) and model.is_control(1) and model.is_control(2)
    assert (model.unk_id(), model.bos_id(), model.eos_id(), model.pad_id()) == (0, 1, 2, -1)
    scores = [model.get_score(i) for i in range(3, model.piece_size())]
    assert scores == sorted(scores, reverse=True)
    assert all(s < 0 for s in scores)


def test_every_required_character_is_a_piece(
    lines: list[str], model: tokensmith.SentencePieceProcessor
) -> None:
    # sentencepiece's rule: most frequent characters first until 99.95% of occurrences.
    counts: Counter[str] = Counter()
    for line in lines:
        counts.update(model.normalize(line))
    total = sum(counts.values())
    covered = 0
    required = []
    for c, n in sorted(counts.items(), key=lambda x: (-x[1], x[0])):
        if covered / total >= 0.9995:
            break
        covered += n
        required.append(c)
    pieces = {model.id_to_piece(i) for i in range(model.piece_size())}
    assert required and set(required) <= pieces
    rare = set(counts) - set(required)
    assert rare, "the corpus should have characters below the coverage"
    assert not rare & pieces


def test_pieces_follow_the_splitting_rules(model: tokensmith.SentencePieceProcessor) -> None:
    for i in range(3, model.piece_size()):
        piece = model.id_to_piece(i)
        assert 1 <= len(piece) <= 16
        assert "▁" not in piece[1:], piece
        assert " " not in piece


def test_split_digits_and_max_piece_length(lines: list[str]) -> None:
    sp = train(lines, split_digits=True, max_piece_length=4)
    pieces = [sp.id_to_piece(i) for i in range(3, sp.piece_size())]
    assert max(len(p) for p in pieces) == 4
    assert all(len(p) == 1 for p in pieces if re.search(r"[0-9]", p))
    assert sp.encode("▁2024", out_type=str)[-4:] == ["2", "0", "2", "4"]


def test_byte_fallback_round_trips_every_line(lines: list[str]) -> None:
    # Identity normalization, so that decoding gives the text back as it was written.
    sp = train(lines, byte_fallback=True, vocab_size=3500, normalization_rule_name="identity")
    assert sp.piece_size() == 3500
    assert [sp.id_to_piece(i) for i in (3, 4, 258)] == ["<0x00>", "<0x01>", "<0xFF>"]
    assert all(sp.is_byte(i) for i in range(3, 259))
    for line in lines[::7] + ["unseen 𠀋 character"]:
        collapsed = " ".join(line.split(" ")).strip(" ")
        collapsed = re.sub(" +", " ", collapsed)
        assert sp.decode(sp.encode(line)) == collapsed


def test_user_defined_and_control_symbols(lines: list[str]) -> None:
    sp = train(lines, user_defined_symbols=["<sep>", "[MASK]"], control_symbols=["<cls>"])
    assert [sp.id_to_piece(i) for i in range(3, 6)] == ["<cls>", "<sep>", "[MASK]"]
    assert sp.is_control(3)
    assert "<sep>" in sp.encode("a<sep>b", out_type=str)
    assert sp.piece_size() == VOCAB


def test_sampling_sentences_is_seeded(lines: list[str]) -> None:
    sample = {"input_sentence_size": 1500, "vocab_size": 1000, "character_coverage": 0.98}
    a = train(lines, seed=1, **sample)
    b = train(lines, seed=1, **sample)
    c = train(lines, seed=2, **sample)
    assert snapshot(a) == snapshot(b)
    assert snapshot(a) != snapshot(c)
    first = train(lines, shuffle_input_sentence=False, **sample)
    del sample["input_sentence_size"]
    assert snapshot(first) == snapshot(train(lines[:1500], **sample))


def test_files_and_iterables_give_the_same_model(tmp_path: Path, lines: list[str]) -> None:
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(lines[:1500]) + "\n", encoding="utf-8")
    options = {"vocab_size": 1200, "character_coverage": 0.98}
    from_file = tokensmith.train_unigram(files=[str(path)], **options)  # type: ignore[arg-type]
    from_list = tokensmith.train_unigram(iter(lines[:1500]), **options)  # type: ignore[arg-type]
    assert snapshot(from_file) == snapshot(from_list)


def test_progress_reports_each_stage(lines: list[str]) -> None:
    events: list[tuple[str, dict[str, float]]] = []
    sp = tokensmith.train_unigram(
        lines[:1500],
        vocab_size=1000,
        character_coverage=0.98,
        progress=lambda k, i: events.append((k, dict(i))),
    )
    kinds = [k for k, _ in events]
    assert kinds[:2] == ["counted", "seeded"]
    assert kinds[-1] == "finished"
    assert "em_round" in kinds and "pruned" in kinds
    rounds = [int(i["round"]) for k, i in events if k == "em_round"]
    assert rounds == list(range(1, len(rounds) + 1))
    assert events[0][1]["sentences"] == sum(1 for x in lines[:1500] if x.strip(" "))
    assert events[-1][1]["pieces"] == sp.piece_size()


def test_identity_normalization_keeps_text_as_is(lines: list[str]) -> None:
    model = train(lines[:300], vocab_size=500, normalization_rule_name="identity")
    text = "ﬁ ① Ａ"
    assert model.normalize(text) == "▁" + text.replace(" ", "▁")
    assert unicodedata.normalize("NFKC", text) != text


def test_default_normalization_is_nmt_nfkc(model: tokensmith.SentencePieceProcessor) -> None:
    assert model.normalize("ﬁ ①\tＡ\u200b") == "▁fi▁1▁A"
