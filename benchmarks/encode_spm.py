"""Encoding speed of SentencePiece models: tokensmith against ``sentencepiece``, in one run.

Both libraries run the same ``.model`` files on the same lines, and their ids are checked equal
before anything is timed. Models: the two Unigram models the sentencepiece sources ship
(``tests/data/spm``), and a Unigram and a BPE model of 8,000 pieces that sentencepiece trains
here on the committed multilingual text. Text: every line of ``botchan.txt``, the committed
multilingual text and the head of ``wagahaiwa_nekodearu.txt``, repeated to ``--mb`` megabytes.
Since tokensmith caches words, repeated text flatters it: ``--distinct`` uses ``--mb`` megabytes
of lines that are never repeated instead, from the Debian Reference manual in 10 languages
(``../shared/corpus/docs``, taken in turn from each language, each distinct line once).
``--corpus`` is the setting issue 4 names: the 50 MB corpus of the training benchmarks
(``benchmarks/train.py``: 82 languages of UI messages, the Debian manual, Python code, shuffled
lines), its first ``--mb`` megabytes encoded (``--mb 50`` for all of it) with a Unigram and a BPE
model of 32,000 pieces that sentencepiece trains on the whole 50 MB with the settings of
``benchmarks/train_unigram.py`` (nmt_nfkc, 2 threads; trained once, kept under the temporary
directory).

Rows: single-thread encode (one call per line, ids as a list) and batch encode (one call with
every line, ``--threads`` threads). Each cell is the median of ``--rounds`` paired rounds, the
two libraries timed back to back in alternating order; ratios are sentencepiece time over
tokensmith time; the CPU column is the same ratio in process CPU time (less sensitive to other
jobs on a shared machine). Both libraries return a new list per line, and the results of a round
are kept until it ends, so the garbage collector's passes over them are timed too; the "GC
paused" column times the same calls with the collector off during each call, as ``timeit`` and
``encode.py`` do.

Peers (issue 26): splintr and tokie, each loaded from the same model as
``benchmarks/_spm_peers.py`` says, are checked like tokensmith, one call a line and in one
batch. A peer that loads the model and gives sentencepiece's ids on every checked line gets a
column of paired ratios, tokensmith time over the peer's (above 1: tokensmith is faster), one
call a line and one batch call (the peer on its own thread pool); any other peer's column says
why not (ids differ on N lines, or unsupported), and it is not timed. The machine's load average
before and after the run is printed, since only the paired ratios survive a busy machine.
Usage::

    python benchmarks/encode_spm.py            # print the table
    python benchmarks/encode_spm.py --write    # and append it to benchmarks/RESULTS.md
    python benchmarks/encode_spm.py --distinct # on text that is never repeated
    python benchmarks/encode_spm.py --corpus --mb 50  # issue 4's corpus and 32k models

``--first-pass`` loads both models afresh for every timed call (outside the timing), so
tokensmith's word cache starts empty each time: the cost of encoding a text once, where the
default rounds after the first (and the id check before them) find the words already cached.

``--memory`` (with ``--corpus``) adds peak memory: each library runs in a fresh process per
model (``--memory-child``), reads the lines, loads the model and encodes every line in one
2-thread batch call, then reports its own peak RSS (``VmHWM``) after reading and after the call,
and the held-out bytes per token (the held-out lines of the corpus, one batch call).

What it does not measure: sampling and n-best calls, and load time.
"""

from __future__ import annotations

import argparse
import datetime
import io
import itertools
import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import sentencepiece as spm
import tokensmith
from _common import (
    CORPUS_DIR,
    MB,
    cpu_model,
    git_revision,
    package_version,
    publish,
    read_gzip_text,
    take_bytes,
)
from _spm_peers import PEERS, SpmPeer
from _timing import Pair, paired
from train import WORK_DIR, build_corpus, peak_rss_mib

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"


def train(model_type: str, vocab_size: int, **options: Any) -> bytes:
    """A model sentencepiece trains on 2 threads; ``options`` name the text (``input`` or
    ``sentence_iterator``) and any other setting."""
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        model_writer=out,
        vocab_size=vocab_size,
        model_type=model_type,
        num_threads=2,
        minloglevel=2,
        **options,
    )
    return out.getvalue()


def train_on_test_text(model_type: str) -> bytes:
    lines = [x for x in (DATA / "multilingual.txt").read_text("utf-8").splitlines() if x]
    return train(model_type, 8000, sentence_iterator=iter(lines), character_coverage=0.9995)


