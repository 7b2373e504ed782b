"""Joining or starting a Ray cluster, shared by every ``engine="ray"`` code path.

Ray is optional (``pip install 'tokensmith[ray]'``); without it the error says how to get it.
A cluster that tokensmith starts itself only needs to reach itself, so it stays on loopback.
"""

from __future__ import annotations

import os
from typing import Any

from tokensmith.errors import MissingDependencyError


def ray_module(address: str | None) -> Any:
    """Imports Ray and makes sure a cluster is up: ``address``, or a new local one."""
    if address is None:
        # Read by Ray when first imported: a local cluster then binds to 127.0.0.1 rather
        # than to the machine's outward address.
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
