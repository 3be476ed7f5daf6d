"""Speed (docs/rules.md §§2, 9, 17): the third die from round 7, Bus, X, triples and teleport, uneven
building with one level per street per turn, mortgages that expire, rent tax 40→100, round limit 300."""

from __future__ import annotations

import pytest
from modekit import act, cash, finish_turn, make, money_conserved, of, pending, play_until, snap, square, types

import opolyx
from opolyx.rules import load_board, load_rules

BOARD = load_board("classic")
#: Six rounds of plain (1, 2) rolls for two seats: both end on square 18, every company still unowned.
SIX_ROUNDS = [(1, 2)] * 12


def at_round_7(*dice: tuple[int, ...], seats: int = 2, **options: object):
    """A two-seat Speed game at the start of seat 0's turn in round 7; ``dice`` come next."""
    game = make("speed", seats, [*SIX_ROUNDS[: 6 * seats], *dice], **options)
    for _ in range(6 * seats):
        events = finish_turn(game)
        assert all(len(e["dice"]) == 2 for e in of(events, "dice_rolled")), "third die before round 7"
    s = snap(game)
    assert (s["round"], s["turn"]) == (7, 0)
    assert s["players"][0]["position"] == 18
    return game


def test_mode_table_numbers():
    game = make("speed")
    s = snap(game)
    rules = s["rules"]
    assert rules["third_die_from_round"] == 7
    assert rules["round_limit"] == 300
    assert (rules["rent_tax_start"], rules["rent_tax_full"]) == (40, 100)
    assert rules["turn_seconds"] == 45
    assert rules["even_building"] is False
    assert rules["mortgage_expiry_rounds"] == 10
    assert rules["redemption_percent"] == 110
    assert rules["pay_step_seconds"] == 75  # at least 75 s even though the turn is shorter
    assert pending(game)["clock"] == {"kind": "turn", "id": pending(game)["clock"]["id"], "seconds": 45}


def test_rent_tax_rises_linearly_from_round_40_to_100():
    rules = load_rules("speed")
    assert rules.rent_tax_percent_x100(1) == 0
    assert rules.rent_tax_percent_x100(40) == 0
    assert rules.rent_tax_percent_x100(41) == 9900 // 60
    assert rules.rent_tax_percent_x100(70) == 4950
    assert rules.rent_tax_percent_x100(100) == 9900
    assert rules.rent_tax_percent_x100(250) == 9900


def test_two_dice_until_round_6_then_three_from_round_7():
    game = at_round_7((2, 3, 1))
    events = act(game, 0, "roll")
    rolled = of(events, "dice_rolled")[0]
    assert rolled["dice"] == [2, 3, 1] and rolled["third"] == 1
    assert of(events, "moved")[0]["to"] == 18 + 6


@pytest.mark.parametrize(("value", "steps"), [(1, 1), (2, 2), (3, 3)])
def test_number_faces_add_to_the_move(value, steps):
    game = at_round_7((1, 3, value))
    events = act(game, 0, "roll")
    assert of(events, "dice_rolled")[0]["third"] == value
    moved = of(events, "moved")
    assert len(moved) == 1 and moved[0]["steps"] == 4 + steps
    assert snap(game)["players"][0]["position"] == 18 + 4 + steps


@pytest.mark.parametrize(("use", "target"), [("sum", 25), ("first", 20), ("second", 23)])
def test_bus_lets_the_player_choose_sum_or_either_die(use, target):
    game = at_round_7((2, 5, 4))
    events = act(game, 0, "roll")
    assert of(events, "dice_rolled")[0]["third"] == "bus"
    assert not of(events, "moved")
    s = snap(game)
    assert s["phase"] == "bus" and s["pending"][0]["decision"] == "bus"
    legal = game.legal_actions(0)
    assert [a for a in legal if a["type"] == "choose_bus"] == [
        {"type": "choose_bus", "use": u} for u in ("sum", "first", "second")
    ]
    assert "roll" not in types(game, 0)
    before = s
    for bad in ({"type": "choose_bus", "use": "both"}, {"type": "choose_bus"}, {"type": "roll"}):
        with pytest.raises(opolyx.IllegalAction):
            game.apply(0, bad)
    with pytest.raises(opolyx.IllegalAction):
        game.apply(1, {"type": "choose_bus", "use": "sum"})
    assert snap(game) == before
    events = act(game, 0, "choose_bus", use=use)
    assert of(events, "moved")[0]["to"] == target
    assert snap(game)["players"][0]["position"] == target


