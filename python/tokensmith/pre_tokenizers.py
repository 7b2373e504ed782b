"""HF ``tokenizers.pre_tokenizers``, as :mod:`tokensmith.components.pre_tokenizers` defines them."""

from tokensmith.components.pre_tokenizers import *  # noqa: F403
from tokensmith.components.pre_tokenizers import __all__ as __all__
