"""``tokensmith.data``: the dataset tools under the name the docs use, plus bundled sample files.

This folder also holds the text samples shipped with the package (``sample_multilingual.txt``,
``parallel/``). The code lives in :mod:`tokensmith.datasets`; this module re-exports it.
"""

from tokensmith.datasets import *  # noqa: F403
from tokensmith.datasets import __all__ as __all__