@pytest.mark.parametrize("value", [5, 6])
def test_x_jumps_to_the_nearest_unowned_company_ahead(value):
    game = at_round_7((1, 3, value))  # 18 + 4 = 22, an event square
    events = act(game, 0, "roll")
    assert of(events, "dice_rolled")[0]["third"] == "x"
    assert not of(events, "card_drawn"), "the square the move ended on is not resolved"
    assert of(events, "x_jump")[0]["square"] == 23
    s = snap(game)
    assert s["players"][0]["position"] == 23
    assert s["phase"] == "buy" and s["offer"] == 23


def _buy_by_triples(game, seat, squares, *, mortgage=()):
    """Teleport chain: each (1,1,1) triple lets ``seat`` teleport onto a company and buy it."""
    for i in squares:
        assert snap(game)["phase"] == "turn" and pending(game)["seat"] == seat
        events = act(game, seat, "roll")
        assert of(events, "triples_rolled")
        assert snap(game)["phase"] == "teleport"
        act(game, seat, "teleport", square=i)
        act(game, seat, "buy")
        if i in mortgage:
            act(game, seat, "mortgage", square=i)
        s = snap(game)
        assert s["doubles"] == 0 and not s["players"][seat]["in_jail"]


def test_x_with_every_company_owned_jumps_to_an_opponents_company_and_pays_rent():
    companies = list(BOARD.companies)
    mine = [i for i in companies if i < 20 and BOARD.squares[i].kind != "dealership"]
    theirs = [i for i in companies if i not in mine]
    triple = (1, 1, 1)
    dice = [triple] * len(mine) + [(1, 2, 1)] + [triple] * len(theirs) + [(1, 2, 1)] + [(1, 3, 5)]
    game = at_round_7(*dice, rules={"starting_cash": 50000})
    _buy_by_triples(game, 0, mine)  # ends on 19, then 4 steps to 23
    finish_turn(game)
    _buy_by_triples(game, 1, theirs)  # ends on 39, then 4 steps to 3 (seat 0's: rent)
    finish_turn(game)
    s = snap(game)
    assert all(sq["owner"] is not None for sq in s["squares"] if sq["kind"] in ("street", "dealership", "utility"))
    assert s["turn"] == 0 and s["players"][0]["position"] == 23
    before0, before1 = cash(game, 0), cash(game, 1)
    events = act(game, 0, "roll")  # 23 + 4 = 27 (not resolved), X: nearest opponent company ahead is 28
    assert of(events, "dice_rolled")[0]["third"] == "x"
    assert of(events, "x_jump")[0]["square"] == 28
    rent = of(events, "rent_due")
    assert len(rent) == 1 and rent[0]["owner"] == 1 and rent[0]["square"] == 28
    assert rent[0]["amount"] == 4 * 40  # utility: the white dice total × 40
    assert snap(game)["phase"] == "pay"
    act(game, 0, "pay")
    assert cash(game, 0) == before0 - 160
    assert cash(game, 1) == before1 + 160
    assert money_conserved(game)


def test_x_skips_to_the_nearest_opponent_company_ahead_of_own_companies():
    companies = list(BOARD.companies)
    mine = [i for i in companies if i < 30]
    theirs = [i for i in companies if i >= 30]
    triple = (1, 1, 1)
    dice = [triple] * len(mine) + [(1, 2, 1)] + [triple] * len(theirs) + [(1, 2, 1)] + [(1, 3, 6)]
    game = at_round_7(*dice, rules={"starting_cash": 60000})
    _buy_by_triples(game, 0, mine)  # ends on 29, then 4 steps to 33 (event)
    finish_turn(game)
    _buy_by_triples(game, 1, theirs)  # ends on 39, then 4 steps to 3 (seat 0's)
    finish_turn(game)
    pos = snap(game)["players"][0]["position"]
    events = act(game, 0, "roll")
    landing = (pos + 4) % 40
    expected = next(i for k in range(1, 40) if (i := (landing + k) % 40) in theirs)
    assert of(events, "x_jump")[0]["square"] == expected
    assert of(events, "rent_due")[0]["owner"] == 1


