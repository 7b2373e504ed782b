"""The pipeline slots of :class:`~tokensmith.Tokenizer`, as HF's ``Tokenizer`` has them.

``normalizer``, ``pre_tokenizer``, ``model``, ``decoder`` and ``post_processor`` read the
kept ``tokenizer.json`` text into component objects and write one back: the new JSON is
loaded by the Rust core again, so ``to_str()`` and the ids both show the change. A component
read from a slot stays attached: setting one of its attributes rebuilds the tokenizer too.

>>> from tokensmith import Tokenizer, models, pre_tokenizers
>>> tok = Tokenizer(models.WordLevel({"?": 0, "a": 1}, unk_token="?"))
>>> tok.pre_tokenizer = pre_tokenizers.Whitespace()
>>> tok.encode("a b a").ids
[1, 0, 1]
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypeVar

from tokensmith._core import CoreHfTokenizer
from tokensmith.components._base import Component, dumps
from tokensmith.components.decoders import Decoder
from tokensmith.components.models import Model
from tokensmith.components.normalizers import Normalizer
from tokensmith.components.pre_tokenizers import PreTokenizer
from tokensmith.components.processors import PostProcessor
from tokensmith.components.registry import component_from_json

if TYPE_CHECKING:
    from tokensmith.hf_tokenizer import Tokenizer

__all__ = ["ComponentSlots", "model_json", "UnbuiltCore"]

C = TypeVar("C", bound=Component)


def model_json(model: Model) -> str:
    """The ``tokenizer.json`` HF's ``Tokenizer(model)`` writes: nothing but the model."""
    doc: dict[str, Any] = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": None,
        "model": model.to_json(),
    }
    return dumps(doc)


class UnbuiltCore:
    """Stands for the core of a tokenizer whose JSON the core refuses (a BPE model whose
    ``unk_token`` is missing from its vocabulary): every use raises the load error, as HF
    fails at the first encode."""

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error

    def __getattr__(self, name: str) -> Any:
        raise self.error


def build_core(
    text: str, sampling: tuple[float | None, int | None] | None = None
) -> CoreHfTokenizer | UnbuiltCore:
    """The core for ``text`` (its Unigram model sampling with ``sampling``, HF's ``alpha``
    and ``nbest_size``, which the JSON does not hold), or a stand-in raising why it cannot
    be built."""
    from tokensmith.errors import TokenizerJsonError

    try:
        core = CoreHfTokenizer.from_str(text)
    except TokenizerJsonError as e:
        return UnbuiltCore(e)
    if sampling is not None and sampling[0] is not None:
        core = core.with_unigram_sampling(*sampling)
    return core


def _sampling_of(core: Any) -> tuple[float | None, int | None] | None:
    """The sampling a built core's Unigram model does, if any."""
    return core.unigram_sampling() if isinstance(core, CoreHfTokenizer) else None


def _slot(key: str, family: type[C]) -> Any:
    def get(self: Tokenizer) -> C | None:
        data = json.loads(self.to_str()).get(key)
        if data is None:
            return None
        component = component_from_json(family, data, key)
        sampling = _sampling_of(self._core)
        if isinstance(component, Model) and sampling is not None:
            object.__setattr__(component, "_options", sampling)
        component._adopt(lambda: _set(self, key, family, component))
        return component

    def put(self: Tokenizer, value: C | None) -> None:
        _set(self, key, family, value)

    get.__doc__ = f"The {key} (a :mod:`tokensmith.{key}s`-style component), or None."
    return property(get, put)


def _set(tok: Tokenizer, key: str, family: type[C], value: C | None) -> None:
    """Writes ``value`` into slot ``key`` and rebuilds the core from the new JSON.

    Raises:
        ComponentTypeError: ``value`` is not a ``family`` component (nor None for a slot
            that can be empty).
    """
    from tokensmith.errors import ComponentTypeError

    if not (isinstance(value, family) or (value is None and key != "model")):
        raise ComponentTypeError(
            f"Tokenizer.{key} must be a {family.__name__}"
            f"{'' if key == 'model' else ' or None'}, got {type(value).__name__}"
        )
    data = json.loads(tok.to_str())
    data[key] = None if value is None else value.to_json()
    text = json.dumps(data, ensure_ascii=False, indent=2)
    special = tok.encode_special_tokens if isinstance(tok._core, CoreHfTokenizer) else False
    # The model's sampling is not in the JSON: it comes with a new model, else stays.
    sampling = value._sampling() if isinstance(value, Model) else _sampling_of(tok._core)
    core = build_core(text, sampling)
    if special and isinstance(core, CoreHfTokenizer):
        core = core.with_encode_special_tokens(True)
    tok._core, tok._json = core, text  # type: ignore[assignment]


class ComponentSlots:
    """The five pipeline properties HF's ``Tokenizer`` has (mixed into ``Tokenizer``)."""

    __slots__ = ()

    normalizer = _slot("normalizer", Normalizer)
    pre_tokenizer = _slot("pre_tokenizer", PreTokenizer)
    model = _slot("model", Model)
    decoder = _slot("decoder", Decoder)
    post_processor = _slot("post_processor", PostProcessor)
