"""The ``compare`` HTML report for the text the page shows, with the tokenizers it shows.

The text's non-empty lines are the corpus (as ``tokensmith compare --corpus`` reads a file),
and its first lines are the segmentation samples. The vocabulary-size sweep is left out: it
re-encodes the text many times, and the page wants the report in a moment.

>>> from tokensmith.eval import load_tokenizer
>>> html = report_for_text({"cl100k_base": load_tokenizer("cl100k_base")}, "hello world\\nhi")
>>> html.startswith("<!DOCTYPE html>")
True
"""

from __future__ import annotations

from collections.abc import Mapping

from tokensmith.errors import EmptyCorpusError
from tokensmith.eval import TokenizerAdapter
from tokensmith.report import Corpus, build_report, render_html
from tokensmith.serve.segmenter import Segmenter

__all__ = ["adapter_of", "report_for_text"]

_SAMPLES = 3
_SAMPLE_CHARS = 200


def report_for_text(tokenizers: Mapping[str, TokenizerAdapter], text: str) -> str:
    """The report's HTML.

    Raises:
        EmptyCorpusError: the text has no non-blank line.
    """
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise EmptyCorpusError("the page holds no text to report on")
    samples = [line[:_SAMPLE_CHARS] for line in lines[:_SAMPLES]]
    report = build_report(
        tokenizers,
        [Corpus("the page's text", {"all": lines})],
        samples=samples,
        sweep=False,
        title="tokensmith playground: the page's text",
    )
    return render_html(report)


def adapter_of(segmenter: Segmenter) -> TokenizerAdapter:
    """The evaluation adapter of a tokenizer the page shows."""
    from tokensmith.eval import load_tokenizer
    from tokensmith.sentencepiece_backend import SentencePieceTokenizer

    tok = segmenter.tokenizer
    if isinstance(tok, SentencePieceTokenizer):
        return load_tokenizer(tok.processor, name=segmenter.label)
    return load_tokenizer(tok, name=segmenter.label)
