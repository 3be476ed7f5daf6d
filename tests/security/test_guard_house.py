"""House rules from the side of a creator who would slip past the bounds (issue 46): a value one past an
edge, a parameter the mode keeps for itself, a rent tax that is full before it starts, a table that is no
object, a key that is no house rule, an unknown mode. Each is refused with its stable code and the field
at fault; the edges themselves are allowed. A house-rule table is what the engine then plays (and such a
room is never rated: server/play/rating_credit.py, tests/security/test_guard_ratings.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from opolyx.rules import house, load_rules, mode_names


def refused(mode: str, overrides: Any) -> house.HouseRuleError:
    with pytest.raises(house.HouseRuleError) as caught:
        house.check(mode, overrides)
    return caught.value


def test_each_edge_is_allowed_and_one_past_it_refused() -> None:
    for key in ("starting_cash", "round_limit", "turn_seconds", "missed_turns_forfeit"):
        b = house.bounds()[key]
        assert b.min is not None and b.max is not None
        for ok in (b.min, b.max):
            house.check("classic", {key: ok})  # no error
        for bad in (b.min - 1, b.max + 1):
            err = refused("classic", {key: bad})
            assert (err.code, err.field) == (house.OUT_OF_BOUNDS, key)
            assert f"(from {b.min} to {b.max})" in err.message


def test_a_switchable_parameter_says_it_can_be_off_and_a_switch_says_no_bounds() -> None:
    err = refused("classic", {"mortgage_expiry_rounds": 51})
    assert err.message.endswith("(from 3 to 50 or null (off))")
    err = refused("classic", {"even_building": "yes"})
    assert (err.code, err.field) == (house.OUT_OF_BOUNDS, "even_building") and "(from" not in err.message
    # Switched off (None) is a value it may take; a parameter that cannot be off may not.
    assert house.check("classic", {"mortgage_expiry_rounds": None}) in ({}, {"mortgage_expiry_rounds": None})
    assert refused("classic", {"salary": None}).code == house.OUT_OF_BOUNDS


def test_unknown_keys_and_non_objects_are_refused_by_name() -> None:
    err = refused("classic", {"salary": 200, "free_money": 1})
    assert (err.code, err.field, err.message) == (house.UNKNOWN, "free_money", "free_money is not a house rule")
    # Several faults: the first is named (a parameter's, before the unknown key's).
    err = refused("classic", {"free_money": 1, "salary": "x"})
    assert (err.code, err.field) == (house.OUT_OF_BOUNDS, "salary")
    for bad in (["salary", 200], "salary=200", 5):
        err = refused("classic", bad)
        assert err.code == house.OUT_OF_BOUNDS and err.field is None
    err = refused("checkers", {"salary": 200})
    assert err.code == house.UNKNOWN_MODE
    with pytest.raises(house.HouseRuleError):
        house.check("checkers", None)  # the mode is checked even without changes


def test_a_rule_the_mode_keeps_is_refused_even_at_its_own_value() -> None:
    halal = house.defaults("halal")
    assert "jackpot" not in halal and "redemption_percent" not in halal
    err = refused("halal", {"redemption_percent": 100})
    assert (err.code, err.field) == (house.NOT_IN_MODE, "redemption_percent")
    # Classic may change it.
    assert house.check("classic", {"redemption_percent": 120}) == {"redemption_percent": 120}


def test_the_rent_tax_needs_both_ends_and_must_start_before_it_is_full() -> None:
    for overrides, field in (
        ({"rent_tax_start": 50, "rent_tax_full": 50}, "rent_tax_full"),
        ({"rent_tax_start": 80, "rent_tax_full": 60}, "rent_tax_full"),
        ({"rent_tax_start": None}, "rent_tax_start"),
        ({"rent_tax_full": None}, "rent_tax_start"),
    ):
        err = refused("classic", overrides)
        assert (err.code, err.field) == (house.INCONSISTENT, field), overrides
    assert house.check("classic", {"rent_tax_start": 49, "rent_tax_full": 50}) == {
        "rent_tax_full": 50,
        "rent_tax_start": 49,
    }
    assert house.check("classic", {"rent_tax_start": None, "rent_tax_full": None}) == {
        "rent_tax_full": None,
        "rent_tax_start": None,
    }


def test_nothing_is_a_house_rule_table_that_changes_nothing() -> None:
    assert house.check("classic", None) == {} and house.check("classic", {}) == {}
    same = house.defaults("classic")
    assert house.check("classic", same) == {}
    assert house.engine_options(None) == {} and house.engine_options({}) == {}
    assert house.changes("classic", same) == [] and house.changes("classic", None) == []


def test_the_jackpot_switch_is_the_corner_the_engine_plays() -> None:
    assert house.rule_changes({"jackpot": False, "salary": 300}) == {"corner_20": "rest_area", "salary": 300}
    assert house.rule_changes({"jackpot": True}) == {"corner_20": "jackpot"}
    assert house.engine_options({"jackpot": False}) == {"rules": {"corner_20": "rest_area"}}
    standard = load_rules("classic")
    table = house.house_table("classic", {"salary": 300, "jackpot": standard.corner_20 != "jackpot"})
    assert table.salary == 300 and table.corner_20 != standard.corner_20
    assert house.defaults("classic")["jackpot"] == (standard.corner_20 == "jackpot")


def test_the_catalogue_lists_every_bound_in_the_editor_s_order() -> None:
    cat = house.catalogue()
    assert list(cat["parameters"]) == list(house.bounds())
    assert cat["parameters"]["mortgage_expiry_rounds"] == {
        "kind": "int",
        "min": 3,
        "max": 50,
        "step": 1,
        "nullable": True,
        "modes": None,
    }
    assert cat["parameters"]["jackpot"]["modes"] == ["classic", "blitz", "speed", "team"]
    assert cat["parameters"]["jackpot"]["nullable"] is False
    assert cat["parameters"]["starting_cash"]["step"] == 500
    assert set(cat["defaults"]) == set(mode_names())
    assert "jackpot_stake" not in cat["defaults"]["fortuna"] and "jackpot_stake" in cat["defaults"]["classic"]
    assert not house.bounds()["jackpot"].applies_to("halal") and house.bounds()["salary"].applies_to("halal")


def test_changes_list_each_real_change_with_its_default_in_order() -> None:
    listed = house.changes("classic", {"turn_seconds": 90, "starting_cash": 20000, "salary": 200})
    default = load_rules("classic")
    expected = [{"key": "starting_cash", "default": default.starting_cash, "value": 20000}]
    if default.salary != 200:
        expected.append({"key": "salary", "default": default.salary, "value": 200})
    if default.turn_seconds != 90:
        expected.append({"key": "turn_seconds", "default": default.turn_seconds, "value": 90})
    assert listed == expected


def test_nothing_can_widen_a_bound_once_read() -> None:
    """The bounds are read once and shared by every check: none can be changed in place."""
    salary = house.bounds()["salary"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        salary.max = 10**9  # type: ignore[misc]
    # A bound the data file gives no step or switch for moves by one and cannot be off.
    plain = house.Bound("x", "int")
    assert (plain.step, plain.nullable, plain.modes, plain.min, plain.max) == (1, False, None, None, None)
    assert house.catalogue()["parameters"]["even_building"]["step"] == 1