def models() -> dict[str, bytes]:
    return {
        "shipped unigram 1k (en)": (DATA / "spm" / "test_model.model").read_bytes(),
        "shipped unigram 8k (ja)": (DATA / "spm" / "test_ja_model.model").read_bytes(),
        "trained unigram 8k (multilingual)": train_on_test_text("unigram"),
        "trained bpe 8k (multilingual)": train_on_test_text("bpe"),
    }


CORPUS_MB = 50.0
CORPUS_VOCAB = 32_000


def corpus_model(kind: str) -> Path:
    """The ``kind`` model of 32,000 pieces sentencepiece trains on the 50 MB corpus (once)."""
    path = WORK_DIR / f"encode-spm-{kind}-{CORPUS_VOCAB}-{CORPUS_MB:g}MB-0.model"
    if not path.exists():
        train_file, _ = build_corpus(CORPUS_MB, 0)
        print(f"training the {kind} model on {train_file} (once) ...", file=sys.stderr)
        proto = train(kind, CORPUS_VOCAB, input=str(train_file), normalization_rule_name="nmt_nfkc")
        partial = path.with_suffix(".part")
        partial.write_bytes(proto)
        partial.replace(path)
    return path


def corpus_models() -> dict[str, bytes]:
    """Unigram and BPE models of 32,000 pieces trained by sentencepiece on the 50 MB corpus."""
    return {f"corpus {kind} 32k": corpus_model(kind).read_bytes() for kind in ("unigram", "bpe")}


def corpus_head(mb: float) -> list[str]:
    """The first ``mb`` megabytes of lines of the 50 MB training corpus."""
    train_file, _ = build_corpus(CORPUS_MB, 0)
    with open(train_file, encoding="utf-8") as f:
        return take_bytes((line.rstrip("\n") for line in f), int(mb * MB))


def corpus(mb: float) -> list[str]:
    lines: list[str] = []
    for name in ("spm/botchan.txt", "multilingual.txt", "spm/wagahaiwa_nekodearu_head.txt"):
        lines += [x for x in (DATA / name).read_text("utf-8").splitlines() if x.strip()]
    size = sum(len(x.encode()) for x in lines)
    return lines * max(1, round(mb * MB / size))


def distinct_corpus(mb: float) -> list[str]:
    """``mb`` megabytes of distinct lines of the Debian Reference, one language after another."""
    paths = sorted((CORPUS_DIR / "docs").glob("*.txt.gz"))
    if not paths:
        # an empty text would time nothing and pass every id check
        sys.exit(f"no {CORPUS_DIR / 'docs'}/*.txt.gz: set TOKENSMITH_SHARED_DIR")
    per_language = []
    for path in paths:
        text = read_gzip_text(path)
        per_language.append([x for x in text.splitlines() if x.strip()])
    seen: set[str] = set()
    lines: list[str] = []
    size = 0
    for line in itertools.chain.from_iterable(itertools.zip_longest(*per_language)):
        if line is None or line in seen:
            continue
        seen.add(line)
        lines.append(line)
        size += len(line.encode())
        if size >= mb * MB:
            break
    return lines


def memory_child(library: str, model: Path, mb: float) -> None:
    """Prints one JSON line: peak RSS after reading the text and after one batch encode."""
    lines = corpus_head(mb)
    _, heldout_file = build_corpus(CORPUS_MB, 0)
    heldout = [x for x in heldout_file.read_text("utf-8").splitlines() if x]
    read = peak_rss_mib()
    module = tokensmith if library == "tokensmith" else spm
    sp = module.SentencePieceProcessor(model_file=str(model))
    tokens = sum(len(ids) for ids in sp.encode(lines, num_threads=2))
    held_tokens = sum(len(ids) for ids in sp.encode(heldout, num_threads=2))
    held_bytes = sum(len(x.encode()) for x in heldout)
    report = {"read": read, "peak": peak_rss_mib(), "tokens": tokens}
    report["heldout_bytes_per_token"] = held_bytes / held_tokens
    print(json.dumps(report))


def memory_rows(mb: float) -> list[str]:
    """Markdown rows: each model and library in its own process (see ``memory_child``)."""
    rows = []
    for kind in ("unigram", "bpe"):
        model = corpus_model(kind)
        cells = []
        for library in ("tokensmith", "sentencepiece"):
            command = [sys.executable, __file__, "--memory-child", library, str(model)]
            done = subprocess.run(
                [*command, "--mb", str(mb)], capture_output=True, text=True, check=True
            )
            cells.append(json.loads(done.stdout.strip().splitlines()[-1]))
        ours, ref = cells
        rows.append(
            f"| corpus {kind} 32k | {ours['read']:.0f} / {ref['read']:.0f} "
            f"| {ours['peak']:.0f} / {ref['peak']:.0f} "
            f"| {ours['peak'] - ours['read']:.0f} / {ref['peak'] - ref['read']:.0f} "
            f"| {ours['tokens']:,} / {ref['tokens']:,} "
            f"| {ours['heldout_bytes_per_token']:.3f} / {ref['heldout_bytes_per_token']:.3f} |"
        )
    return rows


