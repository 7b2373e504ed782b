"""``Tokenizer.train`` and ``train_from_iterator`` with a ``UnigramTrainer`` against HF's.

tokensmith runs HF's Unigram training step for step (``trainers/unigram/hf_*.rs``), so on the
committed multilingual text the vocabulary is HF's, run in the test with the same options:
the same pieces with the same scores (to 1e-9; HF sums its expected counts in the order
of its hash map, which changes from run to run, so its own scores move in the last bits).
Two things HF leaves to hash order are compared as what is stable about them
(:func:`assert_hf_vocab`): the characters its model lost, which ``finalize`` scores
``min_score + 0.0001 × k`` with ``k`` in hash order (so the same scores, given out to the
same characters in another order), and the order of pieces of exactly equal score. HF
itself is trained twice in each test and must agree with itself under the same rule.

Also checked: the result is a Unigram ``tokenizer.json`` that HF loads and that encodes
every line with the same ids, tokens and offsets in HF and in tokensmith; the special
tokens take ids 0.. in order (the ``unk_token`` first when it is not one of them), and
``unk_id``, the added tokens and the size are HF's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import tokenizers
import tokensmith

TEXT = Path(__file__).parents[1] / "data" / "multilingual.txt"
ALL_LINES = TEXT.read_text(encoding="utf-8").splitlines()
LINES = ALL_LINES[:2000]
TOLERANCE = 1e-9


def pipeline(lib: Any, kind: str) -> Any:
    """The same untrained Unigram pipeline in HF or tokensmith."""
    tok = lib.Tokenizer(lib.models.Unigram())
    tok.normalizer = lib.normalizers.NFKC()
    if kind == "metaspace":
        tok.pre_tokenizer = lib.pre_tokenizers.Metaspace()
        tok.decoder = lib.decoders.Metaspace()
    else:
        tok.pre_tokenizer = lib.pre_tokenizers.Whitespace()
    return tok


def trainer(lib: Any, **options: Any) -> Any:
    defaults: dict[str, Any] = {
        "vocab_size": 2000,
        "special_tokens": ["<pad>", "<unk>", "<mask>"],
        "unk_token": "<unk>",
        "show_progress": False,
    }
    return lib.trainers.UnigramTrainer(**{**defaults, **options})


def model_of(tok: Any) -> dict[str, Any]:
    model: dict[str, Any] = json.loads(tok.to_str())["model"]
    return model


def pieces(tok: Any) -> set[str]:
    return {piece for piece, _ in model_of(tok)["vocab"]}


def assert_hf_vocab(ours: Any, hf: Any) -> None:
    """``ours`` has HF's pieces with HF's scores, up to what HF leaves to hash order."""
    mine, theirs = model_of(ours)["vocab"], model_of(hf)["vocab"]
    assert len(mine) == len(theirs)
    a, b = dict(map(tuple, mine)), dict(map(tuple, theirs))
    assert a.keys() == b.keys(), (sorted(a.keys() - b.keys()), sorted(b.keys() - a.keys()))
    lost = lost_pieces(a, b)
    # Every other piece: HF's score.
    off = [(p, a[p], b[p]) for p in a.keys() - lost if abs(a[p] - b[p]) > TOLERANCE]
    assert off == []
    lost_a = sorted(a[p] for p in lost)
    lost_b = sorted(b[p] for p in lost_pieces(b, a))
    # The lost characters: HF's scores, perhaps given out in another order.
    assert len(lost_a) == len(lost_b)
    assert all(abs(x - y) <= TOLERANCE for x, y in zip(lost_a, lost_b, strict=True))
    # The order, up to exactly equal scores and the lost characters.
    rank = {p: round(s, 7) for p, s in mine}
    assert [rank[p] for p, _ in theirs if p not in lost] == [
        rank[p] for p, _ in mine if p not in lost
    ]


def lost_pieces(vocab: dict[str, float], other: dict[str, float]) -> set[str]:
    """The one-character pieces whose score differs from ``other``'s (lost required
    characters, which HF scores in hash order)."""
    return {p for p, s in vocab.items() if len(p) == 1 and abs(s - other[p]) > TOLERANCE}


def trained_twice(train: Any) -> tuple[Any, Any]:
    """tokensmith's result and HF's, after checking HF agrees with a second run of itself."""
    hf = train(tokenizers)
    assert_hf_vocab(train(tokenizers), hf)
    return train(tokensmith), hf


def added(tok: Any) -> list[tuple[int, str, bool]]:
    return [(i, t.content, t.special) for i, t in sorted(tok.get_added_tokens_decoder().items())]


def assert_same_encodings(ours: Any, lines: list[str]) -> None:
    """``ours``, saved and loaded by HF, encodes each line as tokensmith does (a line that
    needs a missing unknown token fails in both)."""
    hf = tokenizers.Tokenizer.from_str(ours.to_str())
    for line in lines:
        try:
            theirs = hf.encode(line)
        except Exception as e:
            assert "unk_id" in str(e), e
            with pytest.raises(tokensmith.TokenizerJsonError, match="unknown"):
                ours.encode(line)
            continue
        mine = ours.encode(line)
        assert (mine.ids, mine.tokens) == (theirs.ids, theirs.tokens), line
        assert mine.offsets == [tuple(o) for o in theirs.offsets], line


@pytest.mark.parametrize("kind", ["metaspace", "whitespace"])
@pytest.mark.parametrize("how", ["iterator", "files"])
def test_train_gives_a_model_hf_runs_alike(kind: str, how: str, tmp_path: Path) -> None:
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    batches = [LINES[i : i + 100] for i in range(0, len(LINES), 100)]

    def trained(lib: Any) -> Any:
        tok = pipeline(lib, kind)
        if how == "files":
            tok.train([path if lib is tokensmith else str(path)], trainer(lib))
        else:
            tok.train_from_iterator(iter(batches), trainer(lib), length=len(LINES))
        return tok

    ours, hf = trained_twice(trained)
    assert_hf_vocab(ours, hf)
    mine, theirs = model_of(ours), model_of(hf)
    assert mine["type"] == theirs["type"] == "Unigram"
    assert mine["vocab"][:3] == theirs["vocab"][:3] == [["<pad>", 0.0], ["<unk>", 0.0],
                                                        ["<mask>", 0.0]]  # fmt: skip
    assert mine["unk_id"] == theirs["unk_id"] == 1
    assert mine["byte_fallback"] == theirs["byte_fallback"]
    assert ours.get_vocab_size() == hf.get_vocab_size() == 2000
    assert added(ours) == added(hf)
    scores = [score for _, score in mine["vocab"][3:]]
    assert scores == sorted(scores, reverse=True)
    assert_same_encodings(ours, ALL_LINES)


@pytest.mark.parametrize("unk_token", [None, "<unk>", "[UNK]"])
def test_unknown_token_placement_is_hfs(unk_token: str | None) -> None:
    def trained(lib: Any) -> Any:
        tok = pipeline(lib, "whitespace")
        options = {"vocab_size": 400, "special_tokens": ["<s>", "<unk>"], "unk_token": unk_token}
        tok.train_from_iterator(LINES[:300], trainer(lib, **options))
        return tok

    ours, hf = trained_twice(trained)
    assert_hf_vocab(ours, hf)
    mine, theirs = model_of(ours), model_of(hf)
    head = 3 if unk_token == "[UNK]" else 2
    assert mine["vocab"][:head] == theirs["vocab"][:head]
    assert mine["unk_id"] == theirs["unk_id"]
    assert ours.get_vocab_size() == hf.get_vocab_size() == 400
    assert added(ours) == added(hf)
    assert_same_encodings(ours, ALL_LINES[::7])


@pytest.mark.parametrize(
    "options",
    [
        {"vocab_size": 1500, "max_piece_length": 4, "shrinking_factor": 0.6,
         "n_sub_iterations": 3, "initial_alphabet": ["q", "ж", "☃", " "]},
        {"vocab_size": 800, "shrinking_factor": 0.9, "n_sub_iterations": 1,
         "special_tokens": [], "unk_token": None},
        {"vocab_size": 3000, "max_piece_length": 8, "shrinking_factor": 0.5,
         "special_tokens": ["<s>", "</s>"], "unk_token": "<unk>"},
    ],
)  # fmt: skip
def test_options_give_hfs_vocabulary(options: dict[str, Any]) -> None:
    def trained(lib: Any) -> Any:
        tok = pipeline(lib, "metaspace")
        tok.train_from_iterator(LINES[:1500], trainer(lib, **options))
        return tok

    ours, hf = trained_twice(trained)
    assert_hf_vocab(ours, hf)
    alphabet = set(options.get("initial_alphabet", []))
    for tok in (ours, hf):
        vocab = pieces(tok)
        assert alphabet <= vocab
        longest = max(len(p) for p in vocab - {"<pad>", "<unk>", "<mask>", "<s>", "</s>"})
        assert longest <= options.get("max_piece_length", 16)
    assert ours.get_vocab_size() == hf.get_vocab_size() == options["vocab_size"]
    assert added(ours) == added(hf)
    assert_same_encodings(ours, ALL_LINES[::5])


def test_a_vocabulary_below_the_alphabet_is_refused() -> None:
    for lib in (tokenizers, tokensmith):
        tok = pipeline(lib, "whitespace")
        error = tokensmith.InvalidTrainerOptionError if lib is tokensmith else Exception
        with pytest.raises(error, match="vocab"):
            tok.train_from_iterator(LINES[:300], trainer(lib, vocab_size=50))


def test_a_corpus_too_small_gives_fewer_pieces() -> None:
    """HF keeps every piece its EM leaves when that is below ``vocab_size``: so does
    tokensmith, the same pieces."""

    def trained(lib: Any) -> Any:
        tok = pipeline(lib, "whitespace")
        tok.train_from_iterator(LINES[:300], trainer(lib, vocab_size=20000))
        return tok

    ours, hf = trained_twice(trained)
    assert_hf_vocab(ours, hf)
    assert ours.get_vocab_size() == hf.get_vocab_size() < 20000
    assert_same_encodings(ours, ALL_LINES[:600])


def test_spaces_and_reserved_characters_are_pieces() -> None:
    """With no pre-tokenizer a word holds spaces, line ends and ``<``: they are learned as
    any other character, as in HF."""
    lines = [line + "\n" for line in LINES[:600]]

    def trained(lib: Any) -> Any:
        tok = lib.Tokenizer(lib.models.Unigram())
        tok.train_from_iterator(lines, trainer(lib, vocab_size=1500))
        return tok

    ours, hf = trained_twice(trained)
    assert_hf_vocab(ours, hf)
    assert {" ", "\n", "<"} <= pieces(ours)
    assert any(" " in p and len(p) > 1 for p in pieces(ours))
    assert ours.get_vocab_size() == hf.get_vocab_size()
    assert_same_encodings(ours, lines)


def test_a_unigram_trainer_needs_a_unigram_model() -> None:
    tok = tokensmith.Tokenizer(tokensmith.models.BPE())
    with pytest.raises(tokensmith.UnsupportedFeatureError, match="UnigramTrainer"):
        tok.train_from_iterator(LINES[:10], trainer(tokensmith))
