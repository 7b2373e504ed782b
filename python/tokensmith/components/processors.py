"""HF ``tokenizers.processors``: every post-processor, with HF's constructor and JSON.

>>> from tokensmith import processors
>>> bert = processors.TemplateProcessing(
...     single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
>>> bert.num_special_tokens_to_add(False)
2
"""

from __future__ import annotations

from typing import Any

from tokensmith.components import _run
from tokensmith.components._base import Component
from tokensmith.components._template import special_tokens as _special_tokens
from tokensmith.components._template import template as _template
from tokensmith.components._template import template_repr

__all__ = [
    "BertProcessing",
    "ByteLevel",
    "PostProcessor",
    "RobertaProcessing",
    "Sequence",
    "TemplateProcessing",
]


class PostProcessor(Component):
    """Base class of the post-processors."""

    __slots__ = ()

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        """How many tokens this adds to one sequence (or a pair), counted by the Rust core.

        Raises:
            TokenizerJsonError: the core cannot run this post-processor's settings.
        """
        return _run.num_special_tokens_to_add(self.to_json(), is_pair)


def _token(value: Any, argument: str) -> list[Any]:
    from tokensmith.errors import ComponentTypeError

    if (
        not isinstance(value, tuple | list)
        or len(value) != 2
        or not isinstance(value[0], str)
        or not isinstance(value[1], int)
    ):
        raise ComponentTypeError(f"{argument} must be a (token, id) tuple, got {value!r}")
    return [value[0], value[1]]


class BertProcessing(PostProcessor):
    """``[CLS] A [SEP]`` and ``[CLS] A [SEP] B [SEP]`` (type id 1 from B on)."""

    __slots__ = ()
    _type = "BertProcessing"
    _names = {"cls": "cls"}

    def __init__(self, sep: tuple[str, int], cls_token: tuple[str, int]) -> None:
        self._init(sep=_token(sep, "sep"), cls=_token(cls_token, "cls_token"))


class RobertaProcessing(PostProcessor):
    """``<s> A </s>`` and ``<s> A </s> </s> B </s>``, trimming offsets as ByteLevel does."""

    __slots__ = ()
    _type = "RobertaProcessing"

    def __init__(
        self,
        sep: tuple[str, int],
        cls_token: tuple[str, int],
        trim_offsets: bool = True,
        add_prefix_space: bool = True,
    ) -> None:
        self._init(
            sep=_token(sep, "sep"),
            cls=_token(cls_token, "cls_token"),
            trim_offsets=trim_offsets,
            add_prefix_space=add_prefix_space,
        )


class ByteLevel(PostProcessor):
    """Trims the spaces ByteLevel put into token offsets (``None`` options are true)."""

    __slots__ = ()
    _type = "ByteLevel"

    def __init__(
        self,
        add_prefix_space: bool | None = None,
        trim_offsets: bool | None = None,
        use_regex: bool | None = None,
    ) -> None:
        self._init(
            add_prefix_space=True if add_prefix_space is None else add_prefix_space,
            trim_offsets=True if trim_offsets is None else trim_offsets,
            use_regex=True if use_regex is None else use_regex,
        )


class TemplateProcessing(PostProcessor):
    """Wraps sequences in special tokens as templates say (``"[CLS] $A [SEP]"``; see
    :mod:`tokensmith.components._template`); ``special_tokens`` gives each one's ids.

    Raises:
        TokenizerJsonError: a template word cannot be read, or a special token used in a
            template is not in ``special_tokens``.
    """

    __slots__ = ()
    _type = "TemplateProcessing"
    _setters = {"single": _template, "pair": _template, "special_tokens": _special_tokens}
    _getters = {"single": template_repr}

    def __init__(
        self,
        single: str | list[str] | None = None,
        pair: str | list[str] | None = None,
        special_tokens: list[Any] | None = None,
    ) -> None:
        from tokensmith.errors import TokenizerJsonError

        one = _template("$0" if single is None else single)
        two = _template("$A:0 $B:1" if pair is None else pair)
        specials = _special_tokens(special_tokens)
        missing = sorted(
            {
                p["SpecialToken"]["id"]
                for p in one + two
                if "SpecialToken" in p and p["SpecialToken"]["id"] not in specials
            }
        )
        if missing:
            raise TokenizerJsonError(
                "TemplateProcessing: special_tokens lacks " + ", ".join(missing)
            )
        self._init(single=one, pair=two, special_tokens=specials)


class Sequence(PostProcessor):
    """Runs ``processors`` in order."""

    __slots__ = ()
    _type = "Sequence"
    _children = "processors"

    def __init__(self, processors_py: list[PostProcessor]) -> None:
        from tokensmith.components.registry import children

        self._init(processors=children(processors_py, PostProcessor, "processors"))

    def __getitem__(self, index: int) -> PostProcessor:
        item: PostProcessor = self._state["processors"][index]
        return item

    def __len__(self) -> int:
        return len(self._state["processors"])
