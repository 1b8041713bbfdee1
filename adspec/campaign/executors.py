"""Where a campaign's programs run: a local process pool, or a Dask distributed cluster through
its concurrent.futures executor (the optional extra `adspec[cluster]`). Both give `submit` and
concurrent.futures Futures, so the campaign has one code path."""
from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

INSTALL_HINT = "--scheduler needs Dask distributed: pip install 'adspec[cluster]'"


class ClusterUnavailable(Exception):
    """Dask is not installed, or its scheduler cannot be reached: a one-line reason."""


@contextmanager
def executor_for(jobs: int, scheduler: str | None = None):
    """(executor, its name for the report): a pool of `jobs` local processes, or the Dask
    cluster whose scheduler listens at `scheduler` (e.g. tcp://host:8786)."""
    if scheduler is None:
        # (no max_tasks_per_child: Python 3.11's pool can hang when it replaces a worker)
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            yield pool, f"local process pool ({jobs} processes)"
        return
    try:
        from distributed import Client
    except ImportError:
        raise ClusterUnavailable(INSTALL_HINT) from None
    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as e:
        raise ClusterUnavailable(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
    try:
        with client.get_executor() as executor:
            yield executor, f"Dask cluster at {scheduler}"
    finally:
        client.close()
