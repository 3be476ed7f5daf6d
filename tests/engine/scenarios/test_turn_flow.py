"""docs/rules.md §§1, 2 and 4: seats, starting cash, rolling, salary, doubles, rounds, refusals."""

from __future__ import annotations

import pytest
from scenario_kit import cash, find, kinds, make, pending_seat, refuse, setup

import opolyx


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_every_seat_starts_with_15000(mode: str, seats: int) -> None:
    game = make(mode, seats)
    snap = game.snapshot()
    assert cash(game) == [15000] * seats
    assert [p["position"] for p in snap["players"]] == [0] * seats
    assert snap["round"] == 1
    assert snap["phase"] == "turn"
    assert snap["turn"] == 0
    assert all(s["owner"] is None and s["level"] == 0 for s in snap["squares"])


def test_seat_order_runs_clockwise_from_the_first_player(mode: str) -> None:
    game = make(mode, 4, first_player=2)
    snap = game.snapshot()
    assert snap["order"] == [2, 3, 0, 1]
    assert snap["turn"] == 2
    assert game.legal_actions(0) == [{"type": "resign"}]


def test_turn_clock_by_mode(mode: str) -> None:
    game = make(mode)
    pend = game.snapshot()["pending"]
    assert pend == [{"seat": 0, "decision": "roll",
                     "clock": {"kind": "turn", "id": pend[0]["clock"]["id"],
                               "seconds": 75 if mode == "classic" else 60}}]
    assert game.snapshot()["rules"]["pay_step_seconds"] == 75


def test_roll_moves_by_the_dice_and_resolves(mode: str) -> None:
    game = make(mode, dice=[(1, 2)])
    events = game.apply(0, {"type": "roll"})
    assert find(events, "dice_rolled")["dice"] == [1, 2]
    moved = find(events, "moved")
    assert (moved["seat"], moved["to"], moved["steps"]) == (0, 3, 3)
    snap = game.snapshot()
    assert snap["players"][0]["position"] == 3
    assert snap["phase"] == "buy" and snap["offer"] == 3


def test_turn_ends_by_itself_when_nothing_is_owed(mode: str) -> None:
    game = make(mode, dice=[(4, 6)])
    events = game.apply(0, {"type": "roll"})  # 10: just visiting
    assert kinds(events)[-1] == "turn_started"
    snap = game.snapshot()
    assert snap["turn"] == 1 and snap["phase"] == "turn"
    assert snap["players"][0]["in_jail"] is False
    assert cash(game) == [15000, 15000]


def test_passing_start_pays_the_salary(mode: str) -> None:
    game = make(mode, dice=[(1, 2)])
    setup(game, 0, position=38)
    events = game.apply(0, {"type": "roll"})
    got = find(events, "cash_received")
    assert (got["seat"], got["amount"], got["reason"]) == (0, 2000, "salary")
    assert game.snapshot()["players"][0]["position"] == 1
    assert cash(game) == [17000, 15000]


def test_landing_exactly_on_start_pays_salary_and_bonus(mode: str) -> None:
    game = make(mode, dice=[(1, 2)])
    setup(game, 0, position=37)
    events = game.apply(0, {"type": "roll"})
    got = find(events, "cash_received")
    assert (got["amount"], got["reason"]) == (3000, "start_landing")
    assert cash(game) == [18000, 15000]
    assert game.snapshot()["turn"] == 1  # Start itself asks nothing


def test_doubles_roll_again(mode: str) -> None:
    game = make(mode, dice=[(3, 3), (1, 2), (4, 6)])
    game.apply(0, {"type": "roll"})  # 6
    game.apply(0, {"type": "buy"})
    snap = game.snapshot()
    assert snap["turn"] == 0 and snap["phase"] == "turn" and snap["doubles"] == 1
    assert pending_seat(game) == (0, "roll")
    game.apply(0, {"type": "roll"})  # 9
    game.apply(0, {"type": "buy"})
    snap = game.snapshot()
    assert snap["turn"] == 1
    assert [snap["squares"][i]["owner"] for i in (6, 9)] == [0, 0]
    assert cash(game) == [15000 - 1000 - 1200, 15000]


