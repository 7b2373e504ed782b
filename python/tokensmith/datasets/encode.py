"""``encode_dataset``: turn text inputs into training-ready token shards, resumably.

The job, in order:

1. Check the output directory: a manifest of the same job means resume, another job's
   manifest (or unrelated files) means refuse unless ``overwrite=True``.
2. Read documents in order (:mod:`tokensmith.datasets.readers`), skipping those that finished
   shards already hold, and encode them in batches with ``encode_ordinary_batch_to_numpy``
   (Rust threads, GIL released).
3. Cut shards per document, by document or token count; a document is never split. The cut
   depends only on the document sequence, so the bytes do not depend on ``workers`` or on the
   batch size.
4. Write each shard atomically, then record it, with its SHA-256, in the manifest.
5. Optionally decode a sample of documents back from the shards (:mod:`.verify`).

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "in.txt").write_text("hello\\nworld\\n")
>>> s = encode_dataset([d / "in.txt"], tokenizer="cl100k_base", out_dir=d / "out",
...                    format="npy", append_eos=True, progress=False)
>>> s.documents, s.tokens, s.shards
(2, 4, 1)
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from tokensmith._atomic import remove_stale_temporaries
from tokensmith.datasets.any_tokenizer import TokenizerEncoder
from tokensmith.datasets.engines import (
    Encoded,
    Engine,
    Specials,
    encode_local,
    skip_documents,
)
from tokensmith.datasets.formats import Format, check_format, open_shard, token_dtype
from tokensmith.datasets.manifest import (
    MANIFEST_NAME,
    Manifest,
    ShardRecord,
    load_manifest,
    sha256_file,
)
from tokensmith.datasets.progress import EncodeProgress
from tokensmith.datasets.readers import (
    OnError,
    ReadStats,
    TextMode,
    document_options,
    input_kind,
    read_documents,
)
from tokensmith.datasets.shard import ShardWriter
from tokensmith.encoding import Encoding
from tokensmith.errors import (
    EmptyCorpusError,
    InvalidArgumentError,
    OutputDirError,
    UnsupportedFeatureError,
)
from tokensmith.records import Errors, dataset_name, is_hf_dataset
from tokensmith.rss import peak_rss_bytes

ShardBy = Literal["tokens", "documents"]


@dataclass
class EncodeSummary:
    """What a job produced. ``bytes_per_token`` counts text tokens only (no BOS/EOS)."""

    out_dir: str
    format: str
    dtype: str
    documents: int
    tokens: int
    text_bytes: int
    bytes_per_token: float
    shards: int
    resumed_shards: int
    skipped_records: int
    seconds: float
    replaced_utf8: int = 0
    peak_rss_bytes: int = 0
    first_skipped: str | None = None
    verified: int = 0
    verify_failures: list[str] = field(default_factory=list)


def encode_dataset(
    inputs: Iterable[str | os.PathLike[str] | Any] | Any,
    *,
    tokenizer: str | os.PathLike[str] | Any,
    out_dir: str | os.PathLike[str],
    format: Format = "megatron",
    text_field: str = "text",
    text_mode: TextMode = "line",
    on_error: OnError = "raise",
    errors: Errors = "strict",
    append_eos: bool = False,
    prepend_bos: bool = False,
    eos_id: int | None = None,
    bos_id: int | None = None,
    shard_size: int = 50_000_000,
    shard_by: ShardBy = "tokens",
    workers: int | None = None,
    overwrite: bool = False,
    verify: int = 0,
    progress: bool | None = None,
    engine: Engine = "local",
    address: str | None = None,
) -> EncodeSummary:
    """Encodes ``inputs`` into shards of ``format`` under ``out_dir``; see the module docstring.

    Args:
        inputs: Text (.txt, .gz, .zst), JSONL or Parquet files, read in this order; or an
            HF ``datasets.Dataset``/``IterableDataset`` (or a list mixing both).
        tokenizer: Anything :func:`tokensmith.load` takes: a bundled name, a tokenizer file
            (``.tiktoken``, ``tokenizer.json``, ``.model``, ``vocab.txt``, ...) or object.
            A :class:`~tokensmith.Tokenizer` encodes each document without its template,
            padding or truncation (see :mod:`tokensmith.datasets.any_tokenizer`).
        format: ``"megatron"`` (.bin/.idx), ``"nanogpt"`` (flat .bin) or ``"npy"``.
        text_field: The JSONL field, Parquet column or dataset column that holds the text.
        text_mode: For text files, ``"line"`` (a document per non-blank line) or ``"file"``.
        on_error: ``"raise"`` or ``"skip"`` a JSONL/Parquet/dataset record that has no text.
        errors: Invalid UTF-8: ``"strict"`` raises (file, line, byte offset), ``"replace"``
            puts U+FFFD and counts it in the summary.
        append_eos, prepend_bos: Add ``eos_id``/``bos_id`` (default: the encoding's
            ``<|endoftext|>``) after/before every document.
        shard_size: Close a shard once it holds this many tokens (or documents).
        shard_by: ``"tokens"`` or ``"documents"``.
        workers: Encoding threads (default: all cores). Does not change the output.
        overwrite: Replace another job's shards in ``out_dir`` instead of refusing.
        verify: Decode this many sampled documents back from the shards and compare.
        progress: Show a live progress line (default: when stderr is a terminal).
        engine: ``"local"`` (Rust threads) or ``"ray"`` (batches encoded as tasks on a Ray
            cluster, shards written by its workers; see :mod:`tokensmith.datasets.engines`).
            The shards are the same bytes.
        address: The Ray cluster to join (``ray.init(address=...)``); default: a local one.
    """
    started = time.perf_counter()
    fmt = check_format(format)
    enc = _encoding(tokenizer)
    if shard_by not in ("tokens", "documents"):
        raise InvalidArgumentError(f"shard_by must be 'tokens' or 'documents', not {shard_by!r}")
    if shard_size < 1:
        raise InvalidArgumentError(f"shard_size must be at least 1, not {shard_size}")
    workers = (os.cpu_count() or 1) if workers is None else workers
    if workers < 1:
        raise InvalidArgumentError(f"workers must be at least 1, not {workers}")
    if engine not in ("local", "ray"):
        raise InvalidArgumentError(f"engine must be 'local' or 'ray', not {engine!r}")
    if verify and fmt == "nanogpt":
        raise InvalidArgumentError(
            "verify needs document boundaries, which a flat nanoGPT .bin does not keep; "
            "use format='megatron' or 'npy', or verify=0"
        )
    bos = (enc.eot_token if bos_id is None else bos_id) if prepend_bos else None
    eos = (enc.eot_token if eos_id is None else eos_id) if append_eos else None
    dtype = token_dtype(fmt, enc.n_vocab)
    sources = _sources(inputs)
    job: dict[str, Any] = {
        "inputs": [_describe_input(p) for p in sources],
        "tokenizer": enc.name,
        "n_vocab": enc.n_vocab,
        "format": fmt,
        "dtype": dtype.str,
        "text_field": text_field,
        "text_mode": text_mode,
        "on_error": on_error,
        "errors": errors,
        "bos_id": bos,
        "eos_id": eos,
        "shard_size": shard_size,
        "shard_by": shard_by,
    }
    out = Path(out_dir)
    manifest = _prepare_out_dir(out, job, fmt, overwrite)
    resumed = len(manifest.shards)
    stats = ReadStats()
    specials = Specials(bos, eos, dtype)
    encoded: Iterable[Encoded]
    if manifest.complete:
        encoded = ()
        stats.skipped = int((manifest.summary or {}).get("skipped_records", 0))
        stats.replaced = int((manifest.summary or {}).get("replaced_utf8", 0))
    elif engine == "ray":
        from tokensmith.datasets.ray_engine import encode_on_ray

        if not isinstance(enc, Encoding):
            raise UnsupportedFeatureError(
                "engine='ray' ships a tiktoken-style Encoding to its workers; this tokenizer "
                "is not one: use engine='local'"
            )
        if any(is_hf_dataset(p) for p in sources):
            raise UnsupportedFeatureError(
                "engine='ray' reads input files on the cluster; an HF dataset object lives "
                "here: use engine='local', or save it as Parquet (ds.to_parquet) and pass that"
            )
        opts = document_options(text_field, text_mode, on_error, errors)
        files = [(p, input_kind(p)) for p in sources]
        encoded = encode_on_ray(enc, files, opts, specials, stats, address)
    else:
        docs = read_documents(
            sources,
            text_field=text_field,
            text_mode=text_mode,
            on_error=on_error,
            errors=errors,
            stats=stats,
        )
        encoded = encode_local(enc, docs, specials, workers)
    if manifest.next_document and not manifest.complete:
        encoded = skip_documents(encoded, manifest.next_document)
    cutter = _ShardCutter(manifest, fmt, out, dtype, shard_size, shard_by)
    if progress is None:
        progress = _stderr_is_tty()
    with EncodeProgress(progress) as bar:
        try:
            for chunk in encoded:
                cutter.add(chunk.tokens, chunk.lengths, chunk.text_bytes, bar)
                bar.update(
                    text_bytes=int(chunk.text_bytes.sum()),
                    tokens=len(chunk.tokens),
                    documents=len(chunk.lengths),
                )
            cutter.close_shard(bar)
        except BaseException:
            cutter.abort()
            raise
    if not manifest.shards:
        names = ", ".join(str(d.get("path", d.get("dataset"))) for d in job["inputs"])
        raise EmptyCorpusError(f"no documents in {names or 'the inputs'}")
    summary = _summary(manifest, out, dtype, resumed, stats, started, bos, eos)
    if verify:
        from tokensmith.datasets.verify import verify_shards

        summary.verified, summary.verify_failures = verify_shards(
            out,
            manifest,
            enc,
            verify,
            docs_of=lambda: read_documents(
                sources,
                text_field=text_field,
                text_mode=text_mode,
                on_error=on_error,
                errors=errors,
            ),
        )
    manifest.complete = True
    volatile = ("seconds", "peak_rss_bytes")
    manifest.summary = {k: v for k, v in vars(summary).items() if k not in volatile}
    manifest.save(out)
    return summary


class _ShardCutter:
    """Holds the open shard and decides, document by document, where shards end."""

    def __init__(
        self,
        manifest: Manifest,
        fmt: Format,
        out: Path,
        dtype: np.dtype[np.generic],
        shard_size: int,
        shard_by: ShardBy,
    ) -> None:
        self.manifest, self.fmt, self.out, self.dtype = manifest, fmt, out, dtype
        self.shard_size, self.shard_by = shard_size, shard_by
        self.writer: ShardWriter | None = None
        self.docs = self.tokens = self.text_bytes = 0

    def add(
        self,
        tokens: Any,
        lengths: np.ndarray[Any, Any],
        text_bytes: np.ndarray[Any, Any],
        bar: EncodeProgress,
    ) -> None:
        cum = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=cum[1:])
        pos, n = 0, len(lengths)
        while pos < n:
            if self.writer is None:
                index = len(self.manifest.shards)
                self.writer = open_shard(self.fmt, self.out, index, self.dtype)
            if self.shard_by == "documents":
                take = min(n - pos, self.shard_size - self.docs)
            else:
                target = cum[pos] + (self.shard_size - self.tokens)
                take = min(int(np.searchsorted(cum, target, side="left")) - pos, n - pos)
            self.writer.add(tokens[cum[pos] : cum[pos + take]], lengths[pos : pos + take])
            self.docs += take
            self.tokens += int(cum[pos + take] - cum[pos])
            self.text_bytes += int(text_bytes[pos : pos + take].sum())
            pos += take
            full = self.docs if self.shard_by == "documents" else self.tokens
            if full >= self.shard_size:
                self.close_shard(bar)

    def close_shard(self, bar: EncodeProgress) -> None:
        if self.writer is None:
            return
        writer, self.writer = self.writer, None
        try:
            record = _finish_shard(writer, self.manifest, self.docs, self.tokens, self.text_bytes)
        except BaseException:
            writer.abort()
            raise
        self.manifest.add_shard(record)
        self.manifest.save(self.out)
        self.docs = self.tokens = self.text_bytes = 0
        bar.shard_done()

    def abort(self) -> None:
        if self.writer is not None:
            self.writer.abort()
            self.writer = None


def _finish_shard(
    writer: ShardWriter, manifest: Manifest, docs: int, tokens: int, text_bytes: int
) -> ShardRecord:
    """Syncs and commits one shard's files and describes it for the manifest."""
    writer.finish()
    paths = writer.commit()
    return ShardRecord(
        index=len(manifest.shards),
        first_document=manifest.next_document,
        documents=docs,
        tokens=tokens,
        sha256={p.name: sha256_file(p) for p in paths},
        text_bytes=text_bytes,
    )


