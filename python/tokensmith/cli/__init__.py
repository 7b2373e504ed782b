"""The ``tokensmith`` command line: one typer app with a module per command group.

:mod:`tokensmith.cli.app` builds the app and registers the commands defined in this
package's other modules (``train``, ``train_unigram``, ``train_wordpiece``, ``convert``,
``dataset``, ``eval``, ...). The console script and ``python -m tokensmith`` call :func:`main`.
"""

from tokensmith.cli.app import app, main

__all__ = ["app", "main"]
