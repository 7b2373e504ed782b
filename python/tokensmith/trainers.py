"""HF ``tokenizers.trainers``, as :mod:`tokensmith.components.trainers` defines them."""

from tokensmith.components.trainers import *  # noqa: F403
from tokensmith.components.trainers import __all__ as __all__
