"""Team (docs/rules.md §§6, 8, 11, 16, 19b): two sides alternating by seat, no rent between allies,
gifts between allies, a bankrupt player's companies passing to a teammate, and team results."""

from __future__ import annotations

import pytest
from modekit import act, cash, finish_turn, make, money_conserved, of, snap, square, types

import opolyx
from opolyx.rules import load_cards

CARDS = [c.id for c in load_cards()]


def deck(*first: str) -> list[str]:
    return [*first, *(c for c in CARDS if c not in first)]


@pytest.mark.parametrize("seats", [4, 6])
def test_teams_alternate_by_seat(seats):
    game = opolyx.new_game("team", seats, 1)
    assert [p["team"] for p in snap(game)["players"]] == [s % 2 for s in range(seats)]
    assert snap(game)["rules"]["teams"] is True


@pytest.mark.parametrize("seats", [2, 3, 5, 7])
def test_team_needs_four_or_six_seats(seats):
    with pytest.raises(opolyx.IllegalAction) as err:
        opolyx.new_game("team", seats, 1)
    assert err.value.code == "bad_seats"


@pytest.mark.parametrize(
    "teams",
    [
        [0, 0, 0, 0],  # one side: nobody would ever pay rent
        [0, 0, 1, 1],  # equal sides, but teammates sit side by side
        [0, 1, 1, 0],
        [0, 1, 2, 3],  # four sides
        [0, 1, 0, 1, 0, 0],  # six seats, five against one
        [0, 1, 0, 2, 0, 1],  # three sides
        [0, "1", 0, "1"],  # a team is an integer
    ],
)
def test_team_refuses_layouts_that_are_not_two_alternating_sides(teams):
    with pytest.raises(opolyx.IllegalAction) as err:
        opolyx.new_game("team", len(teams), 1, seat_info=[{"team": t} for t in teams])
    assert err.value.code == "bad_teams"


@pytest.mark.parametrize("teams", [[1, 0, 1, 0], [7, 3, 7, 3, 7, 3], [None, 1, None, 1]])
def test_team_accepts_any_two_alternating_sides(teams):
    game = opolyx.new_game("team", len(teams), 1, seat_info=[{"team": t} for t in teams])
    sides = [p["team"] for p in snap(game)["players"]]
    assert len(set(sides)) == 2 and all(sides[s] != sides[s + 1] for s in range(len(sides) - 1))


def test_other_modes_ignore_team_layouts():
    game = opolyx.new_game("classic", 4, 1, seat_info=[{"team": 0}] * 4)
    events = act(game, snap(game)["turn"], "roll")
    assert of(events, "dice_rolled")


def test_allies_pay_no_rent_opponents_do():
    game = make("team", 4, [(1, 2), (4, 6), (1, 2), (1, 2)])
    act(game, 0, "roll")
    act(game, 0, "buy")
    finish_turn(game)  # seat 1 to 10
    events = act(game, 2, "roll")  # ally lands on brown B
    waived = of(events, "rent_waived")
    assert waived and waived[0]["reason"] == "ally" and waived[0]["owner"] == 0
    assert not of(events, "rent_due") and cash(game, 2) == 15000
    assert snap(game)["turn"] == 3
    events = act(game, 3, "roll")  # opponent pays
    assert of(events, "rent_due")[0]["amount"] == 40
    act(game, 3, "pay")
    assert cash(game, 3) == 15000 - 40 and cash(game, 0) == 15000 - 600 + 40
    assert money_conserved(game)