def test_third_doubles_go_to_jail_without_moving(mode: str) -> None:
    game = make(mode, dice=[(3, 3), (4, 4), (5, 5)])
    game.apply(0, {"type": "roll"})  # 6
    game.apply(0, {"type": "buy"})
    game.apply(0, {"type": "roll"})  # 14
    game.apply(0, {"type": "buy"})
    events = game.apply(0, {"type": "roll"})  # third doubles: would reach 24
    assert "moved" not in kinds(events)
    assert "third_doubles" in kinds(events)
    assert find(events, "jailed")["reason"] == "third_doubles"
    snap = game.snapshot()
    assert snap["players"][0]["position"] == 10 and snap["players"][0]["in_jail"] is True
    assert snap["squares"][24]["owner"] is None
    assert snap["turn"] == 1
    assert cash(game) == [15000 - 1000 - 1600, 15000]


def test_doubles_counter_resets_each_turn(mode: str) -> None:
    # two doubles in seat 0's turn, then doubles again on its next turn: a first doubles, no jail
    game = make(mode, dice=[(3, 3), (4, 4), (1, 3), (4, 6), (3, 3), (1, 2)])
    setup(game, 0, owns=[6, 14, 18, 24, 27])
    game.apply(0, {"type": "roll"})  # 6
    game.apply(0, {"type": "roll"})  # 14
    game.apply(0, {"type": "roll"})  # 18
    game.apply(1, {"type": "roll"})  # 10
    events = game.apply(0, {"type": "roll"})  # 24
    assert "jailed" not in kinds(events)
    snap = game.snapshot()
    assert snap["players"][0]["position"] == 24 and snap["doubles"] == 1
    assert pending_seat(game) == (0, "roll")
    game.apply(0, {"type": "roll"})  # 27
    assert game.snapshot()["turn"] == 1


def test_go_to_jail_square(mode: str) -> None:
    game = make(mode, dice=[(2, 3)])
    setup(game, 0, position=25)
    events = game.apply(0, {"type": "roll"})
    assert find(events, "jailed")["reason"] == "go_to_jail"
    p = game.snapshot()["players"][0]
    assert (p["position"], p["in_jail"]) == (10, True)
    assert cash(game) == [15000, 15000]
    assert game.snapshot()["turn"] == 1


@pytest.mark.parametrize(("start", "square", "tax"), [(1, 4, 2000), (35, 38, 1000)])
def test_tax_squares_go_through_the_pay_step(mode: str, start: int, square: int, tax: int) -> None:
    game = make(mode, dice=[(1, 2)])
    setup(game, 0, position=start)
    game.apply(0, {"type": "roll"})
    snap = game.snapshot()
    assert snap["phase"] == "pay"
    assert snap["debt"]["amount"] == tax and snap["debt"]["reason"] == "tax"
    assert snap["debt"]["creditors"] == [{"seat": None, "amount": tax}]
    assert cash(game) == [15000, 15000]
    game.apply(0, {"type": "pay"})
    assert cash(game) == [15000 - tax, 15000]
    assert game.snapshot()["turn"] == 1


def test_rounds_count_once_everyone_has_had_a_turn(mode: str) -> None:
    game = make(mode, 3, dice=[(4, 6), (4, 6), (4, 6)], first_player=1)
    game.apply(1, {"type": "roll"})
    game.apply(2, {"type": "roll"})
    assert game.snapshot()["round"] == 1
    events = game.apply(0, {"type": "roll"})
    assert find(events, "round_started")["round"] == 2
    snap = game.snapshot()
    assert (snap["round"], snap["turn"]) == (2, 1)


def test_rounds_skip_players_who_are_out(mode: str) -> None:
    game = make(mode, 3, dice=[(4, 6), (4, 6)])
    game.apply(1, {"type": "resign"})
    game.apply(0, {"type": "roll"})
    assert game.snapshot()["turn"] == 2
    game.apply(2, {"type": "roll"})
    snap = game.snapshot()
    assert (snap["round"], snap["turn"]) == (2, 0)


