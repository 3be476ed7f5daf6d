"""docs/rules.md §5: buying at list price, declining, and the round-robin auction."""

from __future__ import annotations

from scenario_kit import cash, find, kinds, legal_types, make, pending_seat, refuse, setup, timeout


def test_buy_at_list_price(mode: str) -> None:
    game = make(mode, dice=[(1, 2)])
    events = game.apply(0, {"type": "roll"})
    offered = find(events, "purchase_offered")
    assert (offered["square"], offered["price"]) == (3, 600)
    assert legal_types(game, 0) == {"buy", "decline", "resign"}
    events = game.apply(0, {"type": "buy"})
    bought = find(events, "company_bought")
    assert (bought["seat"], bought["square"], bought["price"]) == (0, 3, 600)
    snap = game.snapshot()
    assert snap["squares"][3]["owner"] == 0
    assert cash(game) == [14400, 15000]
    assert snap["turn"] == 1


def test_cannot_buy_without_the_cash(mode: str) -> None:
    game = make(mode, dice=[(1, 2)])
    setup(game, 0, cash=599)
    game.apply(0, {"type": "roll"})
    assert legal_types(game, 0) == {"decline", "resign"}
    refuse(game, 0, {"type": "buy"}, "insufficient_cash")
    refuse(game, 1, {"type": "buy"}, "not_your_turn")


def test_decline_starts_an_auction_after_the_decliner_who_bids_last(mode: str) -> None:
    game = make(mode, 4, dice=[(1, 2)], first_player=1)
    game.apply(1, {"type": "roll"})  # seat 1 on 3
    events = game.apply(1, {"type": "decline"})
    started = find(events, "auction_started")
    assert (started["square"], started["order"], started["minimum"]) == (3, [2, 3, 0, 1], 600)
    snap = game.snapshot()
    assert snap["phase"] == "auction"
    assert snap["auction"]["bidder"] == 2 and snap["auction"]["minimum"] == 600 and snap["auction"]["bid"] is None
    assert pending_seat(game) == (2, "bid")
    assert snap["pending"][0]["clock"]["kind"] == "auction" and snap["pending"][0]["clock"]["seconds"] == 10
    assert game.legal_actions(2)[:2] == [{"type": "bid", "amount": 600}, {"type": "pass"}]


def test_auction_opens_at_list_price_and_rises_by_exactly_100(mode: str) -> None:
    game = make(mode, 3, dice=[(1, 2)])
    game.apply(0, {"type": "roll"})
    game.apply(0, {"type": "decline"})  # order 1, 2, 0
    refuse(game, 1, {"type": "bid", "amount": 500}, "bad_bid")
    refuse(game, 1, {"type": "bid", "amount": 700}, "bad_bid")
    refuse(game, 2, {"type": "bid", "amount": 600}, "not_your_turn")
    game.apply(1, {"type": "bid", "amount": 600})
    assert game.snapshot()["auction"]["minimum"] == 700
    refuse(game, 2, {"type": "bid", "amount": 600}, "bad_bid")
    refuse(game, 2, {"type": "bid", "amount": 750}, "bad_bid")
    refuse(game, 2, {"type": "bid", "amount": 800}, "bad_bid")
    game.apply(2, {"type": "bid", "amount": 700})
    game.apply(0, {"type": "bid", "amount": 800})
    game.apply(1, {"type": "bid", "amount": 900})
    game.apply(2, {"type": "pass"})
    assert game.snapshot()["auction"]["bidder"] == 0
    events = game.apply(0, {"type": "pass"})
    won = find(events, "auction_won")
    assert (won["seat"], won["square"], won["amount"]) == (1, 3, 900)
    snap = game.snapshot()
    assert snap["squares"][3]["owner"] == 1 and snap["auction"] is None
    assert cash(game) == [15000, 14100, 15000]
    assert snap["turn"] == 1


def test_the_leader_is_skipped_and_a_pass_is_final(mode: str) -> None:
    game = make(mode, 4, dice=[(1, 2)])
    game.apply(0, {"type": "roll"})
    game.apply(0, {"type": "decline"})  # order 1, 2, 3, 0
    game.apply(1, {"type": "bid", "amount": 600})
    game.apply(2, {"type": "pass"})
    assert "bid" not in legal_types(game, 2)
    game.apply(3, {"type": "pass"})
    game.apply(0, {"type": "bid", "amount": 700})
    # 1 is next, then 2 and 3 have passed for good, 0 leads: back to 1
    game.apply(1, {"type": "bid", "amount": 800})
    assert game.snapshot()["auction"]["bidder"] == 0
    game.apply(0, {"type": "bid", "amount": 900})
    assert game.snapshot()["auction"]["bidder"] == 1
    refuse(game, 2, {"type": "bid", "amount": 1000}, "not_your_turn")
    refuse(game, 0, {"type": "bid", "amount": 1000}, "not_your_turn")
    events = game.apply(1, {"type": "pass"})
    assert find(events, "auction_won")["seat"] == 0
    assert cash(game) == [14100, 15000, 15000, 15000]


