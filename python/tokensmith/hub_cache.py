"""Finding a model's ``tokenizer.json`` without the network: a local folder, or the HF hub
cache that ``huggingface_hub`` fills (``<cache>/models--<org>--<name>/refs/<revision>``
names a commit, ``snapshots/<commit>/tokenizer.json`` holds the file).

The cache is ``$HF_HUB_CACHE``, else ``$HF_HOME/hub``, else ``~/.cache/huggingface/hub``;
a revision is a branch or tag name (read through ``refs/``) or a commit hash.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "tokenizer.json").write_text("{}")
>>> find_tokenizer_json(str(folder)) == folder / "tokenizer.json"
True
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["find_tokenizer_json", "hub_cache_dir"]


def hub_cache_dir() -> Path:
    """The HF hub cache folder, as ``huggingface_hub`` chooses it."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    home = os.environ.get("HF_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "huggingface"
    )
    return Path(home) / "hub"


def find_tokenizer_json(identifier: str, revision: str = "main") -> Path:
    """The ``tokenizer.json`` of a local folder or of a model in the hub cache.

    Raises:
        InputNotFoundError: neither has it (the message names every place looked at and
            says that the network is never used).
    """
    from tokensmith.errors import InputNotFoundError

    looked: list[str] = []
    folder = Path(identifier)
    if folder.is_dir():
        path = folder / "tokenizer.json"
        if path.is_file():
            return path
        looked.append(str(path))
    repo = hub_cache_dir() / ("models--" + identifier.replace("/", "--"))
    ref = repo / "refs" / revision
    commit = ref.read_text(encoding="utf-8").strip() if ref.is_file() else revision
    path = repo / "snapshots" / commit / "tokenizer.json"
    if path.is_file():
        return path
    looked.append(f"{path} (revision {revision!r}, through {ref})")
    raise InputNotFoundError(
        f"no tokenizer.json for {identifier!r}: looked at {'; '.join(looked)}. tokensmith "
        "never downloads; fetch it first (huggingface_hub, or tokenizers.Tokenizer."
        "from_pretrained) or pass a local folder"
    )
