"""Parity against English (Petrov et al. 2023), recomputed by hand."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import tokensmith.eval as ev
from eval_helpers import DATA, byte_encoding
from tokensmith.errors import CorpusFormatError, EmptyCorpusError, InputNotFoundError
from tokensmith.reference import tiktoken_encoding

# Three pairs, measured with a byte tokenizer, so token counts are UTF-8 byte counts:
#   "cat"   (3) -> "Katze"  (5)      ratio 5/3
#   "house" (5) -> "Haus"   (4)      ratio 4/5
#   "water" (5) -> "水"     (3)      ratio 3/5
# parity      = (5 + 4 + 3) / (3 + 5 + 5) = 12/13
# parity_mean = (5/3 + 4/5 + 3/5) / 3 = (25/15 + 12/15 + 9/15) / 3 = 46/45
PAIRS = [("cat", "Katze"), ("house", "Haus"), ("water", "水")]


def test_parity_by_hand_on_three_pairs() -> None:
    r = ev.parity(byte_encoding(), PAIRS, language="xx")
    assert (r.english_tokens, r.translation_tokens, r.n_pairs) == (13, 12, 3)
    assert r.parity == pytest.approx(12 / 13)
    assert r.parity_mean == pytest.approx(46 / 45)
    assert r.language == "xx"


def test_parity_matches_tiktoken_counts_on_committed_data() -> None:
    pairs = ev.read_parallel(DATA / "parallel" / "ja.tsv")["ja"]
    ref = tiktoken_encoding("o200k_base")
    en = [len(ref.encode_ordinary(e)) for e, _ in pairs]
    tr = [len(ref.encode_ordinary(t)) for _, t in pairs]
    r = ev.parity("o200k_base", pairs)
    assert r.parity == pytest.approx(sum(tr) / sum(en))
    per_pair = [t / e for t, e in zip(tr, en, strict=True)]
    assert r.parity_mean == pytest.approx(sum(per_pair) / len(pairs))


def test_read_parallel_directory_has_every_language() -> None:
    corpora = ev.read_parallel(DATA / "parallel")
    assert len(corpora) == 82
    assert all(len(pairs) == 40 for pairs in corpora.values())
    assert corpora["de"][0][0] == "Password has been already used."


def test_language_without_data_is_reported_not_dropped() -> None:
    results = ev.parity_by_language("cl100k_base", {"de": [("Open", "Öffnen")], "zz": []})
    assert set(results) == {"de", "zz"}
    assert results["zz"].n_pairs == 0 and math.isnan(results["zz"].parity)
    assert ev.mean_parity(results) == results["de"].parity


def test_bad_input(tmp_path: Path) -> None:
    with pytest.raises(EmptyCorpusError, match="'fr'"):
        ev.parity("cl100k_base", [], language="fr")
    odd = tmp_path / "vt.tsv"
    odd.write_text("a\vb\tA\vB\r\nc\u2028d\tC\n", encoding="utf-8")
    assert ev.read_parallel(odd)["vt"] == [("a\vb", "A\vB"), ("c\u2028d", "C")]
    bad = tmp_path / "xx.tsv"
    bad.write_text("one\tuno\nno tab here\n", encoding="utf-8")
    with pytest.raises(CorpusFormatError, match=r"xx.tsv:2:"):
        ev.read_parallel(bad)
    with pytest.raises(InputNotFoundError):
        ev.read_parallel(tmp_path / "missing.tsv")
    with pytest.raises(EmptyCorpusError):
        ev.read_parallel(_empty_dir(tmp_path))


def _empty_dir(tmp_path: Path) -> Path:
    d = tmp_path / "nothing"
    d.mkdir()
    return d


def test_the_gap_the_seed_describes_shows_up() -> None:
    # Seed 000 §8: some scripts need many times the tokens of English. On the committed
    # Dzongkha sample cl100k pays far more than on German.
    corpora = ev.read_parallel(DATA / "parallel")
    res = ev.parity_by_language("cl100k_base", {k: corpora[k] for k in ("de", "dz")})
    assert res["dz"].parity > 3 * res["de"].parity
