"""Training entry points: byte-level/character BPE, Unigram and WordPiece, and their input readers.

One module per trainer (:mod:`~tokensmith.train.bpe`, :mod:`~tokensmith.train.unigram`,
:mod:`~tokensmith.train.wordpiece`, the Ray engine in :mod:`~tokensmith.train.unigram_ray`)
and one per shared piece (bounded and TSV word counts, tokenizer families, the merge progress
bar). The public functions are re-exported here and from :mod:`tokensmith`.
"""

from tokensmith.train.bpe import InvalidUtf8Warning, VocabSizeWarning, train_bpe
from tokensmith.train.unigram import train_unigram
from tokensmith.train.wordpiece import train_wordpiece

__all__ = [
    "InvalidUtf8Warning",
    "VocabSizeWarning",
    "train_bpe",
    "train_unigram",
    "train_wordpiece",
]
