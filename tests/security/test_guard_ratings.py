"""Skill ratings from the side of someone who would move them unfairly (issue 46): a private or house-rule
room, a game against nobody, a seat a bot took over, an AI agent's seat on the people's board, a failing
store that would undo a finished game. Each case is a finished game the booking must treat as stated in
server/play/rating_credit.py; the store is a recorder, so what is asked of it is what is checked."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Hashable, Mapping
from datetime import UTC, datetime
from typing import Any

import pytest

from opolyx.jsontypes import JSON
from opolyx.progression import skill
from opolyx.progression.skill import BOT_ANCHORS, Entrant, Skill, bot_skill, display, ordinal, provisional, rate
from opolyx.server.play import rating_credit
from opolyx.storage import AGENTS, PEOPLE, Moved, RatingKey, RatingRecord, RoomRecord, SeatRecord

pytestmark = pytest.mark.anyio


class Booker:
    """The store's ``book_ratings``, recorded: which game, which keys, and what ``decide`` made of them."""

    def __init__(self, stored: Mapping[RatingKey, RatingRecord] | None = None, fail: bool = False) -> None:
        self.stored = dict(stored or {})
        self.fail = fail
        self.calls: list[tuple[str, list[RatingKey], dict[RatingKey, Moved]]] = []

    async def book_ratings(self, room_id: str, keys: list[RatingKey], decide: Any) -> list[RatingRecord]:
        if self.fail:
            raise RuntimeError("database went away")
        moved = dict(decide({k: self.stored.get(k) for k in keys}))
        self.calls.append((room_id, list(keys), moved))
        return [RatingRecord(k.user_id, k.mode, k.pool, m.mu, m.sigma, 1) for k, m in moved.items()]


def room(*seats: SeatRecord, mode: str = "classic", rated: bool = True, house: JSON | None = None) -> RoomRecord:
    return RoomRecord(
        "g1", None, mode, len(seats), True, "a", "finished", datetime.now(UTC), seats, rated=rated, house_rules=house
    )


def person(seat: int, uid: str, agent: bool = False) -> SeatRecord:
    return SeatRecord(seat, uid, None, uid.upper(), agent=agent)


def bot(seat: int, strength: str | None = "hard", uid: str | None = None) -> SeatRecord:
    return SeatRecord(seat, uid, strength, f"Bot {seat}")


def result(*places: int, teams: list[int] | None = None) -> JSON:
    out: list[JSON] = []
    for seat, place in enumerate(places):
        p: dict[str, Any] = {"seat": seat, "place": place}
        if teams is not None:
            p["team"] = teams[seat]
        out.append(p)
    return {"placements": out}


async def book(r: RoomRecord, res: JSON | None, store: Booker | None = None) -> Booker:
    store = store or Booker()
    await rating_credit.rate_game(store, r, res)  # type: ignore[arg-type]
    return store


async def test_an_unrated_room_moves_nobody() -> None:
    two = (person(0, "a"), person(1, "b"))
    assert (await book(room(*two, rated=False), result(1, 2))).calls == []
    # House rules added after a rated room was made: still nobody's rating moves.
    assert (await book(room(*two, house={"salary": 100}), result(1, 2))).calls == []
    # A game that ended without a result (closed by an operator) moves nothing either.
    assert (await book(room(*two), None)).calls == []
    assert (await book(room(*two), {})).calls == []
    # The rated standard room does.
    [(game, keys, _)] = (await book(room(*two), result(1, 2))).calls
    assert game == "g1" and keys == [RatingKey("a", "classic"), RatingKey("b", "classic")]


async def test_a_game_against_nobody_or_only_bots_moves_nothing() -> None:
    # Alone at the table (everyone else's seat gone from the room): nothing to be rated against.
    assert (await book(room(person(0, "a")), result(1))).calls == []
    # Bots only: no person's rating to move.
    assert (await book(room(bot(0), bot(1, "easy")), result(1, 2))).calls == []
    # One person against one bot is a game.
    [(_, keys, moved)] = (await book(room(person(0, "a"), bot(1)), result(1, 2))).calls
    assert keys == [RatingKey("a", "classic")] and moved[keys[0]].mu > skill.START_MU


