"""HF ``tokenizers.normalizers``, as :mod:`tokensmith.components.normalizers` defines them."""

from tokensmith.components.normalizers import *  # noqa: F403
from tokensmith.components.normalizers import __all__ as __all__
