"""``tokensmith.eval``: measure and compare tokenizers.

One metric per function, each with its formula and source; all of them run on any tokenizer
:func:`load_tokenizer` accepts (tokensmith and tiktoken encodings, HF ``tokenizers``,
sentencepiece, bundled names, ``.tiktoken`` / ``tokenizer.json`` / ``.model`` files).

>>> import tokensmith.eval as ev
>>> m = ev.evaluate("cl100k_base", ["The quick brown fox jumps over the lazy dog."])
>>> m["bytes_per_token"], m["fertility"]
(4.4, 1.1111111111111112)
>>> ev.embedding_params(128_256, 4096).total
1050673152

Layout: ``adapters/`` (the tokenizer interface), ``corpus`` (encode once), one module per
metric family, ``evaluate`` (all metrics by name), ``parity``, ``cost``, ``ngram``, ``sweep``.
"""

from tokensmith.eval.adapters import (
    HFTokenizerAdapter,
    SentencePieceAdapter,
    TiktokenLikeAdapter,
    TokenBatch,
    TokenizerAdapter,
    TokenizerSpec,
    load_tokenizer,
)
from tokensmith.eval.compression import bytes_per_token, chars_per_token
from tokensmith.eval.corpus import Tokenized, tokenize
from tokensmith.eval.cost import (
    EmbeddingCost,
    bytes_in_context,
    context_bytes_by_language,
    embedding_params,
)
from tokensmith.eval.evaluate import (
    METRIC_NAMES,
    evaluate,
    evaluate_by_language,
    evaluate_tokenized,
)
from tokensmith.eval.fertility import continued_words, fertility
from tokensmith.eval.ngram import (
    KneserNeyLM,
    NgramScore,
    ngram_bits_per_byte,
    split_train_test,
)
from tokensmith.eval.numbers import digits_per_token
from tokensmith.eval.parity import (
    ParityResult,
    mean_parity,
    parity,
    parity_by_language,
    read_parallel,
)
from tokensmith.eval.renyi import renyi_efficiency, renyi_entropy
from tokensmith.eval.roundtrip import round_trip_rate
from tokensmith.eval.sweep import SweepRow, vocab_size_sweep
from tokensmith.eval.unknown import byte_fallback_rate, unk_rate
from tokensmith.eval.vocabulary import (
    ids_for_mass,
    token_length_distribution,
    unigram_counts,
    vocab_utilization,
)

__all__ = [
    "METRIC_NAMES",
    "EmbeddingCost",
    "HFTokenizerAdapter",
    "KneserNeyLM",
    "NgramScore",
    "ParityResult",
    "SentencePieceAdapter",
    "SweepRow",
    "TiktokenLikeAdapter",
    "TokenBatch",
    "Tokenized",
    "TokenizerAdapter",
    "TokenizerSpec",
    "byte_fallback_rate",
    "bytes_in_context",
    "bytes_per_token",
    "chars_per_token",
    "context_bytes_by_language",
    "continued_words",
    "digits_per_token",
    "embedding_params",
    "evaluate",
    "evaluate_by_language",
    "evaluate_tokenized",
    "fertility",
    "ids_for_mass",
    "load_tokenizer",
    "mean_parity",
    "ngram_bits_per_byte",
    "parity",
    "parity_by_language",
    "read_parallel",
    "renyi_efficiency",
    "renyi_entropy",
    "round_trip_rate",
    "split_train_test",
    "token_length_distribution",
    "tokenize",
    "unigram_counts",
    "unk_rate",
    "vocab_size_sweep",
    "vocab_utilization",
]
