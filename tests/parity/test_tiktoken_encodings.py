"""All seven of tiktoken's encodings, its model tables and its plugin namespace, checked
against the installed tiktoken 0.14 (built offline from the bundled files)."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import pytest
import regex
import tiktoken
import tiktoken.model
import tokensmith
from tokensmith import encoding_plugins
from tokensmith.errors import EncodingPluginError, UnknownEncodingError, UnknownModelError
from tokensmith.reference import tiktoken_encoding

GPT2_DATA_GYM = Path(__file__).parents[1] / "data" / "gpt2_data_gym"


def test_list_encoding_names_is_tiktokens():
    assert tokensmith.list_encoding_names() == tiktoken.list_encoding_names()
    assert len(tokensmith.list_encoding_names()) == 7


def test_specials_patterns_and_sizes_match(pair):
    ours, ref = pair
    assert ours._special_tokens == ref._special_tokens
    assert ours.special_tokens_set == ref.special_tokens_set
    assert (ours.n_vocab, ours.max_token_value) == (ref.n_vocab, ref.max_token_value)
    # The engine picks its hand-written splitter by the pattern's exact text.
    assert ours._pat_str == ref._pat_str


def test_r50k_family_runs_on_the_hand_written_splitter(multilingual_lines, code_text):
    import tiktoken_ext.openai_public as public

    assert tokensmith.R50K_PATTERN == public.r50k_pat_str
    for name in ("gpt2", "r50k_base", "p50k_base", "p50k_edit"):
        assert tokensmith.get_encoding(name)._pat_str == tokensmith.R50K_PATTERN
    # The hand-written splitter cuts text where a regex engine running the pattern does.
    enc = tokensmith.get_encoding("r50k_base")
    for line in [*multilingual_lines, code_text]:
        assert enc.pre_tokenize(line) == regex.findall(tokensmith.R50K_PATTERN, line)


def test_gpt2_ranks_are_r50k_ranks():
    # tiktoken builds gpt2 from GPT-2's data-gym files; tokensmith reads r50k_base's file.
    ref_gpt2 = tiktoken_encoding("gpt2", data_gym_dir=GPT2_DATA_GYM)
    ref_r50k = tiktoken_encoding("r50k_base")
    assert ref_gpt2._mergeable_ranks == ref_r50k._mergeable_ranks
    assert tokensmith.get_encoding("gpt2")._mergeable_ranks == ref_gpt2._mergeable_ranks


@pytest.mark.parametrize("name", ["o200k_harmony", "p50k_edit", "cl100k_base"])
def test_every_special_token_encodes_and_decodes_as_tiktoken(name):
    ours = tokensmith.get_encoding(name)
    ref = tiktoken_encoding(name)
    for special in ref.special_tokens_set:
        text = f"a {special}b"
        assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")
        assert ours.encode_single_token(special) == ref.encode_single_token(special)
    ids = sorted(ref._special_tokens.values())
    assert ours.decode(ids) == ref.decode(ids)


def test_harmony_reserved_200018_is_200018():
    enc = tokensmith.get_encoding("o200k_harmony")
    assert enc.encode("<|reserved_200018|>", allowed_special="all") == [200018]
    with pytest.raises(ValueError):
        enc.encode("<|reserved_200018|>")


def _model_names() -> list[str]:
    names = list(tiktoken.model.MODEL_TO_ENCODING)
    for prefix in tiktoken.model.MODEL_PREFIX_TO_ENCODING:
        names += [prefix, prefix + "x", prefix + ".1", prefix + "-2025-01-01"]
    return names + ["gpt-5.1", "gpt-5.1-codex", "ft:gpt-4o-mini:org::id", "gpt-4.5", "bert"]


def test_model_tables_are_tiktokens():
    assert tokensmith.model.MODEL_TO_ENCODING == tiktoken.model.MODEL_TO_ENCODING
    assert list(tokensmith.model.MODEL_PREFIX_TO_ENCODING.items()) == list(
        tiktoken.model.MODEL_PREFIX_TO_ENCODING.items()
    )


@pytest.mark.parametrize("model", _model_names())
def test_every_model_maps_as_in_tiktoken(model):
    try:
        expected = tiktoken.encoding_name_for_model(model)
    except KeyError:
        with pytest.raises(UnknownModelError):
            tokensmith.encoding_name_for_model(model)
        with pytest.raises(KeyError):
            tokensmith.encoding_for_model(model)
        return
    assert tokensmith.encoding_name_for_model(model) == expected
    assert tokensmith.encoding_for_model(model).name == expected


_PLUGIN = """
from tokensmith.load import load_tiktoken_bpe
from tokensmith.registry import vocab_path

def _toy():
    return {
        "name": "toy_r50k",
        "pat_str": r"\\S+|\\s+",
        "mergeable_ranks": load_tiktoken_bpe(vocab_path("r50k_base.tiktoken.gz")),
        "special_tokens": {"<|end|>": 50256},
        "explicit_n_vocab": 50257,
    }

ENCODING_CONSTRUCTORS = {"toy_r50k": _toy}
"""


@pytest.fixture
def plugin_dir(tmp_path, monkeypatch):
    """A ``tiktoken_ext`` namespace portion on sys.path holding one plugin module."""
    package = tmp_path / "tiktoken_ext"
    package.mkdir()
    (package / "toy_plugin.py").write_text(textwrap.dedent(_PLUGIN), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    # Namespace packages cache their search path; drop the cached ones so the new portion
    # is seen, and drop tokensmith's plugin cache.
    for mod in [m for m in sys.modules if m == "tiktoken_ext" or m.startswith("tiktoken_ext.")]:
        if mod != "tiktoken_ext.openai_public":
            monkeypatch.delitem(sys.modules, mod)
    monkeypatch.delitem(sys.modules, "tiktoken_ext", raising=False)
    encoding_plugins.forget()
    yield package
    for mod in [
        m
        for m in sys.modules
        if m.startswith("tiktoken_ext.") and m != "tiktoken_ext.openai_public"
    ]:
        del sys.modules[mod]
    encoding_plugins.forget()
    tokensmith.registry._cache.pop("toy_r50k", None)


def test_plugin_encodings_are_found(plugin_dir):
    assert "tiktoken_ext.toy_plugin" in encoding_plugins.plugin_modules()
    assert "toy_r50k" in tokensmith.list_encoding_names()
    enc = tokensmith.get_encoding("toy_r50k")
    params = sys.modules["tiktoken_ext.toy_plugin"].ENCODING_CONSTRUCTORS["toy_r50k"]()
    ref = tiktoken.Encoding(**params)
    text = "hello world<|end|>  again"
    assert enc.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")
    assert enc.name == "toy_r50k" and enc.n_vocab == ref.n_vocab


def test_plugin_errors_name_the_module(plugin_dir):
    (plugin_dir / "broken.py").write_text("X = 1\n", encoding="utf-8")
    importlib.invalidate_caches()
    with pytest.raises(EncodingPluginError, match="tiktoken_ext.broken"):
        tokensmith.get_encoding("toy_r50k")
    (plugin_dir / "broken.py").unlink()
    (plugin_dir / "again.py").write_text(
        "ENCODING_CONSTRUCTORS = {'toy_r50k': lambda: {}}\n", encoding="utf-8"
    )
    importlib.invalidate_caches()
    encoding_plugins.forget()
    with pytest.raises(EncodingPluginError, match="twice"):
        tokensmith.list_encoding_names()


def test_unknown_encoding_lists_the_known_ones():
    with pytest.raises(UnknownEncodingError, match="r50k_base"):
        tokensmith.get_encoding("r51k_base")
