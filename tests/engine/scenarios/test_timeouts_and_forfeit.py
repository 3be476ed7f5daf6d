"""docs/rules.md §12: timers, missed turns, forfeit and resigning."""

from __future__ import annotations

from scenario_kit import cash, find, kinds, make, pending_seat, refuse, setup, timeout


def test_a_turn_timeout_plays_the_turn_with_safe_defaults(mode: str) -> None:
    game = make(mode, dice=[(1, 2)])
    events = timeout(game)
    assert find(events, "turn_timed_out") == {"type": "turn_timed_out", "seat": 0, "missed": 1}
    assert find(events, "purchase_declined")["auto"] is True
    assert find(events, "auction_started")["order"] == [1, 0]
    assert game.snapshot()["players"][0]["missed_turns"] == 1
    game.apply(1, {"type": "pass"})
    assert pending_seat(game) == (0, "bid")  # the auction has its own clock
    events = timeout(game)
    assert "auction_unsold" in kinds(events)
    snap = game.snapshot()
    assert snap["turn"] == 1 and snap["squares"][3]["owner"] is None
    assert snap["players"][0]["missed_turns"] == 1
    assert cash(game) == [15000, 15000]


def test_a_timeout_in_the_buy_phase_declines(mode: str) -> None:
    game = make(mode, dice=[(1, 2)])
    game.apply(0, {"type": "roll"})
    events = timeout(game)
    assert find(events, "purchase_declined")["auto"] is True
    assert game.snapshot()["phase"] == "auction"


def test_a_timeout_at_the_jackpot_declines(mode: str) -> None:
    game = make(mode, dice=[(2, 3)])
    setup(game, 0, position=15)
    game.apply(0, {"type": "roll"})
    events = timeout(game)
    assert find(events, "jackpot_declined")["auto"] is True
    assert cash(game) == [15000, 15000]
    assert game.snapshot()["turn"] == 1


def test_a_timed_out_turn_pays_where_forced(mode: str) -> None:
    game = make(mode, dice=[(1, 2)])
    setup(game, 0, position=1)
    events = timeout(game)
    assert find(events, "debt_paid")["auto"] is True
    assert cash(game) == [13000, 15000]
    assert game.snapshot()["turn"] == 1


def test_a_timed_out_jailed_player_tries_for_doubles(mode: str) -> None:
    game = make(mode, dice=[(1, 2)])
    setup(game, 0, in_jail=True)
    events = timeout(game)
    assert find(events, "jail_roll_failed")["tries"] == 1
    assert cash(game) == [15000, 15000]


def test_timed_out_doubles_keep_rolling_automatically(mode: str) -> None:
    game = make(mode, dice=[(3, 3), (4, 4), (1, 2)])
    setup(game, 0, owns=[6, 14])
    events = timeout(game)
    assert [e["dice"] for e in events if e["type"] == "dice_rolled"] == [[3, 3], [4, 4], [1, 2]]


def test_two_missed_turns_in_a_row_forfeit(mode: str) -> None:
    game = make(mode, 3, dice=[(4, 6), (4, 6), (4, 6)])
    setup(game, 0, owns=[5], levels={1: 1, 3: 1})
    timeout(game)  # seat 0 to just visiting
    game.apply(1, {"type": "roll"})
    game.apply(2, {"type": "roll"})
    events = timeout(game)
    assert find(events, "turn_timed_out")["missed"] == 2
    out = find(events, "player_out")
    assert out["reason"] == "forfeit"
    snap = game.snapshot()
    assert snap["players"][0]["out"] is True and snap["players"][0]["out_reason"] == "forfeit"
    assert [snap["squares"][i]["owner"] for i in (1, 3, 5)] == [None, None, None]
    assert [snap["squares"][i]["level"] for i in (1, 3)] == [0, 0]
    assert cash(game) == [0, 15000, 15000]  # a forfeit is a bankruptcy to the bank
    assert snap["turn"] == 1 and not snap["over"]


def test_a_forfeit_of_one_of_two_ends_the_game(mode: str) -> None:
    game = make(mode, dice=[(4, 6), (4, 6)])
    timeout(game)
    game.apply(1, {"type": "roll"})
    events = timeout(game)
    assert find(events, "game_over")["winner"] == 1
    assert game.is_over


def test_any_own_action_resets_the_missed_turn_counter(mode: str) -> None:
    game = make(mode, dice=[(4, 6)] * 6)

    def roll(seat: int) -> None:  # Start to just visiting, every time
        game.players[seat].position = 0
        game.apply(seat, {"type": "roll"})

    timeout(game)  # missed 1
    roll(1)
    roll(0)  # own action: back to 0
    assert game.snapshot()["players"][0]["missed_turns"] == 0
    roll(1)
    game.players[0].position = 0
    timeout(game)  # missed 1, not out
    assert game.snapshot()["players"][0]["missed_turns"] == 1
    # answering a trade during the other player's turn also counts
    tid = find(game.apply(1, {"type": "propose_trade", "to": 0, "give": {"cash": 100}, "take": {"cash": 100}}),
               "trade_proposed")["id"]
    game.apply(0, {"type": "decline_trade", "trade": tid})
    assert game.snapshot()["players"][0]["missed_turns"] == 0
    roll(1)
    game.players[0].position = 0
    timeout(game)
    snap = game.snapshot()
    assert snap["players"][0]["out"] is False and snap["players"][0]["missed_turns"] == 1


def test_stale_and_misdirected_timeouts_are_refused(mode: str) -> None:
    game = make(mode)
    refuse(game, None, {"type": "timeout", "seat": 1}, "stale_timeout")
    refuse(game, 0, {"type": "timeout"}, "system_only")
    refuse(game, None, {"type": "timeout", "trade": 99}, "no_such_trade")


def test_resign_at_any_time(mode: str) -> None:
    game = make(mode, 3, dice=[(1, 2)])
    setup(game, 2, owns=[39], cash=7000)
    game.apply(0, {"type": "roll"})  # seat 0 in the buy phase
    events = game.apply(2, {"type": "resign"})
    assert find(events, "player_out")["reason"] == "resigned"
    snap = game.snapshot()
    assert snap["players"][2]["out"] is True and snap["squares"][39]["owner"] is None
    assert snap["phase"] == "buy" and snap["turn"] == 0
    game.apply(0, {"type": "resign"})  # on its own turn: the game ends with one player left
    snap = game.snapshot()
    assert snap["over"] and snap["result"]["winner"] == 1


def test_resigning_on_turn_passes_the_turn(mode: str) -> None:
    game = make(mode, 3, dice=[(1, 2)])
    game.apply(0, {"type": "roll"})
    game.apply(0, {"type": "resign"})
    snap = game.snapshot()
    assert snap["turn"] == 1 and snap["phase"] == "turn"
    assert snap["squares"][3]["owner"] is None


def test_the_current_bidder_resigning_passes_the_bidding_on(mode: str) -> None:
    game = make(mode, 4, dice=[(1, 2)])
    game.apply(0, {"type": "roll"})
    game.apply(0, {"type": "decline"})
    game.apply(1, {"type": "bid", "amount": 600})
    game.apply(2, {"type": "resign"})
    assert game.snapshot()["auction"]["bidder"] == 3
    game.apply(0, {"type": "resign"})  # not bidding now: seat 3 keeps its turn to bid
    assert game.snapshot()["auction"]["bidder"] == 3
    events = game.apply(3, {"type": "pass"})
    assert find(events, "auction_won")["seat"] == 1
