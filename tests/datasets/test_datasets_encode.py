"""encode_dataset: deterministic bytes, exact tokens, atomic shards and resumption."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import tokensmith
from datasets_helpers import MULTILINGUAL, byte_encoding, lines, shard_bytes
from tokensmith.datasets import IndexedDataset, encode, encode_dataset, engines

ENC = "cl100k_base"
# Small shards and batches, so that batches straddle shard boundaries.
SHARD = 20_000


@pytest.fixture(autouse=True)
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engines, "BATCH_DOCS", 700)


@pytest.mark.parametrize("fmt", ["megatron", "nanogpt", "npy"])
def test_same_bytes_for_any_worker_count(tmp_path: Path, fmt: str, monkeypatch) -> None:
    outs, threads = [], []
    real = tokensmith.Encoding.encode_ordinary_batch_to_numpy

    def spy(self, texts, *, num_threads):
        threads.append(num_threads)
        return real(self, texts, num_threads=num_threads)

    monkeypatch.setattr(tokensmith.Encoding, "encode_ordinary_batch_to_numpy", spy)
    for workers, batch in [(1, 700), (2, 333)]:
        monkeypatch.setattr(engines, "BATCH_DOCS", batch)
        out = tmp_path / f"w{workers}"
        s = encode_dataset(
            [MULTILINGUAL], tokenizer=ENC, out_dir=out, format=fmt, append_eos=True,
            shard_size=SHARD, workers=workers, progress=False,
        )  # fmt: skip
        assert s.shards > 2
        outs.append(out)
    assert set(threads) == {1, 2}
    a, b = (shard_bytes(o) for o in outs)
    assert a and a == b
    shards = [json.loads((o / "manifest.json").read_text())["shards"] for o in outs]
    assert shards[0] == shards[1]


def test_every_document_equals_encode_ordinary(tmp_path: Path) -> None:
    enc = tokensmith.get_encoding(ENC)
    docs = lines()
    expected = [enc.encode_ordinary(d) + [enc.eot_token] for d in docs]
    for fmt in ["megatron", "npy", "nanogpt"]:
        out = tmp_path / fmt
        s = encode_dataset(
            [MULTILINGUAL], tokenizer=enc, out_dir=out, format=fmt, append_eos=True,
            shard_size=SHARD, workers=2, progress=False,
        )  # fmt: skip
        assert s.documents == len(docs)
        assert s.tokens == sum(map(len, expected))
        got: list[list[int]] = []
        for k in range(s.shards):
            prefix = out / f"shard_{k:05d}"
            if fmt == "megatron":
                ds = IndexedDataset(prefix)
                got += [ds[i].tolist() for i in range(len(ds))]
            elif fmt == "npy":
                toks = np.load(f"{prefix}.tokens.npy")
                offs = np.load(f"{prefix}.offsets.npy")
                assert offs.dtype == np.uint64 and toks.dtype == np.uint32
                got += [toks[offs[i] : offs[i + 1]].tolist() for i in range(len(offs) - 1)]
            else:
                flat = np.fromfile(f"{prefix}.bin", dtype="<u4").tolist()
                got.append(flat)
        if fmt == "nanogpt":
            assert sum(got, []) == sum(expected, [])
        else:
            assert got == expected


def test_bos_and_eos_and_uint16(tmp_path: Path) -> None:
    enc = byte_encoding()
    docs = lines()[:50]
    src = tmp_path / "in.txt"
    src.write_text("\n".join(docs) + "\n", encoding="utf-8")
    s = encode_dataset(
        [src], tokenizer=enc, out_dir=tmp_path / "out", append_eos=True, prepend_bos=True,
        shard_size=7, shard_by="documents", progress=False, verify=50,
    )  # fmt: skip
    assert s.dtype == "uint16" and s.shards == 8 and s.verified == 50 and not s.verify_failures
    ds = IndexedDataset(tmp_path / "out" / "shard_00001")
    assert ds.dtype == np.dtype("<u2") and len(ds) == 7
    assert ds[0].tolist() == [256, *docs[7].encode("utf-8"), 256]


def test_interrupted_run_resumes_to_identical_bytes(tmp_path: Path, monkeypatch) -> None:
    kwargs = dict(tokenizer=ENC, format="megatron", append_eos=True, shard_size=SHARD)
    clean = encode_dataset([MULTILINGUAL], out_dir=tmp_path / "clean", progress=False, **kwargs)

    real = encode._finish_shard
    calls = []

    def crash_after_first(*args, **kw):
        if calls:
            raise KeyboardInterrupt("simulated crash")
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(encode, "_finish_shard", crash_after_first)
    out = tmp_path / "resumed"
    with pytest.raises(KeyboardInterrupt):
        encode_dataset([MULTILINGUAL], out_dir=out, progress=False, workers=1, **kwargs)
    assert len(json.loads((out / "manifest.json").read_text())["shards"]) == 1
    assert not list(out.glob(".*.tmp"))
    monkeypatch.setattr(encode, "_finish_shard", real)
    s = encode_dataset([MULTILINGUAL], out_dir=out, progress=False, workers=2, **kwargs)
    assert s.resumed_shards == 1 and s.shards == clean.shards
    assert (s.documents, s.tokens) == (clean.documents, clean.tokens)
    assert shard_bytes(out) == shard_bytes(tmp_path / "clean")
    again = encode_dataset([MULTILINGUAL], out_dir=out, progress=False, **kwargs)
    assert again.resumed_shards == clean.shards and again.tokens == clean.tokens


KILLER = """
import os, signal, sys
from tokensmith import _atomic as atomic
from tokensmith.datasets import encode, encode_dataset, engines
engines.BATCH_DOCS = 700
real = atomic.AtomicFile.commit
def commit(self):
    if self.final.name.startswith("shard_00001"):  # its temporaries are on disk
        os.kill(os.getpid(), signal.SIGKILL)
    real(self)
