"""Progression formats and boundaries a change must not move silently (issue 46).

Stored cards are re-drawn from their seed to be checked, and profiles publish drop-seed commitments
before the drop: a change to the draw's seed text, the nonce or the commitment's text would make every
stored card or published commitment fail to match. The known answers below pin them."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import random

import pytest

from opolyx.progression import draw_card, drop_nonce, game_xp, load_progression, seed_commitment
from opolyx.progression.drops import CardDrop, drop_levels_between, is_drop_level, rarity_weights
from opolyx.rules import load_board

SEED = 123456789


def test_a_known_seed_draws_known_cards() -> None:
    assert draw_card(SEED, 3) == CardDrop(level=3, square=1, rarity="common")
    assert draw_card(SEED, 10) == CardDrop(level=10, square=12, rarity="uncommon")
    assert draw_card(2**62 - 1, 25) == CardDrop(level=25, square=11, rarity="uncommon")


def test_the_draw_is_seeded_by_the_documented_text() -> None:
    """``random.Random("opolyx-card:<seed>:<level>")``: a company, then a rarity from the level's band."""
    for seed, level in ((SEED, 3), (7, 15), (2**40, 40)):
        rng = random.Random(f"opolyx-card:{seed}:{level}")
        companies = load_board("classic").companies
        square = companies[rng.randrange(len(companies))]
        weights = rarity_weights(level)
        rarity = rng.choices([n for n, _ in weights], weights=[w for _, w in weights])[0]
        assert draw_card(seed, level) == CardDrop(level, square, rarity)


def test_the_drop_seed_commitment_is_a_fixed_sha256_with_a_128_bit_nonce() -> None:
    nonce = drop_nonce("test-secret", SEED)
    assert nonce == "414bf84915dbbc63ebb15660edc93d89" and len(nonce) == 32
    expected = hmac.new(b"test-secret", f"opolyx-drop-seed:{SEED}".encode(), hashlib.sha256).hexdigest()[:32]
    assert nonce == expected
    assert drop_nonce("other-secret", SEED) != nonce and drop_nonce("test-secret", SEED + 1) != nonce
    c = seed_commitment(SEED, nonce)
    assert c == "e40829a3fd98fd9b613d169308ca9d885e4276844395fb80b2c45a7134caf8c3"
    assert c == hashlib.sha256(f"opolyx-drop-seed-v1:{SEED}:{nonce}".encode()).hexdigest()
    assert seed_commitment(SEED, "0" * 32) != c  # the nonce is in it


def test_drop_levels_and_rarity_bands() -> None:
    assert [lv for lv in range(1, 60) if is_drop_level(lv)] == [3, 5, 7, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55]
    assert drop_levels_between(2, 10) == [3, 5, 7, 10] and drop_levels_between(3, 4) == []
    assert drop_levels_between(10, 15) == [15] and drop_levels_between(5, 5) == []
    rules = load_progression()
    bands = dict(rules.rarity_weights)
    for level, band in ((1, 1), (9, 1), (10, 10), (19, 10), (20, 20), (39, 30), (40, 40), (99, 40)):
        assert rarity_weights(level) == bands[band], level


def _result(round_: int) -> dict[str, object]:
    return {"round": round_, "placements": [{"seat": 0, "place": 1}, {"seat": 1, "place": 2, "out": True}]}


def _snapshot() -> dict[str, object]:
    return {"board": "classic", "squares": [{"index": i, "owner": None} for i in range(40)]}


def test_a_game_pays_xp_from_round_ten_exactly() -> None:
    rules = load_progression()
    assert rules.min_round == 10
    assert game_xp(_result(9), _snapshot()) == {}
    paid = game_xp(_result(10), _snapshot())
    assert paid[0].to_json() == {
        "placement": 100,
        "place": 1,
        "groups": 0,
        "group_count": 0,
        "survival": 25,
        "total": 125,
    }
    assert paid[1].total == 60  # second place, out: no survival bonus


def test_the_rules_record_is_shared_and_cannot_be_changed_by_a_caller() -> None:
    """``load_progression`` is cached: one caller changing a number would change it for every game."""
    rules = load_progression()
    assert load_progression() is rules
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.min_round = 1  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.farming.daily_xp_cap = 10**9  # type: ignore[misc]


# --- levels, ranks, VIP and the daily cap at their boundaries ---------------------------------------------


def test_levels_ranks_and_vip_at_their_boundaries() -> None:
    from opolyx.progression import is_vip, level_for, rank_for, xp_for_level

    assert [xp_for_level(n) for n in (1, 2, 3, 10)] == [0, 100, 300, 4500]
    assert [level_for(x) for x in (0, 99, 100, 299, 300, 4499, 4500)] == [1, 1, 2, 2, 3, 9, 10]
    assert level_for(xp_for_level(50)) == 50 and level_for(10**9) == 50, "capped at 50"
    assert [rank_for(lv) for lv in (1, 4, 5, 9, 10, 49, 50)] == [
        "novice", "novice", "apprentice", "apprentice", "trader", "mogul", "legend"
    ]  # fmt: skip
    assert is_vip(10, account=True) and not is_vip(9, account=True)
    assert not is_vip(50, account=False), "a guest is never VIP"


