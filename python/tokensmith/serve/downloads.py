"""A tokenizer trained in the page, as files: every format tokensmith saves it in.

- a byte-level BPE (:class:`~tokensmith.Encoding`): ``tokenizer.json``; ``NAME.tiktoken`` with
  its ``NAME.tiktoken.json`` sidecar; GPT-2's ``vocab.json`` + ``merges.txt`` (+
  ``tokensmith.json``);
- a :class:`~tokensmith.Tokenizer` (WordPiece): ``tokenizer.json``;
- a SentencePiece model (Unigram): ``NAME.model``.

A format of one file is sent as that file; one of several files, and ``all``, as a zip.

>>> import tokensmith
>>> enc = tokensmith.train_bpe(["low lower lowest"] * 10, vocab_size=262, name="tiny")
>>> formats_for(enc)
['tokenizer.json', 'tiktoken', 'vocab+merges', 'all']
>>> name, data = download(enc, "tiktoken")
>>> name, data[:2]
('tiny.tiktoken.zip', b'PK')
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from tokensmith.encoding import Encoding
from tokensmith.errors import UnknownFormatError
from tokensmith.hf_tokenizer import Tokenizer
from tokensmith.sentencepiece import SentencePieceProcessor

__all__ = ["download", "formats_for"]


def formats_for(tokenizer: Any) -> list[str]:
    """The formats ``tokenizer`` can be downloaded in (``all`` last)."""
    if isinstance(tokenizer, Encoding):
        return ["tokenizer.json", "tiktoken", "vocab+merges", "all"]
    if isinstance(tokenizer, SentencePieceProcessor):
        return ["model", "all"]
    if isinstance(tokenizer, Tokenizer):
        return ["tokenizer.json", "all"]
    return []


def _write(tokenizer: Any, fmt: str, folder: Path) -> list[Path]:
    """Saves ``tokenizer`` into ``folder`` in ``fmt``; returns the files written."""
    import tokensmith

    name = str(getattr(tokenizer, "name", "") or "trained")
    if fmt == "tokenizer.json":
        tokensmith.save(tokenizer, folder / "tokenizer.json")
        return [folder / "tokenizer.json"]
    if fmt == "tiktoken":
        tokensmith.save(tokenizer, folder / f"{name}.tiktoken")
        return [folder / f"{name}.tiktoken", folder / f"{name}.tiktoken.json"]
    if fmt == "vocab+merges":
        target = folder / "vocab"
        tokensmith.save(tokenizer, target, format="vocab+merges")
        return sorted(target.iterdir())
    if fmt == "model":
        tokensmith.save(tokenizer, folder / "unigram.model")
        return [folder / "unigram.model"]
    raise UnknownFormatError(f"format {fmt!r} is not offered")


def download(tokenizer: Any, fmt: str) -> tuple[str, bytes]:
    """``(file name, bytes)`` of ``tokenizer`` in ``fmt``.

    Raises:
        UnknownFormatError: ``fmt`` is not one of :func:`formats_for`.
    """
    offered = formats_for(tokenizer)
    if fmt not in offered:
        raise UnknownFormatError(f"format {fmt!r} is not offered; use one of {offered}")
    with tempfile.TemporaryDirectory(prefix="tokensmith-download-") as tmp:
        folder = Path(tmp)
        formats = [f for f in offered if f != "all"] if fmt == "all" else [fmt]
        files = [path for f in formats for path in _write(tokenizer, f, folder)]
        if len(files) == 1:
            return files[0].name, files[0].read_bytes()
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in files:
                archive.write(path, path.relative_to(folder).as_posix())
        stem = "tokenizer" if fmt == "all" else files[0].name
        return f"{stem}.zip", buffer.getvalue()
