"""Fortuna (docs/rules.md §§3, 15, 18): the Chinese-brand board, the Temple of Wealth, the gods, the
red envelope and lucky eight; plus the amount formats of every language."""

from __future__ import annotations

import pytest
from modekit import act, cash, finish_turn, make, money_conserved, of, play_until, player, snap

import opolyx
from opolyx import format_amount
from opolyx.rules import load_board, load_cards

CARDS = [c.id for c in load_cards()]
DISCLAIMER = "Brand names belong to their owners; opolyx is not affiliated with them."


def deck(*first: str) -> list[str]:
    return [*first, *(c for c in CARDS if c not in first)]


def test_fortuna_board_has_chinese_brands_the_disclaimer_and_the_classic_numbers():
    fortuna, classic = load_board("fortuna"), load_board("classic")
    assert fortuna.disclaimer == DISCLAIMER
    assert len(fortuna.squares) == 40
    for f, c in zip(fortuna.squares, classic.squares, strict=True):
        assert (f.kind, f.group, f.price, f.rents, f.level_cost, f.tax) == (
            c.kind, c.group, c.price, c.rents, c.level_cost, c.tax)
        if f.is_company:
            assert f.name_zh and any("\u4e00" <= ch <= "\u9fff" for ch in f.name_zh), f.index
    assert fortuna.squares[20].kind == "corner_20"
    assert snap(make("fortuna"))["board"] == "fortuna"
    assert snap(make("classic"))["board"] == "classic"
    assert snap(make("fortuna"))["rules"]["corner_20"] == "temple_of_wealth"


def test_temple_of_wealth_brings_the_god_of_wealth_for_three_rounds():
    dice = [(4, 6), (4, 6), (4, 6), (1, 2), (1, 2), (4, 6)]
    game = make("fortuna", 2, dice)
    finish_turn(game)
    finish_turn(game)
    events = act(game, 0, "roll")  # round 2: 10 → 20
    arrived = of(events, "god_arrived")[0]
    assert (arrived["god"], arrived["until_round"]) == ("wealth", 5)
    assert not of(events, "jackpot_offered")
    assert (player(game, 0)["god"], player(game, 0)["god_until_round"]) == ("wealth", 5)
    finish_turn(game)  # seat 1 to pink B, declined and unsold
    act(game, 0, "roll")  # round 3: 20 → 23, red B
    act(game, 0, "buy")
    events = act(game, 1, "roll")  # 13 → 23
    rent = of(events, "rent_due")[0]
    assert rent["amount"] == 180 + 90  # owner's God of Wealth: +50 %, paid by the tenant
    before0, before1 = cash(game, 0), cash(game, 1)
    act(game, 1, "pay")
    assert (cash(game, 0), cash(game, 1)) == (before0 + 270, before1 - 270)
    play_until(game, round_no=4, seat=1)
    assert player(game, 0)["god"] == "wealth"
    events = play_until(game, round_no=5, seat=0)
    assert player(game, 0)["god"] is None and of(events, "god_left")
    assert money_conserved(game)


def test_performance_bonus_brings_the_god_of_wealth_instead_of_cash():
    game = make("fortuna", 2, [(3, 4)], deck=deck("performance_bonus"))
    events = act(game, 0, "roll")
    assert of(events, "card_drawn")[0]["card"] == "god_of_wealth"
    assert player(game, 0)["god"] == "wealth" and cash(game, 0) == 15000
    assert not of(events, "cash_received")


def test_tax_audit_brings_the_god_of_misfortune_and_the_tenant_pays_more():
    dice = [(4, 6), (3, 4), (1, 2), (2, 4)]
    game = make("fortuna", 2, dice, deck=deck("tax_audit"))
    finish_turn(game)
    events = act(game, 1, "roll")
    assert of(events, "card_drawn")[0]["card"] == "god_of_misfortune"
    assert player(game, 1)["god"] == "misfortune" and cash(game, 1) == 15000
    assert not snap(game)["debts"]  # no 2500 to the bank
    act(game, 0, "roll")  # 10 → 13, pink B
    act(game, 0, "buy")
    events = act(game, 1, "roll")  # 7 → 13
    assert of(events, "rent_due")[0]["amount"] == 100 + 50
    act(game, 1, "pay")
    assert money_conserved(game)


