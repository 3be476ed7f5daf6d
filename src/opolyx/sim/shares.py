"""Playing a run's games in worker processes that each take the next few games from a shared counter.

``multiprocessing.Pool`` did this before, and two workers then reached only 1.76–1.85× one worker on a
2-core machine: the pool's own threads in the parent process took 0.2–0.3 s of CPU per 4,000 games, most of
it the worker-maintenance thread, which waits on the result pipe among its wake-up sources and so spins while
results sit unread in it (CPython's bpo-35493 design). On two cores every parent cycle is taken from a worker.
Here the parent does nothing but block in ``multiprocessing.connection.wait`` on the workers' pipes and put
their records back in game order; each worker asks a shared counter for its next chunk, so a worker that drew
long games takes fewer chunks and both finish together, as with the pool's task queue.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Generator
from contextlib import suppress
from multiprocessing.connection import Connection, wait
from multiprocessing.context import BaseContext
from multiprocessing.sharedctypes import Synchronized
from typing import TypeVar

R = TypeVar("R")


class WorkerFailed(RuntimeError):
    """A worker process raised, or died without a word; carries its traceback when it could send one."""


def _play_chunks(
    play: Callable[[int], R],
    count: int,
    chunk: int,
    counter: Synchronized[int],
    conn: Connection,
    setup: Callable[[], object] | None,
) -> None:
    """A worker's life: take the next ``chunk`` indices from ``counter`` until ``count``, send the results of
    each chunk as ``("chunk", first index, results)``, then ``("done",)``; on an error, ``("failed",
    traceback)``."""
    try:
        if setup is not None:
            setup()
        while True:
            with counter.get_lock():
                first = counter.value
                counter.value = first + chunk
            if first >= count:
                break
            conn.send(("chunk", first, [play(i) for i in range(first, min(first + chunk, count))]))
        conn.send(("done",))
    except KeyboardInterrupt:
        pass  # Ctrl-C reaches the whole process group: the parent stops the run and says so
    except BaseException:  # reported to the parent, which raises it there
        with suppress(OSError):  # unless the parent is gone
            conn.send(("failed", traceback.format_exc()))
    finally:
        conn.close()


def play_shared(
    ctx: BaseContext,
    workers: int,
    play: Callable[[int], R],
    count: int,
    most: int,
    setup: Callable[[], object] | None = None,
) -> Generator[R, None, None]:
    """``play(i)`` for ``i`` in ``range(count)``, in that order, computed by ``workers`` processes of ``ctx``.

    A worker takes at most ``most`` indices at a time, and fewer on a short run, so that each worker takes
    at least eight chunks and a slow last chunk leaves the others little to wait for. ``play`` and ``setup``
    (run once in each worker first) must be picklable for the spawn start method: module-level functions or
    ``functools.partial`` of them. Closing the iterator early stops the workers.
    """
    chunk = max(1, min(most, count // (workers * 8)))
    counter = ctx.Value("q", 0)
    procs = []
    readers: list[Connection] = []
    try:
        for _ in range(workers):
            reader, writer = ctx.Pipe(duplex=False)
            # Every concrete context has ``Process``; typeshed declares it on each subclass, not on the base.
            proc = ctx.Process(  # type: ignore[attr-defined]
                target=_play_chunks, args=(play, count, chunk, counter, writer, setup), daemon=True)
            proc.start()
            writer.close()  # the worker holds the only writer: its death ends the reader with EOFError
            procs.append(proc)
            readers.append(reader)
        waiting: dict[int, list[R]] = {}
        next_index = 0
        open_readers = list(readers)
        while open_readers:
            for ready in wait(open_readers):
                assert isinstance(ready, Connection)
                try:
                    message = ready.recv()
                except EOFError:
                    raise WorkerFailed("a worker process ended without sending its results") from None
                if message[0] == "chunk":
                    waiting[message[1]] = message[2]
                elif message[0] == "done":
                    open_readers.remove(ready)
                else:
                    raise WorkerFailed(f"a worker process failed:\n{message[1]}")
            while next_index in waiting:
                results = waiting.pop(next_index)
                next_index += len(results)
                yield from results
        if next_index != count:
            raise WorkerFailed(f"the workers returned {next_index} of {count} results")
    finally:
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
            proc.join()
        for reader in readers:
            reader.close()
