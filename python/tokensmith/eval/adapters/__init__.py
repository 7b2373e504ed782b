"""Adapters that let the metrics run on tokensmith, tiktoken, HF tokenizers and sentencepiece."""

from tokensmith.eval.adapters.base import (
    IntArray,
    TokenBatch,
    TokenizerAdapter,
    flatten,
    token_byte_lengths,
)
from tokensmith.eval.adapters.hf import HFTokenizerAdapter, gpt2_byte_alphabet
from tokensmith.eval.adapters.load import TokenizerSpec, load_tokenizer
from tokensmith.eval.adapters.spm import SentencePieceAdapter, load_sentencepiece
from tokensmith.eval.adapters.tiktoken_like import TiktokenLikeAdapter

__all__ = [
    "HFTokenizerAdapter",
    "IntArray",
    "SentencePieceAdapter",
    "TiktokenLikeAdapter",
    "TokenBatch",
    "TokenizerAdapter",
    "TokenizerSpec",
    "flatten",
    "gpt2_byte_alphabet",
    "load_sentencepiece",
    "load_tokenizer",
    "token_byte_lengths",
]
