"""docs/rules.md §8: trades."""

from __future__ import annotations

from typing import Any

import pytest
from scenario_kit import cash, find, kinds, make, refuse, setup, timeout

from opolyx.engine import IllegalAction


def offer(to: int, give: dict[str, Any] | None = None, take: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "propose_trade", "to": to, "give": give or {}, "take": take or {}}


def propose(game, seat: int, to: int, give=None, take=None) -> int:  # type: ignore[no-untyped-def]
    events = game.apply(seat, offer(to, give, take))
    return int(find(events, "trade_proposed")["id"])


def test_cash_and_companies_change_hands_both_ways(mode: str) -> None:
    game = make(mode, 3)
    setup(game, 0, owns=[5, 1])
    setup(game, 1, owns=[15, 37])
    tid = propose(game, 0, 1, {"cash": 800, "squares": [5, 1]}, {"cash": 300, "squares": [15, 37]})
    snap = game.snapshot()
    assert snap["trades"] == [{"id": tid, "from": 0, "to": 1, "give": {"cash": 800, "squares": [1, 5]},
                               "take": {"cash": 300, "squares": [15, 37]}, "seconds": 60}]
    assert {"type": "accept_trade", "trade": tid} in game.legal_actions(1)
    assert {"type": "cancel_trade", "trade": tid} in game.legal_actions(0)
    trade_clock = [p for p in snap["pending"] if p["decision"] == "trade"]
    assert trade_clock == [{"seat": 1, "decision": "trade", "trade": tid,
                            "clock": {"kind": "trade", "id": f"trade:{tid}", "seconds": 60}}]
    refuse(game, 0, {"type": "accept_trade", "trade": tid}, "not_recipient")
    refuse(game, 2, {"type": "accept_trade", "trade": tid}, "not_recipient")
    events = game.apply(1, {"type": "accept_trade", "trade": tid})
    assert "trade_accepted" in kinds(events)
    snap = game.snapshot()
    assert [snap["squares"][i]["owner"] for i in (1, 5, 15, 37)] == [1, 1, 0, 0]
    assert cash(game) == [14500, 15500, 15000]
    assert snap["trades"] == []


def test_a_mortgaged_company_moves_with_its_mortgage(mode: str) -> None:
    game = make(mode)
    setup(game, 0, mortgaged=[39])
    # value of a mortgaged dark-blue B: 4000 - 2200 = 1800; half of it is 900
    refuse(game, 0, offer(1, {"squares": [39]}, {"cash": 899}), "unfair_trade")
    tid = propose(game, 0, 1, {"squares": [39]}, {"cash": 900})
    game.apply(1, {"type": "accept_trade", "trade": tid})
    snap = game.snapshot()
    assert snap["squares"][39]["owner"] == 1 and snap["squares"][39]["mortgaged"] is True
    assert cash(game) == [15900, 14100]


def test_fairness_smaller_side_at_least_half_the_larger(mode: str) -> None:
    game = make(mode)
    setup(game, 0, owns=[5])  # worth 2000
    refuse(game, 0, offer(1, {"cash": 1000}, {"cash": 2001}), "unfair_trade")
    refuse(game, 0, offer(1, {"squares": [5]}, {"cash": 999}), "unfair_trade")
    refuse(game, 0, offer(1, {"squares": [5]}, {"cash": 4001}), "unfair_trade")
    refuse(game, 0, offer(1, {}, {"cash": 100}), "unfair_trade")  # a gift is one-sided
    propose(game, 0, 1, {"cash": 1000}, {"cash": 2000})
    propose(game, 0, 1, {"squares": [5]}, {"cash": 1000})
    propose(game, 0, 1, {"squares": [5]}, {"cash": 4000})


def test_an_unfair_offer_is_refused_with_both_values_and_the_limit(mode: str) -> None:
    """An agent can compute a fair offer from the refusal: what each side is worth and where the line is."""
    game = make(mode)
    setup(game, 0, owns=[5])  # worth 2000
    before = game.snapshot()
    for give, take, values, at_least, at_most in (
        ({"squares": [5]}, {"cash": 4001}, (2000, 4001), 2001, 4000),  # overpaid
        ({"squares": [5]}, {"cash": 999}, (2000, 999), 1000, 1998),  # underpaid
    ):
        with pytest.raises(IllegalAction) as refused:
            game.apply(0, offer(1, give, take))
        assert refused.value.code == "unfair_trade"
        assert refused.value.data == {
            "give_value": values[0], "take_value": values[1], "fairness_percent": 50,
            "smaller_side_at_least": at_least, "larger_side_at_most": at_most,
        }
        assert str(values[0]) in str(refused.value) and str(values[1]) in str(refused.value)
    assert game.snapshot() == before


