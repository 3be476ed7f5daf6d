"""Thousands of bot games per mode without one illegal action, and the loop's own guarantees.

The engine refuses any illegal action with ``IllegalAction`` before changing anything, so a game that
runs to its end was played legally; the ``check=True`` games additionally match every action against
``legal_actions`` (trade proposals against the template and the fairness rule). Short games (a round
limit of 25) keep the count high and the suite fast; fewer full games cover the late game.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from opolyx.bots import NothingToDo, derive_seed, make_bot, play_game
from opolyx.engine.game import Game
from opolyx.rules import mode_names

MODES = mode_names()
SHORT_CHUNKS = 18  # × SHORT_GAMES games per mode: 2016 short games per mode
SHORT_GAMES = 112


def seat_counts(mode: str) -> tuple[int, ...]:
    return (4, 6) if mode == "team" else (2, 3, 4, 5, 6)


def line_up(k: int, seats: int, pool: tuple[str, ...] = ("easy", "normal")) -> list[str]:
    return [pool[(k + s) % len(pool)] for s in range(seats)]


def vip_info(seats: int) -> list[dict[str, Any]]:
    return [{"bot": True, "vip": s % 2 == 0} for s in range(seats)]


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(SHORT_CHUNKS))
@pytest.mark.parametrize("mode", MODES)
def test_many_short_games_are_legal(mode: str, chunk: int) -> None:
    counts = seat_counts(mode)
    reasons: Counter[str] = Counter()
    for k in range(SHORT_GAMES):
        n = chunk * SHORT_GAMES + k
        seats = counts[n % len(counts)]
        game = play_game(mode, seats, derive_seed(2024, mode, n), line_up(n, seats), seat_info=vip_info(seats),
                         rules={"round_limit": 25})
        assert game.result is not None
        reasons[game.result["reason"]] += 1
    assert sum(reasons.values()) == SHORT_GAMES


@pytest.mark.parametrize("mode", MODES)
def test_full_games_match_legal_actions(mode: str) -> None:
    counts = seat_counts(mode)
    for k in range(12):
        seats = counts[k % len(counts)]
        game = play_game(mode, seats, derive_seed(7, mode, k), line_up(k, seats), seat_info=vip_info(seats),
                         check=True)
        assert game.result is not None
        assert game.result["reason"] in ("last_player", "last_team", "round_limit")


@pytest.mark.parametrize("mode", MODES)
def test_hard_bot_plays_legally(mode: str) -> None:
    seats = 4
    for k in range(2):
        strengths = line_up(k, seats, ("hard", "normal", "easy"))
        game = play_game(mode, seats, derive_seed(11, mode, k), strengths, seat_info=vip_info(seats), check=True,
                         rules={"round_limit": 30})
        assert game.result is not None


def test_games_are_reproducible_and_ignore_global_random() -> None:
    strengths = ["hard", "normal", "easy", "normal"]
    random.seed(1)
    a = play_game("blitz", 4, 5, strengths)
    random.seed(999)
    random.random()
    b = play_game("blitz", 4, 5, strengths)
    assert a.actions == b.actions
    assert a.result == b.result


class TradeWatch:
    """Fails the game at once if a seat proposes twice in a turn or repeats a declined proposal."""

    def __init__(self) -> None:
        self.turn = 0
        self.per_turn: Counter[tuple[int, int]] = Counter()
        self.proposals: dict[int, tuple[Any, ...]] = {}
        self.declined: set[tuple[Any, ...]] = set()

    def __call__(self, game: Game, events: list[dict[str, Any]]) -> None:
        for e in events:
            if e["type"] == "turn_started":
                self.turn += 1
            elif e["type"] == "trade_proposed":
                key = (e["from"], e["to"], repr(e["give"]), repr(e["take"]))
                assert key not in self.declined, f"declined proposal repeated: {key}"
                self.per_turn[(e["from"], self.turn)] += 1
                assert self.per_turn[(e["from"], self.turn)] <= 1, "more than one proposal in a turn"
                self.proposals[e["id"]] = key
            elif e["type"] == "trade_declined":
                self.declined.add(self.proposals[e["trade"]])


def test_no_trade_spam() -> None:
    proposed = 0
    for mode in ("classic", "team", "halal"):
        for k in range(10):
            watch = TradeWatch()
            play_game(mode, 4, derive_seed(3, mode, k), line_up(k, 4), on_events=watch)
            proposed += len(watch.proposals)
    assert proposed > 0  # the bots do trade


def test_unknown_strength() -> None:
    with pytest.raises(ValueError, match="unknown bot strength"):
        make_bot("grandmaster", 1)


def test_asking_out_of_turn_is_an_error() -> None:
    import opolyx

    game = opolyx.new_game("classic", 3, 1)
    bot = make_bot("normal", 1)
    idle = next(s for s in range(3) if s != game.actor())
    with pytest.raises(NothingToDo):
        bot.choose(game, idle)
    assert bot.choose(game, game.actor() or 0) in game.legal_actions(game.actor() or 0)