def _prepare_out_dir(out: Path, job: dict[str, Any], fmt: Format, overwrite: bool) -> Manifest:
    """Returns the manifest to continue: the existing one (resume) or a fresh, saved one."""
    out.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(out)
    old = load_manifest(out) if not overwrite else None
    if old is not None and old.job == job:
        missing = [name for s in old.shards for name in s.sha256 if not (out / name).is_file()]
        if not missing:
            return old
        if not overwrite:
            raise OutputDirError(
                f"{out}: the manifest lists shard files that are gone ({', '.join(missing[:3])}); "
                "pass overwrite=True to start the job again"
            )
    if old is not None and not overwrite:
        changed = sorted(k for k in set(job) | set(old.job) if job.get(k) != old.job.get(k))
        raise OutputDirError(
            f"{out} holds the shards of another job (it differs in: {', '.join(changed)}); "
            "pass overwrite=True to replace them, or choose another directory"
        )
    if overwrite:
        _clear_outputs(out)
    elif any(out.iterdir()):
        raise OutputDirError(
            f"{out} is not empty and has no tokensmith manifest; pass overwrite=True to write "
            "into it anyway, or choose an empty directory"
        )
    manifest = Manifest(job=job)
    manifest.save(out)
    return manifest


def _clear_outputs(out: Path) -> None:
    """Deletes what a job writes (shards, manifest); other files are left alone."""
    for p in out.glob("shard_*"):
        if p.is_file():
            p.unlink()
    (out / MANIFEST_NAME).unlink(missing_ok=True)


