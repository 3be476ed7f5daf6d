"""Measured play: which turns of a seat its person really played, and how long they took.

The server times every action it applies (``elapsed_ms``: from the moment the state it answers was made
to the moment the action arrived) and says who made it (``actor``: a person's own socket, an AI agent's
API key, a bot, the clock, or the server); it replays the game's events. From those facts alone, and
without any clock of its own, this module tells per seat:

- ``turns``: the turns the seat had (those somebody answered for: not a turn the game ended in before
  the seat could act);
- ``played``: the turns its person played: at least one of their own decisions in the turn took at least
  ``min_think_ms`` (a rule parameter, progression.json ``farming``; one is enough, so a quick second click
  or the browser's "pay at once" does not spoil a turn, and the turn's wall time is floored apart): a turn
  the clock played after a timeout, or a script answering in a few milliseconds, is not played;
- ``turn_ms``: the wall time those played turns lasted (from the action that began the turn to the one
  that began the next), and ``game_ms``: the wall time from the start until the seat went out (or the
  game ended), so the credit can ask whether the play lasted a real time plausible for its turns and rounds.

Agents' decisions are counted apart (``agent_decisions``): they play for the agents' board, not for XP.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from opolyx.progression.table import ProgressionRules, load_progression

PERSON = "person"
AGENT = "agent"
BOT = "bot"
CLOCK = "clock"
SERVER = "server"
ACTORS = (PERSON, AGENT, BOT, CLOCK, SERVER)


@dataclass(frozen=True, slots=True)
class Step:
    """One logged action as the server measured it, with the events the engine made of it."""

    seat: int | None
    # Who made it (ACTORS); None: not measured (a log written before measurement existed).
    actor: str | None
    # Milliseconds from the state it answered to its arrival; None: not measured.
    elapsed_ms: int | None
    events: Sequence[Mapping[str, Any]] = ()


@dataclass(frozen=True, slots=True)
class Pace:
    """The plausibility floors: a person's average think time per decision within a turn, and the wall
    time a played turn lasts at least (both rule parameters; ``scale`` < 1 only for tests and benchmarks)."""

    min_think_ms: int
    min_turn_ms: int
    # The wall time a game lasts at least per round a seat was in it.
    min_round_ms: int = 0

    @staticmethod
    def of(rules: ProgressionRules | None = None, scale: float = 1.0) -> Pace:
        rules = rules or load_progression()
        f = rules.farming
        return Pace(
            int(f.min_think_ms * scale), int(f.min_turn_seconds * 1000 * scale), int(f.min_round_seconds * 1000 * scale)
        )


@dataclass(frozen=True, slots=True)
class SeatPlay:
    """What one seat's person played (see the module's docstring)."""

    seat: int
    turns: int = 0
    played: int = 0
    decisions: int = 0
    think_ms: int = 0
    turn_ms: int = 0
    agent_decisions: int = 0
    agent_turns: int = 0
    # Wall time of the game from its start until the seat went out (or the game ended).
    game_ms: int = 0

    def to_json(self) -> dict[str, int]:
        return {
            "turns": self.turns,
            "played": self.played,
            "decisions": self.decisions,
            "think_ms": self.think_ms,
            "turn_ms": self.turn_ms,
            "game_ms": self.game_ms,
        }


@dataclass(slots=True)
class _Turn:
    seat: int
    ms: int = 0
    person: int = 0
    think: int = 0
    slowest: int = 0
    agent: int = 0
    # Somebody answered for the seat in this turn (its person, agent or bot, or the clock).
    answered: bool = False


@dataclass(slots=True)
class _Tally:
    turns: int = 0
    played: int = 0
    decisions: int = 0
    think_ms: int = 0
    turn_ms: int = 0
    agent_decisions: int = 0
    agent_turns: int = 0
    game_ms: int | None = None


def _turn_seat(events: Iterable[Mapping[str, Any]]) -> int | None:
    """The seat whose turn the last ``turn_started`` among these events began (None: none began)."""
    seat = None
    for event in events:
        if event.get("type") == "turn_started" and event.get("seat") is not None:
            seat = int(event["seat"])
    return seat


def measure(
    start_events: Iterable[Mapping[str, Any]], steps: Iterable[Step], pace: Pace | None = None
) -> dict[int, SeatPlay]:
    """Per seat, the turns it had and those its person played, from the game's start events and its
    measured steps in order."""
    pace = pace or Pace.of()
    tallies: dict[int, _Tally] = {}
    first = _turn_seat(start_events)
    turn = _Turn(first) if first is not None else None

    def close(t: _Turn | None) -> None:
        # A turn nobody answered for (the game ended, or the seat went out by another's move, before it
        # could act) is no turn the person could have played.
        if t is None or not t.answered:
            return
        tally = tallies.setdefault(t.seat, _Tally())
        tally.turns += 1
        if t.person > 0 and t.slowest >= pace.min_think_ms:
            tally.played += 1
            tally.turn_ms += t.ms
        elif t.agent > 0:
            tally.agent_turns += 1

    clock = 0
    for step in steps:
        elapsed = max(0, step.elapsed_ms or 0)
        clock += elapsed
        if turn is not None:
            turn.ms += elapsed
            if step.seat == turn.seat or step.actor == CLOCK:
                turn.answered = True
        if step.seat is not None and step.actor in (PERSON, AGENT):
            tally = tallies.setdefault(step.seat, _Tally())
            if step.actor == PERSON:
                tally.decisions += 1
                tally.think_ms += elapsed
            else:
                tally.agent_decisions += 1
            if turn is not None and turn.seat == step.seat:
                if step.actor == PERSON:
                    turn.person += 1
                    turn.think += elapsed
                    turn.slowest = max(turn.slowest, elapsed)
                else:
                    turn.agent += 1
        for event in step.events:
            if event.get("type") == "player_out" and event.get("seat") is not None:
                gone = tallies.setdefault(int(event["seat"]), _Tally())
                if gone.game_ms is None:
                    gone.game_ms = clock
        began = _turn_seat(step.events)
        if began is not None:
            close(turn)
            turn = _Turn(began)
    close(turn)
    return {
        seat: SeatPlay(
            seat,
            t.turns,
            t.played,
            t.decisions,
            t.think_ms,
            t.turn_ms,
            t.agent_decisions,
            t.agent_turns,
            clock if t.game_ms is None else t.game_ms,
        )
        for seat, t in sorted(tallies.items())
    }
