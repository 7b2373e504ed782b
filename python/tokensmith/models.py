"""HF ``tokenizers.models``, as :mod:`tokensmith.components.models` defines them."""

from tokensmith.components.models import *  # noqa: F403
from tokensmith.components.models import __all__ as __all__