def test_a_bidder_short_of_the_minimum_passes_automatically(mode: str) -> None:
    game = make(mode, 4, dice=[(1, 2)])
    setup(game, 2, cash=650)
    setup(game, 3, cash=500)
    game.apply(0, {"type": "roll"})
    events = game.apply(0, {"type": "decline"})
    assert "auction_passed" not in kinds(events)  # seat 1 bids first and can afford it
    events = game.apply(1, {"type": "bid", "amount": 600})
    auto = [e for e in events if e["type"] == "auction_passed"]
    assert auto == [{"type": "auction_passed", "seat": 2, "auto": True, "reason": "cash"},
                    {"type": "auction_passed", "seat": 3, "auto": True, "reason": "cash"}]
    assert game.snapshot()["auction"]["bidder"] == 0
    assert game.snapshot()["auction"]["passed"] == [2, 3]
    events = game.apply(0, {"type": "pass"})
    assert find(events, "auction_won")["seat"] == 1
    assert cash(game) == [15000, 14400, 650, 500]


def test_an_auction_timeout_is_a_pass(mode: str) -> None:
    game = make(mode, 3, dice=[(1, 2)])
    game.apply(0, {"type": "roll"})
    game.apply(0, {"type": "decline"})
    game.apply(1, {"type": "bid", "amount": 600})
    events = timeout(game)
    assert find(events, "auction_passed") == {"type": "auction_passed", "seat": 2, "auto": True,
                                              "reason": "timeout"}
    assert game.snapshot()["auction"]["bidder"] == 0
    events = timeout(game, seat=0)
    assert find(events, "auction_won")["seat"] == 1
    assert game.snapshot()["players"][0]["missed_turns"] == 0


def test_nobody_bids_it_stays_unowned_and_the_next_lander_may_buy(mode: str) -> None:
    game = make(mode, dice=[(1, 2), (1, 2)])
    game.apply(0, {"type": "roll"})
    game.apply(0, {"type": "decline"})
    game.apply(1, {"type": "pass"})
    events = game.apply(0, {"type": "pass"})
    assert find(events, "auction_unsold")["square"] == 3
    snap = game.snapshot()
    assert snap["squares"][3]["owner"] is None and snap["turn"] == 1
    assert cash(game) == [15000, 15000]
    game.apply(1, {"type": "roll"})
    assert game.snapshot()["offer"] == 3
    game.apply(1, {"type": "buy"})
    assert game.snapshot()["squares"][3]["owner"] == 1
    assert cash(game) == [15000, 14400]


def test_the_decliner_may_win_its_own_auction(mode: str) -> None:
    game = make(mode, dice=[(1, 2)])
    game.apply(0, {"type": "roll"})
    game.apply(0, {"type": "decline"})
    game.apply(1, {"type": "pass"})
    events = game.apply(0, {"type": "bid", "amount": 600})
    assert find(events, "auction_won")["amount"] == 600
    assert game.snapshot()["squares"][3]["owner"] == 0
    assert cash(game) == [14400, 15000]


def test_players_out_take_no_part_in_auctions(mode: str) -> None:
    game = make(mode, 3, dice=[(1, 2)])
    game.apply(1, {"type": "resign"})
    game.apply(0, {"type": "roll"})
    events = game.apply(0, {"type": "decline"})
    assert find(events, "auction_started")["order"] == [2, 0]


def test_after_an_auction_a_doubles_roller_rolls_again(mode: str) -> None:
    game = make(mode, dice=[(3, 3), (4, 6)])
    game.apply(0, {"type": "roll"})  # 6
    game.apply(0, {"type": "decline"})
    events = game.apply(1, {"type": "bid", "amount": 1000})
    game.apply(0, {"type": "pass"})
    assert "auction_started" not in kinds(events)
    snap = game.snapshot()
    assert snap["squares"][6]["owner"] == 1
    assert (snap["turn"], snap["phase"]) == (0, "turn")
    assert pending_seat(game) == (0, "roll")


def test_a_bidder_who_cannot_afford_the_list_price_is_passed_over_on_its_turn(mode: str) -> None:
    game = make(mode, 3, dice=[(1, 2)])
    setup(game, 1, cash=599)
    game.apply(0, {"type": "roll"})
    events = game.apply(0, {"type": "decline"})
    assert [e for e in events if e["type"] == "auction_passed"] == [
        {"type": "auction_passed", "seat": 1, "auto": True, "reason": "cash"}]
    assert game.snapshot()["auction"]["bidder"] == 2


def test_each_bidder_gets_a_fresh_10_second_clock(mode: str) -> None:
    game = make(mode, 3, dice=[(1, 2)])
    game.apply(0, {"type": "roll"})
    game.apply(0, {"type": "decline"})
    first = game.snapshot()["pending"][0]["clock"]
    game.apply(1, {"type": "bid", "amount": 600})
    second = game.snapshot()["pending"][0]["clock"]
    assert first["kind"] == second["kind"] == "auction" and first["seconds"] == second["seconds"] == 10
    assert first["id"] != second["id"]
