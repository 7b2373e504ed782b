"""``tokensmith.SentencePieceNormalizer`` against ``sentencepiece.SentencePieceNormalizer`` on
every committed line: every way to build one, the flags, offsets, decompiled rules, specs."""

from __future__ import annotations

import pickle

import pytest
import sentencepiece as spm
import tokensmith
from spm_helpers import trained

RULES = ["identity", "nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf"]


def assert_same(ours, ref, lines: list[str]) -> None:
    for line in lines:
        assert ours.normalize(line) == ref.normalize(line), line
        assert ours.normalize(line, with_offsets=True) == ref.normalize(line, with_offsets=True)
    raw = [line.encode("utf-8") for line in lines[::10]]
    assert ours.Normalize(raw) == ref.Normalize(raw)
    assert ours.normalize(raw, with_offsets=True) == ref.normalize(raw, with_offsets=True)


@pytest.mark.parametrize("rule", RULES)
def test_rule_names_normalize_as_sentencepiece(rule: str, lines: list[str]) -> None:
    ours = tokensmith.SentencePieceNormalizer(rule_name=rule)
    ref = spm.SentencePieceNormalizer(rule_name=rule)
    assert_same(ours, ref, lines)
    if rule == "identity":
        with pytest.raises(RuntimeError):
            ref.decompile()
        with pytest.raises(RuntimeError):
            ours.decompile()
    else:
        # tokensmith builds the rules itself; they are sentencepiece's shipped ones.
        assert ours.decompile() == ref.decompile()


@pytest.mark.parametrize(
    "flags",
    [
        {"add_dummy_prefix": False},
        {"escape_whitespaces": False},
        {"remove_extra_whitespaces": False},
        {"add_dummy_prefix": False, "escape_whitespaces": False, "remove_extra_whitespaces": False},
    ],
)
def test_flags_override_the_spec(flags: dict[str, bool], lines: list[str]) -> None:
    ours = tokensmith.SentencePieceNormalizer(rule_name="nmt_nfkc", **flags)
    ref = spm.SentencePieceNormalizer(rule_name="nmt_nfkc", **flags)
    assert_same(ours, ref, lines[::3])


@pytest.mark.parametrize(
    "name",
    ["unigram_nmt_nfkc", "unigram_ws_suffix", "unigram_user_defined", "bpe_keep_spaces_dummy"],
)
def test_models_and_specs_normalize_as_sentencepiece(name: str, lines: list[str], tmp_path):
    proto = trained(name)
    ref = spm.SentencePieceNormalizer(model_proto=proto)
    ours = tokensmith.SentencePieceNormalizer(model_proto=proto)
    assert_same(ours, ref, lines[::2])
    # The model's own (sentencepiece-built) charsmap, read back by tokensmith.
    assert ours.decompile() == ref.decompile()
    assert ours.serialized_normalizer_spec() == ref.serialized_normalizer_spec()
    assert ours.serialized_model_proto() == ref.serialized_model_proto()
    path = tmp_path / "m.model"
    path.write_bytes(proto)
    from_file = tokensmith.SentencePieceNormalizer(model_file=str(path))
    assert from_file.serialized_model_proto() == ours.serialized_model_proto()
    # Specs go both ways.
    spec = ref.serialized_normalizer_spec()
    assert_same(tokensmith.SentencePieceNormalizer(normalizer_spec=spec), ref, lines[::5])
    ours_spec = tokensmith.SentencePieceNormalizer(rule_name="nfkc_cf").serialized_normalizer_spec()
    assert_same(
        tokensmith.SentencePieceNormalizer(normalizer_spec=ours_spec),
        spm.SentencePieceNormalizer(normalizer_spec=ours_spec),
        lines[::5],
    )
    back = pickle.loads(pickle.dumps(ours))
    assert back.serialized_model_proto() == ours.serialized_model_proto()
    assert back.normalize(lines[9]) == ref.normalize(lines[9])


def test_norm_map_and_rule_tsv_as_sentencepiece(lines: list[str], tmp_path) -> None:
    rules = [("a", "b"), ("xy", "Z"), ("é", "e"), ("ß", "ss"), ("ｱ", "ア"), ("!", "")]
    ours = tokensmith.SentencePieceNormalizer(norm_map=rules)
    ref = spm.SentencePieceNormalizer(norm_map=rules)
    assert_same(ours, ref, lines[::2])
    assert ours.decompile() == ref.decompile()
    assert ours.serialized_normalizer_spec() == ref.serialized_normalizer_spec()
    tsv = tmp_path / "rules.tsv"
    tsv.write_text(
        "".join(
            " ".join(f"{ord(c):X}" for c in src) + "\t" + " ".join(f"{ord(c):X}" for c in dst)
            + "\t# comment\n"
            for src, dst in rules
        ),
        encoding="utf-8",
    )
    from_tsv = tokensmith.SentencePieceNormalizer(rule_tsv=str(tsv))
    assert_same(from_tsv, spm.SentencePieceNormalizer(rule_tsv=str(tsv)), lines[::4])


def test_bad_sources_raise_as_sentencepiece(tmp_path) -> None:
    with pytest.raises(ValueError):
        spm.SentencePieceNormalizer()
    with pytest.raises(ValueError, match="no model"):
        tokensmith.SentencePieceNormalizer()
    with pytest.raises(RuntimeError):
        spm.SentencePieceNormalizer(rule_name="nope")
    with pytest.raises(RuntimeError, match="nope"):
        tokensmith.SentencePieceNormalizer(rule_name="nope")
    bad = tmp_path / "bad.tsv"
    bad.write_text("41\t42\nzz\t41\n", encoding="utf-8")
    with pytest.raises(tokensmith.errors.CorpusFormatError, match="bad.tsv:2"):
        tokensmith.SentencePieceNormalizer(rule_tsv=str(bad))
    with pytest.raises(tokensmith.InputNotFoundError):
        tokensmith.SentencePieceNormalizer(model_file=str(tmp_path / "none.model"))
