"""Shared benchmark helpers: vocabularies, tiktoken built offline, corpora, machine facts.

Nothing here touches the network. The published vocabularies are read from the shared folder
(``$TOKENSMITH_SHARED_DIR``, by default ``../shared`` beside the repository), and every tiktoken
encoding is built from them with the pattern and special tokens of ``tiktoken_ext.openai_public``.

Corpora are cut into documents of about 4 KB on line boundaries and sampled with a fixed seed, so
two runs with the same flags on the same machine time the same bytes.

What this module does not handle: the code corpus comes from the running interpreter's standard
library, so it differs between Python builds; and English prose is capped by the size of
``docs/en.txt.gz`` (about 0.9 MB).
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import hashlib
import importlib.util
import os
import platform
import random
import subprocess
import sysconfig
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = Path(os.environ.get("TOKENSMITH_SHARED_DIR", REPO_ROOT.parent / "shared"))
VOCAB_DIR = SHARED_DIR / "vocab"
CORPUS_DIR = SHARED_DIR / "corpus"

ENCODINGS = ("cl100k_base", "o200k_base")
DOC_BYTES = 4096
MB = 1_000_000  # throughput figures use decimal megabytes


# --------------------------------------------------------------------------------------------------
# Vocabularies and tiktoken, offline
# --------------------------------------------------------------------------------------------------


def parse_tiktoken_ranks(data: bytes) -> dict[bytes, int]:
    """Parse the ``.tiktoken`` format: one ``base64(token) rank`` per line.

    >>> parse_tiktoken_ranks(b"IQ== 0\\nIg== 1\\n")
    {b'!': 0, b'"': 1}
    """
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


def read_vocab_file(encoding_name: str, expected_sha256: str | None = None) -> bytes:
    """Return the uncompressed ``.tiktoken`` file of an encoding, checked against its sha256."""
    path = VOCAB_DIR / f"{encoding_name}.tiktoken.gz"
    data = gzip.decompress(path.read_bytes())
    if expected_sha256 is not None and hashlib.sha256(data).hexdigest() != expected_sha256:
        raise ValueError(f"{path} does not match the sha256 that tiktoken expects")
    return data


@contextlib.contextmanager
def _local_vocab_loader(module: Any) -> Iterator[None]:
    """Within the block, ``module.load_tiktoken_bpe(url, expected_hash)`` reads the shared folder.

    tiktoken_ext's constructors name a download URL; only the file name is kept, so nothing is
    ever fetched, and a file that is not in the shared folder fails instead of downloading.
    """
    original = module.load_tiktoken_bpe

    def load_local(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        name = url.rsplit("/", 1)[-1].removesuffix(".tiktoken")
        return parse_tiktoken_ranks(read_vocab_file(name, expected_hash))

    module.load_tiktoken_bpe = load_local
    try:
        yield
    finally:
        module.load_tiktoken_bpe = original


@cache
def encoding_params(encoding_name: str) -> dict[str, Any]:
    """Arguments for ``tiktoken.Encoding``: name, pat_str, mergeable_ranks, special_tokens.

    The pattern and special tokens come from the installed ``tiktoken_ext.openai_public``; the ranks
    from the shared vocabulary folder, verified against tiktoken's expected sha256.
    """
    from tiktoken_ext import openai_public

    with _local_vocab_loader(openai_public):
        params: dict[str, Any] = openai_public.ENCODING_CONSTRUCTORS[encoding_name]()
    return params


def tiktoken_encoding(encoding_name: str) -> Any:
    """A ``tiktoken.Encoding`` built offline from the shared vocabulary."""
    import tiktoken

    return tiktoken.Encoding(**encoding_params(encoding_name))


# --------------------------------------------------------------------------------------------------
# Corpora
# --------------------------------------------------------------------------------------------------


def split_documents(text: str, max_bytes: int = DOC_BYTES) -> list[str]:
    """Cut text into documents of at most ``max_bytes`` UTF-8 bytes, on line boundaries.

    A single line longer than ``max_bytes`` becomes a document of its own.

    >>> split_documents("ab\\ncd\\nef\\n", max_bytes=6)
    ['ab\\ncd\\n', 'ef\\n']
    """
    docs: list[str] = []
    lines: list[str] = []
    size = 0
    for line in text.splitlines(keepends=True):
        n = len(line.encode("utf-8"))
        if lines and size + n > max_bytes:
            docs.append("".join(lines))
            lines, size = [], 0
        lines.append(line)
        size += n
    if lines:
        docs.append("".join(lines))
    return docs


def utf8_size(docs: Iterable[str]) -> int:
    return sum(len(d.encode("utf-8")) for d in docs)


def take_bytes(docs: Iterable[str], budget: int) -> list[str]:
    """The leading documents whose total size first reaches ``budget`` bytes."""
    taken: list[str] = []
    size = 0
    for doc in docs:
        if size >= budget:
            break
        taken.append(doc)
        size += len(doc.encode("utf-8"))
    return taken


def round_robin(pools: list[list[str]]) -> Iterator[str]:
    """One document from each pool in turn, until every pool is empty."""
    iterators = [iter(pool) for pool in pools]
    while iterators:
        alive = []
        for it in iterators:
            doc = next(it, None)
            if doc is not None:
                yield doc
                alive.append(it)
        iterators = alive


def shuffled(items: list[str], seed: int | str) -> list[str]:
    out = list(items)
    random.Random(seed).shuffle(out)
    return out


def read_gzip_text(path: Path) -> str:
    return gzip.decompress(path.read_bytes()).decode("utf-8")


def english_documents(budget: int, seed: int) -> list[str]:
    """English prose: the Debian Reference manual (``docs/en.txt.gz``)."""
    docs = split_documents(read_gzip_text(CORPUS_DIR / "docs" / "en.txt.gz"))
    return take_bytes(shuffled(docs, f"en-{seed}"), budget)


def stdlib_python_files() -> list[Path]:
    """Every ``.py`` file of this interpreter's standard library, sorted, without site-packages."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    return sorted(
        p for p in stdlib.rglob("*.py") if "site-packages" not in p.relative_to(stdlib).parts
    )


