"""Halal (docs/rules.md §§2, 9, 14, 15, 16, 19a): rest area at 20, redemption at exactly the mortgage
value, renamed cards, and Murabaha purchases for VIP seats."""

from __future__ import annotations

import pytest
from modekit import act, cash, finish_turn, make, money_conserved, of, play_until, player, snap, square, types

import opolyx
from opolyx.rules import load_cards

CARDS = [c.id for c in load_cards()]
VIP = [{"vip": True}, {}]


def deck(*first: str) -> list[str]:
    return [*first, *(c for c in CARDS if c not in first)]


def test_mode_table():
    rules = snap(make("halal"))["rules"]
    assert rules["corner_20"] == "rest_area"
    assert rules["redemption_percent"] == 100
    assert rules["murabaha"] is True
    assert rules["even_building"] is True and rules["round_limit"] == 500


def test_corner_20_is_a_rest_area_without_jackpot():
    game = make("halal", 2, [(4, 6), (4, 6), (4, 6)])
    finish_turn(game)
    finish_turn(game)
    events = act(game, 0, "roll")
    assert of(events, "rested") and not of(events, "jackpot_offered")
    s = snap(game)
    assert s["players"][0]["position"] == 20 and s["turn"] == 1 and s["phase"] == "turn"
    assert cash(game, 0) == 15000


def test_classic_corner_20_still_offers_the_jackpot():
    game = make("classic", 2, [(4, 6), (4, 6), (4, 6)])
    finish_turn(game)
    finish_turn(game)
    events = act(game, 0, "roll")
    assert of(events, "jackpot_offered") and snap(game)["phase"] == "jackpot"


@pytest.mark.parametrize(("mode", "cost"), [("halal", 300), ("classic", 330)])
def test_redemption_cost(mode, cost):
    game = make(mode, 2, [(1, 2), (4, 6)])
    act(game, 0, "roll")
    act(game, 0, "buy")
    finish_turn(game)
    act(game, 0, "mortgage", square=3)
    assert cash(game, 0) == 15000 - 600 + 300
    assert player(game, 0)["net_worth"] == cash(game, 0) + 600 - cost
    assert {"type": "redeem", "square": 3} in game.legal_actions(0)
    act(game, 0, "redeem", square=3)
    assert cash(game, 0) == 15000 - 600 + 300 - cost
    assert not square(game, 3)["mortgaged"]
    assert money_conserved(game)


def test_three_cards_carry_other_names_with_the_same_effects():
    game = make("halal", 2, [(3, 4), (3, 4), (4, 6)],
                deck=deck("lottery_win", "birthday", "charity_gala"))
    events = act(game, 0, "roll")
    drawn = of(events, "card_drawn")[0]
    assert (drawn["card"], drawn["effect"]) == ("business_profit", "lottery_win")
    assert cash(game, 0) == 17000
    events = act(game, 1, "roll")
    assert of(events, "card_drawn")[0]["card"] == "wedding_in_the_family"
    s = snap(game)
    assert s["phase"] == "pay" and s["debt"]["debtor"] == 0 and s["debt"]["amount"] == 200
    act(game, 0, "pay")
    assert (cash(game, 0), cash(game, 1)) == (16800, 15200)
    events = act(game, 0, "roll")
    assert of(events, "card_drawn")[0]["card"] == "inviting_the_neighbours"
    assert snap(game)["debt"]["creditors"] == [{"seat": 1, "amount": 500}]
    act(game, 0, "pay")
    assert (cash(game, 0), cash(game, 1)) == (16300, 15700)
    assert money_conserved(game)


def test_classic_keeps_the_card_ids_as_names():
    game = make("classic", 2, [(3, 4)], deck=deck("lottery_win"))
    assert of(act(game, 0, "roll"), "card_drawn")[0]["card"] == "lottery_win"


def _murabaha_game(*dice, seat_info=VIP, mode="halal"):
    game = make(mode, 2, [(1, 2), *dice], seat_info=seat_info)
    act(game, 0, "roll")
    return game


def test_vip_buys_by_murabaha_owns_at_once_and_collects_rent():
    game = _murabaha_game((1, 2))
    assert {"type": "buy_murabaha"} in game.legal_actions(0)
    events = act(game, 0, "buy_murabaha")
    bought = of(events, "murabaha_bought")[0]
    assert (bought["price"], bought["amount"], bought["due_round"]) == (600, 720, 16)
    sq = square(game, 3)
    assert sq["owner"] == 0 and sq["murabaha"] == {"seat": 0, "amount": 720, "due_round": 16}
    assert cash(game, 0) == 15000  # nothing paid yet
    assert player(game, 0)["net_worth"] == 15000 + 600 - 720
    events = act(game, 1, "roll")  # seat 1 lands on brown B
    assert of(events, "rent_due")[0]["amount"] == 40
    act(game, 1, "pay")
    assert cash(game, 0) == 15040
    assert money_conserved(game)


