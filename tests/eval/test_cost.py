"""Model cost: seed 000's parameter table, and text per context window."""

from __future__ import annotations

import pytest
import tokensmith.eval as ev
from eval_helpers import DATA


@pytest.mark.parametrize(
    ("vocab", "seed_value"),
    # Seed 000 §7: "32,000 (Llama-2) 2 × 32K × 4096 ≈ 2.6 亿" and
    # "128,256 (Llama-3) 2 × 128K × 4096 ≈ 10.5 亿" (1 亿 = 1e8).
    [(32_000, 2.6e8), (128_256, 10.5e8)],
)
def test_reproduces_seed_000_table(vocab: int, seed_value: float) -> None:
    d = 4096
    expected = 2 * vocab * d  # input V*d plus an untied output V*d
    cost = ev.embedding_params(vocab, d)
    assert cost.total == expected
    assert cost.input_params == cost.output_params == vocab * d
    # The seed rounds to two or three significant figures.
    assert cost.total == pytest.approx(seed_value, rel=0.01)


def test_tied_halves_the_cost_and_share_of_a_small_model() -> None:
    tied = ev.embedding_params(128_256, 2048, tied=True)
    assert tied.total == 128_256 * 2048 and tied.output_params == 0
    # Seed 000: at 1-2B parameters a large vocabulary can take over 20% of the budget.
    assert ev.embedding_params(128_256, 2048).share_of(1_200_000_000) > 0.2


def test_bytes_in_context() -> None:
    # Seed 000 §7: the same 8K window holds twice the text at 3.0 bytes/token as at 1.5.
    assert ev.bytes_in_context(8192, bytes_per_token=3.0) == 2 * ev.bytes_in_context(
        8192, bytes_per_token=1.5
    )
    assert ev.bytes_in_context(8192, bytes_per_token=3.0) == 24576.0


def test_context_bytes_by_language_uses_each_languages_compression() -> None:
    corpora = ev.read_parallel(DATA / "parallel")
    texts = {lang: [t for _, t in corpora[lang]] for lang in ("de", "ja")}
    fit = ev.context_bytes_by_language("o200k_base", texts, context_tokens=1000)
    for lang, pieces in texts.items():
        bpt = ev.bytes_per_token(ev.tokenize("o200k_base", pieces))
        assert fit[lang] == pytest.approx(1000 * bpt)


def test_bad_sizes() -> None:
    with pytest.raises(ValueError):
        ev.embedding_params(0, 4096)
    with pytest.raises(ValueError):
        ev.bytes_in_context(-1, bytes_per_token=3.0)