def test_triples_teleport_then_roll_again_and_never_count_as_doubles():
    dice = [(2, 2, 2), (4, 4, 1), (3, 3, 3), (5, 5, 2), (1, 1, 1), (1, 2, 1)]
    game = at_round_7(*dice)
    events = act(game, 0, "roll")
    assert of(events, "triples_rolled") and not of(events, "moved")
    s = snap(game)
    assert s["phase"] == "teleport" and s["pending"][0]["decision"] == "teleport"
    assert [a["square"] for a in game.legal_actions(0) if a["type"] == "teleport"] == list(range(40))
    events = act(game, 0, "teleport", square=39)
    assert of(events, "teleported")[0]["to"] == 39
    assert snap(game)["phase"] == "buy"
    act(game, 0, "decline")
    for seat in (1, 0):
        act(game, seat, "pass")
    s = snap(game)
    assert s["phase"] == "turn" and s["turn"] == 0 and s["doubles"] == 0  # the triple earned another roll
    act(game, 0, "roll")  # doubles 4+4 (+1) from 39 → 8
    assert snap(game)["doubles"] == 1
    finish_turn_step = snap(game)
    if finish_turn_step["phase"] == "buy":
        act(game, 0, "decline")
        act(game, 1, "pass")
        act(game, 0, "pass")
    act(game, 0, "roll")  # triple 3,3,3
    assert snap(game)["phase"] == "teleport" and snap(game)["doubles"] == 1
    act(game, 0, "teleport", square=10)  # just visiting
    assert snap(game)["turn"] == 0 and snap(game)["phase"] == "turn"
    act(game, 0, "roll")  # second doubles (5,5)
    s = snap(game)
    assert s["doubles"] == 2 and not s["players"][0]["in_jail"]
    if s["phase"] == "buy":
        act(game, 0, "decline")
        act(game, 1, "pass")
        act(game, 0, "pass")
    act(game, 0, "roll")  # a third triple: still no jail
    s = snap(game)
    assert s["phase"] == "teleport" and not s["players"][0]["in_jail"]


def test_teleport_to_start_pays_salary_and_bonus_and_to_go_to_jail_jails():
    game = at_round_7((1, 1, 1), (2, 2, 2))
    act(game, 0, "roll")
    before = cash(game, 0)
    act(game, 0, "teleport", square=0)
    assert cash(game, 0) == before + 2000 + 1000
    act(game, 0, "roll")
    events = act(game, 0, "teleport", square=30)
    assert of(events, "jailed")
    s = snap(game)
    assert s["players"][0]["in_jail"] and s["turn"] == 1  # jailed: no further roll


def test_third_die_is_never_rolled_in_jail():
    game = at_round_7((1, 1, 1), (1, 2, 1), (1, 2, 3))
    act(game, 0, "roll")
    act(game, 0, "teleport", square=30)
    finish_turn(game)  # seat 1
    assert snap(game)["players"][0]["in_jail"]
    assert "jail_roll" in types(game, 0)
    events = act(game, 0, "jail_roll")
    rolled = of(events, "dice_rolled")[0]
    assert rolled["dice"] == [1, 2] and rolled["third"] is None


def test_uneven_building_allowed_but_one_level_per_street_per_turn():
    game = at_round_7((1, 1, 1), (1, 1, 1), (1, 2, 1))
    _buy_by_triples(game, 0, [1, 3])
    act(game, 0, "build", square=1)
    assert square(game, 1)["level"] == 1
    assert {"type": "build", "square": 1} not in game.legal_actions(0)
    with pytest.raises(opolyx.IllegalAction) as err:
        act(game, 0, "build", square=1)
    assert err.value.code == "built_this_turn"
    finish_turn(game)
    finish_turn(game)
    assert snap(game)["turn"] == 0
    assert {"type": "build", "square": 1} in game.legal_actions(0)
    act(game, 0, "build", square=1)  # level 2 while brown B stays at 0: no even-building rule
    assert (square(game, 1)["level"], square(game, 3)["level"]) == (2, 0)
    # selling is not bound to evenness either
    act(game, 0, "build", square=3)
    assert {"type": "sell", "square": 3} in game.legal_actions(0)
    act(game, 0, "sell", square=3)
    assert square(game, 3)["level"] == 0
    assert money_conserved(game)


def test_the_even_building_switch_is_what_allows_it():
    game = at_round_7((1, 1, 1), (1, 1, 1), (1, 2, 1), rules={"even_building": True})
    _buy_by_triples(game, 0, [1, 3])
    act(game, 0, "build", square=1)
    finish_turn(game)
    finish_turn(game)
    assert {"type": "build", "square": 1} not in game.legal_actions(0)
    with pytest.raises(opolyx.IllegalAction) as err:
        act(game, 0, "build", square=1)
    assert err.value.code == "uneven"