async def test_placements_of_seats_the_room_does_not_have_are_ignored() -> None:
    """A result naming a seat nobody sat in rates nobody for it (and does not make a lone person's game)."""
    res: JSON = {"placements": [{"seat": 0, "place": 2}, {"seat": 5, "place": 1}]}
    assert (await book(room(person(0, "a")), res)).calls == []
    assert rating_credit.entrants_of(room(person(0, "a"), person(1, "b")), res) == [
        (RatingKey("a", "classic"), None, 0, 2)
    ]
    # An unknown seat first does not hide the real ones after it.
    res = {"placements": [{"seat": 5, "place": 1}, {"seat": 0, "place": 2}, {"seat": 1, "place": 3}]}
    [(_, keys, _)] = (await book(room(person(0, "a"), person(1, "b")), res)).calls
    assert keys == [RatingKey("a", "classic"), RatingKey("b", "classic")]


async def test_a_bot_that_took_over_a_seat_is_a_fixed_anchor_not_the_leaver() -> None:
    """The leaver's id stays on the seat a bot took over: the bot's play must not move the leaver's rating."""
    taken = SeatRecord(1, "b", "hard", "Bot", took_over_at=12)
    found = rating_credit.entrants_of(room(person(0, "a"), taken), result(2, 1))
    assert found == [(RatingKey("a", "classic"), None, 0, 2), (None, "hard", 1, 1)]
    [(_, keys, moved)] = (await book(room(person(0, "a"), taken), result(2, 1))).calls
    assert keys == [RatingKey("a", "classic")]
    # Lost to a hard bot: exactly what the library says for losing to the hard anchor.
    mu, sigma = BOT_ANCHORS["hard"]
    expected = rate([Entrant("a", Skill(), 0, 2), Entrant(None, Skill(mu, sigma), 1, 1)])["a"]
    assert moved[keys[0]].mu == pytest.approx(expected.mu) and moved[keys[0]].sigma == pytest.approx(expected.sigma)


async def test_a_bot_without_a_strength_counts_as_normal() -> None:
    found = rating_credit.entrants_of(room(person(0, "a"), bot(1, None)), result(1, 2))
    # A seat with neither a person nor a strength is a bot of the normal anchor.
    assert found[1] == (None, "normal", 1, 2)
    seats: list[tuple[RatingKey | None, str | None, int, int]] = [
        (RatingKey("a", "classic"), None, 0, 1),
        (None, None, 1, 2),
    ]
    moved = rating_credit.decider(seats)({RatingKey("a", "classic"): None})
    normal = rate([Entrant("a", Skill(), 0, 1), Entrant(None, bot_skill("normal"), 1, 2)])["a"]
    assert moved[RatingKey("a", "classic")].mu == pytest.approx(normal.mu)


async def test_an_agent_seat_moves_the_agents_board_and_never_the_person_s() -> None:
    r = room(person(0, "a", agent=True), person(1, "b"), mode="blitz")
    [(_, keys, _)] = (await book(r, result(1, 2))).calls
    assert keys == [RatingKey("a", "blitz", AGENTS), RatingKey("b", "blitz", PEOPLE)]


async def test_the_stored_rating_is_the_starting_point_and_before_is_reported() -> None:
    strong = RatingRecord("a", "classic", PEOPLE, 35.0, 2.0, 30)
    store = Booker({RatingKey("a", "classic"): strong})
    [(_, _, moved)] = (await book(room(person(0, "a"), person(1, "b")), result(2, 1), store)).calls
    a, b = moved[RatingKey("a", "classic")], moved[RatingKey("b", "classic")]
    assert (a.mu_before, a.sigma_before) == (35.0, 2.0) and a.mu < 35.0
    assert (b.mu_before, b.sigma_before) == (skill.START_MU, skill.START_SIGMA) and b.mu > skill.START_MU
    expected = rate([Entrant("a", Skill(35.0, 2.0), 0, 2), Entrant("b", Skill(), 1, 1)])
    assert a.mu == pytest.approx(expected["a"].mu) and b.mu == pytest.approx(expected["b"].mu)