def test_the_daily_cap_cuts_then_refuses_and_a_refused_seat_wins_nothing() -> None:
    from datetime import UTC, datetime

    from opolyx.progression import Credit, Standing

    cap = load_progression().farming.daily_xp_cap
    assert cap == 1500
    fresh = Standing(xp=0, level=1, wins=0, drop_seed=SEED)
    win = Credit(0, "u", 200, {"total": 200}, True)
    cut = win.book(Standing(0, 1, 0, SEED, xp_today=cap - 150))
    assert (cut.xp, cut.refused, cut.parts["capped_from"], cut.totals.wins) == (150, None, 200, 1)
    exact = win.book(Standing(0, 1, 0, SEED, xp_today=cap - 200))
    assert (exact.xp, exact.refused, "capped_from" in exact.parts) == (200, None, False)
    for today in (cap, cap + 50):
        full = win.book(Standing(0, 1, 0, SEED, xp_today=today))
        assert (full.xp, full.refused, full.totals.wins, full.totals.xp) == (0, "daily_cap", 0, 0), today
    refused = Credit(0, "u", 200, {"total": 200}, True, "short_game").book(fresh)
    assert (refused.xp, refused.refused, refused.totals.wins) == (0, "short_game", 0)
    nothing = Credit(0, "u", 0, {"total": 0}, True).book(Standing(0, 1, 0, SEED, xp_today=cap))
    assert (nothing.xp, nothing.refused, nothing.totals.wins) == (0, None, 1), "a paid seat with 0 XP still won"
    assert Credit.cap_since(datetime(2026, 12, 4, 23, 59, 1, 7, tzinfo=UTC)) == datetime(2026, 12, 4, tzinfo=UTC)


def test_levels_never_go_down_and_every_drop_level_passed_draws_a_card() -> None:
    from opolyx.progression import Standing
    from opolyx.progression.booking import merged, promoted

    high = promoted(Standing(xp=0, level=5, wins=2, drop_seed=SEED), 100, 1)
    assert (high.xp, high.level, high.wins, high.drops) == (100, 5, 3, ()) and not high.seed_spent
    up = promoted(Standing(xp=0, level=1, wins=0, drop_seed=SEED), 4500, 0)
    assert up.level == 10 and up.seed_spent
    assert up.drops == tuple(draw_card(SEED, lv) for lv in (3, 5, 7, 10))
    assert merged(Standing(xp=100, level=2, wins=1, drop_seed=SEED), 200, 2) == promoted(
        Standing(xp=100, level=2, wins=1, drop_seed=SEED), 200, 2
    )


def test_placement_xp_for_each_place_and_none_outside_the_table() -> None:
    placements = [{"seat": i, "place": i + 1, "out": True} for i in range(6)]
    placements += [{"seat": 6, "place": 7, "out": True}, {"seat": 7, "place": 0, "out": True}]
    paid = game_xp({"round": 12, "placements": placements}, _snapshot())
    assert [paid[s].placement for s in range(8)] == [100, 60, 40, 25, 15, 10, 0, 0]
    assert all(paid[s].survival == 0 for s in range(8)), "out: no survival XP"


def test_progression_records_are_frozen() -> None:
    """Credits, bookings and drops are handed from the rules to the store: nobody on the way may edit one."""
    from opolyx.progression import Credit, SeatFacts, Standing
    from opolyx.progression.booking import Booking, Totals
    from opolyx.progression.credits import Person
    from opolyx.progression.table import Farming, ProgressionRules
    from opolyx.progression.xp import XpParts

    for cls in (XpParts, CardDrop, Standing, Totals, Booking, Credit, Person, SeatFacts, ProgressionRules, Farming):
        assert vars(cls)["__dataclass_params__"].frozen, cls


def test_drops_follow_the_rules_they_are_given() -> None:
    """Rules are data: a server with other drop levels or rarity bands gets its own, not the defaults."""
    rules = dataclasses.replace(
        load_progression(),
        drop_levels=(3,),
        drop_every_from=12,
        drop_every=5,
        rarity_weights=((5, (("common", 1),)), (10, (("legendary", 1),))),
    )
    assert [lv for lv in range(1, 30) if is_drop_level(lv, rules)] == [3, 17, 22, 27]
    assert drop_levels_between(10, 22, rules) == [17, 22]
    assert rarity_weights(3, rules) == (("common", 1),), "below every band: the first band"
    assert rarity_weights(10, rules) == (("legendary", 1),)
    assert draw_card(SEED, 12, rules).rarity == "legendary" and draw_card(SEED, 7, rules).rarity == "common"


def test_ranks_follow_the_rules_they_are_given() -> None:
    from opolyx.progression import rank_for

    rules = dataclasses.replace(load_progression(), ranks=(("rookie", 5), ("pro", 10), ("star", 20)))
    assert [rank_for(lv, rules) for lv in (1, 5, 9, 10, 25)] == ["rookie", "rookie", "rookie", "pro", "star"]


