"""What a vocabulary costs a model: embedding parameters, and text per context window.

Seed 000, §7: the embedding has ``V x d`` parameters, and an output layer (LM head) that is not
shared with it ("untied") has ``V x d`` more. At d = 4096:

    32,000 (Llama-2)   2 x 32K x 4096  ~ 2.6e8
    128,256 (Llama-3)  2 x 128K x 4096 ~ 1.05e9

>>> embedding_params(32_000, 4096).total
262144000
>>> embedding_params(32_000, 4096, tied=True).total
131072000
>>> bytes_in_context(8192, bytes_per_token=4.0)
32768.0
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tokensmith.errors import InvalidArgumentError
from tokensmith.eval.adapters import TokenizerSpec, load_tokenizer
from tokensmith.eval.compression import bytes_per_token
from tokensmith.eval.corpus import tokenize


@dataclass(frozen=True)
class EmbeddingCost:
    """Parameters spent on the vocabulary.

    Attributes:
        vocab_size: ``V``.
        d_model: ``d``.
        tied: Whether the LM head reuses the input embedding.
        input_params: ``V * d``.
        output_params: ``V * d`` untied, 0 tied.
    """

    vocab_size: int
    d_model: int
    tied: bool
    input_params: int
    output_params: int

    @property
    def total(self) -> int:
        """Input plus output parameters."""
        return self.input_params + self.output_params

    def share_of(self, model_params: int) -> float:
        """The fraction of a model's parameters these are (seed 000: over 20% at 1-2B)."""
        if model_params <= 0:
            raise InvalidArgumentError(f"model_params must be positive, not {model_params}")
        return self.total / model_params


def embedding_params(vocab_size: int, d_model: int, *, tied: bool = False) -> EmbeddingCost:
    """Embedding and LM-head parameters: ``V*d`` in, plus ``V*d`` out unless tied.

    Source: seed 000 §7 ("embedding = V x D; untied output layer x 2"); seed 004's exercise
    (output layer ``|V| x d``). Biases, if a model has them, add ``V`` more and are left out.
    """
    if vocab_size <= 0 or d_model <= 0:
        raise InvalidArgumentError(
            f"vocab_size and d_model must be positive, not {vocab_size}, {d_model}"
        )
    one = vocab_size * d_model
    return EmbeddingCost(vocab_size, d_model, tied, one, 0 if tied else one)


def bytes_in_context(context_tokens: int, *, bytes_per_token: float) -> float:
    """UTF-8 bytes of text that fit in ``context_tokens`` tokens: ``N * bytes/token``.

    Seed 000 §7: the same 8K window holds twice the text at 3.0 bytes/token as at 1.5.
    """
    if context_tokens < 0:
        raise InvalidArgumentError(f"context_tokens must be >= 0, not {context_tokens}")
    return context_tokens * bytes_per_token


def context_bytes_by_language(
    tokenizer: TokenizerSpec, corpora: Mapping[str, Iterable[str]], *, context_tokens: int
) -> dict[str, float]:
    """For each language, the bytes of its text a ``context_tokens`` window holds, measured.

    Each language's bytes/token is measured on its own texts (``corpora[language]``).
    """
    adapter = load_tokenizer(tokenizer)
    return {
        language: bytes_in_context(
            context_tokens,
            bytes_per_token=bytes_per_token(tokenize(adapter, texts, language=language)),
        )
        for language, texts in corpora.items()
    }