def code_documents(budget: int, seed: int) -> list[str]:
    """Python source: whole stdlib files in seeded order, each cut into documents."""
    docs: list[str] = []
    size = 0
    for path in shuffled([str(p) for p in stdlib_python_files()], f"code-{seed}"):
        if size >= budget:
            break
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # a few test fixtures are deliberately not UTF-8
        docs.extend(split_documents(text))
        size += len(text.encode("utf-8"))
    return take_bytes(docs, budget)


def translation_column(path: Path) -> str:
    """The translations (second column) of a ``parallel/LANG.tsv.gz`` file, one per line."""
    rows = read_gzip_text(path).splitlines()
    return "".join(row.split("\t", 1)[1] + "\n" for row in rows if "\t" in row)


def multilingual_documents(budget: int, seed: int) -> list[str]:
    """Non-English text: half from the translated manuals, half from the translation columns.

    Each half takes documents round-robin across its languages (each language shuffled with the
    seed), so every script is represented rather than only the largest files.
    """
    manuals = sorted(p for p in (CORPUS_DIR / "docs").glob("*.txt.gz") if p.name != "en.txt.gz")
    catalogs = sorted((CORPUS_DIR / "parallel").glob("*.tsv.gz"))
    manual_pools = [
        shuffled(split_documents(read_gzip_text(p)), f"{p.name}-{seed}") for p in manuals
    ]
    catalog_pools = [
        shuffled(split_documents(translation_column(p)), f"{p.name}-{seed}") for p in catalogs
    ]
    half = budget // 2
    return take_bytes(round_robin(manual_pools), half) + take_bytes(
        round_robin(catalog_pools), budget - half
    )


CORPUS_CLASSES: dict[str, Callable[[int, int], list[str]]] = {
    "English": english_documents,
    "code": code_documents,
    "multilingual": multilingual_documents,
}


def load_corpus(mb_per_class: float, seed: int) -> dict[str, list[str]]:
    """Documents of every class, about ``mb_per_class`` MB each (English is capped by its file)."""
    budget = int(mb_per_class * MB)
    return {name: load(budget, seed) for name, load in CORPUS_CLASSES.items()}


# --------------------------------------------------------------------------------------------------
# Pathological inputs: one long string each, the same in every process
# --------------------------------------------------------------------------------------------------


def repeated_letter(n: int, rng: random.Random) -> str:
    return "a" * n


def random_cjk(n: int, rng: random.Random) -> str:
    """Code points drawn uniformly from the CJK Unified Ideographs block, U+4E00..U+9FFF."""
    return "".join(map(chr, rng.choices(range(0x4E00, 0xA000), k=n)))


def random_digits(n: int, rng: random.Random) -> str:
    return "".join(rng.choices("0123456789", k=n))


def random_bytes_text(n: int, rng: random.Random) -> str:
    """Random bytes 0..255 decoded as UTF-8, invalid sequences as U+FFFD, cut to ``n`` characters.

    The result mixes ASCII (controls included), Latin-1-range and other valid sequences, and U+FFFD.
    """
    text = ""
    while len(text) < n:
        text += rng.randbytes(n).decode("utf-8", errors="replace")
    return text[:n]


def spaces(n: int, rng: random.Random) -> str:
    return " " * n


WORST_CASES: dict[str, tuple[str, Callable[[int, random.Random], str]]] = {
    "letters": ('"a"×N', repeated_letter),
    "cjk": ("random CJK", random_cjk),
    "digits": ("random digits", random_digits),
    "bytes": ("random bytes", random_bytes_text),
    "spaces": ('" "×N', spaces),
}


def worst_case_text(key: str, n: int, seed: int = 0) -> str:
    """The pathological input ``key`` (see ``WORST_CASES``): ``n`` characters, fixed by the seed."""
    return WORST_CASES[key][1](n, random.Random(f"{key}-{seed}"))


# --------------------------------------------------------------------------------------------------
# Machine and version facts for report headers
# --------------------------------------------------------------------------------------------------


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def git_revision() -> str:
    """The repository's commit, marked when the work tree has changes, as the report names it."""

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(REPO_ROOT), *args], capture_output=True, text=True, check=False
        )
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD")
    if not commit:
        return "no commit"
    return commit + (" with uncommitted changes" if git("status", "--porcelain") else "")


def package_version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


RESULTS_FILE = Path(__file__).resolve().parent / "RESULTS.md"


def publish(report: str, write: bool) -> None:
    """Prints a run's report and, with ``write``, appends it to RESULTS.md."""
    print(report)
    if write:
        with RESULTS_FILE.open("a", encoding="utf-8") as f:
            f.write("\n" + report)


def load_test_module(relative: str) -> ModuleType:
    """A helper module of the test suite (``tests/<relative>``), imported by path, so that a
    benchmark builds its inputs with the tests' own code instead of a copy."""
    path = REPO_ROOT / "tests" / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
