"""WordLevel tokenizers trained here with HF's ``WordLevelTrainer`` on the multilingual text,
each with some of the components added for issue 5 (NFC, NFKC and ByteLevel normalizers,
UnicodeScripts and FixedLength pre-tokenizers, the CTC decoder, a Sequence post-processor),
compared with HF ``tokenizers`` on every line, on pairs, and on decode.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tokensmith
from family_builders import WORDLEVEL_KINDS, wordlevel_style
from hf_parity import assert_code_points_same_as_hf, assert_same_as_hf, texts_of


@pytest.fixture(scope="module", params=WORDLEVEL_KINDS)
def wordlevel_json(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    return wordlevel_style(request.param, tmp_path_factory.mktemp("wordlevel"))


def test_identical_to_hf_tokenizers(wordlevel_json: Path, multilingual_lines: list[str]) -> None:
    assert_same_as_hf(wordlevel_json, texts_of(multilingual_lines, ("日本語のテキスト abc",)))


@pytest.mark.parametrize(
    "kind",
    ["bytelevel-fixed", "nfc-whitespace", "nfkc-whitespace", "nfkc-scripts", "nfc-scripts-only"],
)
def test_every_code_point(kind: str, tmp_path: Path) -> None:
    """NFC, NFKC, ByteLevel, FixedLength and UnicodeScripts (HF's Unicode 9.0 script table)
    on all of Unicode."""
    assert_code_points_same_as_hf(wordlevel_style(kind, tmp_path))


def test_unknown_words_are_the_unk_token(wordlevel_json: Path) -> None:
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(wordlevel_json))
    ours = tokensmith.Tokenizer.from_file(wordlevel_json)
    # Words absent from the training text (UnicodeScripts drops private-use characters,
    # which have no script, so Latin and Greek rarities come first).
    candidates = ["zqxjvkwq", "ʘʬʭʘʬʭ", "ϗϗϗϗ", "\ue000\ue001\ue002"]
    unknown = [t for t in candidates if "<unk>" in hf.encode(t, add_special_tokens=False).tokens]
    assert unknown, "every candidate is in the vocabulary"
    for text in unknown:
        enc = ours.encode(text, add_special_tokens=False)
        assert ours.token_to_id("<unk>") in enc.ids
        assert enc.tokens == hf.encode(text, add_special_tokens=False).tokens


def test_ctc_decoder_collapses_repeats(tmp_path: Path) -> None:
    """Repeated ids and pads, as a CTC model emits them, decode as HF decodes them."""
    from tokenizers import Tokenizer as HfTokenizer

    path = wordlevel_style("ctc-chars", tmp_path)
    hf = HfTokenizer.from_file(str(path))
    ours = tokensmith.Tokenizer.from_file(path)
    pad = hf.token_to_id("<pad>")
    for text in ["hello world", "the cat, isn't it?", "aa bb"]:
        ids = hf.encode(text, add_special_tokens=False).ids
        stuttered = [pad] + [i for i in ids for _ in range(2)] + [pad, pad]
        for skip in (True, False):
            assert ours.decode(stuttered, skip_special_tokens=skip) == hf.decode(
                stuttered, skip_special_tokens=skip
            )
    # Collapsing is what makes "ll" need a pad between its letters.
    ids = hf.encode("hello", add_special_tokens=False).ids
    assert ours.decode(ids, skip_special_tokens=False) == "helo"