# --- credits: who left early, and when earlier meetings count ---------------------------------------------


def _credits_snap(round_: int, reasons: dict[int, str]) -> dict[str, object]:
    players = [{"seat": s, "out_reason": reasons.get(s)} for s in range(3)]
    placements = [{"seat": s, "place": s + 1, "out": s in reasons} for s in range(3)]
    return {
        "board": "classic",
        "squares": [{"index": i, "owner": None} for i in range(40)],
        "players": players,
        "result": {"round": round_, "placements": placements},
    }


def test_a_seat_out_before_any_round_event_went_out_in_round_one() -> None:
    from opolyx.progression import out_rounds

    assert out_rounds([{"type": "player_out", "seat": 2}]) == {2: 1}
    events = [{"type": "turn_started", "round": 4}, {"type": "player_out", "seat": 1}]
    assert out_rounds(events) == {1: 4}


def test_leaving_before_round_thirty_is_early_and_in_round_thirty_is_not() -> None:
    from opolyx.progression.credits import early_leavers, meetings_matter

    snap = _credits_snap(40, {1: "resigned", 2: "forfeit"})
    assert early_leavers(snap, {1: 29, 2: 30}) == {1}
    assert early_leavers(_credits_snap(40, {1: "bankrupt"}), {1: 3}) == set(), "going broke is playing"
    # Earlier meetings count at any table of a paying game somebody left early, from round 10 exactly.
    assert meetings_matter(_credits_snap(10, {1: "resigned"}), {1: 5})
    assert not meetings_matter(_credits_snap(9, {1: "resigned"}), {1: 5})
    assert not meetings_matter(_credits_snap(10, {1: "bankrupt"}), {1: 5}), "going broke is not leaving"


def test_credits_follow_the_rules_they_are_given() -> None:
    from opolyx.progression import SeatPlay, game_credits
    from opolyx.progression.credits import Person

    base = load_progression()
    rules = dataclasses.replace(
        base,
        placement_xp=(500, 300, 100),
        farming=dataclasses.replace(base.farming, pair_games=1),
    )
    people = [Person(0, "a"), Person(1, "b"), Person(2, "c")]
    snap = _credits_snap(40, {1: "resigned"})
    # Every seat played all its turns at a person's pace (docs/accounts.md "measured play").
    play = {s: SeatPlay(s, 40, 40, 80, 4000 * 40, 12_000 * 40, game_ms=40 * 25_000) for s in range(3)}
    paid = game_credits(snap, people, {1: 5}, play=play, rules=rules)
    assert paid[0].xp == 500 + rules.survival_xp
    # With an early leaver at the table, one earlier meeting is enough under these rules, and a person
    # with no recorded meetings had none.
    met = game_credits(snap, people, {1: 5}, play=play, meetings={"a": 1}, rules=rules)
    assert [c.refused for c in met] == ["pair_farming", "early_exit", None]


def test_farming_guards_at_their_boundaries_and_defaults() -> None:
    from opolyx.progression import SeatFacts, refusal

    fair = SeatFacts(is_person=True, out_reason=None, out_round=None, game_round=10, played_turns=1)
    assert (fair.pair_meetings, fair.early_leaver_at_table, fair.same_person) == (0, False, False), (
        "absent: no meetings, nobody left, nobody else of this person here"
    )
    assert refusal(fair) is None, "a game ending in round 10 pays"
    assert refusal(dataclasses.replace(fair, game_round=9)) == "short_game"


def test_a_refused_credit_is_not_capped_and_an_exact_cap_is_not_cut() -> None:
    from datetime import UTC, datetime

    from opolyx.progression import Credit, Standing

    cap = load_progression().farming.daily_xp_cap
    refused = Credit(0, "u", 300, {"total": 300}, False, "early_exit").book(Standing(0, 1, 0, SEED, xp_today=cap))
    assert (refused.xp, refused.refused, "capped_from" in refused.parts) == (0, "early_exit", False)
    whole = Credit(0, "u", cap, {"total": cap}, False).book(Standing(0, 1, 0, SEED))  # nothing booked today
    assert (whole.xp, "capped_from" in whole.parts) == (cap, False)
    over = Credit(0, "u", cap + 1, {"total": cap + 1}, False).book(Standing(0, 1, 0, SEED))
    assert (over.xp, over.parts["capped_from"]) == (cap, cap + 1), "nothing booked today still means the cap"
    # The store asks a credit (not the class) where its day starts.
    assert over.refused is None and whole.xp == cap
    credit = Credit(0, "u", 1, {}, False)
    assert credit.cap_since(datetime(2026, 1, 2, 3, 4, tzinfo=UTC)) == datetime(2026, 1, 2, tzinfo=UTC)


def test_levels_follow_the_rules_they_are_given() -> None:
    from opolyx.progression import Standing
    from opolyx.progression.booking import promoted

    rules = dataclasses.replace(load_progression(), level_step_xp=10)  # level n at 10·n·(n−1)
    assert promoted(Standing(0, 1, 0, SEED), 20, 0, rules).level == 2
    assert promoted(Standing(0, 1, 0, SEED), 20, 0).level == 1
