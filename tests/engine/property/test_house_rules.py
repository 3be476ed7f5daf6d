"""House rules (docs/rules.md "House rules"): every table within the documented bounds plays legal games
that replay exactly; every value outside them is refused with a stable code.

Hypothesis draws a mode and a set of overrides from the bounds in ``rules/data/house_rules.json``; random
legal play (``randplay``, with its money, ownership and liveness checks after every action) and bot games
checked against ``legal_actions`` then run on the resulting table.
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
from opolyx import Game
from opolyx.bots import derive_seed, play_game
from opolyx.rules import house, load_rules, mode_names

MODES = tuple(mode_names())
BOUNDS = house.bounds()


def _value(b: house.Bound) -> st.SearchStrategy[Any]:
    if b.kind == "bool":
        return st.booleans()
    assert b.min is not None and b.max is not None
    values: st.SearchStrategy[Any] = st.integers(b.min, b.max)
    return st.one_of(st.none(), values) if b.nullable else values


@st.composite
def house_tables(draw: st.DrawFn, *, max_round_limit: int | None = None) -> tuple[str, dict[str, Any]]:
    """A mode and in-bounds overrides for it (a rent tax that starts before it is full, or none)."""
    mode = draw(st.sampled_from(MODES))
    keys = [k for k, b in BOUNDS.items() if b.applies_to(mode)]
    chosen = draw(st.lists(st.sampled_from(keys), unique=True, max_size=len(keys)))
    out = {k: draw(_value(BOUNDS[k])) for k in chosen if not k.startswith("rent_tax")}
    if draw(st.booleans()):
        if draw(st.booleans()):
            out["rent_tax_start"] = out["rent_tax_full"] = None
        else:
            start = draw(st.integers(BOUNDS["rent_tax_start"].min or 1, BOUNDS["rent_tax_start"].max or 999))
            out["rent_tax_start"] = start
            out["rent_tax_full"] = draw(st.integers(start + 1, BOUNDS["rent_tax_full"].max or 1000))
    if max_round_limit is not None:
        out["round_limit"] = draw(st.integers(BOUNDS["round_limit"].min or 10, max_round_limit))
    return mode, out


def seats_for(mode: str, k: int) -> int:
    return rp.seat_choices(mode)[k % len(rp.seat_choices(mode))]


def test_every_mode_default_is_inside_the_bounds() -> None:
    """A mode's own table is a valid house-rule table (and changes nothing)."""
    for mode in MODES:
        assert house.check(mode, house.defaults(mode)) == {}
        assert house.house_table(mode, house.defaults(mode)) == load_rules(mode)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=house_tables(), seed=st.integers(0, 2**62), k=st.integers(0, 5))
def test_in_bound_tables_play_legal_games_that_replay(table: tuple[str, dict[str, Any]], seed: int, k: int) -> None:
    mode, overrides = table
    changes = house.rule_changes(house.check(mode, overrides))
    game = opolyx.new_game(mode, seats_for(mode, k), seed, rules=changes or None)
    assert game.rules == house.house_table(mode, overrides)
    for key, value in house.check(mode, overrides).items():
        assert house.changes(mode, {key: value}) == [{"key": key, "default": house.defaults(mode)[key], "value": value}]
    rp.play(game, random.Random(seed), 400, heavy=False)
    saved = json.loads(json.dumps(game.to_save()))
    assert saved["rules"] == (changes or None), "the overrides are part of the recorded setup"
    assert rp.dump(Game.from_save(saved)) == rp.dump(game), "a saved house-rule game restores exactly"


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=house_tables(max_round_limit=20), seed=st.integers(0, 2**62), k=st.integers(0, 5))
def test_in_bound_tables_play_bot_games_to_their_end(table: tuple[str, dict[str, Any]], seed: int, k: int) -> None:
    """Bots play whole games on the variant, every action matched against ``legal_actions``."""
    mode, overrides = table
    changes = house.rule_changes(house.check(mode, overrides))
    seats = seats_for(mode, k)
    line_up = [("normal", "easy")[s % 2] for s in range(seats)]
    game = play_game(mode, seats, derive_seed(seed, "house"), line_up, rules=changes, check=True)
    assert game.result is not None
    assert game.result["round"] <= game.rules.round_limit


@settings(max_examples=60, deadline=None)
@given(mode=st.sampled_from(MODES), key=st.sampled_from([k for k, b in BOUNDS.items() if b.kind == "int"]),
       data=st.data())
def test_out_of_bound_values_are_refused_with_a_code(mode: str, key: str, data: st.DataObject) -> None:
    b = BOUNDS[key]
    assert b.min is not None and b.max is not None
    bad = data.draw(st.one_of(st.integers(max_value=b.min - 1), st.integers(min_value=b.max + 1),
                              st.floats(),  # strict: no float is an int, not even 2000.0
                              st.text(max_size=4), st.just(True)))
    overrides = {key: bad}
    with pytest.raises(house.HouseRuleError) as caught:
        house.check(mode, overrides)
    assert caught.value.code in (house.OUT_OF_BOUNDS, house.NOT_IN_MODE)
    assert caught.value.field == key
    assert overrides == {key: bad}, "the refused table is left as it was"


@pytest.mark.parametrize("overrides, code", [
    ({"free_parking": True}, house.UNKNOWN),
    ({"board": "fortuna"}, house.UNKNOWN),
    ({"teams": True}, house.UNKNOWN),
    ({"salary": None}, house.OUT_OF_BOUNDS),
    ({"even_building": 1}, house.OUT_OF_BOUNDS),
    ({"rent_tax_start": 150, "rent_tax_full": 120}, house.INCONSISTENT),
    ({"rent_tax_start": None}, house.INCONSISTENT),
])
def test_malformed_tables_are_refused(overrides: dict[str, Any], code: str) -> None:
    with pytest.raises(house.HouseRuleError) as caught:
        house.check("classic", overrides)
    assert caught.value.code == code


def test_rules_a_mode_keeps_for_itself_cannot_be_changed() -> None:
    """Halal has no gambling and redeems at exactly the value; Fortuna's corner is the temple."""
    for mode, overrides in (("halal", {"jackpot": True}), ("halal", {"redemption_percent": 110}),
                            ("fortuna", {"jackpot": True}), ("fortuna", {"jackpot_stake": 500})):
        with pytest.raises(house.HouseRuleError) as caught:
            house.check(mode, overrides)
        assert caught.value.code == house.NOT_IN_MODE


def test_only_real_changes_are_kept_and_listed() -> None:
    kept = house.check("speed", {"turn_seconds": 45, "starting_cash": 20000, "jackpot": True, "jackpot_stake": 1000})
    assert kept == {"starting_cash": 20000}
    assert house.changes("speed", kept) == [{"key": "starting_cash", "default": 15000, "value": 20000}]
    off = house.check("classic", {"jackpot": False, "rent_tax_start": None, "rent_tax_full": None})
    table = house.house_table("classic", off)
    assert table.corner_20 == "rest_area" and table.rent_tax_percent_x100(400) == 0
