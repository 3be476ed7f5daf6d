"""Reporting only some event types (``Game.reported``, docs/engine.md "Fast path"): the game plays exactly the
same, and the events reported are exactly those of a fully reported game of those types, in the same order.
The simulator and the hard bot's look-ahead rely on it to skip building events nobody reads."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

import opolyx
from opolyx import Game
from opolyx.bots import EventSink, play_game
from opolyx.rules import mode_names
from opolyx.sim.runner import SimConfig, run_one
from opolyx.sim.stats import COUNTED, GameCollector, game_record

SEATS = {"team": 4}
#: Types a bot game reports most often, and some it reports rarely: a subset to restrict to.
SOME = frozenset({"dice_rolled", "debt_paid", "built", "trade_declined", "auction_won", "game_over"})


def _bot_game(mode: str, seed: int, types: frozenset[str] | None) -> tuple[Game, list[list[dict[str, object]]]]:
    log: list[list[dict[str, object]]] = []
    game = play_game(mode, 4, seed, ["normal", "easy", "normal", "normal"],
                     on_events=lambda _g, events: log.append(list(events)), event_types=types)
    return game, log


def _only(log: list[list[dict[str, object]]], types: frozenset[str]) -> list[list[dict[str, object]]]:
    return [[e for e in events if e["type"] in types] for events in log]


def test_a_bot_game_reporting_some_types_is_the_same_game_with_those_events_alone() -> None:
    for mode in mode_names():
        full_game, full = _bot_game(mode, 11, None)
        for types in (SOME, COUNTED, frozenset()):
            game, log = _bot_game(mode, 11, types)
            assert game.actions == full_game.actions, mode
            assert game.result == full_game.result, mode
            assert game.snapshot() == full_game.snapshot(), mode
            assert log == _only(full, types), (mode, sorted(types))
        # Every type was reported in full, and the restricted games left some out.
        assert any(e["type"] not in COUNTED for events in full for e in events)


@settings(max_examples=25, deadline=None)
@given(mode=st.sampled_from(mode_names()), seed=st.integers(0, 2**31), kept=st.integers(0, 2**40))
def test_random_legal_play_reports_exactly_the_chosen_types(mode: str, seed: int, kept: int) -> None:
    seats = SEATS.get(mode, 3)
    full = opolyx.new_game(mode, seats, seed)
    part = opolyx.new_game(mode, seats, seed)
    rng = random.Random(seed)
    seen: list[str] = []
    types: frozenset[str] = frozenset()
    for step in range(300):
        if full.is_over:
            break
        seat = full.actor()
        assert seat is not None
        legal = [a for a in full.legal_actions(seat) if a["type"] != "resign"]
        action = rng.choice(legal)
        if action["type"] == "propose_trade":
            continue  # a template, not an action
        events = full.apply(seat, action)
        for e in events:
            if e["type"] not in seen:
                seen.append(e["type"])
        # The reported types change as play goes on: each type seen so far, kept by one bit of ``kept``.
        types = frozenset(t for k, t in enumerate(seen) if kept >> (k + step // 50) % 41 & 1)
        part.reported = types
        assert part.apply(seat, action) == [e for e in events if e["type"] in types]
    assert json.dumps(part.snapshot(), sort_keys=True) == json.dumps(full.snapshot(), sort_keys=True)


def test_a_copy_reports_what_its_game_reports() -> None:
    game = opolyx.new_game("classic", 2, 5)
    assert game.reported is None  # every event, unless a caller asks otherwise
    game.reported = frozenset({"dice_rolled"})
    copy = game.copy()
    assert copy.reported == frozenset({"dice_rolled"})
    events = copy.apply(copy.actor(), {"type": "roll"})
    assert [e["type"] for e in events] == ["dice_rolled"]


def test_the_simulator_counts_what_a_fully_reported_game_shows() -> None:
    """``opolyx simulate`` has the engine build only the events its counters read: its records are those a
    collector given every event makes."""
    for mode in ("classic", "speed", "team"):
        config = SimConfig(mode, 4, ("normal", "easy", "normal", "easy"), games=2, seed=3)
        for index in range(config.games):
            record = run_one(config, index)
            collector = GameCollector(opolyx.new_game(mode, 4, 0).board)
            game = play_game(mode, 4, record["seed"], record["strengths"],
                             seat_info=[{"name": f"{s} {k + 1}", "bot": True, "vip": config.vip}
                                        for k, s in enumerate(record["strengths"])],
                             on_events=collector)
            assert game_record(game, collector, index, record["seed"], record["strengths"]) == record


class _Log(EventSink):
    def __init__(self) -> None:
        self.log: list[list[dict[str, object]]] = []

    def take(self, game: Game, events: list[dict[str, object]]) -> None:
        self.log.append(list(events))


def test_an_event_sink_sees_what_a_plain_callback_sees() -> None:
    """The loop calls an :class:`EventSink` (the simulator's counters) by its method, any other callable as
    a callable: both see the start events, then each action's, in the same order."""
    for types in (None, COUNTED):
        plain: list[list[dict[str, object]]] = []
        sink = _Log()
        game = play_game("team", 4, 3, ["normal", "easy", "normal", "easy"],
                         on_events=lambda _g, events, log=plain: log.append(list(events)), event_types=types)
        again = play_game("team", 4, 3, ["normal", "easy", "normal", "easy"], on_events=sink, event_types=types)
        assert sink.log == plain and len(plain) == game.seq + 1
        assert again.actions == game.actions
    # Called as a plain callable, a sink takes the events too.
    sink = _Log()
    sink(game, [{"type": "turn_started"}])
    assert sink.log == [[{"type": "turn_started"}]]
