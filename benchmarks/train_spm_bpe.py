"""Train sentencepiece's BPE model with tokensmith and with sentencepiece, in one run.

Method
------
As ``benchmarks/train_unigram.py``: the corpus ``benchmarks/train.py`` builds (``--mb``,
default 50 MB of real multilingual text and code, shuffled with a fixed seed, every 50th line
held out); each trainer in its own fresh process (``--child``), reporting its own peak RSS
(``VmHWM``), its CPU time read by the parent from ``os.wait4``. Wall time covers reading the
corpus and training, not imports or saving.

Settings, the same for both: ``model_type=bpe``, vocabulary ``--vocab`` (default 32,000),
nmt_nfkc normalization, every other option at sentencepiece's default. tokensmith uses 2
threads; sentencepiece's BPE trainer uses one whatever ``num_threads`` says (only its
loading is threaded), and gets ``num_threads=2``. The two models are the same, so the
held-out bytes/token must be equal.

Usage::

    python benchmarks/train_spm_bpe.py --quick     # 5 MB, vocab 8,000
    python benchmarks/train_spm_bpe.py --write     # 50 MB, appended to benchmarks/RESULTS.md
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from train import needs
from train_unigram import NORMALIZATION, THREADS, compare, sentencepiece_model


@needs("tokensmith", "sentencepiece")
def train_tokensmith(corpus: Path, vocab: int) -> Any:
    import tokensmith

    sp = tokensmith.train_unigram(
        files=[str(corpus)],
        vocab_size=vocab,
        model_type="bpe",
        num_threads=THREADS,
        normalization_rule_name=NORMALIZATION,  # type: ignore[arg-type]
    )
    return _counter(sp.serialized_model_proto())


@needs("sentencepiece")
def train_spm(corpus: Path, vocab: int) -> Any:
    return _counter(sentencepiece_model(corpus, vocab, "bpe").read_bytes())


def _counter(model: bytes) -> Any:
    """Held-out token counts, by sentencepiece's encoder for both models."""
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_proto=model)
    return lambda lines: sum(len(ids) for ids in sp.encode(lines))


CHILDREN = {"tokensmith": train_tokensmith, "sentencepiece": train_spm}


def main() -> None:
    compare(__doc__, CHILDREN, __file__, f"sentencepiece BPE, {NORMALIZATION} normalization, ")


if __name__ == "__main__":
    main()
