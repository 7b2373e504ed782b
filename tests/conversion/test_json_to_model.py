"""HF-trained Metaspace files -> ``.model``: exact where sentencepiece can express the file
(a ``Precompiled`` charsmap carried over, sentencepiece's whitespace rules, no dummy prefix
or one the normalizer writes), refused naming the component elsewhere; checked against the
real sentencepiece and tokenizers on the committed multilingual text and the probe set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tokensmith
from tokensmith.conversion.probes import probe_texts
from tokensmith.conversion.spm_json import normalizer_spec
from tokensmith.errors import InexpressibleComponentError

DATA = Path(__file__).parents[1] / "data"
MULTILINGUAL = DATA / "multilingual.txt"


def _hf_file(kind: str, lines: list[str], out: Path, prepend: str, added: bool) -> Path:
    """An HF tokenizer trained with a sentencepiece charsmap (nmt_nfkc, from a committed
    .model) and sentencepiece's whitespace rules, and a Metaspace pre-tokenizer."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    charsmap = normalizer_spec((DATA / "spm" / "test_model.model").read_bytes())["charsmap"]
    if kind == "bpe":
        tok = Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=True))
        trainer = trainers.BpeTrainer(vocab_size=3000, special_tokens=["<unk>"],
                                      show_progress=False)  # fmt: skip
    else:
        tok = Tokenizer(models.Unigram())
        trainer = trainers.UnigramTrainer(
            vocab_size=3000, unk_token="<unk>", special_tokens=["<unk>"], show_progress=False
        )
    strip = [(r"\A +", ""), (r" +\z", ""), (" {2,}", " ")]
    tok.normalizer = normalizers.Sequence(
        [normalizers.Precompiled(charsmap)]
        + [normalizers.Replace(Regex(pattern), content) for pattern, content in strip]
    )
    tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme=prepend)
    tok.decoder = decoders.Metaspace(prepend_scheme=prepend)
    tok.train_from_iterator(lines, trainer)
    path = out / f"{kind}_{prepend}.json"
    tok.save(str(path))
    if not added:  # <unk> stays in the vocabulary, no longer matched in text by HF
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["added_tokens"] = []
        path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def _differing(model: Path, source: Path, texts: list[str]) -> list[str]:
    import sentencepiece
    from tokenizers import Tokenizer

    sp = sentencepiece.SentencePieceProcessor(model_file=str(model))
    hf = Tokenizer.from_file(str(source))
    return [t for t in texts if sp.encode(t) != hf.encode(t).ids]


@pytest.fixture(scope="module")
def texts(multilingual_lines: list[str]) -> list[str]:
    return probe_texts(["<unk>"]) + [t.rstrip("\n") for t in multilingual_lines]


def test_bpe_with_charsmap_converts_exactly(
    tmp_path: Path, multilingual_lines: list[str], texts: list[str]
) -> None:
    source = _hf_file("bpe", multilingual_lines, tmp_path, "never", added=False)
    out = tmp_path / "m.model"
    report = tokensmith.convert(source, out, verify=[MULTILINGUAL])
    assert report.verification.ok
    assert normalizer_spec(out.read_bytes())["charsmap"]  # carried over
    assert _differing(out, source, texts) == []


def test_special_added_token_is_named(tmp_path: Path, multilingual_lines: list[str]) -> None:
    source = _hf_file("bpe", multilingual_lines, tmp_path, "never", added=True)
    out = tmp_path / "m.model"
    with pytest.raises(InexpressibleComponentError, match="added_tokens '<unk>' \\(special\\)"):
        tokensmith.convert(source, out)
    assert not out.exists()


def test_prepend_always_is_named_and_differs_only_before_a_leading_metaspace(
    tmp_path: Path, multilingual_lines: list[str], texts: list[str]
) -> None:
    """HF's Metaspace adds no ▁ before a text that starts with ▁; sentencepiece's dummy prefix
    does. With sentencepiece's whitespace rules that is the only difference."""
    source = _hf_file("bpe", multilingual_lines, tmp_path, "always", added=False)
    out = tmp_path / "m.model"
    with pytest.raises(InexpressibleComponentError, match="prepend_scheme=always"):
        tokensmith.convert(source, out)
    report = tokensmith.convert(source, out, verify=[MULTILINGUAL], lossy=True)
    differing = _differing(out, source, texts)
    assert differing and all(t.lstrip(" ").startswith("\u2581") for t in differing)
    assert len(differing) == report.verification.texts - report.verification.identical


