"""docs/rules.md §11: the pay step, raising cash, bankruptcy and pro-rata creditors."""

from __future__ import annotations

from scenario_kit import cash, deck_with, find, kinds, legal_types, make, pending_seat, refuse, setup, timeout


def test_the_pay_step_always_pauses_even_with_plenty_of_cash(mode: str) -> None:
    game = make(mode, dice=[(1, 2)])
    setup(game, 0, position=1)
    events = game.apply(0, {"type": "roll"})
    started = find(events, "pay_step_started")
    assert (started["debtor"], started["amount"], started["reason"]) == (0, 2000, "tax")
    snap = game.snapshot()
    assert snap["phase"] == "pay" and pending_seat(game) == (0, "pay")
    assert snap["pending"][0]["clock"]["kind"] == "pay" and snap["pending"][0]["clock"]["seconds"] == 75
    assert cash(game) == [15000, 15000]
    assert "declare_bankruptcy" not in legal_types(game, 0)
    refuse(game, 1, {"type": "pay"}, "not_your_turn")
    refuse(game, 0, {"type": "declare_bankruptcy"}, "can_raise_cash")


def test_short_of_cash_the_debtor_mortgages_then_pays(mode: str) -> None:
    game = make(mode, dice=[(1, 2)])
    setup(game, 0, position=36, cash=100, owns=[5])
    setup(game, 1, owns=[39])
    game.apply(0, {"type": "roll"})  # 39: rent 500
    assert "pay" not in legal_types(game, 0)
    assert "declare_bankruptcy" not in legal_types(game, 0)  # mortgaging 5 raises 1000
    refuse(game, 0, {"type": "pay"}, "insufficient_cash")
    refuse(game, 0, {"type": "declare_bankruptcy"}, "can_raise_cash")
    game.apply(0, {"type": "mortgage", "square": 5})
    game.apply(0, {"type": "pay"})
    assert cash(game) == [600, 15500]


def test_bankruptcy_is_offered_only_when_liquidation_cannot_cover(mode: str) -> None:
    game = make(mode, 3, dice=[(1, 2)])
    # liquidation: 100 cash + 2 levels × 250 + 2 × 300 mortgage value = 1200 < 1600 rent
    setup(game, 0, position=36, cash=100, levels={1: 1, 3: 1})
    setup(game, 1, levels={37: 0, 39: 4})
    game.apply(0, {"type": "roll"})
    snap = game.snapshot()
    assert snap["debt"]["amount"] == 17000
    assert "declare_bankruptcy" in legal_types(game, 0)
    events = game.apply(0, {"type": "declare_bankruptcy"})
    out = find(events, "player_out")
    assert out["reason"] == "bankrupt" and sorted(out["squares"]) == [1, 3]
    assert out["creditors"] == [{"seat": 1, "amount": 1200, "received": 1200}]
    snap = game.snapshot()
    assert snap["players"][0]["out"] is True and snap["players"][0]["out_reason"] == "bankrupt"
    for i in (1, 3):
        assert (snap["squares"][i]["owner"], snap["squares"][i]["level"], snap["squares"][i]["mortgaged"]) == (
            None, 0, False)
    assert cash(game) == [0, 16200, 15000]
    assert snap["turn"] == 1 and not snap["over"]
    assert game.legal_actions(0) == []


def test_liquidation_counts_mortgaged_companies_as_nothing(mode: str) -> None:
    game = make(mode, 3, dice=[(1, 2)])
    setup(game, 0, position=36, cash=100, owns=[5], mortgaged=[15])
    setup(game, 1, levels={37: 1, 39: 1})  # 2000 rent; liquidation is 100 + 1000 = 1100
    game.apply(0, {"type": "roll"})
    assert "declare_bankruptcy" in legal_types(game, 0)
    events = game.apply(0, {"type": "declare_bankruptcy"})
    assert find(events, "player_out")["creditors"] == [{"seat": 1, "amount": 1100, "received": 1100}]
    snap = game.snapshot()
    assert snap["squares"][15]["owner"] is None and snap["squares"][15]["mortgaged"] is False


def test_two_creditors_are_paid_pro_rata(mode: str) -> None:
    game = make(mode, 3, dice=[(1, 2)], deck=deck_with("charity_gala"))
    setup(game, 0, position=4, cash=300)
    game.apply(0, {"type": "roll"})
    assert game.snapshot()["debt"]["amount"] == 1000
    events = game.apply(0, {"type": "declare_bankruptcy"})
    assert find(events, "player_out")["creditors"] == [
        {"seat": 1, "amount": 150, "received": 150}, {"seat": 2, "amount": 150, "received": 150}]
    assert cash(game) == [0, 15150, 15150]


