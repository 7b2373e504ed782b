"""The tokenizers the page can pick: bundled names, files under ``--dir``, tokenizers named on
the command line, and tokenizers trained in the page.

Each has a key the page and its URLs use:

- a bundled name as is: ``o200k_base``;
- ``dir:`` and a path relative to ``--dir``: ``dir:tok/tokenizer.json`` (read only through
  :func:`~tokensmith.serve.safe_paths.resolve_under`);
- ``arg:`` and its position on the command line: ``arg:0``;
- ``trained:`` and a number: ``trained:1``.

A trained tokenizer saved into ``--dir`` (:mod:`~tokensmith.serve.saving`) is a file there:
listed as ``saved`` from the next start on.

Loaded tokenizers are kept (a bundled vocabulary takes a few hundred milliseconds to load).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Any

from tokensmith.errors import UnknownTokenizerError
from tokensmith.serve.config import ServeConfig
from tokensmith.serve.safe_paths import list_tokenizer_files, resolve_under
from tokensmith.serve.saving import SAVED_FOLDER, save_trained
from tokensmith.serve.segmenter import Segmenter

__all__ = ["Catalog", "Entry"]


@dataclass(frozen=True)
class Entry:
    """One tokenizer on offer: its key, its label and where it comes from."""

    key: str
    label: str
    source: str


def load_path(path: str) -> Any:
    """A tokenizer file or folder as tokensmith loads it; a folder with a ``tokenizer.json``
    keeps its ``tokenizer_config.json`` (special tokens, chat template)."""
    import tokensmith

    if os.path.isdir(path) and os.path.exists(os.path.join(path, "tokenizer.json")):
        return tokensmith.Tokenizer.from_pretrained_dir(path)
    if path.endswith((".tiktoken", ".tiktoken.gz")) and not os.path.exists(path + ".json"):
        return tokensmith.load_tiktoken(path, name=os.path.basename(path))
    return tokensmith.load(path, name=os.path.basename(path.rstrip("/")))


class Catalog:
    """Every tokenizer on offer, loaded on first use."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._loaded: dict[str, Segmenter] = {}
        self._trained: dict[str, Segmenter] = {}
        self._trained_objects: dict[str, Any] = {}
        self._saved: dict[str, str] = {}

    def entries(self) -> list[Entry]:
        """What the picker lists, in order: command line, trained, bundled, ``--dir``."""
        out = [
            Entry(f"arg:{i}", os.path.basename(spec.rstrip("/")) or spec, "command line")
            for i, spec in enumerate(self.config.tokenizers)
        ]
        with self._lock:
            out += [Entry(key, seg.label, "trained") for key, seg in self._trained.items()]
        out += [Entry(name, name, "bundled") for name in self.config.bundled]
        if self.config.root is not None:
            out += [
                Entry(
                    f"dir:{rel}", rel, "saved" if rel.startswith(f"{SAVED_FOLDER}/") else "folder"
                )
                for rel in list_tokenizer_files(self.config.root)
            ]
        return out

    def get(self, key: str) -> Segmenter:
        """The tokenizer under ``key``, loaded once.

        Raises:
            UnknownTokenizerError: no tokenizer has that key.
            PathRefusedError: a ``dir:`` key points outside ``--dir``.
        """
        with self._lock:
            if key in self._trained:
                return self._trained[key]
            if key in self._loaded:
                return self._loaded[key]
        segmenter = Segmenter.of(self._load(key), label=self._label(key))
        with self._lock:
            return self._loaded.setdefault(key, segmenter)

    def _label(self, key: str) -> str:
        if key.startswith("arg:"):
            spec = self.config.tokenizers[int(key[4:])]
            return os.path.basename(spec.rstrip("/")) or spec
        return key.removeprefix("dir:")

    def _load(self, key: str) -> Any:
        import tokensmith

        if key in self.config.bundled:
            return tokensmith.get_encoding(key)
        if key.startswith("dir:") and self.config.root is not None:
            return load_path(str(resolve_under(self.config.root, key[4:])))
        if (
            key.startswith("arg:")
            and key[4:].isdigit()
            and int(key[4:]) < len(self.config.tokenizers)
        ):
            spec = self.config.tokenizers[int(key[4:])]
            if os.path.exists(spec):
                return load_path(spec)
            return tokensmith.get_encoding(spec)
        raise UnknownTokenizerError(f"no tokenizer {key!r} is on offer")

    def add_trained(self, tokenizer: Any, *, label: str) -> str:
        """Offers a tokenizer trained in the page; returns its new key."""
        with self._lock:
            key = f"trained:{len(self._trained) + 1}"
            self._trained[key] = Segmenter.of(tokenizer, label=label)
            self._trained_objects[key] = tokenizer
        return key

    def trained_object(self, key: str) -> Any:
        """The trained tokenizer itself (to save it), by key.

        Raises:
            UnknownTokenizerError: no trained tokenizer has that key.
        """
        with self._lock:
            if key not in self._trained_objects:
                raise UnknownTokenizerError(f"no trained tokenizer {key!r}")
            return self._trained_objects[key]

    def save(self, key: str) -> str:
        """Saves the trained tokenizer ``key`` into ``--dir`` (once: saving it again gives the
        same file) and returns its path there.

        Raises:
            UnknownTokenizerError: no trained tokenizer has that key.
            NoSaveFolderError: the server has no ``--dir``.
        """
        tokenizer = self.trained_object(key)
        with self._lock:
            if key in self._saved:
                return self._saved[key]
            label = self._trained[key].label
        # The label is "NAME (algorithm, size)": the file is named by the page's NAME.
        rel = save_trained(tokenizer, root=self.config.root, name=label.rsplit(" (", 1)[0])
        with self._lock:
            return self._saved.setdefault(key, rel)