def test_refused_actions_leave_the_game_untouched(mode: str) -> None:
    game = make(mode, 3, dice=[(1, 2)])
    refuse(game, 1, {"type": "roll"}, "not_your_turn")
    refuse(game, 0, {"type": "buy"}, "wrong_phase")
    refuse(game, 0, {"type": "fly"}, "unknown_action")
    refuse(game, 0, ["roll"], "bad_action")  # type: ignore[arg-type]
    refuse(game, 7, {"type": "roll"}, "bad_seat")
    refuse(game, 0, {"type": "timeout"}, "system_only")
    refuse(game, None, {"type": "roll"}, "seat_required")
    refuse(game, 0, {"type": "pay_bail"}, "not_in_jail")
    refuse(game, 0, {"type": "jail_roll"}, "not_in_jail")
    refuse(game, 0, {"type": "pay"}, "wrong_phase")
    refuse(game, 0, {"type": "bid", "amount": 600}, "wrong_phase")
    game.apply(2, {"type": "resign"})
    refuse(game, 2, {"type": "resign"}, "player_out")


def test_new_game_refuses_bad_set_up() -> None:
    with pytest.raises(opolyx.IllegalAction) as info:
        opolyx.new_game("classic", 7, 1)
    assert info.value.code == "bad_seats"
    with pytest.raises(opolyx.IllegalAction) as info:
        opolyx.new_game("classic", 2, 1, deck=["birthday"] * 16)
    assert info.value.code == "bad_deck"
    with pytest.raises(opolyx.IllegalAction) as info:
        opolyx.new_game("classic", 2, 1, dice=[(0, 7)])
    assert info.value.code == "bad_dice"


def test_a_game_is_replayable_from_its_actions(mode: str) -> None:
    game = make(mode, 3, dice=[(3, 3), (1, 2), (4, 6), (2, 3)])
    game.apply(0, {"type": "roll"})
    game.apply(0, {"type": "decline"})
    game.apply(1, {"type": "bid", "amount": 1000})
    game.apply(2, {"type": "pass"})
    game.apply(0, {"type": "pass"})
    game.apply(0, {"type": "roll"})
    game.apply(0, {"type": "buy"})
    again = opolyx.Game.from_save(game.to_save())
    assert again.snapshot() == game.snapshot()


def test_the_first_player_is_drawn_from_the_seed(mode: str) -> None:
    firsts = set()
    for seed in range(12):
        a = opolyx.new_game(mode, 4, seed)
        b = opolyx.new_game(mode, 4, seed)
        assert a.snapshot() == b.snapshot()
        order = a.snapshot()["order"]
        first = order[0]
        assert order == [(first + k) % 4 for k in range(4)] and a.snapshot()["turn"] == first
        firsts.add(first)
    assert len(firsts) > 1


def test_building_mortgaging_and_trading_never_reset_the_turn_clock(mode: str) -> None:
    game = make(mode)
    setup(game, 0, owns=[1, 3, 5])
    clock = game.snapshot()["pending"][0]["clock"]
    game.apply(0, {"type": "build", "square": 1})
    game.apply(0, {"type": "mortgage", "square": 5})
    game.apply(0, {"type": "propose_trade", "to": 1, "give": {"cash": 100}, "take": {"cash": 100}})
    assert game.snapshot()["pending"][0]["clock"] == clock


def test_a_pay_step_on_doubles_is_followed_by_the_roll_again(mode: str) -> None:
    game = make(mode, dice=[(2, 2)])
    game.apply(0, {"type": "roll"})  # income tax
    assert game.snapshot()["phase"] == "pay"
    game.apply(0, {"type": "pay"})
    assert pending_seat(game) == (0, "roll")
    assert cash(game) == [13000, 15000]


@pytest.mark.parametrize(("mode_name", "expected"), [
    ("classic", {"turn_seconds": 75, "round_limit": 500, "rent_tax_start": 100, "rent_tax_full": 200}),
    ("blitz", {"turn_seconds": 60, "round_limit": 25, "rent_tax_start": None, "rent_tax_full": None}),
])
def test_mode_table(mode_name: str, expected: dict[str, object]) -> None:
    rules = make(mode_name).snapshot()["rules"]
    common = {"auction_seconds": 10, "pay_step_seconds": 75, "trade_seconds": 60, "auction_step": 100,
              "jail_bail": 500, "jackpot_stake": 1000, "corner_20": "jackpot", "even_building": True,
              "third_die_from_round": None, "mortgage_expiry_rounds": None, "redemption_percent": 110,
              "max_open_trades": 3, "teams": False, "murabaha": False}
    assert {k: rules[k] for k in {**common, **expected}} == {**common, **expected}
