"""``tokensmith.load("x.model")`` gives the common ``Tokenizer``, with sentencepiece's answers."""

from __future__ import annotations

import pytest
import sentencepiece as spm
import tokensmith
from spm_helpers import trained


@pytest.fixture(
    scope="module", params=["unigram_nmt_nfkc", "bpe_user_defined", "unigram_ws_suffix"]
)
def saved(request, tmp_path_factory):
    path = tmp_path_factory.mktemp("spm") / f"{request.param}.model"
    path.write_bytes(trained(request.param))
    return request.param, path


def test_load_returns_the_common_tokenizer(saved, lines):
    name, path = saved
    tok = tokensmith.load(path)
    assert isinstance(tok, tokensmith.Tokenizer)
    assert isinstance(tok, tokensmith.SentencePieceTokenizer)
    ref = spm.SentencePieceProcessor(model_file=str(path))
    for line in lines[::3]:
        enc = tok.encode(line)
        assert enc.ids == ref.encode(line), line
        assert enc.tokens == ref.encode(line, out_type=str), line
        assert len(enc) == len(enc.ids) == len(enc.word_ids) == len(enc.attention_mask)
        assert tok.decode(enc.ids) == ref.decode(enc.ids)
    pair = tok.encode("first part", pair="second part")
    assert pair.ids == ref.encode("first part") + ref.encode("second part")
    assert pair.type_ids == [0] * len(ref.encode("first part")) + [1] * len(
        ref.encode("second part")
    )


def test_word_ids_follow_the_space_marker(saved):
    name, path = saved
    tok = tokensmith.load(path)
    enc = tok.encode("unbelievable tokenization works")
    words = [w for w in enc.word_ids if w is not None]
    assert words[0] == 0 and words[-1] == 2 and words == sorted(words)
    # Each word's tokens joined give the word back (with its ▁).
    joined = ["".join(t for t, w in zip(enc.tokens, enc.word_ids, strict=True) if w == i)
              for i in range(3)]
    assert [j.strip("▁") for j in joined] == ["unbelievable", "tokenization", "works"]


def test_sentencepiece_calls_on_the_tokenizer(saved, tmp_path):
    name, path = saved
    tok = tokensmith.load(path)
    ref = spm.SentencePieceProcessor(model_file=str(path))
    assert tok.id_to_piece(7) == ref.id_to_piece(7)
    assert tok.piece_to_id(ref.id_to_piece(9)) == 9
    assert tok.piece_to_id("✗ no such piece") == ref.piece_to_id("✗ no such piece")
    assert tok.token_to_id("✗ no such piece") is None
    assert tok.get_score([3, 4]) == ref.get_score([3, 4])
    assert tok.get_vocab_size() == ref.get_piece_size()
    assert tok.id_to_token(10**6) is None
    sample = tok.sample("sampling gives valid ids", alpha=0.5)
    assert tok.decode(sample) == ref.decode(ref.encode("sampling gives valid ids"))
    if name.startswith("unigram"):
        best = tok.nbest("Hello world", 4)
        assert [ids for _, ids, _ in best] == ref.nbest_encode_as_ids("Hello world", 4)
    else:
        with pytest.raises(tokensmith.UnsupportedFeatureError):
            tok.nbest("Hello world", 4)
    tok.save(tmp_path / "again.model")
    tokensmith.save(tok, tmp_path / "via_save.model")
    assert (tmp_path / "again.model").read_bytes() == path.read_bytes()
    assert (tmp_path / "via_save.model").read_bytes() == path.read_bytes()


def test_a_model_file_is_recognised_without_its_suffix(tmp_path):
    model = tmp_path / "spiece.bin"
    model.write_bytes(trained("bpe_nmt_nfkc"))
    assert isinstance(tokensmith.load(model), tokensmith.SentencePieceTokenizer)


def test_saving_across_families_is_a_clear_error(tmp_path):
    enc = tokensmith.get_encoding("cl100k_base")
    with pytest.raises(tokensmith.UnknownFormatError, match=".model"):
        tokensmith.save(enc, tmp_path / "x.model")
    sp = tokensmith.SentencePieceProcessor(model_proto=trained("bpe_nmt_nfkc"))
    with pytest.raises(tokensmith.UnknownFormatError, match=".model"):
        tokensmith.save(sp, tmp_path / "x.json")
    tokensmith.save(sp, tmp_path / "x.model")
    assert (tmp_path / "x.model").read_bytes() == trained("bpe_nmt_nfkc")
