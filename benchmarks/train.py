"""Train BPE with tokensmith, HF tokenizers and sentencepiece on the same corpus, in one run.

Method
------
The corpus (``--mb``, default 50 MB) is real multilingual text and code: the translation
columns of ``corpus/parallel/*.tsv.gz``, the manuals in ``corpus/docs/*.txt.gz`` and Python
files of the standard library, one line per text, shuffled with a fixed seed. Every 50th line
is held out. Each trainer runs in its own fresh process (``--child``) with 2 threads: it reports
its own peak RSS (``VmHWM``), and the parent reads its CPU time (user + system) from
``os.wait4``. Wall time covers reading the corpus and training, not imports or saving.
Held-out compression is the UTF-8 bytes of the held-out lines over the tokens each trained
tokenizer gives them.

Settings, the same for all: vocabulary ``--vocab`` (default 32,000), ``min_frequency=2`` where
the trainer has it, 2 threads.

Merges: each byte-level trainer saves its merges (as byte pairs) next to the corpus, and the
table gives where they first differ from HF's (``identical`` when none does).

- tokensmith: ``tokensmith.train_bpe(files=..., pat_str=GPT-2's pattern)``;
- HF: ``BpeTrainer`` with ``Split(GPT-2's pattern)`` + ``ByteLevel(use_regex=False)``, the
  same pre-tokenization (the pattern is tiktoken's r50k spelling; identical held-out
  compression shows both split alike);
- gigatoken: ``train_bpe(TextFileSource([file], separator="\n"), vocab, [])``, HF's
  tie-break (its default). It has GPT-2's split built in and no ``min_frequency``; with the
  separator every line is a document, but the newline itself belongs to none, so its counts
  lack the newline pieces the others see. Its held-out compression is measured by a
  tokensmith ``Encoding`` over its vocabulary.
- sentencepiece: ``model_type=bpe, byte_fallback=True`` and its defaults otherwise (it
  normalizes with nmt_nfkc and splits on whitespace, so its pieces differ by design).

Usage::

    python benchmarks/train.py --quick          # 5 MB smoke run
    python benchmarks/train.py --write          # 50 MB, appended to benchmarks/RESULTS.md
    python benchmarks/train.py --mb 36 --trainers tokensmith hf-tokenizers gigatoken
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import json
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

from _common import CORPUS_DIR, MB, cpu_model, git_revision, package_version, stdlib_python_files

# GPT-2's pattern in tiktoken's possessive spelling (the same splits). Both tokensmith (its
# hand-written r50k splitter) and HF (Oniguruma, where `++` is possessive too) get this string.
GPT2_PATTERN = (
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++"""
    r"""|\s++$|\s+(?!\S)|\s"""
)
TRAINERS = ("tokensmith", "hf-tokenizers", "gigatoken", "sentencepiece")
REFERENCE = "hf-tokenizers"  # whose merges the others are compared with
WORK_DIR = Path(tempfile.gettempdir()) / "tokensmith-bench" / "train"
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


# ------------------------------------------------------------------------------------------------
# The corpus
# ------------------------------------------------------------------------------------------------


