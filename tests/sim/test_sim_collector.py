"""``opolyx simulate`` sets the garbage collector up for a run of bot games (``quiet_collector``) and, run in
a process that goes on afterwards (the server's operator tools, a notebook, the tests), puts it back."""

from __future__ import annotations

import gc

from opolyx.sim import SimConfig
from opolyx.sim.runner import YOUNG_THRESHOLD, iter_records

CONFIG = SimConfig(mode="classic", seats=2, bots=("easy", "easy"), games=2, seed=5)


def test_a_simulation_leaves_the_collector_as_it_found_it() -> None:
    before = gc.get_threshold()
    frozen = gc.get_freeze_count()
    seen = [gc.get_threshold() for _record in iter_records(CONFIG)]
    assert len(seen) == 2 and all(t[0] == YOUNG_THRESHOLD for t in seen)  # the games ran with the quiet collector
    assert gc.get_threshold() == before
    # Nothing it froze stays frozen. The count may fall a little: objects frozen before (by an earlier test's
    # server, in the same process) can be freed meanwhile, such as the bots' last tables, which the first game
    # replaces. What was frozen before stays frozen: the next test.
    assert gc.get_freeze_count() <= frozen


def test_what_a_process_froze_itself_stays_frozen() -> None:
    """The server freezes what it loaded at start; a simulation run inside it must not thaw that."""
    marker: list[object] = []
    gc.freeze()
    try:
        for _record in iter_records(CONFIG):
            pass
        # Frozen objects are in no generation, so ``get_objects`` does not list them.
        assert not any(o is marker for o in gc.get_objects())
    finally:
        gc.unfreeze()
    assert any(o is marker for o in gc.get_objects())
