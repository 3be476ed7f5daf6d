"""The field of outside strategies plays only legal actions, in every mode, and really differs.

They measure our bots; an opponent that broke the rules or played like another would measure nothing.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from opolyx.bots import derive_seed, make_bot, play_game
from opolyx.engine.game import Game
from opolyx.rules import mode_names
from opolyx.sim.field import STRATEGIES


@pytest.mark.parametrize("mode", mode_names())
def test_every_strategy_plays_legal_actions(mode: str) -> None:
    names = sorted(STRATEGIES)
    for k in range(0, len(names), 2):
        line = [names[k], names[(k + 1) % len(names)], "normal", names[(k + 2) % len(names)]]
        seed = derive_seed(5, mode, k)
        bots = [STRATEGIES[n](derive_seed(seed, s)) if n in STRATEGIES else None for s, n in enumerate(line)]
        players = [b if b is not None else make_bot("normal", seed) for b in bots]
        info = [{"name": n, "bot": True, "vip": True} for n in line]
        game = play_game(mode, 4, seed, line, bots=players, seat_info=info, check=True, rules={"round_limit": 40})
        assert game.result is not None


def test_the_strategies_behave_differently() -> None:
    """Purchases, auctions and trades per strategy over the same seeds: no two strategies alike."""
    counts: dict[str, Counter[str]] = {}
    for name, factory in STRATEGIES.items():
        c: Counter[str] = Counter()

        def tally(game: Game, events: list[dict[str, Any]], c: Counter[str] = c) -> None:
            for e in events:
                c[e["type"]] += 1

        for k in range(4):
            seed = derive_seed(9, k)
            play_game("classic", 4, seed, [name] * 4, bots=[factory(derive_seed(seed, s)) for s in range(4)],
                      on_events=tally, rules={"round_limit": 40})
        counts[name] = c
    profiles = {n: (c["company_bought"], c["auction_won"], c["trade_proposed"], c["built"], c["bail_paid"])
                for n, c in counts.items()}
    assert len(set(profiles.values())) == len(profiles), profiles
    assert counts["shark"]["company_bought"] == 0 < counts["shark"]["auction_won"]
    assert counts["trader"]["trade_proposed"] > 0 == counts["builder"]["trade_proposed"]
