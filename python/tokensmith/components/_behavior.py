"""HF's split behaviors as its Python API takes them and as its JSON writes them.

>>> behavior_json("merged_with_previous")
'MergedWithPrevious'
"""

from __future__ import annotations

from typing import Any

__all__ = ["BEHAVIORS", "behavior_json"]

BEHAVIORS = ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")


def behavior_json(behavior: Any) -> str:
    """``behavior`` (a name above, or HF's ``SplitDelimiterBehavior`` member) in JSON form.

    Raises:
        PatternError: an unknown behavior (naming the known ones).
    """
    from tokensmith.errors import PatternError

    name = getattr(behavior, "value", behavior)
    if name not in BEHAVIORS:
        raise PatternError(f"behavior must be one of {', '.join(BEHAVIORS)}; got {behavior!r}")
    return "".join(word.capitalize() for word in str(name).split("_"))
