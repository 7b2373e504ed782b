"""HF ``tokenizers.decoders``, as :mod:`tokensmith.components.decoders` defines them."""

from tokensmith.components.decoders import *  # noqa: F403
from tokensmith.components.decoders import __all__ as __all__