def test_unigram_is_named_and_differs_only_on_ties_and_its_unknown_piece(
    tmp_path: Path, multilingual_lines: list[str]
) -> None:
    """A Unigram with the same charsmap converts to the same pieces and scores, but HF's
    Unigram matches the unknown piece's text ('<unk>') and HF and sentencepiece pick
    different segmentations among equally scored ones ('-' runs): conversion refuses naming
    the unknown piece, and every differing text holds '<unk>' or the same pieces in another
    order."""
    import sentencepiece
    from tokenizers import Tokenizer

    source = _hf_file("unigram", multilingual_lines, tmp_path, "never", added=False)
    out = tmp_path / "m.model"
    with pytest.raises(InexpressibleComponentError, match="'<unk>' \\(Unigram's unknown piece"):
        tokensmith.convert(source, out)
    report = tokensmith.convert(source, out, verify=[MULTILINGUAL], lossy=True)
    texts = probe_texts() + [t.rstrip("\n") for t in multilingual_lines]  # what verify runs
    differing = _differing(out, source, texts)
    assert len(differing) == report.verification.texts - report.verification.identical
    sp = sentencepiece.SentencePieceProcessor(model_file=str(out))
    hf = Tokenizer.from_file(str(source))
    ties = [t for t in differing if sorted(sp.encode(t)) == sorted(hf.encode(t).ids)]
    assert ties and all("<unk>" in t for t in differing if t not in ties)


def test_hf_sentencepiece_implementations_are_refused_by_normalizer(
    tmp_path: Path, multilingual_lines: list[str]
) -> None:
    from tokenizers.implementations import (
        SentencePieceBPETokenizer,
        SentencePieceUnigramTokenizer,
    )

    bpe = SentencePieceBPETokenizer(unk_token="<unk>")
    bpe.train_from_iterator(multilingual_lines[:500], vocab_size=400, show_progress=False)
    unigram = SentencePieceUnigramTokenizer()
    unigram.train_from_iterator(
        multilingual_lines[:500], vocab_size=400, show_progress=False, unk_token="<unk>",
        special_tokens=["<unk>"],
    )  # fmt: skip
    for tok, match in (
        (bpe, "^normalizer NFKC has no .model equivalent"),
        (unigram, "^normalizer.normalizers\\[0\\] Nmt has no .model"),
    ):
        source = tmp_path / "hf.json"
        tok.save(str(source))
        with pytest.raises(InexpressibleComponentError, match=match):
            tokensmith.convert(source, tmp_path / "m.model")
        assert not (tmp_path / "m.model").exists()


def test_a_piece_merged_again_after_other_pieces_is_named(tmp_path: Path) -> None:
    """sentencepiece gives a piece one score; HF ranks each pair. Merges that make 'abc'
    around another piece's merge have no .model equivalent; consecutive ones convert."""
    vocab = {p: i for i, p in enumerate(["<unk>", "\u2581", "a", "b", "c", "ab", "bc", "abc"])}
    doc = {
        "normalizer": None,
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "never"},
        "model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": True, "vocab": vocab,
                  "merges": ["a b", "ab c", "b c", "a bc"]},
    }  # fmt: skip
    source, out = tmp_path / "t.json", tmp_path / "m.model"
    source.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(InexpressibleComponentError, match=r"model.merges\[3\] makes 'abc' again"):
        tokensmith.convert(source, out)
    assert not out.exists()
    doc["model"]["merges"] = ["a b", "b c", "ab c", "a bc"]  # type: ignore[index]
    source.write_text(json.dumps(doc), encoding="utf-8")
    assert tokensmith.convert(source, out, verify=[]).verification.ok