def test_allies_may_give_each_other_anything_opponents_must_be_fair():
    game = make("team", 4, [(1, 2)])
    act(game, 0, "roll")
    act(game, 0, "buy")
    gift = {"type": "propose_trade", "to": 2, "give": {"cash": 5000, "squares": [3]}, "take": {}}
    unfair = {"type": "propose_trade", "to": 1, "give": {"cash": 5000, "squares": []}, "take": {}}
    # seat 0's turn has passed to seat 1 now (bought, no doubles): seat 1 proposes
    assert snap(game)["turn"] == 1
    with pytest.raises(opolyx.IllegalAction) as err:
        game.apply(1, {**unfair, "to": 0})
    assert err.value.code == "unfair_trade"
    events = game.apply(1, {"type": "propose_trade", "to": 3, "give": {"cash": 7000}, "take": {}})
    tid = of(events, "trade_proposed")[0]["id"]
    act(game, 3, "accept_trade", trade=tid)
    assert (cash(game, 1), cash(game, 3)) == (8000, 22000)
    # one-sided the other way: asking an ally for everything is fine too
    events = game.apply(1, {"type": "propose_trade", "to": 3, "give": {}, "take": {"cash": 22000}})
    act(game, 3, "accept_trade", trade=of(events, "trade_proposed")[0]["id"])
    assert (cash(game, 1), cash(game, 3)) == (30000, 0)
    finish_turn(game)  # seat 1
    finish_turn(game)  # seat 2
    finish_turn(game)  # seat 3
    assert snap(game)["turn"] == 0
    with pytest.raises(opolyx.IllegalAction) as err:
        game.apply(0, unfair)
    assert err.value.code == "unfair_trade"
    events = game.apply(0, gift)
    act(game, 2, "accept_trade", trade=of(events, "trade_proposed")[0]["id"])
    assert square(game, 3)["owner"] == 2
    assert money_conserved(game)


def _bankrupt_with_buildings():
    dice = [
        (2, 4), (4, 6), (3, 5), (4, 6),  # round 1: 0 buys 6, 2 buys 8
        (1, 2), (4, 6), (4, 5), (4, 6),  # round 2: 0 buys 9, 2 gifts 8 to 0 and draws a dividend
        (3, 5),  # round 3: 0 lands on 17 and draws the tax audit
    ]
    game = make("team", 4, dice, deck=deck("bank_dividend", "tax_audit"))
    act(game, 0, "roll")
    act(game, 0, "buy")
    finish_turn(game)
    act(game, 2, "roll")
    act(game, 2, "buy")
    finish_turn(game)
    act(game, 0, "roll")
    act(game, 0, "buy")
    finish_turn(game)  # seat 1 declines the jackpot
    events = game.apply(2, {"type": "propose_trade", "to": 0, "give": {"squares": [8]}, "take": {}})
    act(game, 0, "accept_trade", trade=of(events, "trade_proposed")[0]["id"])
    finish_turn(game)  # seat 2
    finish_turn(game)  # seat 3
    assert snap(game)["turn"] == 0 and snap(game)["round"] == 3
    for i in (6, 8, 9):
        act(game, 0, "build", square=i)
    keep = 100
    events = game.apply(0, {"type": "propose_trade", "to": 2, "give": {"cash": cash(game, 0) - keep}, "take": {}})
    act(game, 2, "accept_trade", trade=of(events, "trade_proposed")[0]["id"])
    assert cash(game, 0) == keep
    events = act(game, 0, "roll")
    assert of(events, "card_drawn")[0]["card"] == "tax_audit"
    assert snap(game)["debt"]["amount"] == 2500
    # 100 cash + 3 levels at half of 500 + mortgages 500 + 500 + 600 = 2450 < 2500
    assert "declare_bankruptcy" in types(game, 0)
    return game


def test_bankrupt_players_companies_pass_to_a_teammate_with_their_buildings():
    game = _bankrupt_with_buildings()
    before = snap(game)
    events = act(game, 0, "declare_bankruptcy")
    after = snap(game)
    assert after["players"][0]["out"] and after["players"][0]["out_reason"] == "bankrupt"
    for i in (6, 8, 9):
        assert after["squares"][i]["owner"] == 2 and after["squares"][i]["level"] == 1
    assert of(events, "companies_inherited")[0]["squares"] == [6, 8, 9]
    # the bank (the creditor) receives only the 100 cash; nothing was liquidated
    assert after["bank"]["received"] == before["bank"]["received"] + 100
    assert after["bank"]["paid"] == before["bank"]["paid"]
    assert after["players"][2]["cash"] == before["players"][2]["cash"]
    assert not after["over"] and after["turn"] == 1
    assert money_conserved(game)


