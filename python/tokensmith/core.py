"""tiktoken's ``tiktoken.core`` module name, for code that imports :class:`Encoding` from it.

``from tokensmith.core import Encoding`` is :class:`tokensmith.encoding.Encoding`.

>>> from tokensmith.core import Encoding
>>> Encoding.__module__
'tokensmith.encoding'
"""

from __future__ import annotations

from tokensmith.encoding import Encoding

__all__ = ["Encoding"]
