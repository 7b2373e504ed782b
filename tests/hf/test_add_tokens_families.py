"""``add_tokens`` / ``add_special_tokens`` compared with HF ``tokenizers`` on the families whose
normalizers and pre-tokenizers change how an added token is matched: Llama-2 style (Replace +
Prepend normalizers turn spaces into ``▁``, byte fallback), Llama-3 style (a ``Split`` regex and
ByteLevel, ``ignore_merges``), Qwen2 style (NFC, ``Split`` regex) and ALBERT / XLM-R style Unigram
(a Precompiled charsmap, Metaspace). Each scenario of ``test_add_tokens`` runs on each family,
and one more adds tokens with spaces, accents and compatibility characters in them (each flag
set and unset), which the normalizers rewrite.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from family_fixture import build_family
from test_add_tokens import SCENARIOS, Step, check_steps, in_vocab_tokens, scenarios

# Each family's pad token (re-added as a normalized token by the "in-vocab" scenario).
PAD_TOKENS = {
    "llama2": "<unk>",
    "llama3": "<|end_of_text|>",
    "qwen2": "<|endoftext|>",
    "albert": "<pad>",
    "xlmr": "<pad>",
}

# Tokens the normalizers rewrite: spaces (Metaspace/Replace spell them ▁), NFC/NFKC forms,
# upper case (ALBERT lowercases), each with its flags.
REWRITTEN: list[Step] = [
    (
        "add_tokens",
        [
            {"content": "New York", "single_word": True},
            {"content": " de la", "lstrip": True},
            {"content": "Cafe\u0301", "rstrip": True},
            {"content": "ﬁn", "normalized": True},
            {"content": "ＡＢＣ", "normalized": False, "single_word": True},
            {"content": "▁the", "lstrip": True, "rstrip": True},
        ],
    ),
    ("add_special_tokens", [{"content": "<ctx> ", "rstrip": True}, "Über"]),
    # Re-added with other flags.
    ("add_tokens", [{"content": "New York", "normalized": False}]),
]


@pytest.fixture(scope="module", params=sorted(PAD_TOKENS))
def family(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def family_json(
    family: str, multilingual_lines: list[str], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    return build_family(family, multilingual_lines, tmp_path_factory.mktemp(f"add-{family}"))


@pytest.mark.parametrize("scenario", [*SCENARIOS, "rewritten"])
def test_families(family: str, family_json: Path, scenario: str, tmp_path: Path) -> None:
    from tokenizers import Tokenizer as HfTokenizer

    path = family_json
    hf: Any = HfTokenizer.from_file(str(path))
    if scenario == "rewritten":
        steps = REWRITTEN
    else:
        steps = scenarios(PAD_TOKENS[family], in_vocab_tokens(hf))[scenario]
    check_steps(path, steps, tmp_path)
