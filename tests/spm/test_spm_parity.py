"""Ids, pieces and decoded text identical to the ``sentencepiece`` package, on the models that
``conftest.py`` trains (Unigram and BPE, every normalization and whitespace option).
"""

from __future__ import annotations


def test_ids_and_pieces_on_every_line(models, lines):
    ours, ref = models
    bad = []
    for line in lines:
        expected = (ref.encode(line, out_type=int), ref.encode(line, out_type=str))
        got = (ours.encode(line, out_type=int), ours.encode(line, out_type=str))
        if got != expected:
            bad.append((line, got, expected))
    assert bad[:3] == [] and len(bad) == 0


def test_decode_on_every_line(models, lines):
    ours, ref = models
    bad = []
    for line in lines:
        ids = ref.encode(line)
        if ours.decode(ids) != ref.decode(ids):
            bad.append((line, ours.decode(ids), ref.decode(ids)))
    assert bad[:3] == [] and len(bad) == 0


def test_normalization_matches(models, lines):
    ours, ref = models
    bad = [line for line in lines if ours.normalize(line) != ref.normalize(line)]
    # sentencepiece's normalize() leaves spaces unescaped; tokensmith shows them as ▁.
    bad = [
        line for line in bad if ours.normalize(line).replace("\u2581", " ") != ref.normalize(line)
    ]
    assert bad == []


def test_vocabulary_queries(models):
    ours, ref = models
    assert ours.piece_size() == ref.piece_size() == len(ours)
    for i in range(ref.piece_size()):
        piece = ref.id_to_piece(i)
        assert ours.id_to_piece(i) == piece
        assert ours.piece_to_id(piece) == i
        assert ours.get_score(i) == ref.get_score(i)
        assert ours.is_unknown(i) == ref.is_unknown(i)
        assert ours.is_control(i) == ref.is_control(i)
        assert ours.is_byte(i) == ref.is_byte(i)
    assert ours.piece_to_id("no such piece ✗") == ref.piece_to_id("no such piece ✗")
    assert (ours.unk_id(), ours.bos_id(), ours.eos_id(), ours.pad_id()) == (
        ref.unk_id(),
        ref.bos_id(),
        ref.eos_id(),
        ref.pad_id(),
    )


def test_document_of_16k_chars(models, lines):
    """Many lines as one input: newlines inside the text, and batch encode."""
    ours, ref = models
    text = "\n".join(lines[:800])[:16000]
    assert ours.encode(text) == ref.encode(text)
    assert ours.encode(lines[:50], out_type=str) == ref.encode(lines[:50], out_type=str)


def test_whole_document(models, lines):
    """The first 800 lines as one input: 35k characters, past the point (a path score of
    -100,000) where sentencepiece starts rebasing its Viterbi scores."""
    ours, ref = models
    text = "\n".join(lines[:800])
    assert len(text) > 34_000
    assert ours.encode(text) == ref.encode(text)


def test_long_lines(models, lines):
    """Long single lines built from the committed text: every line joined by spaces (about
    244k characters, several rebases), its first half, and 40k characters from the middle."""
    ours, ref = models
    text = " ".join(line for line in lines if line.strip())
    assert len(text) > 200_000
    for part in (text, text[: len(text) // 2], text[20_000:60_000]):
        assert ours.encode(part) == ref.encode(part)