async def test_team_mates_share_their_team_s_result() -> None:
    seats = (person(0, "a"), person(1, "b"), person(2, "c"), person(3, "d"))
    # Seats 0 and 2 (team 0) won; as seats, seat 2 placed third, but the team's place is what counts.
    res = result(1, 2, 1, 2, teams=[0, 1, 0, 1])
    found = rating_credit.entrants_of(room(*seats, mode="team"), res)
    assert [side for _, _, side, _ in found] == [0, 1, 0, 1]
    [(_, _, moved)] = (await book(room(*seats, mode="team"), res)).calls
    assert moved[RatingKey("a", "team")].mu > skill.START_MU and moved[RatingKey("c", "team")].mu > skill.START_MU
    assert moved[RatingKey("b", "team")].mu < skill.START_MU
    # Outside Team games a team field is not a side: every seat plays for itself.
    solo = rating_credit.entrants_of(room(*seats), res)
    assert [side for _, _, side, _ in solo] == [0, 1, 2, 3]
    # A team game's placement without a team falls back to the seat.
    bare = rating_credit.entrants_of(room(*seats[:2], mode="team"), result(1, 2))
    assert [side for _, _, side, _ in bare] == [0, 1]


async def test_a_store_failure_is_logged_and_never_undoes_the_finished_game(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger=rating_credit.__name__):
        await rating_credit.rate_after(Booker(fail=True), room(person(0, "a"), person(1, "b")), result(1, 2))  # type: ignore[arg-type]
    assert "could not book the ratings of game g1" in caplog.text


# --- the rules themselves (progression/skill.py) -------------------------------------------------------------


def test_the_shown_rating_is_conservative_and_never_negative() -> None:
    assert ordinal(25.0, 2.0) == 19.0
    assert Skill(25.0, 2.0).ordinal == 19.0
    assert display(25.0, 2.0) == 1000 + 40 * 19
    assert display(0.0, 25.0) == 0  # far below: floored at zero, not negative
    assert display(25.0, 25.0 / 3.0 + 0.01) == 999  # rounded, not truncated towards zero
    assert provisional(0) and provisional(skill.PROVISIONAL_GAMES - 1) and not provisional(skill.PROVISIONAL_GAMES)


def test_an_unknown_bot_strength_is_the_normal_anchor() -> None:
    assert bot_skill("hard") == Skill(*BOT_ANCHORS["hard"])
    assert bot_skill("godlike") == Skill(*BOT_ANCHORS["normal"])


def test_a_side_s_place_is_its_best_member_s() -> None:
    """Two players on one side with places 1 and 3 against one in place 2: the side won."""
    got = rate([Entrant("a", Skill(), 0, 3), Entrant("b", Skill(), 0, 1), Entrant("c", Skill(), 1, 2)])
    assert got["a"].mu > skill.START_MU and got["c"].mu < skill.START_MU


def test_only_rated_entrants_come_back() -> None:
    keys: list[Hashable] = list(rate([Entrant("a", Skill(), 0, 1), Entrant(None, bot_skill("easy"), 1, 2)]))
    assert keys == ["a"]
    # One person and one bot on two sides is still a game; everyone on one side is not.
    assert rate([Entrant("a", Skill(), 0, 2), Entrant(None, bot_skill("easy"), 1, 1)])["a"].mu < skill.START_MU
    assert rate([Entrant("a", Skill(), 3, 1), Entrant(None, bot_skill("easy"), 3, 2)]) == {}


def test_a_skill_or_an_entrant_cannot_be_rewritten_in_place() -> None:
    """Bots' anchors are shared Skill values: nothing may move one for everybody."""
    anchor = bot_skill("hard")
    with pytest.raises(dataclasses.FrozenInstanceError):
        anchor.mu = 99.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Entrant("a", Skill(), 0, 1).place = 1  # type: ignore[misc]
    assert Skill() == Skill(skill.START_MU, skill.START_SIGMA) and skill.START_SIGMA == 25.0 / 3.0


def test_the_documented_numbers_hold() -> None:
    """docs/accounts.md "Skill ratings": anchors at mu 18 / 25 / 30 with sigma 1, provisional until 5
    games, a newcomer at mu 25 and sigma 25/3 shown as 1000."""
    assert [bot_skill(s) for s in ("easy", "normal", "hard")] == [Skill(18.0, 1.0), Skill(25.0, 1.0), Skill(30.0, 1.0)]
    assert provisional(4) and not provisional(5)
    assert (Skill().mu, Skill().sigma) == (25.0, 25.0 / 3.0) and display(Skill().mu, Skill().sigma) == 1000
