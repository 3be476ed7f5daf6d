"""docs/rules.md §13: the rent tax ramp (Classic 100 → 200) and its absence in Blitz."""

from __future__ import annotations

import pytest
from scenario_kit import cash, deck_with, find, make, setup


@pytest.mark.parametrize(("round_no", "percent"), [(1, 0), (99, 0), (100, 0), (101, 0.99), (150, 49.5),
                                                   (199, 98.01), (200, 99), (201, 99), (500, 99)])
def test_the_ramp_in_classic(round_no: int, percent: float) -> None:
    game = make("classic")
    game.round = round_no
    assert game.snapshot()["rent_tax_percent"] == percent


@pytest.mark.parametrize("round_no", [1, 25, 100, 150, 200])
def test_blitz_never_taxes(round_no: int) -> None:
    game = make("blitz")
    game.round = round_no
    assert game.snapshot()["rent_tax_percent"] == 0


@pytest.mark.parametrize(("round_no", "tax"), [(100, 0), (150, 247), (200, 495), (300, 495)])
def test_the_tenant_pays_in_full_and_the_owner_receives_the_rest(round_no: int, tax: int) -> None:
    game = make("classic", dice=[(1, 2)])
    game.round = round_no
    setup(game, 0, position=36)
    setup(game, 1, owns=[39])
    events = game.apply(0, {"type": "roll"})
    due = find(events, "rent_due")
    assert (due["amount"], due["tax"]) == (500, tax)
    assert game.snapshot()["debt"]["amount"] == 500
    events = game.apply(0, {"type": "pay"})
    assert find(events, "debt_paid")["creditors"] == [{"seat": 1, "amount": 500, "received": 500 - tax}]
    assert cash(game) == [14500, 15000 + 500 - tax]
    assert game.snapshot()["bank"]["rent_tax"] == tax


def test_blitz_rent_is_paid_in_full_in_its_last_round() -> None:
    game = make("blitz", dice=[(1, 2)])
    game.round = 25
    setup(game, 0, position=36)
    setup(game, 1, owns=[39])
    game.apply(0, {"type": "roll"})
    game.apply(0, {"type": "pay"})
    assert cash(game) == [14500, 15500]


def test_salary_and_landing_bonus_are_never_taxed() -> None:
    game = make("classic", dice=[(1, 2), (1, 2)])
    game.round = 250
    setup(game, 0, position=38)
    setup(game, 1, position=37)
    setup(game, 0, owns=[1])
    game.apply(0, {"type": "roll"})
    game.apply(1, {"type": "roll"})
    assert cash(game) == [17000, 18000]


def test_card_payments_are_never_taxed() -> None:
    game = make("classic", 3, dice=[(1, 2)], deck=deck_with("birthday"))
    game.round = 250
    setup(game, 0, position=4)
    game.apply(0, {"type": "roll"})
    game.apply(1, {"type": "pay"})
    game.apply(2, {"type": "pay"})
    assert cash(game) == [15400, 14800, 14800]


def test_rent_tax_applies_to_a_bankrupt_tenants_share() -> None:
    game = make("classic", 3, dice=[(1, 2)])
    game.round = 200
    setup(game, 0, position=36, cash=1000)
    setup(game, 1, levels={37: 1, 39: 1})
    game.apply(0, {"type": "roll"})  # 2000 owed, 1000 available
    events = game.apply(0, {"type": "declare_bankruptcy"})
    assert find(events, "player_out")["creditors"] == [{"seat": 1, "amount": 1000, "received": 10}]
    assert cash(game) == [0, 15010, 15000]
