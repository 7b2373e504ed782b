"""``SentencePieceTrainer.train(model_type="char" | "word")`` against sentencepiece's own char
and word trainers: both train on the same committed text with the same flags, in the test.
The pieces, scores, types, specs and ``.vocab`` files must be equal; sentencepiece must load
tokensmith's ``.model`` and tokensmith sentencepiece's, each giving the other's ids, pieces,
offsets and decoded text on every line."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest
import sentencepiece as spm
import tokensmith
from sentencepiece import sentencepiece_model_pb2 as pb
from spm_helpers import DATA, SPLIT, pair
from tokensmith.sentencepiece_trainer import SentencePieceTrainer

MULTILINGUAL = DATA / "multilingual.txt"
CODE = DATA / "code.txt"

# (corpus, flags) per model type: the alphabet (or word list) cut at vocab_size, all of it,
# and the byte, symbol and whitespace options.
CONFIGS = {
    "char_cut_at_vocab_size": (MULTILINGUAL, dict(model_type="char", vocab_size=200)),
    "char_use_all_vocab": (
        MULTILINGUAL,
        dict(model_type="char", vocab_size=100_000, use_all_vocab=True),
    ),
    "char_byte_fallback_symbols": (
        MULTILINGUAL,
        dict(model_type="char", vocab_size=3000, character_coverage=0.98, byte_fallback=True,
             user_defined_symbols=["<sep>", "ab"], required_chars="ꙮ"),
    ),
    "word_hard_limit": (MULTILINGUAL, dict(model_type="word", vocab_size=2000)),
    "word_soft_limit": (
        MULTILINGUAL,
        dict(model_type="word", vocab_size=100_000, hard_vocab_limit=False),
    ),
    "word_suffix_byte_fallback": (
        CODE,
        dict(model_type="word", vocab_size=300, treat_whitespace_as_suffix=True,
             byte_fallback=True),
    ),
    "word_use_all_vocab_identity": (
        MULTILINGUAL,
        dict(model_type="word", vocab_size=5000, use_all_vocab=True, control_symbols=["<ctl>"],
             normalization_rule_name="identity"),
    ),
}

# Trainer-spec fields that encoding, decoding or the vocabulary depend on.
TRAINER_FIELDS = (
    "model_type", "vocab_size", "byte_fallback", "treat_whitespace_as_suffix", "unk_id",
    "bos_id", "eos_id", "pad_id", "unk_piece", "bos_piece", "eos_piece", "pad_piece",
    "unk_surface",
)


def _proto(path: Path) -> pb.ModelProto:
    proto = pb.ModelProto()
    proto.ParseFromString(path.read_bytes())
    return proto


def _spans(sp: object, line: str) -> list[tuple[int, str, int, int, str]]:
    pieces = sp.encode(line, out_type="proto").pieces  # type: ignore[attr-defined]
    return [(p.id, p.piece, p.begin, p.end, p.surface) for p in pieces]


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_model_equals_sentencepiece_and_each_loads_the_other(tmp_path: Path, name: str) -> None:
    corpus, flags = CONFIGS[name]
    ref_prefix, ours_prefix = tmp_path / "ref", tmp_path / "ours"
    spm.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(ref_prefix), minloglevel=2, **flags
    )
    SentencePieceTrainer.train(input=str(corpus), model_prefix=str(ours_prefix), **flags)
    ref_path, ours_path = Path(f"{ref_prefix}.model"), Path(f"{ours_prefix}.model")
    ref, ours = _proto(ref_path), _proto(ours_path)
    assert [(p.piece, p.score, p.type) for p in ours.pieces] == [
        (p.piece, p.score, p.type) for p in ref.pieces
    ]
    for field in TRAINER_FIELDS:
        assert getattr(ours.trainer_spec, field) == getattr(ref.trainer_spec, field), field
    # Field by field: sentencepiece marks an empty charsmap present, tokensmith leaves it out.
    for field in pb.NormalizerSpec.DESCRIPTOR.fields:
        assert getattr(ours.normalizer_spec, field.name) == getattr(
            ref.normalizer_spec, field.name
        ), field.name
    assert Path(f"{ours_prefix}.vocab").read_text(encoding="utf-8") == Path(
        f"{ref_prefix}.vocab"
    ).read_text(encoding="utf-8")

    lines = MULTILINGUAL.read_text(encoding="utf-8").splitlines()
    theirs = spm.SentencePieceProcessor(model_file=str(ref_path))
    want = theirs.encode(lines)
    # sentencepiece on tokensmith's file.
    assert spm.SentencePieceProcessor(model_file=str(ours_path)).encode(lines) == want
    # tokensmith on sentencepiece's file: ids, pieces, decoding and proto offsets.
    loaded = tokensmith.SentencePieceProcessor(model_file=str(ref_path))
    assert loaded.encode(lines) == want
    assert loaded.encode(lines, out_type=str) == theirs.encode(lines, out_type=str)
    assert loaded.decode(want) == theirs.decode(want)
    for line in lines:
        assert _spans(loaded, line) == _spans(theirs, line), line


def test_required_chars_the_corpus_lacks_score_minus_infinity(tmp_path: Path) -> None:
    # sentencepiece keeps a required character the text lacks with log(0) as its score.
    flags = dict(model_type="char", vocab_size=500, required_chars="ꙮ")
    out = tmp_path / "m"
    SentencePieceTrainer.train(input=str(CODE), model_prefix=str(out), **flags)
    sp = tokensmith.SentencePieceProcessor(model_file=f"{out}.model")
    assert sp.get_score(sp.piece_to_id("ꙮ")) == float("-inf")
    spm.SentencePieceTrainer.train(
        input=str(CODE), model_prefix=str(tmp_path / "ref"), minloglevel=2, **flags
    )
    ref = spm.SentencePieceProcessor(model_file=str(tmp_path / "ref.model"))
    assert ref.get_score(ref.piece_to_id("ꙮ")) == float("-inf")


def _sentencepiece_on(texts: list[str], **flags: object) -> spm.SentencePieceProcessor:
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(texts), model_writer=model, minloglevel=2, **flags
    )
    return spm.SentencePieceProcessor(model_proto=model.getvalue())


def test_vocabulary_limits_as_in_sentencepiece() -> None:
    texts = ["the cat", "the dog"] * 5
    # Too few words for a hard limit: both refuse; tokensmith names the size the text allows,
    # which is what sentencepiece reaches without the limit.
    with pytest.raises(RuntimeError, match="Vocabulary size too high"):
        _sentencepiece_on(texts, vocab_size=50, model_type="word")
    soft = _sentencepiece_on(texts, vocab_size=50, model_type="word", hard_vocab_limit=False)
    with pytest.raises(
        tokensmith.errors.InvalidTrainerOptionError, match=f"at most {soft.piece_size()} pieces"
    ):
        tokensmith.train_unigram(texts, vocab_size=50, model_type="word")
    ours = tokensmith.train_unigram(texts, vocab_size=50, model_type="word", hard_vocab_limit=False)
    assert ours.piece_size() == soft.piece_size()
    assert ours.encode("the dog", out_type=str) == soft.encode("the dog", out_type=str)
    # A char model is never held to vocab_size.
    char = _sentencepiece_on(texts, vocab_size=50, model_type="char")
    assert tokensmith.train_unigram(texts, vocab_size=50, model_type="char").piece_size() == (
        char.piece_size()
    )
    # use_all_vocab is for char and word models only.
    with pytest.raises(RuntimeError, match="use_all_vocab"):
        _sentencepiece_on(texts, vocab_size=50, model_type="unigram", use_all_vocab=True)
    with pytest.raises(tokensmith.errors.InvalidTrainerOptionError, match="use_all_vocab"):
        tokensmith.train_unigram(texts, vocab_size=50, model_type="unigram", use_all_vocab=True)


@pytest.mark.parametrize("name", SPLIT)
def test_no_sampling_and_no_nbest_as_in_sentencepiece(name: str) -> None:
    ours, ref = pair(name)
    calls = (
        lambda sp: sp.encode("hello world", enable_sampling=True, alpha=0.1, nbest_size=-1),
        lambda sp: sp.sample_encode_as_ids("hello world", nbest_size=-1, alpha=0.1),
        lambda sp: sp.nbest_encode_as_pieces("hello world", 3),
    )
    for call in calls:
        with pytest.raises(RuntimeError, match="available"):
            call(ref)
        with pytest.raises(RuntimeError, match=name.split("_")[0]):
            call(ours)


@pytest.mark.parametrize("model_type", ["char", "word"])
def test_control_byte_and_unused_pieces_spelt_in_text_are_unknown(model_type: str) -> None:
    # No dummy prefix, so that "<s>" and "<0x41>" can be whole words; one normal piece is
    # turned UNUSED by hand. sentencepiece encodes all of them as unknown text.
    lines = [line for line in MULTILINGUAL.read_text(encoding="utf-8").splitlines() if line]
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=out, model_type=model_type, minloglevel=2,
        vocab_size=3000, add_dummy_prefix=False, byte_fallback=True, control_symbols=["x"],
        user_defined_symbols=["<s>x"],
    )
    proto = pb.ModelProto()
    proto.ParseFromString(out.getvalue())
    unused = "▁de" if model_type == "word" else "e"
    next(p for p in proto.pieces if p.piece == unused).type = pb.ModelProto.SentencePiece.UNUSED
    data = proto.SerializeToString()
    ours = tokensmith.SentencePieceProcessor(model_proto=data)
    ref = spm.SentencePieceProcessor(model_proto=data)
    texts = ["<s> hello", "hello </s>", "<0x41> a", "<unk> de", "x y", "max <s>x", *lines[::11]]
    for text in texts:
        assert ours.encode(text, out_type=str) == ref.encode(text, out_type=str), text
        assert _spans(ours, text) == _spans(ref, text), text


@pytest.mark.parametrize("model_type", ["char", "word"])
def test_word_count_tsv_input(tmp_path: Path, model_type: str) -> None:
    # input_format=tsv: each line is "sentence<TAB>count", trained on as count copies.
    counts = Counter(w for line in MULTILINGUAL.read_text(encoding="utf-8").split("\n")
                     for w in line.split())
    tsv = tmp_path / "counts.tsv"
    tsv.write_text("".join(f"{w}\t{n}\n" for w, n in counts.items()), encoding="utf-8")
    flags = dict(input=str(tsv), input_format="tsv", model_type=model_type, vocab_size=1500,
                 hard_vocab_limit=False)
    spm.SentencePieceTrainer.train(model_prefix=str(tmp_path / "ref"), minloglevel=2, **flags)
    SentencePieceTrainer.train(model_prefix=str(tmp_path / "ours"), **flags)
    assert (tmp_path / "ours.vocab").read_text(encoding="utf-8") == (
        tmp_path / "ref.vocab"
    ).read_text(encoding="utf-8")
    ref, ours = _proto(tmp_path / "ref.model"), _proto(tmp_path / "ours.model")
    assert [(p.piece, p.score, p.type) for p in ours.pieces] == [
        (p.piece, p.score, p.type) for p in ref.pieces
    ]
