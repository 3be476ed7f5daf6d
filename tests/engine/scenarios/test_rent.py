"""docs/rules.md §§3 and 6: rent by level, group, dealerships, utilities, mortgages and collectible cards."""

from __future__ import annotations

import pytest
from scenario_kit import cash, find, kinds, make, setup

from opolyx.rules import load_board

BOARD = load_board("classic")


def land(mode: str, target: int, *, dice: tuple[int, int] = (1, 2), seat_info: list | None = None):  # type: ignore[type-arg]
    """Seat 0 rolls ``dice`` onto ``target``; returns the game (not yet rolled) for more set-up."""
    game = make(mode, dice=[dice], seat_info=seat_info)
    setup(game, 0, position=(target - sum(dice)) % 40)
    return game


def rent_of(game, roll_seat: int = 0) -> int:  # type: ignore[no-untyped-def]
    events = game.apply(roll_seat, {"type": "roll"})
    due = find(events, "rent_due")
    snap = game.snapshot()
    assert snap["phase"] == "pay"
    assert snap["debt"]["amount"] == due["amount"]
    assert snap["debt"]["reason"] == "rent" and snap["debt"]["square"] == due["square"]
    return int(due["amount"])


def test_rent_waits_for_the_pay_step(mode: str) -> None:
    game = land(mode, 3)
    setup(game, 1, owns=[3])
    assert rent_of(game) == 40
    snap = game.snapshot()
    assert snap["debt"]["creditors"] == [{"seat": 1, "amount": 40}]
    assert cash(game) == [15000, 15000]  # nothing deducted before "pay"
    assert game.legal_actions(0)[0] == {"type": "pay"}
    events = game.apply(0, {"type": "pay"})
    paid = find(events, "debt_paid")
    assert paid["creditors"] == [{"seat": 1, "amount": 40, "received": 40}]
    assert cash(game) == [14960, 15040]
    assert game.snapshot()["turn"] == 1


@pytest.mark.parametrize("level", [0, 1, 2, 3, 4, 5])
@pytest.mark.parametrize("square", [3, 14, 24, 39])
def test_street_rent_by_level(mode: str, square: int, level: int) -> None:
    sq = BOARD.squares[square]
    assert sq.group is not None
    game = land(mode, square)
    for j in BOARD.groups[sq.group]:
        setup(game, 1, owns=[j])
    game.level[square] = level
    expected = sq.rents[0] * 2 if level == 0 else sq.rents[level]
    assert rent_of(game) == expected


@pytest.mark.parametrize(("square", "rent"), [(1, 20), (3, 40), (14, 120), (39, 500)])
def test_level_zero_rent_without_the_whole_group(mode: str, square: int, rent: int) -> None:
    game = land(mode, square)
    setup(game, 1, owns=[square])
    assert rent_of(game) == rent


def test_whole_group_doubles_level_zero_rent(mode: str) -> None:
    game = land(mode, 9)
    setup(game, 1, owns=[6, 8, 9])
    assert rent_of(game) == 160


def test_group_split_between_owners_does_not_double(mode: str) -> None:
    game = land(mode, 9)
    setup(game, 1, owns=[8, 9])
    setup(game, 0, owns=[6])
    assert rent_of(game) == 80


@pytest.mark.parametrize(("held", "rent"), [(1, 250), (2, 500), (3, 1000), (4, 2000)])
def test_dealership_rent_by_how_many_the_owner_holds(mode: str, held: int, rent: int) -> None:
    game = land(mode, 15)
    setup(game, 1, owns=[15, 5, 25, 35][:held])
    assert rent_of(game) == rent


@pytest.mark.parametrize(("dice", "both", "rent"), [((1, 2), False, 120), ((4, 5), False, 360),
                                                    ((1, 2), True, 300), ((4, 5), True, 900)])
def test_utility_rent_is_the_dice_total_times_40_or_100(mode: str, dice: tuple[int, int], both: bool,
                                                        rent: int) -> None:
    game = land(mode, 28, dice=dice)
    setup(game, 1, owns=[28, 12] if both else [28])
    assert rent_of(game) == rent


def test_a_mortgaged_company_collects_nothing(mode: str) -> None:
    game = land(mode, 39)
    setup(game, 1, owns=[37], mortgaged=[39])
    events = game.apply(0, {"type": "roll"})
    waived = find(events, "rent_waived")
    assert (waived["square"], waived["reason"]) == (39, "mortgaged")
    assert "rent_due" not in kinds(events)
    assert game.snapshot()["turn"] == 1
    assert cash(game) == [15000, 15000]


def test_a_mortgaged_street_still_counts_for_the_group_double(mode: str) -> None:
    # docs/rules.md §6 doubles level-0 rent for owning the group; being mortgaged does not end ownership
    game = land(mode, 37)
    setup(game, 1, owns=[37], mortgaged=[39])
    assert rent_of(game) == 700


def test_landing_on_your_own_company_costs_nothing(mode: str) -> None:
    game = land(mode, 39)
    setup(game, 0, owns=[39])
    events = game.apply(0, {"type": "roll"})
    assert "rent_due" not in kinds(events) and "purchase_offered" not in kinds(events)
    assert game.snapshot()["turn"] == 1


@pytest.mark.parametrize(("rarity", "rent"), [("common", 515), ("uncommon", 530), ("rare", 550),
                                              ("epic", 600), ("legendary", 665)])
def test_the_owners_collectible_card_raises_rent(mode: str, rarity: str, rent: int) -> None:
    game = land(mode, 39, seat_info=[{}, {"cards": {"39": rarity}}])
    setup(game, 1, owns=[39])
    assert rent_of(game) == rent
    game.apply(0, {"type": "pay"})
    assert cash(game) == [15000 - rent, 15000 + rent]


def test_only_the_best_card_counts_and_bonuses_never_stack(mode: str) -> None:
    info = [{}, {"cards": {"39": ["common", "legendary", "epic"], "37": "legendary"}}]
    game = land(mode, 39, seat_info=info)
    setup(game, 1, owns=[39])
    assert rent_of(game) == 665  # +33 %, the cap, not 3 + 33 + 20


def test_a_card_for_another_square_or_held_by_the_tenant_does_nothing(mode: str) -> None:
    info = [{"cards": {"39": "legendary"}}, {"cards": {"37": "legendary"}}]
    game = land(mode, 39, seat_info=info)
    setup(game, 1, owns=[39])
    assert rent_of(game) == 500


def test_card_bonus_applies_on_top_of_the_group_double_and_levels(mode: str) -> None:
    info = [{}, {"cards": {"3": "epic"}}]
    game = land(mode, 3, seat_info=info)
    setup(game, 1, owns=[1, 3])
    assert rent_of(game) == 96  # 40 doubled to 80, +20 %
    game2 = land(mode, 3, seat_info=info)
    setup(game2, 1, levels={1: 2, 3: 2})
    assert rent_of(game2) == 720  # 600 +20 %