def test_at_most_three_open_offers(mode: str) -> None:
    game = make(mode, 3)
    first = propose(game, 0, 1, {"cash": 100}, {"cash": 100})
    propose(game, 0, 2, {"cash": 100}, {"cash": 200})
    propose(game, 0, 1, {"cash": 200}, {"cash": 100})
    assert "propose_trade" not in {a["type"] for a in game.legal_actions(0)}
    refuse(game, 0, offer(2, {"cash": 100}, {"cash": 100}), "too_many_trades")
    game.apply(1, {"type": "decline_trade", "trade": first})
    propose(game, 0, 2, {"cash": 100}, {"cash": 100})


def test_only_companies_without_buildings(mode: str) -> None:
    game = make(mode)
    setup(game, 0, levels={1: 0, 3: 1})
    # the engine's reading: a street of a built-on group counts as built (as for mortgaging, docs/rules.md §7)
    refuse(game, 0, offer(1, {"squares": [1]}, {"cash": 600}), "has_buildings")
    refuse(game, 0, offer(1, {"squares": [3]}, {"cash": 600}), "has_buildings")


def test_trade_refusals(mode: str) -> None:
    game = make(mode, 3)
    setup(game, 1, owns=[15])
    refuse(game, 0, offer(0, {"cash": 100}, {"cash": 100}), "bad_trade")
    refuse(game, 0, offer(1), "bad_trade")
    refuse(game, 0, offer(1, {"squares": [15]}, {"cash": 2000}), "not_owner")
    refuse(game, 0, offer(1, {"cash": 15001}, {"squares": [15]}), "insufficient_cash")
    refuse(game, 0, offer(1, {"cash": 100}, {"cash": 15001}), "insufficient_cash")
    refuse(game, 0, offer(1, {"cash": -1}, {"cash": 100}), "bad_trade")
    refuse(game, 0, offer(1, {"cash": 2000}, {"squares": [15, 15]}), "bad_trade")
    refuse(game, 1, offer(0, {"squares": [15]}, {"cash": 2000}), "wrong_phase")  # not its turn
    game.apply(2, {"type": "resign"})
    refuse(game, 0, offer(2, {"cash": 100}, {"cash": 100}), "player_out")
    refuse(game, 1, {"type": "accept_trade", "trade": 12345}, "no_such_trade")


def test_lapse_by_timeout(mode: str) -> None:
    game = make(mode)
    tid = propose(game, 0, 1, {"cash": 100}, {"cash": 100})
    events = timeout(game, trade=tid)
    assert events == [{"type": "trade_lapsed", "trade": tid, "reason": "expired"}]
    assert game.snapshot()["trades"] == []
    assert game.snapshot()["phase"] == "turn" and game.snapshot()["turn"] == 0
    refuse(game, 1, {"type": "accept_trade", "trade": tid}, "no_such_trade")


def test_lapse_at_once_when_cash_becomes_short(mode: str) -> None:
    game = make(mode, dice=[(1, 2)])
    setup(game, 0, cash=4500)
    setup(game, 1, owns=[15])
    tid = propose(game, 0, 1, {"cash": 4000}, {"squares": [15]})
    game.apply(0, {"type": "roll"})
    events = game.apply(0, {"type": "buy"})  # 4500 - 600 = 3900 < 4000
    assert {"type": "trade_lapsed", "trade": tid, "reason": "invalid"} in events
    assert game.snapshot()["trades"] == []


def test_lapse_at_once_when_an_item_changes_hands(mode: str) -> None:
    game = make(mode, 3)
    setup(game, 0, owns=[5])
    setup(game, 1, owns=[15])
    a = propose(game, 0, 1, {"squares": [5]}, {"squares": [15]})
    b = propose(game, 0, 2, {"squares": [5]}, {"cash": 2000})
    events = game.apply(2, {"type": "accept_trade", "trade": b})
    assert {"type": "trade_lapsed", "trade": a, "reason": "invalid"} in events
    snap = game.snapshot()
    assert snap["squares"][5]["owner"] == 2 and snap["trades"] == []