def test_murabaha_company_cannot_be_traded_or_mortgaged_until_paid():
    game = _murabaha_game((4, 6), (4, 6))
    act(game, 0, "buy_murabaha")
    finish_turn(game)
    assert snap(game)["turn"] == 0
    legal = game.legal_actions(0)
    assert {"type": "mortgage", "square": 3} not in legal
    template = next(a for a in legal if a["type"] == "propose_trade")
    assert 3 not in template["give"]["squares"]
    with pytest.raises(opolyx.IllegalAction) as err:
        act(game, 0, "mortgage", square=3)
    assert err.value.code == "murabaha_open"
    with pytest.raises(opolyx.IllegalAction) as err:
        game.apply(0, {"type": "propose_trade", "to": 1, "give": {"squares": [3]}, "take": {"cash": 600}})
    assert err.value.code == "murabaha_open"
    with pytest.raises(opolyx.IllegalAction) as err:  # nor may seat 1 ask for it
        game.apply(0, {"type": "propose_trade", "to": 1, "give": {"cash": 600}, "take": {"squares": [3]}})
    assert {"type": "pay_murabaha", "square": 3} in legal
    events = act(game, 0, "pay_murabaha", square=3)
    assert of(events, "murabaha_paid")[0]["amount"] == 720
    assert cash(game, 0) == 15000 - 720
    assert "murabaha" not in square(game, 3)
    assert player(game, 0)["net_worth"] == 15000 - 720 + 600
    assert {"type": "mortgage", "square": 3} in game.legal_actions(0)
    assert money_conserved(game)


def test_murabaha_is_paid_off_only_before_a_roll():
    game = _murabaha_game((4, 6), (1, 2))
    act(game, 0, "buy_murabaha")
    finish_turn(game)
    act(game, 0, "roll")  # 3 → 6, an unowned company: buy phase
    assert snap(game)["phase"] == "buy"
    assert "pay_murabaha" not in types(game, 0)
    with pytest.raises(opolyx.IllegalAction) as err:
        act(game, 0, "pay_murabaha", square=3)
    assert err.value.code == "wrong_phase"
    with pytest.raises(opolyx.IllegalAction):
        act(game, 1, "pay_murabaha", square=3)


def test_murabaha_falls_due_through_the_pay_step_at_the_deadline():
    game = _murabaha_game()
    act(game, 0, "buy_murabaha")
    play_until(game, round_no=15, seat=1)
    assert not snap(game)["debts"]
    assert square(game, 3)["murabaha"]["due_round"] == 16
    play_until(game, round_no=16, seat=0)
    s = snap(game)
    assert s["phase"] == "pay"
    debt = s["debt"]
    assert (debt["debtor"], debt["amount"], debt["reason"], debt["square"]) == (0, 720, "murabaha", 3)
    assert debt["creditors"] == [{"seat": None, "amount": 720}]
    before = cash(game, 0)
    act(game, 0, "pay")
    assert cash(game, 0) == before - 720
    assert square(game, 3)["owner"] == 0 and "murabaha" not in square(game, 3)
    assert snap(game)["phase"] == "turn" and snap(game)["turn"] == 0
    assert money_conserved(game)


def test_murabaha_due_pay_step_timeout_settles_it():
    game = _murabaha_game()
    act(game, 0, "buy_murabaha")
    play_until(game, round_no=16, seat=0)
    assert snap(game)["debt"]["reason"] == "murabaha"
    game.apply(None, {"type": "timeout"})
    assert "murabaha" not in square(game, 3) and square(game, 3)["owner"] == 0
    assert money_conserved(game)


def test_non_vip_is_refused():
    game = _murabaha_game(seat_info=[{}, {"vip": True}])
    assert "buy_murabaha" not in types(game, 0)
    before = snap(game)
    with pytest.raises(opolyx.IllegalAction) as err:
        act(game, 0, "buy_murabaha")
    assert err.value.code == "not_vip"
    assert snap(game) == before


def test_no_murabaha_outside_halal():
    game = _murabaha_game(mode="classic")
    assert "buy_murabaha" not in types(game, 0)
    with pytest.raises(opolyx.IllegalAction) as err:
        act(game, 0, "buy_murabaha")
    assert err.value.code == "not_in_mode"
