"""``SentencePieceTrainer.train(model_type="bpe")`` against sentencepiece's own BPE trainer:
both train on the same committed text with the same flags, in the test; the pieces, scores,
types and the specs that encoding reads must be equal, and sentencepiece must load
tokensmith's ``.model`` and give the ids of its own model on every line."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import sentencepiece as spm
import tokensmith
from sentencepiece import sentencepiece_model_pb2 as pb
from spm_helpers import DATA
from tokensmith.sentencepiece_trainer import SentencePieceTrainer

MULTILINGUAL = DATA / "multilingual.txt"
CODE = DATA / "code.txt"

# (corpus, flags): a small default vocabulary, byte fallback, split digits with full
# coverage, and the whitespace rules.
CONFIGS = {
    "code_default_small": (CODE, dict(vocab_size=1000)),
    "multilingual_byte_fallback": (
        MULTILINGUAL,
        dict(vocab_size=3000, character_coverage=0.98, byte_fallback=True),
    ),
    "multilingual_split_digits": (
        MULTILINGUAL,
        dict(vocab_size=6000, character_coverage=1.0, split_digits=True),
    ),
    "code_whitespace_suffix": (CODE, dict(vocab_size=2500, treat_whitespace_as_suffix=True)),
    "multilingual_no_whitespace_split": (
        MULTILINGUAL,
        dict(vocab_size=5000, split_by_whitespace=False, max_sentencepiece_length=8,
             split_by_unicode_script=False, split_by_number=False),
    ),
}

# Trainer-spec fields that encoding, decoding or the vocabulary depend on.
TRAINER_FIELDS = (
    "model_type", "vocab_size", "byte_fallback", "split_digits", "treat_whitespace_as_suffix",
    "max_sentencepiece_length", "unk_id", "bos_id", "eos_id", "pad_id", "unk_piece",
    "bos_piece", "eos_piece", "pad_piece", "unk_surface",
)


def _train_both(tmp_path: Path, corpus: Path, flags: dict) -> tuple[Path, Path]:
    ref, ours = tmp_path / "ref", tmp_path / "ours"
    spm.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(ref), model_type="bpe", minloglevel=2, **flags
    )
    SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(ours), model_type="bpe", **flags
    )
    return Path(f"{ref}.model"), Path(f"{ours}.model")


def _proto(path: Path) -> pb.ModelProto:
    proto = pb.ModelProto()
    proto.ParseFromString(path.read_bytes())
    return proto


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_bpe_model_equals_sentencepiece(tmp_path: Path, name: str) -> None:
    corpus, flags = CONFIGS[name]
    ref_path, ours_path = _train_both(tmp_path, corpus, flags)
    ref, ours = _proto(ref_path), _proto(ours_path)
    assert [(p.piece, p.score, p.type) for p in ours.pieces] == [
        (p.piece, p.score, p.type) for p in ref.pieces
    ]
    for field in TRAINER_FIELDS:
        assert getattr(ours.trainer_spec, field) == getattr(ref.trainer_spec, field), field
    assert ours.normalizer_spec == ref.normalizer_spec
    # sentencepiece loads tokensmith's file and encodes every line as with its own model;
    # tokensmith's processor does the same.
    lines = corpus.read_text(encoding="utf-8").splitlines()
    theirs = spm.SentencePieceProcessor(model_file=str(ref_path))
    loaded = spm.SentencePieceProcessor(model_file=str(ours_path))
    want = theirs.encode(lines)
    assert loaded.encode(lines) == want
    assert tokensmith.SentencePieceProcessor(model_file=str(ours_path)).encode(lines) == want
    # The .vocab file is sentencepiece's too.
    assert (tmp_path / "ours.vocab").read_text(encoding="utf-8") == (
        tmp_path / "ref.vocab"
    ).read_text(encoding="utf-8")


def test_repeated_letters_and_duplicate_pieces(tmp_path: Path) -> None:
    # Words over three letters make the same text from different pairs ("a"+"ab" and
    # "aa"+"b"), runs of one letter overlap ("aaa"), and counts tie often.
    rng = random.Random(7)
    words = ["".join(rng.choice("aab") for _ in range(rng.randint(1, 7))) for _ in range(400)]
    corpus = tmp_path / "letters.txt"
    corpus.write_text(
        "\n".join(" ".join(rng.choice(words) for _ in range(12)) for _ in range(300)) + "\n",
        encoding="utf-8",
    )
    ref_path, ours_path = _train_both(tmp_path, corpus, dict(vocab_size=150))
    ref, ours = _proto(ref_path), _proto(ours_path)
    assert [(p.piece, p.score) for p in ours.pieces] == [(p.piece, p.score) for p in ref.pieces]


def test_meta_pieces_in_the_text_join_words(tmp_path: Path) -> None:
    # sentencepiece replaces <s>, </s>, <unk> and user symbols after normalizing, by a
    # boundary that splits no word: "a</s>b" stays one word, "＜s＞" (NFKC "<s>") is one too.
    rng = random.Random(3)
    words = ["".join(rng.choice("abs</>") for _ in range(rng.randint(1, 6))) for _ in range(80)]
    metas = ["<s>", "</s>", "<unk>", "＜s＞", "<sep>", " <s> "]
    lines = []
    for _ in range(300):
        parts = [rng.choice(words) for _ in range(8)]
        for _ in range(2):
            at = rng.randrange(len(parts))
            parts[at] += rng.choice(metas) + rng.choice(words)
        lines.append(" ".join(parts))
    corpus = tmp_path / "meta.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    flags = dict(vocab_size=100, user_defined_symbols=["<sep>"])
    ref_path, ours_path = _train_both(tmp_path, corpus, flags)
    ref, ours = _proto(ref_path), _proto(ours_path)
    assert [(p.piece, p.score) for p in ours.pieces] == [(p.piece, p.score) for p in ref.pieces]


def test_progress_reports_and_thread_count_do_not_change_the_model() -> None:
    lines = CODE.read_text(encoding="utf-8").splitlines()
    kinds: list[str] = []
    one = tokensmith.train_unigram(lines, vocab_size=800, model_type="bpe", num_threads=1,
                                   progress=lambda kind, info: kinds.append(kind))
    two = tokensmith.train_unigram(lines, vocab_size=800, model_type="bpe", num_threads=2)
    assert one.serialized_model_proto() == two.serialized_model_proto()
    assert kinds[0] == "counted" and kinds[-1] == "finished" and "merged" in kinds


def test_too_large_and_too_small_vocabularies_raise() -> None:
    texts = ["ab ab ba", "abc cab"] * 5
    with pytest.raises(tokensmith.errors.InvalidTrainerOptionError, match="too large"):
        tokensmith.train_unigram(texts, vocab_size=100, model_type="bpe")
    with pytest.raises(tokensmith.errors.InvalidTrainerOptionError, match="too small"):
        tokensmith.train_unigram(texts, vocab_size=5, model_type="bpe")