def _sources(inputs: Any) -> list[Any]:
    """Inputs as a list of absolute paths and HF dataset objects."""
    items = [inputs] if is_hf_dataset(inputs) or isinstance(inputs, (str, os.PathLike)) else inputs
    return [s if is_hf_dataset(s) else os.path.abspath(os.fspath(s)) for s in items]


def _describe_input(path: Any) -> dict[str, Any]:
    """What identifies an input across runs: a file's path, size and time; a dataset's
    fingerprint (in-memory ``Dataset``) or name (``IterableDataset``, which has none)."""
    if is_hf_dataset(path):
        return {"dataset": dataset_name(path), "rows": getattr(path, "num_rows", None)}
    try:
        st = os.stat(path)
    except FileNotFoundError:
        from tokensmith.errors import InputNotFoundError

        raise InputNotFoundError(f"input file not found: {path}") from None
    return {"path": path, "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _encoding(tokenizer: Any) -> Encoding | TokenizerEncoder:
    """The tokenizer :func:`tokensmith.load` gives, as an Encoding or behind its calls."""
    from tokensmith.load import load

    loaded = load(tokenizer)
    if isinstance(loaded, Encoding):
        return loaded
    if isinstance(tokenizer, (str, os.PathLike)):
        name = os.path.basename(os.path.normpath(os.fspath(tokenizer)))
    else:
        name = type(tokenizer).__name__
    return TokenizerEncoder(loaded, name=name)


def _summary(
    manifest: Manifest,
    out: Path,
    dtype: np.dtype[np.generic],
    resumed: int,
    stats: ReadStats,
    started: float,
    bos: int | None,
    eos: int | None,
) -> EncodeSummary:
    docs = sum(s.documents for s in manifest.shards)
    tokens = sum(s.tokens for s in manifest.shards)
    text_bytes = sum(s.text_bytes for s in manifest.shards)
    text_tokens = tokens - docs * ((bos is not None) + (eos is not None))
    return EncodeSummary(
        out_dir=os.fspath(out),
        format=manifest.job["format"],
        dtype=dtype.name,
        documents=docs,
        tokens=tokens,
        text_bytes=text_bytes,
        bytes_per_token=text_bytes / text_tokens if text_tokens else 0.0,
        shards=len(manifest.shards),
        resumed_shards=resumed,
        skipped_records=stats.skipped,
        replaced_utf8=stats.replaced,
        peak_rss_bytes=peak_rss_bytes(),
        seconds=time.perf_counter() - started,
        first_skipped=stats.first_skip,
    )


def _stderr_is_tty() -> bool:
    import sys

    return sys.stderr.isatty()
