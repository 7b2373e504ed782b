"""tiktoken's ``tiktoken.model`` module name: the model-to-encoding tables and lookups.

They live in :mod:`tokensmith.registry`; this module re-exports them so that code written for
``tiktoken.model`` runs unchanged.

>>> from tokensmith.model import MODEL_TO_ENCODING, encoding_name_for_model
>>> MODEL_TO_ENCODING["davinci"], encoding_name_for_model("gpt-5.1")
('r50k_base', 'o200k_base')
"""

from __future__ import annotations

from tokensmith.registry import (
    MODEL_PREFIX_TO_ENCODING,
    MODEL_TO_ENCODING,
    encoding_for_model,
    encoding_name_for_model,
)

__all__ = [
    "MODEL_PREFIX_TO_ENCODING",
    "MODEL_TO_ENCODING",
    "encoding_for_model",
    "encoding_name_for_model",
]
