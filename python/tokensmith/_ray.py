"""Joining or starting a Ray cluster, shared by every ``engine="ray"`` code path.

Ray is optional (``pip install 'tokensmith[ray]'``); without it the error says how to get it.
A cluster that tokensmith starts itself only needs to reach itself, so it stays on loopback.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tokensmith.errors import MissingDependencyError


def ray_module(address: str | None) -> Any:
    """Imports Ray and makes sure a cluster is up: ``address``, or a new local one."""
    if address is None and "RAY_ADDRESS" not in os.environ:
        # Read by Ray when first imported: a local cluster then binds to 127.0.0.1 rather
        # than to the machine's outward address. Not when a cluster is to be joined (an
        # address, or RAY_ADDRESS, which ray.init reads): its nodes must reach this one.
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    try:
        import ray
    except ImportError as e:
        raise MissingDependencyError(
            "engine='ray' needs Ray: pip install 'ray>=2.9' (or use the default local engine)"
        ) from e
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    return ray


@contextmanager
def original_message() -> Iterator[None]:
    """Run in a Ray Data task: an exception leaving it keeps a copy of its arguments, which
    Ray Data extends with a note on retries; :func:`unwrap` puts them back."""
    try:
        yield
    except Exception as e:
        e.__dict__.setdefault(_ARGS, e.args)
        raise


_ARGS = "_tokensmith_args"


def unwrap(error: BaseException) -> BaseException:
    """The exception user code raised in a Ray task, out of Ray's wrappers (``RayTaskError``
    and Ray Data's ``UserCodeException``), with its own message, so that a caller sees the
    error the local engine raises; any other exception is returned as it is."""
    while True:
        cause = getattr(error, "cause", None)
        if isinstance(cause, BaseException) and cause is not error:
            error = cause
        elif type(error).__module__.startswith("ray.") and error.__cause__ is not None:
            error = error.__cause__
        else:
            if _ARGS in error.__dict__:
                error.args = error.__dict__.pop(_ARGS)
            return error
