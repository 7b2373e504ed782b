"""Reading ``word<TAB>count`` lines, sentencepiece's ``input_format="tsv"``.

Each line holds a sentence (usually one word), a tab and a positive integer count; the
sentence is trained on as if it occurred that many times. A bad line raises
:class:`~tokensmith.errors.CorpusFormatError` naming the file (or ``texts``) and the line.

>>> list(parse_tsv(["hello\\t3\\n", "world\\t1"], source="texts"))
[('hello', 3), ('world', 1)]
>>> list(parse_tsv(["hello 3"], source="counts.tsv"))
Traceback (most recent call last):
...
tokensmith.errors.CorpusFormatError: counts.tsv:1: expected word<TAB>count, got 'hello 3'

Not handled: tabs inside the sentence (sentencepiece rejects them too), datasets.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tokensmith.corpus import Corpus
from tokensmith.errors import CorpusFormatError, InvalidTrainerOptionError
from tokensmith.records import file_kind, read_file

__all__ = ["parse_tsv", "tsv_pairs"]


def parse_tsv(
    lines: Iterable[str], *, source: str, first_line: int = 1
) -> Iterator[tuple[str, int]]:
    """``(sentence, count)`` for each line; ``source`` and line numbers go into errors."""
    for number, raw in enumerate(lines, start=first_line):
        line = raw.rstrip("\r\n")
        fields = line.split("\t")
        if len(fields) != 2:
            raise CorpusFormatError(
                f"{source}:{number}: expected word<TAB>count, got {line[:80]!r}"
            )
        word, count = fields
        n = int(count) if count.strip().isdigit() else 0
        if n < 1:
            raise CorpusFormatError(
                f"{source}:{number}: the count {count[:40]!r} is not an integer >= 1"
            )
        yield word, n


def tsv_pairs(texts: Iterable[str], corpus: Corpus | None) -> Iterator[tuple[str, int]]:
    """The pairs of every TSV file of ``corpus``, or of the lines ``texts`` (no corpus)."""
    if corpus is None:
        yield from parse_tsv(texts, source="texts")
        return
    if corpus.dataset is not None or corpus.format not in ("auto", "text"):
        raise InvalidTrainerOptionError('input_format="tsv" reads text files only')
    for path in corpus.files:
        if file_kind(path) != "text":
            raise InvalidTrainerOptionError(
                f'{path}: input_format="tsv" reads text files, not {file_kind(path)}'
            )
        records = read_file(path, "text", corpus.options, corpus.stats)
        for record in records:
            yield from parse_tsv([record.text], source=record.source, first_line=record.line)
        corpus.stats.files += 1
