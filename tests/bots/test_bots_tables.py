"""The cached per-state tables (``heuristics.derived``) agree with scanning the board, at every step.

The bots read rents, threats, reserves, holding values and group shapes from one cached table that is
worked out again, from the previous ones, only when ownership, levels or mortgages change. These
games check that table against the plain board scans after every action, in every mode.
"""

from __future__ import annotations

from typing import Any, cast

import pytest

from opolyx.bots import derive_seed, play_game
from opolyx.bots.heuristics import (
    UNKNOWN,
    BoardInfo,
    Derived,
    board_info,
    derived,
    holding_value,
    rent_estimate,
    threat_profile_scan,
)
from opolyx.bots.normal import NormalBot
from opolyx.engine.game import Game
from opolyx.engine.teams import allies
from opolyx.rules import mode_names


def tables_now(game: Game) -> tuple[BoardInfo, Derived, Derived]:
    """The board's info, the bots' cached tables and tables built from nothing, for the position now."""
    info = board_info(game.board)
    return info, derived(game, info), Derived(game, info)


def check_tables(game: Game, _events: list[dict[str, Any]]) -> None:
    if game.result is not None:
        return
    info, cached, fresh = tables_now(game)
    owner = game.owner
    for d in (cached, fresh):
        assert d.unowned == sum(1 for i in info.companies if owner[i] is None)
        for i in info.companies:
            assert d.rent[i] == rent_estimate(game, info, i), i
        for seat in range(game.seats):
            top, total = threat_profile_scan(game, info, seat)
            assert d.threat[seat] == (top, total)
            assert d.reserve_of(seat) == min(600 + top // 2 + total // 20, 8000)
            assert d.holding_value(game, seat) == holding_value(game, info, seat)
            assert holding_value(game, info, seat) == pytest.approx(holding_scan(game, seat), rel=1e-12, abs=1e-9)
            assert d.mortgaged_by[seat] == [i for i in info.companies if owner[i] == seat and game.mortgaged[i]]
            complete, short_one, near = [], [], []
            for _g, members in info.groups:
                mine = sum(1 for j in members if owner[j] == seat)
                if mine == len(members):
                    complete.append(members)
                elif mine == len(members) - 1:
                    short_one.append(members)
                    missing = next(j for j in members if owner[j] != seat)
                    o = owner[missing]
                    if o is not None and not allies(game, o, seat):
                        near.append((missing, o))
            assert d.complete[seat] == complete
            assert d.short_one[seat] == short_one
            assert d.near[seat] == near


def holding_scan(game: Game, seat: int, owner: list[int | None] | None = None) -> float:
    """What the normal bot's holding value means, walked square by square: a colour group's held streets at
    their price times the completion factor (and the group's heat), the first held street's levels and
    mortgage; dealerships and utilities at a price growing with how many of the kind are held."""
    info = board_info(game.board)
    own = game.owner if owner is None else owner
    pct = game.rules.redemption_percent
    total = 0.0
    counted: set[str] = set()
    for i in info.companies:
        if own[i] != seat:
            continue
        price = info.price[i]
        kind = info.kind[i]
        if kind == "street":
            group = info.group_of[i]
            assert group is not None
            if group in counted:
                continue
            counted.add(group)
            held = [j for j in info.group_members[i] if own[j] == seat]
            total += sum(info.price[j] for j in held) * info.factors[i][len(held)] * info.hot[i]
        else:
            squares = info.dealerships if kind == "dealership" else info.utilities
            n = sum(1 for j in squares if own[j] == seat)
            total += price * ((1.0 + 0.125 * (n - 1)) if kind == "dealership" else (0.75 + 0.2 * (n - 1)))
        if game.mortgaged[i]:
            total -= price // 2 * pct // 100
        total += game.level[i] * info.level_cost[i]
    return total


def check_trade_values(game: Game, _events: list[dict[str, Any]]) -> None:
    """A trade's value to each seat, worked out from the traded units' shares alone, is what the holding values
    before and after it say, and the same from tables kept since the game began as from tables built now."""
    if game.result is not None:
        return
    info, d, fresh = tables_now(game)
    owner = game.owner
    for i in info.companies:
        a = owner[i]
        if a is None:
            continue
        b = (a + 1 + game.seq % (game.seats - 1)) % game.seats
        partner = next(j for j in info.companies if owner[j] == b) if b in owner else None
        after = owner[:]
        after[i] = b
        units = 1 << info.unit_of[i]
        if partner is not None:
            after[partner] = a
            units |= 1 << info.unit_of[partner]
        for seat in (a, b):
            change = d.holding_change(game, seat, after, units)
            assert change == fresh.holding_change(game, seat, after, units)
            assert change == pytest.approx(holding_scan(game, seat, after) - holding_scan(game, seat), abs=1e-6)
    # The trade judgements the bots kept through every change since are those the position gives now.
    for key in list(d.memo):
        kept = d.recall(key)
        if key[0] != "deltas" or kept is UNKNOWN:
            continue
        _kind, proposer, recipient, give, take = cast("tuple[str, int, int, tuple[int, ...], tuple[int, ...]]", key)
        after = owner[:]
        units = 0
        for i in give:
            after[i] = recipient
            units |= 1 << info.unit_of[i]
        for i in take:
            after[i] = proposer
            units |= 1 << info.unit_of[i]
        assert kept == (fresh.holding_change(game, proposer, after, units),
                        fresh.holding_change(game, recipient, after, units)), key


@pytest.mark.parametrize("mode", ["classic", "team"])
def test_trade_values_follow_from_the_traded_units_alone(mode: str) -> None:
    game = play_game(mode, 4, derive_seed(37, mode), ["normal"] * 4, on_events=check_trade_values,
                     rules={"round_limit": 40})
    assert game.result is not None


@pytest.mark.parametrize("mode", mode_names())
def test_cached_tables_match_board_scans(mode: str) -> None:
    seats = 4
    for k in range(3):
        strengths = ["normal", "easy", "normal", "easy"]
        info = [{"bot": True, "vip": s % 2 == 0} for s in range(seats)]
        game = play_game(mode, seats, derive_seed(31, mode, k), strengths, seat_info=info, on_events=check_tables,
                         rules={"round_limit": 60})
        assert game.result is not None


def test_copies_share_tables_only_while_equal() -> None:
    game = play_game("classic", 4, 5, ["normal"] * 4, rules={"round_limit": 15})
    info = board_info(game.board)
    d = derived(game, info)
    look = game.copy(reseed=1)
    assert derived(look, info) is d  # same position: the tables are reused
    other = game.copy(reseed=2)
    square = info.companies[0]
    other.owner[square] = None if other.owner[square] is not None else 0  # another position (test only)
    changed = derived(other, info)
    assert changed is not d
    assert changed.owner == other.owner
    assert derived(game, info) is not changed  # and back: compared by content, never trusted by identity


def test_finished_bot_games_are_freed() -> None:
    """A server seats bots in room after room: a finished game must not stay in memory through a bot's
    notes about it (what a seat remembers refers back to the game: only a cycle, never a root)."""
    import gc
    import weakref

    finished = [weakref.ref(play_game("classic", 4, derive_seed(31, k), ["normal", "hard", "normal", "easy"]))
                for k in range(3)]
    play_game("blitz", 4, derive_seed(31, "last"), ["normal"] * 4)  # the one game the table cache may hold
    gc.collect()
    assert [ref() is None for ref in finished] == [True, True, True]


def test_tables_worked_out_from_the_last_ones_match_a_fresh_build() -> None:
    """After any mix of changed owners, levels and mortgages (a trade, a bankruptcy, a test moving squares
    about), the tables derived from the previous ones equal tables built from nothing."""
    import random

    game = play_game("classic", 4, 8, ["normal"] * 4, rules={"round_limit": 40})
    info = board_info(game.board)
    rng = random.Random(3)
    fields = ("rent", "top_by", "total_by", "unowned", "mortgaged_by", "complete", "short_one", "near", "threat",
              "reserve", "shapes")
    bot = NormalBot(1)

    def targets(seat: int) -> list[tuple[int, int]]:
        return bot.assembly_targets(game, info, seat) + bot.collect_targets(game, info, seat)

    for _ in range(300):
        before = derived(game, info)
        for seat in range(game.seats):  # the trade targets the normal bot keeps with the tables
            before.by_owner.setdefault((seat, tuple(game.eliminated)), targets(seat))
        for square in rng.sample(info.companies, rng.randint(1, 9)):
            game.owner[square] = rng.choice([None, 0, 1, 2, 3])  # test only: any position, legal or not
            game.mortgaged[square] = game.owner[square] is not None and rng.random() < 0.2
            game.level[square] = rng.choice([0, 0, 1, 3]) if info.kind[square] == "street" else 0
        game.seq += 1  # as an action would
        after = derived(game, info)
        assert after is not before or (after.owner, after.level, after.mortgaged) == (
            game.owner, game.level, game.mortgaged)
        fresh = Derived(game, info)
        for name in fields:
            assert getattr(after, name) == getattr(fresh, name), name
        for (seat, _out), kept in after.by_owner.items():  # targets kept only where still true
            assert kept == targets(seat), seat