def test_bankruptcy_to_an_opponent_pays_only_the_cash_and_mortgages_pass_on():
    dice = [(2, 4), (4, 5), (4, 6), (4, 6), (1, 2)]
    game = make("team", 4, dice)
    act(game, 0, "roll")
    act(game, 0, "buy")  # light-blue A (6)
    act(game, 1, "roll")
    act(game, 1, "buy")  # light-blue C (9), rent 80
    finish_turn(game)
    finish_turn(game)
    act(game, 0, "mortgage", square=6)
    events = game.apply(0, {"type": "propose_trade", "to": 2, "give": {"cash": cash(game, 0) - 50}, "take": {}})
    act(game, 2, "accept_trade", trade=of(events, "trade_proposed")[0]["id"])
    before = snap(game)
    events = act(game, 0, "roll")
    assert of(events, "rent_due")[0]["amount"] == 80
    assert "pay" not in types(game, 0)
    act(game, 0, "declare_bankruptcy")
    after = snap(game)
    assert after["players"][1]["cash"] == before["players"][1]["cash"] + 50
    assert after["squares"][6]["owner"] == 2 and after["squares"][6]["mortgaged"]
    assert after["bank"]["paid"] == before["bank"]["paid"]
    assert money_conserved(game)


def test_the_heir_is_a_teammate_still_in_the_game():
    dice = [(2, 4), (4, 6), (4, 6), (4, 6), (4, 6), (5, 6)]
    game = make("team", 6, dice, deck=deck("tax_audit"))
    act(game, 0, "roll")
    act(game, 0, "buy")
    act(game, 2, "resign")
    for _ in range(4):
        finish_turn(game)
    assert snap(game)["turn"] == 0
    events = game.apply(0, {"type": "propose_trade", "to": 4, "give": {"cash": cash(game, 0) - 100}, "take": {}})
    act(game, 4, "accept_trade", trade=of(events, "trade_proposed")[0]["id"])
    act(game, 0, "roll")
    act(game, 0, "declare_bankruptcy")
    assert square(game, 6)["owner"] == 4


def test_the_game_ends_with_the_last_team_and_members_share_the_place():
    game = make("team", 4)
    act(game, 0, "resign")
    act(game, 1, "resign")
    assert not snap(game)["over"]  # seats 2 and 3 still carry both teams
    act(game, 3, "resign")
    s = snap(game)
    assert s["over"]
    result = s["result"]
    assert result["reason"] == "last_team" and result["winning_team"] == 0 and result["winner"] == 2
    places = {p["seat"]: p["place"] for p in result["placements"]}
    assert places == {0: 1, 2: 1, 1: 2, 3: 2}


def test_round_limit_is_won_by_the_higher_combined_net_worth():
    dice = [(1, 3), (4, 6), (3, 4), (4, 6)]
    game = make("team", 4, dice, deck=deck("bank_dividend"), rules={"round_limit": 1})
    for _ in range(4):
        finish_turn(game)
    s = snap(game)
    assert s["over"]
    worth = {p["seat"]: p["net_worth"] for p in s["players"]}
    assert worth == {0: 13000, 1: 15000, 2: 16000, 3: 15000}
    result = s["result"]
    assert result["reason"] == "round_limit"
    assert result["winning_team"] == 1 and result["winner"] == 1  # 30000 against 29000
    places = {p["seat"]: p["place"] for p in result["placements"]}
    assert places == {1: 1, 3: 1, 0: 2, 2: 2}  # seat 2 is the richest player but its team lost