def test_mortgage_expires_after_ten_rounds_at_the_owners_turn_start():
    game = make("speed", 2, [(1, 2), (4, 6)], seed=11)
    act(game, 0, "roll")
    act(game, 0, "buy")
    finish_turn(game)  # seat 1
    assert snap(game)["turn"] == 0 and snap(game)["round"] == 2
    act(game, 0, "mortgage", square=3)
    assert square(game, 3)["mortgage_rounds_left"] == 10
    assert square(game, 3)["mortgaged"]
    play_until(game, round_no=2, seat=1)
    assert square(game, 3)["mortgage_rounds_left"] == 10, "ticked at an opponent's turn"
    for round_no in range(3, 12):
        play_until(game, round_no=round_no, seat=0)
        assert square(game, 3)["mortgage_rounds_left"] == 10 - (round_no - 2)
        play_until(game, round_no=round_no, seat=1)
        assert square(game, 3)["mortgage_rounds_left"] == 10 - (round_no - 2), "ticked at an opponent's turn"
    play_until(game, round_no=12, seat=0)
    # round 12, ten rounds after mortgaging in round 2: back to the bank, unowned and free to buy
    sq = square(game, 3)
    assert sq["owner"] is None and not sq["mortgaged"] and "mortgage_rounds_left" not in sq
    assert money_conserved(game)


def test_redeeming_stops_the_countdown():
    game = make("speed", 2, [(1, 2), (4, 6), (4, 6), (4, 6)], seed=11)
    act(game, 0, "roll")
    act(game, 0, "buy")
    finish_turn(game)
    act(game, 0, "mortgage", square=3)
    finish_turn(game)
    finish_turn(game)
    assert square(game, 3)["mortgage_rounds_left"] == 9
    before = cash(game, 0)
    act(game, 0, "redeem", square=3)
    assert cash(game, 0) == before - 330  # value + 10 %
    sq = square(game, 3)
    assert not sq["mortgaged"] and "mortgage_rounds_left" not in sq


def test_other_modes_never_expire_mortgages():
    game = make("classic", 2, [(1, 2), (4, 6)])
    act(game, 0, "roll")
    act(game, 0, "buy")
    finish_turn(game)
    act(game, 0, "mortgage", square=3)
    assert "mortgage_rounds_left" not in square(game, 3)
    play_until(game, round_no=14, seat=0)
    assert square(game, 3)["owner"] == 0 and square(game, 3)["mortgaged"]


def test_rent_is_taxed_after_round_40():
    game = make("speed", 2, seed=5)
    events = play_until(game, round_no=40, seat=0, buy=True)
    assert not of(events, "rent_due") or all(e["tax"] == 0 for e in of(events, "rent_due"))
    assert snap(game)["rent_tax_percent"] == 0
    events = play_until(game, round_no=52, seat=0, buy=True)
    taxed = [e for e in of(events, "rent_due") if e["tax"] > 0]
    assert taxed, "no rent was paid between rounds 41 and 52 with seed 5"
    assert snap(game)["rent_tax_percent"] == pytest.approx(99 * 12 / 60)
    assert snap(game)["bank"]["rent_tax"] >= sum(e["tax"] for e in taxed) - max(e["tax"] for e in taxed)


def test_the_game_ends_at_round_300():
    game = make("speed", 2, seed=3)
    while not game.is_over:
        finish_turn(game)
    result = snap(game)["result"]
    assert result["reason"] == "round_limit" and result["round"] == 300
    worths = {p["seat"]: p["net_worth"] for p in snap(game)["players"]}
    assert worths[result["winner"]] == max(worths.values())


def test_after_paying_bail_the_roll_uses_the_third_die_again():
    game = at_round_7((1, 1, 1), (1, 2, 1), (2, 3, 1))
    act(game, 0, "roll")
    act(game, 0, "teleport", square=30)
    finish_turn(game)
    act(game, 0, "pay_bail")
    events = act(game, 0, "roll")
    rolled = of(events, "dice_rolled")[0]
    assert rolled["dice"] == [2, 3, 1] and rolled["third"] == 1
    assert snap(game)["players"][0]["position"] == 10 + 6