def test_one_god_at_a_time_the_new_replaces_the_old():
    dice = [(3, 4), (4, 6), (4, 6)]
    game = make("fortuna", 2, dice, deck=deck("performance_bonus", "tax_audit"))
    act(game, 0, "roll")
    assert player(game, 0)["god"] == "wealth"
    finish_turn(game)
    act(game, 0, "roll")  # 7 → 17
    p = player(game, 0)
    assert (p["god"], p["god_until_round"]) == ("misfortune", 5)


@pytest.mark.parametrize("seats", [2, 4, 6])
def test_red_envelope_splits_the_same_total_at_random(seats):
    def draw(seed):
        game = make("fortuna", seats, [(3, 4)], seed=seed, deck=deck("charity_gala"))
        events = act(game, 0, "roll")
        assert of(events, "card_drawn")[0]["card"] == "red_envelope"
        shares = of(events, "red_envelope")[0]["shares"]
        assert sorted(int(s) for s in shares) == list(range(1, seats))
        assert sum(shares.values()) == 500 * (seats - 1)
        assert all(v >= 0 for v in shares.values())
        debt = snap(game)["debt"]
        assert debt["debtor"] == 0 and debt["amount"] == 500 * (seats - 1)
        assert {str(c["seat"]): c["amount"] for c in debt["creditors"]} == {
            k: v for k, v in shares.items() if v}
        act(game, 0, "pay")
        for seat, share in shares.items():
            assert cash(game, int(seat)) == 15000 + share
        assert money_conserved(game)
        return shares

    first = draw(1)
    assert draw(1) == first  # deterministic per seed
    if seats > 2:
        assert len({tuple(sorted(draw(seed).items())) for seed in range(2, 12)}) > 1


def test_classic_charity_gala_pays_500_to_each():
    game = make("classic", 4, [(3, 4)], deck=deck("charity_gala"))
    act(game, 0, "roll")
    assert snap(game)["debt"]["creditors"] == [{"seat": s, "amount": 500} for s in (1, 2, 3)]


@pytest.mark.parametrize("dice", [(3, 5), (4, 4), (2, 6)])
def test_lucky_eight_pays_880(dice):
    game = make("fortuna", 2, [dice])
    events = act(game, 0, "roll")
    lucky = [e for e in of(events, "cash_received") if e["reason"] == "lucky_eight"]
    assert [e["amount"] for e in lucky] == [880]
    assert cash(game, 0) == 15880
    assert money_conserved(game)


def test_lucky_eight_is_a_parameter():
    game = make("fortuna", 2, [(3, 5)], rules={"lucky_eight_bonus": 88000})
    act(game, 0, "roll")
    assert cash(game, 0) == 15000 + 88000
    assert money_conserved(game)


@pytest.mark.parametrize("mode", ["classic", "halal"])
def test_no_lucky_eight_elsewhere(mode):
    game = make(mode, 2, [(3, 5)])
    events = act(game, 0, "roll")
    assert not [e for e in of(events, "cash_received") if e["reason"] == "lucky_eight"]
    assert cash(game, 0) == 15000


def test_no_other_total_is_lucky():
    for d in [(1, 2), (3, 4), (4, 5), (6, 6)]:
        game = make("fortuna", 2, [d])
        events = act(game, 0, "roll")
        assert not [e for e in of(events, "cash_received") if e["reason"] == "lucky_eight"]


@pytest.mark.parametrize(
    ("amount", "locale", "text"),
    [
        (15000, "zh", "1.5万"),
        (10000, "zh", "1万"),
        (12345, "zh", "1.23万"),
        (880, "zh", "880"),
        (-15000, "zh", "-1.5万"),
        (2000000, "zh", "200万"),
        (15000, "zh-CN", "1.5万"),
        (15000, "zh_TW", "1.5万"),
        (15000, "en", "15,000"),
        (1500, "en", "1,500"),
        (15000, "de", "15.000"),
        (15000, "pt", "15.000"),
        (15000, "es", "15.000"),
        (15000, "fr", "15\u202f000"),
        (0, "de", "0"),
        (15000, "xx", "15,000"),
    ],
)
def test_format_amount(amount, locale, text):
    assert format_amount(amount, locale) == text


def test_format_amount_defaults_to_english():
    assert format_amount(1234567) == "1,234,567"
    assert opolyx.format_amount is format_amount