def test_a_creditor_already_out_has_its_share_go_to_the_bank(mode: str) -> None:
    game = make(mode, 4, dice=[(1, 2)], deck=deck_with("charity_gala"))
    setup(game, 0, position=4, cash=600)
    game.apply(0, {"type": "roll"})
    assert game.snapshot()["debt"]["amount"] == 1500
    game.apply(2, {"type": "resign"})
    received_before = game.snapshot()["bank"]["received"]
    events = game.apply(0, {"type": "declare_bankruptcy"})
    assert find(events, "player_out")["creditors"] == [
        {"seat": 1, "amount": 200, "received": 200},
        {"seat": 2, "amount": 200, "received": 0},
        {"seat": 3, "amount": 200, "received": 200}]
    assert cash(game) == [0, 15200, 0, 15200]
    assert game.snapshot()["bank"]["received"] == received_before + 200


def test_a_birthday_creditor_who_left_is_paid_to_the_bank(mode: str) -> None:
    game = make(mode, 3, dice=[(1, 2)], deck=deck_with("birthday"))
    setup(game, 0, position=4)
    game.apply(0, {"type": "roll"})
    game.apply(1, {"type": "pay"})
    game.apply(0, {"type": "resign"})
    assert pending_seat(game) == (2, "pay")
    events = game.apply(2, {"type": "pay"})
    assert find(events, "debt_paid")["creditors"] == [{"seat": 0, "amount": 200, "received": 0}]
    assert cash(game) == [0, 14800, 14800]
    assert game.snapshot()["turn"] == 1


def test_pay_step_timeout_sells_then_mortgages_cheapest_first_and_pays(mode: str) -> None:
    game = make(mode, dice=[(1, 2)])
    setup(game, 0, position=13, cash=0, levels={1: 1, 3: 1, 39: 0})
    setup(game, 1, levels={16: 1, 18: 1, 19: 1})
    game.apply(0, {"type": "roll"})  # orange A at level 1: 700
    events = timeout(game)
    assert kinds(events)[:4] == ["pay_step_timed_out", "sold", "sold", "mortgaged"]
    assert [(e["square"], e["auto"]) for e in events if e["type"] in ("sold", "mortgaged")] == [
        (1, True), (3, True), (1, True)]
    paid = find(events, "debt_paid")
    assert paid["auto"] is True and paid["creditors"] == [{"seat": 1, "amount": 700, "received": 700}]
    snap = game.snapshot()
    assert [snap["squares"][i]["level"] for i in (1, 3)] == [0, 0]
    assert [snap["squares"][i]["mortgaged"] for i in (1, 3, 39)] == [True, False, False]
    assert cash(game) == [250 + 250 + 300 - 700, 15700]
    assert snap["turn"] == 1
    assert snap["players"][0]["missed_turns"] == 0  # the pay step has its own clock


def test_pay_step_timeout_goes_bankrupt_when_it_cannot_raise_enough(mode: str) -> None:
    game = make(mode, 3, dice=[(1, 2)])
    setup(game, 0, position=36, cash=100, owns=[5])
    setup(game, 1, levels={37: 1, 39: 1})
    game.apply(0, {"type": "roll"})  # 2000
    events = timeout(game)
    out = find(events, "player_out")
    assert out["reason"] == "bankrupt"
    assert out["creditors"] == [{"seat": 1, "amount": 1100, "received": 1100}]
    assert cash(game) == [0, 16100, 15000]
    assert game.snapshot()["squares"][5]["owner"] is None


def test_birthday_debtor_timing_out_bankrupt_then_the_next_debtor_pays(mode: str) -> None:
    game = make(mode, 3, dice=[(1, 2)], deck=deck_with("birthday"))
    setup(game, 0, position=4)
    setup(game, 1, cash=150)
    game.apply(0, {"type": "roll"})
    assert "declare_bankruptcy" in legal_types(game, 1)
    events = timeout(game)
    assert find(events, "player_out")["creditors"] == [{"seat": 0, "amount": 150, "received": 150}]
    assert pending_seat(game) == (2, "pay")
    game.apply(2, {"type": "pay"})
    assert cash(game) == [15350, 0, 14800]
    assert game.snapshot()["turn"] == 2


def test_the_last_bankruptcy_ends_the_game(mode: str) -> None:
    game = make(mode, dice=[(1, 2)])
    setup(game, 0, position=36, cash=100)
    setup(game, 1, owns=[39])
    game.apply(0, {"type": "roll"})
    events = game.apply(0, {"type": "declare_bankruptcy"})
    over = find(events, "game_over")
    assert over["winner"] == 1 and over["reason"] == "last_player"
    assert cash(game) == [0, 15100]
