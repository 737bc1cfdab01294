"""Scoring on a ``dask.distributed`` cluster: the chunk function of ``--jobs`` on Dask workers.

Needs the optional extra ``annoscore[dask]`` (dask, distributed, fsspec), imported only here and
only when asked (``annoscore --help`` and every run without ``--dask`` import none of them).

:func:`score` is :func:`annoscore.score` with the chunks (:mod:`annoscore.scale`) mapped on
``client``'s workers and reduced here, in document order: the result is the one of
``annoscore.score(task, gold, system, **options)``, byte for byte.  The workers read the chunks'
files themselves, so the paths must be ones they can open: a shared file system, or fsspec URLs
(``s3://``, ``gs://``, ``file://``, ``memory://``), each worker reading its own byte ranges of a
file of lines or its own files of a folder through fsspec (a task that does not cut its input
reads a URL whole, in this process).  ``s3://`` and ``gs://`` need s3fs or gcsfs installed
where the files are read, and take their credentials from fsspec's own configuration
(environment variables, ``~/.aws``, ``~/.config/fsspec``) on the workers; they go through the
same code as ``file://`` and ``memory://``, the ones tested.  ``memory://`` is one process's
memory: only workers that are threads of this process (``LocalCluster(processes=False)``) see it.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator
from os import PathLike
from typing import TYPE_CHECKING, Any

from annoscore.errors import InputError

if TYPE_CHECKING:
    from annoscore.result import Result


def score(
    task: str,
    /,
    gold: str | PathLike[str],
    system: str | PathLike[str],
    *,
    client: Any,
    **options: Any,
) -> Result:
    """Score ``system`` against ``gold`` with ``task`` (as :func:`annoscore.score`), the
    chunks of the documents scored on the workers of ``client`` (a
    ``distributed.Client``)."""
    from annoscore.scale import score_given, using

    with using(1, client):
        return score_given(task, gold, system, **options)


@contextlib.contextmanager
def connected(address: str) -> Iterator[Any]:
    """A ``distributed.Client`` of the scheduler at ``address`` (``"local"``: a two-process
    ``LocalCluster`` on this machine, stopped on leaving), closed on leaving."""
    try:  # imported as a module of no declared type: typed alike with and without the extra
        dask_distributed: Any = importlib.import_module("distributed")
    except ImportError:
        raise InputError("--dask needs the optional extra: pip install 'annoscore[dask]'") from None
    if address == "local":
        with (
            _workers_keep_freed_memory(),
            dask_distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster,
            dask_distributed.Client(cluster) as client,
        ):
            yield client
        return
    try:
        client = dask_distributed.Client(address, timeout="10s")
    except (OSError, TimeoutError, ValueError) as error:
        raise InputError(f"--dask: cannot reach the scheduler at {address}: {error}") from None
    with client:
        yield client


@contextlib.contextmanager
def _workers_keep_freed_memory() -> Iterator[None]:
    """Inside the block, the worker processes a ``LocalCluster`` spawns keep the memory a
    chunk frees for the next one, as the command line's own process does
    (:func:`annoscore.scale.run.reuse_freed_memory`): Dask starts its workers with
    ``MALLOC_TRIM_THRESHOLD_=65536`` (``distributed.nanny.pre-spawn-environ``), which gives
    every freed column back at once, so that each chunk faults its pages in again (PubTator,
    20,000 documents x 50 spans on two workers: their CPU 4.2 s, half of it in the kernel;
    1.8 s with the thresholds kept).  Not where the environment sets the allocator itself."""
    import sys

    import dask

    from annoscore.scale.run import KEPT_MEMORY, allocator_chosen

    if not sys.platform.startswith("linux") or allocator_chosen():
        yield
        return
    key = "distributed.nanny.pre-spawn-environ"
    environ = dict(dask.config.get(key, default=None) or {})
    environ.update({name: str(value) for name, value in KEPT_MEMORY.items()})
    with dask.config.set({key: environ}):
        yield