def processors(make: Callable[[], Any], calls: int, args: argparse.Namespace) -> Iterator[Any]:
    """Loaded models, one per call of ``next``. With ``--first-pass`` each of the ``calls``
    is a new one, all loaded before any timing starts (so no load is timed); otherwise it is
    always the same one."""
    if args.first_pass:
        return iter([make() for _ in range(calls)])
    return itertools.repeat(make())


def one_by_one(encode: Callable[[str], Any], lines: list[str]) -> list[Any]:
    """The ids of each line, one call a line."""
    return [encode(x) for x in lines]


def checked_peer(peer: SpmPeer, proto: bytes, sample: list[str], expected: list[Any]) -> str:
    """``exact`` if the peer loads the model and gives sentencepiece's ids on every line of
    ``sample``, one by one and in one batch; else why not."""
    if package_version(peer.distribution) is None:
        return "not installed"
    try:
        tok = peer.load(proto)
        single = one_by_one(peer.encoder(tok), sample)
        batch = peer.batch(tok, sample)
    except Exception as exc:  # a model it does not run
        return f"unsupported ({type(exc).__name__})"
    bad = sum(a != e or b != e for a, b, e in zip(single, batch, expected, strict=True))
    return f"ids differ on {bad:,} of {len(sample):,} inputs" if bad else "exact"


def peer_pairs(
    peer: SpmPeer, proto: bytes, lines: list[str], args: argparse.Namespace
) -> tuple[Pair, Pair]:
    """Single-thread and batch timings of tokensmith (``a``) against an exact peer (``b``)."""
    calls = 2 * args.rounds
    ours = processors(partial(tokensmith.SentencePieceProcessor, model_proto=proto), calls, args)
    theirs = processors(partial(peer.load, proto), calls, args)
    single = paired(
        lambda: one_by_one(next(ours).encode, lines),
        lambda: one_by_one(peer.encoder(next(theirs)), lines),
        args.rounds,
    )
    batch = paired(
        lambda: next(ours).encode(lines, num_threads=args.threads),
        lambda: peer.batch(next(theirs), lines),
        args.rounds,
    )
    return single, batch


def peer_cell(size: float, single: Pair, batch: Pair) -> str:
    """MB/s of tokensmith / the peer and the paired ratios, one call a line and in a batch."""
    return "; ".join(
        f"{kind} {size / t.wall_a:.1f} / {size / t.wall_b:.1f} "
        f"(**{t.wall_ratio:.2f}x**; CPU {t.cpu_ratio:.2f}x)"
        for kind, t in (("single", single), ("batch", batch))
    )