def test_lapse_when_buildings_appear_on_the_group(mode: str) -> None:
    game = make(mode)
    setup(game, 0, owns=[1, 3])
    tid = propose(game, 0, 1, {"squares": [1]}, {"cash": 600})
    events = game.apply(0, {"type": "build", "square": 3})
    assert {"type": "trade_lapsed", "trade": tid, "reason": "invalid"} in events


def test_proposals_only_before_the_roll_or_in_ones_own_pay_step(mode: str) -> None:
    game = make(mode, dice=[(1, 2), (1, 2)])
    setup(game, 0, owns=[5])
    setup(game, 1, owns=[15], position=1)
    game.apply(0, {"type": "roll"})  # buy phase on 3
    refuse(game, 0, offer(1, {"squares": [5]}, {"squares": [15]}), "wrong_phase")
    game.apply(0, {"type": "buy"})
    game.apply(1, {"type": "roll"})  # 4: income tax, seat 1's pay step
    refuse(game, 0, offer(1, {"squares": [5]}, {"squares": [15]}), "wrong_phase")
    tid = propose(game, 1, 0, {"squares": [15]}, {"cash": 2000})
    # the recipient answers at any time, here during the proposer's pay step
    game.apply(0, {"type": "accept_trade", "trade": tid})
    assert game.snapshot()["phase"] == "pay"
    game.apply(1, {"type": "pay"})
    assert cash(game) == [15000 - 600 - 2000, 15000 + 2000 - 2000]


def test_the_recipient_answers_during_an_auction(mode: str) -> None:
    game = make(mode, 3, dice=[(1, 2)])
    setup(game, 1, owns=[15])
    tid = propose(game, 0, 1, {"cash": 2000}, {"squares": [15]})
    game.apply(0, {"type": "roll"})
    game.apply(0, {"type": "decline"})
    assert game.snapshot()["phase"] == "auction"
    game.apply(1, {"type": "accept_trade", "trade": tid})
    snap = game.snapshot()
    assert snap["squares"][15]["owner"] == 0 and snap["phase"] == "auction"


def test_decline_and_cancel(mode: str) -> None:
    game = make(mode)
    a = propose(game, 0, 1, {"cash": 100}, {"cash": 100})
    b = propose(game, 0, 1, {"cash": 200}, {"cash": 200})
    refuse(game, 1, {"type": "cancel_trade", "trade": a}, "not_proposer")
    refuse(game, 0, {"type": "decline_trade", "trade": a}, "not_recipient")
    assert find(game.apply(1, {"type": "decline_trade", "trade": a}), "trade_declined")["trade"] == a
    assert find(game.apply(0, {"type": "cancel_trade", "trade": b}), "trade_cancelled")["trade"] == b
    assert game.snapshot()["trades"] == []
    assert cash(game) == [15000, 15000]


def test_trades_lapse_when_a_party_leaves(mode: str) -> None:
    game = make(mode, 3)
    tid = propose(game, 0, 2, {"cash": 100}, {"cash": 100})
    events = game.apply(2, {"type": "resign"})
    assert {"type": "trade_lapsed", "trade": tid, "reason": "player_out"} in events


def test_an_auction_leaders_bid_is_committed_cash(mode: str) -> None:
    # Accepting a trade may not spend the cash a standing bid needs: such an offer lapses as cash-short.
    game = make(mode, 3, dice=[(1, 2)])
    setup(game, 0, owns=[5, 15, 25, 35, 37])
    tid = propose(game, 0, 1, {"squares": [5, 15, 25, 35, 37]}, {"cash": 14600})
    game.apply(0, {"type": "roll"})
    game.apply(0, {"type": "decline"})
    events = game.apply(1, {"type": "bid", "amount": 600})
    assert {"type": "trade_lapsed", "trade": tid, "reason": "invalid"} in events
    refuse(game, 1, {"type": "accept_trade", "trade": tid}, "no_such_trade")
    game.apply(2, {"type": "pass"})
    game.apply(0, {"type": "pass"})
    assert cash(game) == [15000, 14400, 15000]
