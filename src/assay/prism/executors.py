"""Where (task, member) runs execute: local processes by default, or a Dask distributed cluster.

Both are `concurrent.futures.Executor`s (Dask's through `Client.get_executor`), so the matrix has one loop for
all of them; a library caller may also pass any Executor of its own, or use `threads` (a script without an
`if __name__ == "__main__"` guard cannot start process pools). Local workers come from a forkserver that has
already imported the worker module: no fork of a threaded parent, no interpreter start per worker.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import socket
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing.context import BaseContext
from typing import Any
from urllib.parse import urlsplit

from assay.errors import InputError, ToolchainError

KINDS = ("local", "threads", "dask")


def _context() -> BaseContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["assay.prism.worker"])
        return ctx
    return multiprocessing.get_context("spawn")


@contextlib.contextmanager
def _local(workers: int | None) -> Iterator[tuple[Executor, dict[str, Any]]]:
    n = workers or os.cpu_count() or 1
    pool = ProcessPoolExecutor(max_workers=n, mp_context=_context())
    try:
        yield pool, {"kind": "local", "workers": n}
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _reachable(scheduler: str) -> None:
    """Fail fast, in one line, when nothing listens at a tcp:// address (Dask would retry for its timeout)."""
    parsed = urlsplit(scheduler)
    if parsed.scheme != "tcp" or not parsed.hostname or not parsed.port:
        return
    try:
        socket.create_connection((parsed.hostname, parsed.port), timeout=5).close()
    except OSError as err:
        raise InputError(f"cannot reach the Dask scheduler at {scheduler}: {err.strerror or err}") from None


@contextlib.contextmanager
def _dask(scheduler: str | None) -> Iterator[tuple[Executor, dict[str, Any]]]:
    if not scheduler:
        raise InputError("--executor dask needs --scheduler tcp://HOST:PORT")
    try:
        from distributed import Client
    except ImportError:
        raise ToolchainError("the Dask executor needs the dask extra: pip install 'assay[dask]'") from None
    _reachable(scheduler)
    try:
        client = Client(scheduler, timeout=10, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise InputError(f"cannot reach the Dask scheduler at {scheduler}: {err}") from None
    try:
        workers = len(client.scheduler_info().get("workers", {}))
        if workers == 0:
            raise InputError(f"the Dask scheduler at {scheduler} has no workers")
        yield client.get_executor(pure=False), {"kind": "dask", "scheduler": scheduler, "workers": workers}
    finally:
        client.close()


@contextlib.contextmanager
def open_executor(kind: str | Executor = "local", workers: int | None = None,
                  scheduler: str | None = None) -> Iterator[tuple[Executor, dict[str, Any]]]:
    """An executor and a description of it for the report."""
    if isinstance(kind, Executor):
        yield kind, {"kind": type(kind).__name__}
        return
    if workers is not None and workers < 1:
        raise InputError("--workers must be at least 1")
    if kind == "local":
        with _local(workers) as found:
            yield found
    elif kind == "threads":  # runs are subprocesses anyway; threads share one pool of scratch copies
        n = workers or os.cpu_count() or 1
        with ThreadPoolExecutor(max_workers=n) as threads:
            yield threads, {"kind": "threads", "workers": n}
    elif kind == "dask":
        with _dask(scheduler) as found:
            yield found
    else:
        raise InputError(f"unknown executor '{kind}' (one of: {', '.join(KINDS)})")
