"""The worker processes behind ``opolyx simulate --workers N``: results come back in order whatever each game
costs, a failing or dying worker stops the run with a clear error instead of hanging it, and a caller that
stops reading leaves no worker running."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
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


CTRL_C = """
import signal
import sys

# A command started in the background (``nohup … &``, as some CI runners launch the suite) inherits SIGINT
# ignored, and Python then installs no Ctrl-C handler: put back the one an interactive start gets.
signal.signal(signal.SIGINT, signal.default_int_handler)
from opolyx.cli import app
sys.argv = ["opolyx", "simulate", "--mode", "classic", "--seats", "4", "--bots", "normal", "--games", "100000",
            "--workers", "2"]
app()
"""


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="Ctrl-C is sent to a process group here")
@pytest.mark.parametrize("launched", ["in the foreground", "with SIGINT ignored"])
def test_ctrl_c_stops_a_run_with_workers_quietly(launched: str) -> None:
    """Ctrl-C reaches the command and its workers together: the run stops at once, with no traceback from any
    worker, and none is left playing; also when the suite itself was started with SIGINT ignored."""
    ignored = _ignore_sigint if launched == "with SIGINT ignored" else None
    proc = subprocess.Popen([sys.executable, "-c", CTRL_C], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=ignored)
    try:
        assert proc.stderr is not None
        seen = ""
        while "game/s" not in seen:  # the progress bar: games are being played
            char = proc.stderr.read(1)
            assert char, "the command ended before playing"
            seen += char
        os.killpg(proc.pid, signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130
    assert "Traceback" not in err
    time.sleep(0.5)
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)  # the group is empty: no worker survived


def as_text(i: int) -> str:
    return f"game {i}"


def test_results_of_any_type_come_back_as_they_are() -> None:
    assert list(play_shared(CTX, 2, as_text, 9, 2)) == [f"game {i}" for i in range(9)]