def corpus_lines(seed: int) -> list[str]:
    """Every line of the shared multilingual text and some Python code, shuffled."""
    lines: list[str] = []
    for path in sorted((CORPUS_DIR / "parallel").glob("*.tsv.gz")):
        for row in gzip.decompress(path.read_bytes()).decode("utf-8").splitlines():
            if "\t" in row:
                lines.append(row.split("\t", 1)[1])
    for path in sorted((CORPUS_DIR / "docs").glob("*.txt.gz")):
        lines += [x for x in gzip.decompress(path.read_bytes()).decode("utf-8").splitlines() if x]
    for path in stdlib_python_files():
        try:
            lines += [x for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
        except (UnicodeDecodeError, OSError):
            continue
    random.Random(seed).shuffle(lines)
    return lines


def build_corpus(mb: float, seed: int) -> tuple[Path, Path]:
    """Writes the training file (``mb`` MB) and the held-out file once, and reuses them."""
    WORK_DIR.mkdir(parents=True, exist_ok=True)
    train = WORK_DIR / f"train-{mb:g}MB-{seed}.txt"
    held = WORK_DIR / f"heldout-{mb:g}MB-{seed}.txt"
    if train.exists() and held.exists():
        return train, held
    budget, size = int(mb * MB), 0
    kept, held_out = [], []
    for i, line in enumerate(corpus_lines(seed)):
        if i % 50 == 0:
            held_out.append(line)
            continue
        kept.append(line)
        size += len(line.encode("utf-8")) + 1
        if size >= budget:
            break
    if size < budget:
        sys.exit(f"the shared corpus holds only {size / MB:.1f} MB; ask for less with --mb")
    train.write_text("\n".join(kept) + "\n", encoding="utf-8")
    held.write_text("\n".join(held_out) + "\n", encoding="utf-8")
    return train, held


# ------------------------------------------------------------------------------------------------
# Children: one trainer each
# ------------------------------------------------------------------------------------------------


# A trainer: corpus and vocabulary size in, a held-out token counter out.
Trainer = TypeVar("Trainer", bound=Callable[[Path, int], Any])


def needs(*modules: str) -> Callable[[Trainer], Trainer]:
    """Declares the packages a trainer imports (for its training and its held-out counter), so
    that :func:`child` imports them before timing: wall time leaves imports out."""

    def mark(train: Trainer) -> Trainer:
        train.imports = modules  # type: ignore[attr-defined]
        return train

    return mark


@needs("tokensmith")
def train_tokensmith(corpus: Path, vocab: int) -> Any:
    import tokensmith

    enc = tokensmith.train_bpe(
        files=[str(corpus)], vocab_size=vocab, pat_str=GPT2_PATTERN, min_frequency=2
    )
    save_merges("tokensmith", enc._bpe_merges)
    return lambda lines: sum(len(ids) for ids in enc.encode_ordinary_batch(lines, num_threads=2))


@needs("tokenizers")
def train_hf(corpus: Path, vocab: int) -> Any:
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(GPT2_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab,
        min_frequency=2,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train([str(corpus)], trainer)
    save_merges("hf-tokenizers", hf_merges(tok.to_str()))
    return lambda lines: sum(len(e.ids) for e in tok.encode_batch(lines))


def hf_merges(tokenizer_json: str) -> list[tuple[bytes, bytes]]:
    """The merges of a byte-level HF ``tokenizer.json``, as byte pairs (GPT-2's byte-to-unicode
    table undone: printable Latin-1 bytes stand for themselves, the others for U+0100 on)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    to_byte = {chr(b): b for b in printable}
    others = [b for b in range(256) if b not in printable]
    to_byte.update({chr(256 + i): b for i, b in enumerate(others)})

    def raw(piece: str) -> bytes:
        return bytes(to_byte[c] for c in piece)

    merges = json.loads(tokenizer_json)["model"]["merges"]
    pairs = [m.split(" ", 1) if isinstance(m, str) else m for m in merges]
    return [(raw(a), raw(b)) for a, b in pairs]


@needs("gigatoken", "tokensmith")
def train_gigatoken(corpus: Path, vocab: int) -> Any:
    import gigatoken
    import tokensmith

    source = gigatoken.TextFileSource([str(corpus)], separator="\n")
    ranks, merges = gigatoken.train_bpe(source, vocab, [])
    save_merges("gigatoken", merges)
    enc = tokensmith.Encoding(
        "gigatoken-trained",
        pat_str=GPT2_PATTERN,
        mergeable_ranks={token: rank for rank, token in ranks.items()},
        special_tokens={},
    )
    return lambda lines: sum(len(ids) for ids in enc.encode_ordinary_batch(lines, num_threads=2))


@needs("sentencepiece")
def train_spm(corpus: Path, vocab: int) -> Any:
    import sentencepiece as spm

    prefix = WORK_DIR / "spm-bpe"
    spm.SentencePieceTrainer.train(
        input=str(corpus),
        model_prefix=str(prefix),
        vocab_size=vocab,
        model_type="bpe",
        byte_fallback=True,
        num_threads=2,
        minloglevel=2,
    )
    sp = spm.SentencePieceProcessor(model_file=f"{prefix}.model")
    return lambda lines: sum(len(ids) for ids in sp.encode(lines))


CHILDREN = {
    "tokensmith": train_tokensmith,
    "hf-tokenizers": train_hf,
    "gigatoken": train_gigatoken,
    "sentencepiece": train_spm,
}


def merges_path(name: str) -> Path:
    return WORK_DIR / f"merges-{name}.json"


def save_merges(name: str, merges: list[tuple[bytes, bytes]]) -> None:
    """Writes a trainer's merges (hex byte pairs), for the parent to compare."""
    pairs = [[bytes(a).hex(), bytes(b).hex()] for a, b in merges]
    merges_path(name).write_text(json.dumps(pairs), encoding="utf-8")


def merges_agreement(names: list[str]) -> dict[str, str]:
    """For each trainer that saved merges, where they first differ from the reference's."""
    ref_path = merges_path(REFERENCE)
    if not ref_path.exists():
        return {}
    ref = json.loads(ref_path.read_text(encoding="utf-8"))
    out = {}
    for name in names:
        path = merges_path(name)
        if name == REFERENCE or not path.exists():
            continue
        ours = json.loads(path.read_text(encoding="utf-8"))
        first = next((i for i, (a, b) in enumerate(zip(ours, ref, strict=False)) if a != b), None)
        if first is not None:
            out[name] = f"differ at merge {first + 1:,}"
        elif len(ours) != len(ref):
            shared = min(len(ours), len(ref))
            out[name] = f"first {shared:,} identical ({len(ours):,} vs {len(ref):,})"
        else:
            out[name] = f"identical ({len(ours):,})"
    return out


def child(
    name: str, corpus: Path, heldout: Path, vocab: int, children: dict[str, Any] | None = None
) -> None:
    """Trains with ``children[name]`` and prints its report as JSON (in the child process).
    The packages the trainer declares with :func:`needs` are imported before the clock starts."""
    train = (children or CHILDREN)[name]
    for module in getattr(train, "imports", ()):
        importlib.import_module(module)
    start = time.perf_counter()
    count_tokens = train(corpus, vocab)
    wall = time.perf_counter() - start
    lines = heldout.read_text(encoding="utf-8").splitlines()
    tokens = count_tokens(lines)
    n_bytes = sum(len(x.encode("utf-8")) for x in lines)
    report = {"wall": wall, "heldout_bytes_per_token": n_bytes / tokens, "rss_mib": peak_rss_mib()}
    print(json.dumps(report))


def peak_rss_mib() -> float:
    """This process's own peak RSS (VmHWM), which, unlike the parent's view through
    ``ru_maxrss``, does not count the pages it shared with the parent before ``exec``."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# ------------------------------------------------------------------------------------------------
# The parent
# ------------------------------------------------------------------------------------------------


def run_with_usage(
    name: str, corpus: Path, heldout: Path, vocab: int, script: str = __file__
) -> dict[str, Any]:
    """Runs one child (``script --child name``) and reads its own CPU time from the kernel."""
    env = dict(os.environ, RAYON_NUM_THREADS="2", TOKENIZERS_PARALLELISM="true")
    cmd = [sys.executable, script, "--child", name, "--corpus", str(corpus)]
    cmd += ["--heldout", str(heldout), "--vocab", str(vocab)]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            tail = err.read().decode(errors="replace").strip().splitlines()[-1:]
            return {"error": " ".join(tail) or f"exit code {proc.returncode}"}
        report: dict[str, Any] = json.loads(out.read().decode().strip().splitlines()[-1])
    report["cpu"] = usage.ru_utime + usage.ru_stime
    return report


def markdown(
    results: dict[str, dict[str, Any]],
    args: argparse.Namespace,
    corpus: Path,
    script: str = "train.py",
    libraries: tuple[str, ...] = ("tokensmith", "tokenizers", "gigatoken", "sentencepiece"),
    model: str = "",
    merges: dict[str, str] | None = None,
) -> str:
    """The RESULTS.md section of a run: settings, then one table row per trainer (with a
    column comparing merges with HF's when ``merges`` is given)."""
    versions = ", ".join(f"{d} {package_version(d) or 'missing'}" for d in libraries)
    lines = [
        f"## {script}, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC",
        "",
        f"- command: `{shlex.join([Path(sys.executable).name, *sys.argv])}`",
        f"- machine: {cpu_model()}, {os.cpu_count()} logical CPUs",
        f"- tokensmith tree: {git_revision()}",
        f"- versions: {versions}",
        f"- corpus: {corpus.stat().st_size / MB:.1f} MB ({corpus.name}), {model}vocab "
        f"{args.vocab:,}, 2 threads, each trainer in its own process",
        "",
        "| trainer | wall | CPU | peak RSS | held-out bytes/token | wall × tokensmith |"
        + (" merges vs HF |" if merges is not None else ""),
        "|---|---|---|---|---|---|" + ("---|" if merges is not None else ""),
    ]
    ours = results.get("tokensmith", {}).get("wall")
    for name, r in results.items():
        if "error" in r:
            lines.append(f"| {name} | failed: {r['error']} | | | | |" + (" |" if merges else ""))
            continue
        ratio = f"{r['wall'] / ours:.2f}×" if ours else ""
        verdict = "reference" if name == REFERENCE else "n/a"
        agree = "" if merges is None else f" {merges.get(name, verdict)} |"
        lines.append(
            f"| {name} | {r['wall']:.1f} s | {r['cpu']:.1f} s | {r['rss_mib']:.0f} MiB | "
            f"{r['heldout_bytes_per_token']:.3f} | {ratio} |{agree}"
        )
    return "\n".join(lines) + "\n"


def arguments(doc: str | None, trainers: tuple[str, ...]) -> argparse.Namespace:
    """The command line shared by the training benchmarks."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--mb", type=float, default=50.0, help="training corpus size")
    parser.add_argument("--vocab", type=int, default=32_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--trainers", nargs="*", default=list(trainers), choices=trainers)
    parser.add_argument("--quick", action="store_true", help="5 MB, vocab 8,000")
    parser.add_argument("--write", action="store_true", help=f"append to {RESULTS.name}")
    parser.add_argument("--child", choices=trainers, help=argparse.SUPPRESS)
    parser.add_argument("--corpus", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--heldout", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.mb, args.vocab = 5.0, 8_000
    return args


def main() -> None:
    args = arguments(__doc__, TRAINERS)
    if args.child:
        child(args.child, args.corpus, args.heldout, args.vocab)
        return
    corpus, heldout = build_corpus(args.mb, args.seed)
    results = {}
    for name in args.trainers:
        merges_path(name).unlink(missing_ok=True)
        print(f"training {name} on {corpus.name} ...", file=sys.stderr, flush=True)
        results[name] = run_with_usage(name, corpus, heldout, args.vocab)
    report = markdown(results, args, corpus, merges=merges_agreement(args.trainers))
    print(report)
    if args.write:
        with RESULTS.open("a", encoding="utf-8") as f:
            f.write("\n" + report)


if __name__ == "__main__":
    main()
