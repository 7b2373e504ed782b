"""HF ``tokenizers.processors``, as :mod:`tokensmith.components.processors` defines them."""

from tokensmith.components.processors import *  # noqa: F403
from tokensmith.components.processors import __all__ as __all__
