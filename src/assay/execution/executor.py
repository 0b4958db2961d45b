"""One executor for every unit of work (a test file, a batch of mutants, a prism panel member): on
this machine or on a Dask distributed cluster.

A unit of work is a module-level function with picklable, typed arguments and result; the services
pass it in, so this layer knows nothing of them. Every kind is a `concurrent.futures.Executor`
(Dask's through `Client.get_executor`), so a service has one loop for all of them; a library caller
may also pass an Executor of its own. `local` is a process pool whose workers come from a forkserver
that has already imported the modules the service names (no fork of a threaded parent, no
interpreter start per worker); `threads` suits work that is subprocesses anyway (a script without an
`if __name__ == "__main__"` guard cannot start processes); `dask` runs on the cluster's workers,
which see none of this machine's files: `share` sends a large argument (a packed workspace,
`execution.shipping`) to each worker once instead of with every task.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from assay.errors import InputError, ToolchainError

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

KINDS = ("local", "threads", "dask")
T = TypeVar("T")


@dataclass(frozen=True)
class ExecutorInfo:
    """Where the work ran, for a report: kind, how many workers, and the scheduler of a cluster."""

    kind: str
    workers: int | None = None
    scheduler: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.scheduler is not None:
            out["scheduler"] = self.scheduler
        if self.workers is not None:
            out["workers"] = self.workers
        return out


class Pool(Executor):
    """An Executor that also says where its work runs (`info`, `remote`) and can share data with
    its workers."""

    def __init__(self, inner: Executor, info: ExecutorInfo, client: Any = None):
        self._inner = inner
        self.info = info
        self._client = client

    @property
    def remote(self) -> bool:
        """True when units run on workers that do not see this machine's files (they need a
        shipped copy)."""
        return self._client is not None

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        return self._inner.submit(fn, *args, **kwargs)

    def share(self, value: T) -> T:
        """`value` as an argument for many units: on a cluster it is sent to every worker once (a
        future the workers resolve to `value`); locally it is passed as is."""
        if self._client is None:
            return value
        return self._client.scatter(value, broadcast=True, hash=True)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        # the standard pools can drop their queue (no process pool exists unless its module is in)
        processes = sys.modules.get("concurrent.futures.process")
        pools = (ThreadPoolExecutor, *([processes.ProcessPoolExecutor] if processes else []))
        if isinstance(self._inner, pools):
            self._inner.shutdown(wait=wait, cancel_futures=cancel_futures)
        else:
            self._inner.shutdown(wait=wait)


def threads(n: int) -> Pool:
    """`n` threads of this process, for units that are subprocesses anyway; the caller shuts
    it down."""
    return Pool(ThreadPoolExecutor(max_workers=n), ExecutorInfo("threads", n))


def _context(preload: Sequence[str]) -> BaseContext:
    import multiprocessing  # here: a verify answered from the cache starts no process pool

    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        if preload:
            ctx.set_forkserver_preload(list(preload))
        return ctx
    return multiprocessing.get_context("spawn")


@contextlib.contextmanager
def _shut(pool: Pool, cancel_on_error: bool) -> Iterator[Pool]:
    """Shut down on exit; on an error, `cancel_on_error` drops the queued units and waits
    for none."""
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=not cancel_on_error, cancel_futures=cancel_on_error)
        raise
    pool.shutdown(wait=True)


def _reachable(scheduler: str) -> None:
    """Fail fast, in one line, when nothing listens at a tcp:// address (Dask would retry for
    its timeout)."""
    parsed = urlsplit(scheduler)
    if parsed.scheme != "tcp" or not parsed.hostname or not parsed.port:
        return
    try:
        socket.create_connection((parsed.hostname, parsed.port), timeout=5).close()
    except OSError as err:
        raise InputError(
            f"cannot reach the Dask scheduler at {scheduler}: {err.strerror or err}"
        ) from None


@contextlib.contextmanager
def _dask(scheduler: str | None) -> Iterator[Pool]:
    if not scheduler:
        raise InputError("--executor dask needs --scheduler tcp://HOST:PORT")
    try:
        from distributed import Client
    except ImportError:
        raise ToolchainError(
            "the Dask executor needs the dask extra: pip install 'assay[dask]'"
        ) from None
    _reachable(scheduler)
    try:
        client = Client(scheduler, timeout=10, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise InputError(f"cannot reach the Dask scheduler at {scheduler}: {err}") from None
    try:
        workers = len(client.scheduler_info().get("workers", {}))
        if workers == 0:
            raise InputError(f"the Dask scheduler at {scheduler} has no workers")
        yield Pool(
            client.get_executor(pure=False), ExecutorInfo("dask", workers, scheduler), client
        )
    finally:
        client.close()


@contextlib.contextmanager
def open_executor(
    kind: str | Executor = "local",
    workers: int | None = None,
    scheduler: str | None = None,
    preload: Sequence[str] = (),
) -> Iterator[Pool]:
    """The executor of `kind` (or `kind` itself when it is an Executor already), shut down on exit.

    `workers`: units at once on this machine (default: cores); `preload`: modules the local pool's
    forkserver imports once for all its workers (the module of the service's unit function)."""
    if isinstance(kind, Executor):
        yield kind if isinstance(kind, Pool) else Pool(kind, ExecutorInfo(type(kind).__name__))
        return
    if workers is not None and workers < 1:
        raise InputError("--workers must be at least 1")
    n = workers or os.cpu_count() or 1
    if kind == "local":
        from concurrent.futures import ProcessPoolExecutor

        processes = ProcessPoolExecutor(max_workers=n, mp_context=_context(preload))
        with _shut(Pool(processes, ExecutorInfo("local", n)), cancel_on_error=True) as pool:
            yield pool
    elif kind == "threads":
        # as a `with ThreadPoolExecutor()` block
        with _shut(threads(n), cancel_on_error=False) as pool:
            yield pool
    elif kind == "dask":
        with _dask(scheduler) as pool:
            yield pool
    else:
        raise InputError(f"unknown executor '{kind}' (one of: {', '.join(KINDS)})")


@contextlib.contextmanager
def open_cluster(scheduler: str | None) -> Iterator[Pool | None]:
    """The Dask executor at `scheduler`, or None when there is none (the work stays on
    this machine)."""
    if scheduler is None:
        yield None
        return
    with _dask(scheduler) as pool:
        yield pool
