"""The worker processes behind ``opolyx simulate --workers N``: results come back in order whatever each game
costs, a failing or dying worker stops the run with a clear error instead of hanging it, and a caller that
stops reading leaves no worker running."""

from __future__ import annotations

import multiprocessing
import os
import time

import pytest

from opolyx.sim.shares import WorkerFailed, play_shared

CTX = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")


def uneven(i: int) -> tuple[int, int]:
    """Every seventh task is slow, so chunks finish out of order."""
    if i % 7 == 0:
        time.sleep(0.01)
    return i, os.getpid()


def fails_at_five(i: int) -> int:
    if i == 5:
        raise ValueError("no game five")
    return i


def dies_at_five(i: int) -> int:
    if i == 5:
        os._exit(1)
    return i


def slow(i: int) -> int:
    time.sleep(0.05)
    return i


def test_results_come_back_in_order_from_every_worker() -> None:
    out = list(play_shared(CTX, 2, uneven, 60, 3))
    assert [i for i, _pid in out] == list(range(60))
    assert len({pid for _i, pid in out}) == 2  # both workers played
    assert os.getpid() not in {pid for _i, pid in out}


def test_a_worker_error_stops_the_run_with_its_traceback() -> None:
    with pytest.raises(WorkerFailed, match="no game five"):
        list(play_shared(CTX, 2, fails_at_five, 20, 2))


def test_a_worker_that_dies_stops_the_run_instead_of_hanging_it() -> None:
    with pytest.raises(WorkerFailed, match="ended without sending"):
        list(play_shared(CTX, 2, dies_at_five, 20, 2))


def test_closing_early_stops_the_workers() -> None:
    results = play_shared(CTX, 2, slow, 1000, 1)
    assert next(results) == 0
    children = multiprocessing.active_children()
    assert children
    results.close()
    assert not any(p.is_alive() for p in children)
