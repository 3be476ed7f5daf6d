"""Strength: in a rotated hard/normal/easy/easy tournament the stronger bot wins more often.

Seeds are fixed and the hard bot counts its look-ahead in engine steps, so the outcome is exactly
reproducible; the margins (see the report in the issue and ``opolyx simulate``) are wide enough that
the ordering is not an accident of these seeds.
"""

from __future__ import annotations

import pytest

from opolyx.sim import SimConfig, simulate


@pytest.mark.slow
def test_hard_beats_normal_beats_easy() -> None:
    data = simulate(SimConfig(mode="classic", seats=4, bots=("hard", "normal", "easy", "easy"), games=240,
                              seed=2024, hard_ms=10))
    rate = {bot: v["rate"] for bot, v in data["win_rate_by_bot"].items()}
    assert rate["hard"] > rate["normal"] > rate["easy"], rate
    # Normal beats easy beyond doubt; hard vs normal is the closer call.
    assert data["win_rate_by_bot"]["normal"]["ci95"][0] > data["win_rate_by_bot"]["easy"]["ci95"][1]
