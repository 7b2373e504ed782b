"""Encoding speed of SentencePiece models: tokensmith against ``sentencepiece``, in one run.

Both libraries run the same ``.model`` files on the same lines, and their ids are checked equal
before anything is timed. Models: the two Unigram models the sentencepiece sources ship
(``tests/data/spm``), and a Unigram and a BPE model of 8,000 pieces that sentencepiece trains
here on the committed multilingual text. Text: every line of ``botchan.txt``, the committed
multilingual text and the head of ``wagahaiwa_nekodearu.txt``, repeated to ``--mb`` megabytes.
Since tokensmith caches words, repeated text flatters it: ``--distinct`` uses ``--mb`` megabytes
of lines that are never repeated instead, from the Debian Reference manual in 10 languages
(``../shared/corpus/docs``, taken in turn from each language, each distinct line once).

Rows: single-thread encode (one call per line, ids as a list) and batch encode (one call with
every line, ``--threads`` threads). Each cell is the median of ``--rounds`` paired rounds, the
two libraries timed back to back in alternating order; ratios are sentencepiece time over
tokensmith time; the CPU column is the same ratio in process CPU time (less sensitive to other
jobs on a shared machine). Both libraries return a new list per line, and the results of a round
are kept until it ends, so the garbage collector's passes over them are timed too; the "GC
paused" column times the same calls with the collector off during each call, as ``timeit`` and
``encode.py`` do. Usage::

    python benchmarks/encode_spm.py            # print the table
    python benchmarks/encode_spm.py --write    # and append it to benchmarks/RESULTS.md
    python benchmarks/encode_spm.py --distinct # on text that is never repeated

What it does not measure: sampling and n-best calls, memory, and load time.
"""

from __future__ import annotations

import argparse
import datetime
import io
import itertools
import platform
import sys
from pathlib import Path

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
)
from _timing import paired

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"


def train(model_type: str) -> bytes:
    lines = [x for x in (DATA / "multilingual.txt").read_text("utf-8").splitlines() if x]
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=out,
        vocab_size=8000,
        model_type=model_type,
        character_coverage=0.9995,
        num_threads=2,
        minloglevel=2,
    )
    return out.getvalue()


def models() -> dict[str, bytes]:
    return {
        "shipped unigram 1k (en)": (DATA / "spm" / "test_model.model").read_bytes(),
        "shipped unigram 8k (ja)": (DATA / "spm" / "test_ja_model.model").read_bytes(),
        "trained unigram 8k (multilingual)": train("unigram"),
        "trained bpe 8k (multilingual)": train("bpe"),
    }


def corpus(mb: float) -> list[str]:
    lines: list[str] = []
    for name in ("spm/botchan.txt", "multilingual.txt", "spm/wagahaiwa_nekodearu_head.txt"):
        lines += [x for x in (DATA / name).read_text("utf-8").splitlines() if x.strip()]
    size = sum(len(x.encode()) for x in lines)
    return lines * max(1, round(mb * MB / size))


def distinct_corpus(mb: float) -> list[str]:
    """``mb`` megabytes of distinct lines of the Debian Reference, one language after another."""
    per_language = []
    for path in sorted((CORPUS_DIR / "docs").glob("*.txt.gz")):
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


def run(args: argparse.Namespace) -> str:
    lines = distinct_corpus(args.mb) if args.distinct else corpus(args.mb)
    size = sum(len(x.encode()) for x in lines) / MB
    rows = []
    for label, proto in models().items():
        ours = tokensmith.SentencePieceProcessor(model_proto=proto)
        ref = spm.SentencePieceProcessor(model_proto=proto)
        sample = lines if args.distinct else lines[: len(lines) // max(1, round(args.mb))]
        mismatched = sum(ours.encode(x) != ref.encode(x) for x in sample)
        single = paired(
            lambda: [ours.encode(x) for x in lines],  # noqa: B023
            lambda: [ref.encode(x) for x in lines],  # noqa: B023
            args.rounds,
        )
        single_gc_paused = paired(
            lambda: [ours.encode(x) for x in lines],  # noqa: B023
            lambda: [ref.encode(x) for x in lines],  # noqa: B023
            args.rounds,
            gc_paused=True,
        )
        batch = paired(
            lambda: ours.encode(lines, num_threads=args.threads),  # noqa: B023
            lambda: ref.encode(lines, num_threads=args.threads),  # noqa: B023
            args.rounds,
        )
        rows.append((label, mismatched, len(sample), single, single_gc_paused, batch))
        mbps = f"{size / single.wall_a:.1f} vs {size / single.wall_b:.1f} MB/s"
        print(f"{label}: single thread {mbps}", file=sys.stderr)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [
        f"## encode_spm.py, {now}",
        "",
        f"- command: `{' '.join(['python', 'benchmarks/encode_spm.py', *sys.argv[1:]])}`",
        f"- machine: {cpu_model()}; Python {platform.python_version()}",
        f"- versions: tokensmith {package_version('tokensmith')}, sentencepiece "
        f"{package_version('sentencepiece')}; tokensmith tree: {git_revision()}",
        f"- text: {'distinct lines of ../shared/corpus/docs' if args.distinct else 'repeated'}, "
        f"{len(lines):,} lines, {size:.2f} MB; rounds: {args.rounds}; "
        f"batch threads: {args.threads}",
        "",
        "| model | ids differ (lines checked) | single thread MB/s: tokensmith / sentencepiece "
        "(ratio) | single thread CPU time ratio | single thread, GC paused: MB/s (ratio) "
        "| batch MB/s: tokensmith / sentencepiece (ratio) |",
        "|---|---|---|---|---|---|",
    ]
    for label, bad, checked, single, paused, batch in rows:
        out.append(
            f"| {label} | {bad} ({checked:,}) | {size / single.wall_a:.1f} / "
            f"{size / single.wall_b:.1f} (**{single.wall_ratio:.2f}x**) | {single.cpu_ratio:.2f}x "
            f"| {size / paused.wall_a:.1f} / {size / paused.wall_b:.1f} "
            f"({paused.wall_ratio:.2f}x) "
            f"| {size / batch.wall_a:.1f} / {size / batch.wall_b:.1f} "
            f"(**{batch.wall_ratio:.2f}x**) |"
        )
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=4.0, help="megabytes of text (default 4)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--distinct", action="store_true", help="text that is never repeated (see above)"
    )
    parser.add_argument("--write", action="store_true", help="append to benchmarks/RESULTS.md")
    args = parser.parse_args()
    publish(run(args), args.write)


if __name__ == "__main__":
    main()