def run(args: argparse.Namespace) -> str:
    if args.corpus:
        lines, chosen = corpus_head(args.mb), corpus_models()
        kind = "the head of the 50 MB training corpus"
    elif args.distinct:
        lines, chosen = distinct_corpus(args.mb), models()
        kind = "distinct lines of ../shared/corpus/docs"
    else:
        lines, chosen, kind = corpus(args.mb), models(), "repeated"
    size = sum(len(x.encode()) for x in lines) / MB
    load_before = os.getloadavg()
    rows = []
    peer_cells: dict[tuple[str, str], str] = {}
    for label, proto in chosen.items():
        calls = 1 + 3 * args.rounds
        ours = processors(
            partial(tokensmith.SentencePieceProcessor, model_proto=proto), calls, args
        )
        ref = processors(partial(spm.SentencePieceProcessor, model_proto=proto), calls, args)
        repeated = not (args.distinct or args.corpus)
        sample = lines[: len(lines) // max(1, round(args.mb))] if repeated else lines
        checked_ours, checked_ref = next(ours), next(ref)
        expected = [checked_ref.encode(x) for x in sample]
        mismatched = sum(checked_ours.encode(x) != e for x, e in zip(sample, expected, strict=True))
        del checked_ours, checked_ref
        single = paired(
            lambda: one_by_one(next(ours).encode, lines),  # noqa: B023
            lambda: one_by_one(next(ref).encode, lines),  # noqa: B023
            args.rounds,
        )
        single_gc_paused = paired(
            lambda: one_by_one(next(ours).encode, lines),  # noqa: B023
            lambda: one_by_one(next(ref).encode, lines),  # noqa: B023
            args.rounds,
            gc_paused=True,
        )
        batch = paired(
            lambda: next(ours).encode(lines, num_threads=args.threads),  # noqa: B023
            lambda: next(ref).encode(lines, num_threads=args.threads),  # noqa: B023
            args.rounds,
        )
        rows.append((label, mismatched, len(sample), single, single_gc_paused, batch))
        mbps = f"{size / single.wall_a:.1f} vs {size / single.wall_b:.1f} MB/s"
        print(f"{label}: single thread {mbps}", file=sys.stderr)
        for name, peer in PEERS.items():
            status = checked_peer(peer, proto, sample, expected)
            if status == "exact":
                status = peer_cell(size, *peer_pairs(peer, proto, lines, args))
            peer_cells[(label, name)] = status
            print(f"{label}: {name}: {status}", file=sys.stderr)
        del expected
    load_after = os.getloadavg()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [
        f"## encode_spm.py, {now}",
        "",
        f"- command: `{' '.join(['python', 'benchmarks/encode_spm.py', *sys.argv[1:]])}`",
        f"- machine: {cpu_model()}; Python {platform.python_version()}; load average (1, 5, "
        f"15 min) {', '.join(f'{x:.1f}' for x in load_before)} before the run, "
        f"{', '.join(f'{x:.1f}' for x in load_after)} after",
        f"- versions: tokensmith {package_version('tokensmith')}, sentencepiece "
        f"{package_version('sentencepiece')}; tokensmith tree: {git_revision()}",
        "- peers: "
        + ", ".join(
            f"{name} {package_version(peer.distribution) or '(not installed)'}"
            for name, peer in PEERS.items()
        )
        + " (see benchmarks/_spm_peers.py), checked like tokensmith; where exact, tokensmith / "
        "peer time (above 1: tokensmith is faster), one call a line and one batch call (the "
        "peer's own thread pool)",
        f"- text: {kind}, "
        f"{len(lines):,} lines, {size:.2f} MB; rounds: {args.rounds}; "
        f"batch threads: {args.threads}"
        + ("; first pass (models loaded afresh for every timed call)" if args.first_pass else ""),
        "",
        "| model | ids differ (lines checked) | single thread MB/s: tokensmith / sentencepiece "
        "(ratio) | single thread CPU time ratio | single thread, GC paused: MB/s (ratio) "
        "| batch MB/s: tokensmith / sentencepiece (ratio) | "
        + " | ".join(f"tokensmith / {name}" for name in PEERS)
        + " |",
        "|---|---|---|---|---|---|" + "---|" * len(PEERS),
    ]
    for label, bad, checked, single, paused, batch in rows:
        out.append(
            f"| {label} | {bad} ({checked:,}) | {size / single.wall_a:.1f} / "
            f"{size / single.wall_b:.1f} (**{single.wall_ratio:.2f}x**) | {single.cpu_ratio:.2f}x "
            f"| {size / paused.wall_a:.1f} / {size / paused.wall_b:.1f} "
            f"({paused.wall_ratio:.2f}x) "
            f"| {size / batch.wall_a:.1f} / {size / batch.wall_b:.1f} "
            f"(**{batch.wall_ratio:.2f}x**) | "
            + " | ".join(peer_cells[(label, name)] for name in PEERS)
            + " |"
        )
    if args.memory:
        out += [
            "",
            "Peak RSS, MiB, tokensmith / sentencepiece, each in its own process (one 2-thread batch"
            " call over all the lines above):",
            "",
            "| model | after reading the text | after the call | the call's share "
            "| tokens | held-out bytes per token |",
            "|---|---|---|---|---|---|",
            *memory_rows(args.mb),
        ]
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=4.0, help="megabytes of text (default 4)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--distinct", action="store_true", help="text that is never repeated (see above)"
    )
    parser.add_argument(
        "--corpus", action="store_true", help="issue 4's 50 MB corpus and 32k models (see above)"
    )
    parser.add_argument(
        "--first-pass",
        action="store_true",
        help="load the models afresh for every timed call: no words cached (see above)",
    )
    parser.add_argument(
        "--memory", action="store_true", help="with --corpus: peak RSS per library (see above)"
    )
    parser.add_argument("--memory-child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--write", action="store_true", help="append to benchmarks/RESULTS.md")
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args.memory_child[0], Path(args.memory_child[1]), args.mb)
        return
    if args.memory and not args.corpus:
        parser.error("--memory needs --corpus")
    publish(run(args), args.write)


if __name__ == "__main__":
    main()
