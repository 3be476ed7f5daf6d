"""Property-based tests over all six modes: long random legal games (docs/rules.md throughout).

Hypothesis draws the seed, the mode and the table; a ``random.Random(seed)`` then picks among
``legal_actions`` (plus timeouts, trade answers and resignations). After every action the checks of
``randplay.check_invariants`` hold: money is conserved, ownership and buildings are consistent, no cash
goes negative outside a pay step, the game can always go on and the snapshot keeps its secrets.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import randplay as rp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opolyx
from opolyx import Game, IllegalAction
from opolyx.rules import CARD_BONUS_PERCENT, load_board

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
COMPANIES = list(load_board("classic").companies)
RARITIES = sorted(CARD_BONUS_PERCENT)


@st.composite
def tables(draw: st.DrawFn, mode: str | None = None) -> dict[str, Any]:
    """A mode, a seat count, a seed and the optional setup (VIP seats, collectible cards, first player)."""
    mode = mode or draw(st.sampled_from(rp.MODES))
    seats = draw(st.sampled_from(rp.seat_choices(mode)))
    setup: dict[str, Any] = {}
    if draw(st.booleans()):
        setup["seat_info"] = [
            {
                "name": f"P{s}",
                "vip": draw(st.booleans()),
                "bot": draw(st.booleans()),
                "cards": draw(st.dictionaries(st.sampled_from(COMPANIES).map(str), st.sampled_from(RARITIES),
                                              max_size=3)),
            }
            for s in range(seats)
        ]
    if draw(st.booleans()):
        setup["first_player"] = draw(st.integers(0, seats - 1))
    return {"mode": mode, "seats": seats, "seed": draw(SEEDS), "setup": setup}


def start(table: dict[str, Any]) -> Game:
    return opolyx.new_game(table["mode"], table["seats"], table["seed"], **table["setup"])


def replay_of(game: Game) -> Game:
    setup = {k: v for k, v in game.setup.items() if k not in ("mode", "seats", "seed")}
    return opolyx.replay(game.setup["seed"], game.setup["mode"], game.setup["seats"], game.actions, **setup)


def assert_replays(game: Game) -> None:
    snap = rp.dump(game)
    assert rp.dump(replay_of(game)) == snap, "replay differs"
    saved = json.loads(json.dumps(game.to_save()))
    restored = Game.from_save(saved)
    assert rp.dump(restored) == snap, "save round trip differs"
    assert restored.actions == game.actions
    assert "seed" not in json.loads(snap)


@pytest.mark.parametrize("mode", rp.MODES)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_action_keeps_the_invariants(mode: str, data: st.DataObject) -> None:
    """The full set of checks, including every listed action on a copy and random illegal probes."""
    table = data.draw(tables(mode))
    game = start(table)
    rng = random.Random(table["seed"])
    rp.play(game, rng, 220, heavy=True)
    assert_replays(game)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables())
def test_long_games_replay_byte_for_byte(table: dict[str, Any]) -> None:
    """Long games (the checks after every action, without the probes) replay and restore exactly."""
    game = start(table)
    rng = random.Random(table["seed"])
    rp.play(game, rng, 1500, heavy=False)
    assert_replays(game)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), limit=st.integers(min_value=1, max_value=12))
def test_games_run_to_their_end(table: dict[str, Any], limit: int) -> None:
    """With a short round limit every game ends, by the limit or by the last player/team standing."""
    table["setup"]["rules"] = {"round_limit": limit}
    game = start(table)
    rng = random.Random(table["seed"])
    rp.play(game, rng, 5000, heavy=False)
    snap = game.snapshot()
    assert snap["over"], "a game with a short round limit did not end"
    result = snap["result"]
    assert result["round"] <= limit
    places = result["placements"]
    assert sorted(p["seat"] for p in places) == list(range(table["seats"]))
    players = snap["players"]
    if snap["rules"]["teams"]:
        winners = [p for p in places if p["place"] == 1]
        assert {players[p["seat"]]["team"] for p in winners} == {result["winning_team"]}
        assert {p["place"] for p in places} == {1, 2}
    else:
        assert [p["place"] for p in places] == list(range(1, table["seats"] + 1))
        assert places[0]["seat"] == result["winner"]
        alive = [p for p in places if not p["out"]]
        assert places[: len(alive)] == alive, "eliminated players rank below survivors"
        worths = [p["net_worth"] for p in alive]
        assert worths == sorted(worths, reverse=True)
    with pytest.raises(IllegalAction):
        game.apply(result["winner"], {"type": "roll"})
    assert_replays(game)


_JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 45), st.integers(), st.floats(allow_nan=False),
    st.text(max_size=5), st.lists(st.integers(-1, 7), max_size=4),
    st.dictionaries(st.sampled_from(["cash", "squares"]), st.one_of(st.integers(-10, 10**6),
                                                                    st.lists(st.integers(0, 39), max_size=3))),
)
_ACTIONS = st.one_of(
    st.fixed_dictionaries(
        {"type": st.sampled_from([*rp.ACTION_TYPES[:-3], "", "END", "Roll"])},
        optional={k: _JUNK for k in ("square", "amount", "use", "numbers", "trade", "to", "give", "take", "seat",
                                     "clock")},
    ),
    _JUNK,
)
_SEATS = st.one_of(st.integers(-1, 6), st.none(), st.sampled_from(["0", True, 1.0]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), steps=st.integers(0, 120), probes=st.lists(st.tuples(_SEATS, _ACTIONS), min_size=1,
                                                                   max_size=8))
def test_refused_actions_change_nothing(table: dict[str, Any], steps: int, probes: list[Any]) -> None:
    """Arbitrary actions from arbitrary seats: either the game lists them as legal, or they raise
    ``IllegalAction`` and leave the snapshot byte-for-byte unchanged."""
    game = start(table)
    rng = random.Random(table["seed"])
    rp.play(game, rng, steps, heavy=False)
    for seat, action in probes:
        if rp.might_be_legal(game, seat, action):
            continue
        before = rp.dump(game)
        with pytest.raises(IllegalAction):
            game.apply(seat, action)
        assert rp.dump(game) == before


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), steps=st.integers(0, 300))
def test_copies_play_on_like_the_original(table: dict[str, Any], steps: int) -> None:
    """A copy is independent yet identical: the same next actions give the same snapshots."""
    game = start(table)
    rng = random.Random(table["seed"])
    rp.play(game, rng, steps, heavy=False)
    twin = game.copy()
    assert rp.dump(twin) == rp.dump(game)
    rng_a, rng_b = random.Random(steps), random.Random(steps)
    for _ in range(30):
        move = rp.next_move(rng_a, game)
        if move is None:
            break
        assert rp.next_move(rng_b, twin) == move
        try:
            events = game.apply(*move)
        except IllegalAction as exc:
            with pytest.raises(IllegalAction) as err:
                twin.apply(*move)
            assert err.value.code == exc.code
            continue
        assert twin.apply(*move) == events
        assert rp.dump(twin) == rp.dump(game)