atomic.AtomicFile.commit = commit
encode_dataset([sys.argv[1]], tokenizer="cl100k_base", out_dir=sys.argv[2], append_eos=True,
               shard_size=int(sys.argv[3]), progress=False)
"""


def test_kill_9_then_resume(tmp_path: Path) -> None:
    out = tmp_path / "killed"
    script = tmp_path / "killer.py"
    script.write_text(textwrap.dedent(KILLER))
    cmd = [sys.executable, str(script), str(MULTILINGUAL), str(out), str(SHARD)]
    proc = subprocess.run(cmd, capture_output=True, timeout=120, env=dict(os.environ))
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    assert len(json.loads((out / "manifest.json").read_text())["shards"]) == 1
    assert list(out.glob(".*.tmp"))  # the killed shard's temporaries
    kwargs = dict(tokenizer=ENC, append_eos=True, shard_size=SHARD, progress=False)
    s = encode_dataset([MULTILINGUAL], out_dir=out, **kwargs)
    assert s.resumed_shards == 1
    encode_dataset([MULTILINGUAL], out_dir=tmp_path / "clean", **kwargs)
    assert shard_bytes(out) == shard_bytes(tmp_path / "clean")
    assert not list(out.glob(".*.tmp"))


def test_manifest_records_job_and_hashes(tmp_path: Path) -> None:
    import hashlib

    out = tmp_path / "out"
    encode_dataset([MULTILINGUAL], tokenizer=ENC, out_dir=out, format="npy", progress=False)
    m = json.loads((out / "manifest.json").read_text())
    assert m["complete"] and m["job"]["tokenizer"] == ENC and m["job"]["format"] == "npy"
    (inp,) = m["job"]["inputs"]
    assert inp["size"] == MULTILINGUAL.stat().st_size and inp["mtime_ns"] > 0
    for shard in m["shards"]:
        for name, digest in shard["sha256"].items():
            assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest


def test_verify_reports_a_tampered_shard(tmp_path: Path) -> None:
    out = tmp_path / "out"
    kwargs = dict(tokenizer=ENC, out_dir=out, format="npy", progress=False)
    s = encode_dataset([MULTILINGUAL], verify=30, **kwargs)
    assert s.verified == 30 and s.verify_failures == []
    tokens = out / "shard_00000.tokens.npy"
    arr = np.load(tokens)
    arr[:] = 15339  # "hello" everywhere: same length, other text
    tokens.write_bytes(tokens.read_bytes()[:128] + arr.tobytes())
    s = encode_dataset([MULTILINGUAL], verify=len(lines()), **kwargs)
    assert s.verify_failures and "multilingual.txt:" in s.verify_failures[0]


def test_main_encode_dataset_exit_codes(tmp_path: Path) -> None:
    from io import StringIO

    from rich.console import Console
    from tokensmith.datasets import main_encode_dataset

    buf = StringIO()
    console = Console(file=buf, width=200)
    out = str(tmp_path / "out")
    args = dict(tokenizer=ENC, out=out, progress=False, console=console)
    assert main_encode_dataset([str(MULTILINGUAL)], verify=5, **args) == 0
    assert "bytes per token" in buf.getvalue() and "5/5" in buf.getvalue()
    assert main_encode_dataset([str(MULTILINGUAL)], format="npy", **args) == 2
    assert "overwrite" in buf.getvalue()


def test_progress_line_shows_rates(tmp_path: Path, capsys) -> None:
    encode_dataset([MULTILINGUAL], tokenizer=ENC, out_dir=tmp_path / "o", progress=True)
    err = capsys.readouterr().err
    assert "MB/s" in err and "tok/s" in err
