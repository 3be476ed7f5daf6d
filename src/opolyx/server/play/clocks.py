"""Deadlines derived from the engine's snapshot.

The engine says which countdowns are running (a clock id per pending decision, trade offers with their
lifetime); this book turns them into deadlines. A clock keeps its deadline for as long as its id is
pending, which is what makes building, mortgaging and trading leave the turn clock alone; an id that
leaves the pending list (a pay step interrupting the turn) is paused and resumes with the time it had
left.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from opolyx.jsontypes import JSON

_PAUSED_KEEP = 32


@dataclass
class Clock:
    key: str
    kind: str
    seat: int | None
    total: float
    deadline: float
    action: JSON = field(default_factory=dict)


def wanted_clocks(snapshot: JSON) -> dict[str, tuple[str, int | None, float, JSON]]:
    """Map clock key → (kind, seat, seconds, timeout action) for what the snapshot says is running.

    Every running clock is a ``pending`` entry (empty once the game is over): first the decision the game
    waits for, then one entry per open trade offer.
    """
    wanted: dict[str, tuple[str, int | None, float, JSON]] = {}
    for entry in snapshot["pending"]:
        clock, seat = entry["clock"], entry["seat"]
        seconds = float(clock["seconds"])
        if "trade" in entry:
            # A trade answer: lapsing it is its own system action, not "the current decision".
            trade = entry["trade"]
            wanted[f"t:{trade}"] = ("trade", seat, seconds, {"type": "timeout", "trade": trade})
        else:
            # The seat lets the engine refuse a timeout that arrives after the decision moved on.
            action: JSON = {"type": "timeout", "clock": clock["id"], "seat": seat}
            wanted[f"c:{clock['id']}"] = (clock["kind"], seat, seconds, action)
    return wanted


class ClockBook:
    def __init__(self, scale: float = 1.0, now: Callable[[], float] = time.monotonic) -> None:
        self.scale = scale
        self.now = now
        self.running: dict[str, Clock] = {}
        self.paused: OrderedDict[str, float] = OrderedDict()
        # Remaining seconds read back from the store after a restart, used once per key.
        self.restored: dict[str, float] = {}
        # Keys whose timeout the engine refused: never fire them again.
        self.dead: set[str] = set()
        # Pay clocks already lengthened once at their player's request (docs/accessibility.md).
        self.lengthened: set[str] = set()

    def restore(self, stored: JSON) -> None:
        for part in ("running", "paused"):
            for key, remaining in (stored.get(part) or {}).items():
                self.restored[str(key)] = max(0.0, float(remaining))
        for key, remaining in (stored.get("paused") or {}).items():
            self.paused[str(key)] = max(0.0, float(remaining))

    def sync(self, snapshot: JSON) -> None:
        now = self.now()
        wanted = wanted_clocks(snapshot)
        for key in list(self.running):
            if key not in wanted:
                clock = self.running.pop(key)
                if key.startswith("c:"):
                    self.paused[key] = max(0.0, clock.deadline - now)
                    self.paused.move_to_end(key)
        while len(self.paused) > _PAUSED_KEEP:
            self.paused.popitem(last=False)
        for key, (kind, seat, seconds, action) in wanted.items():
            if key in self.dead:
                continue
            if key in self.running:
                clock = self.running[key]
                clock.seat = seat
                clock.action = action
                continue
            total = seconds * self.scale
            if key in self.restored:
                remaining = self.restored.pop(key)
                self.paused.pop(key, None)
            elif key in self.paused:
                remaining = self.paused.pop(key)
            else:
                remaining = total
            self.running[key] = Clock(key, kind, seat, total, now + remaining, action)

    def lengthen_pay(self, seat: int, seconds: float) -> Clock | None:
        """Adds ``seconds`` (scaled like every clock) to ``seat``'s running pay clock, once per clock;
        None when that seat has no pay clock running or it was lengthened already."""
        for clock in self.running.values():
            if clock.kind == "pay" and clock.seat == seat and clock.key not in self.lengthened:
                extra = seconds * self.scale
                clock.deadline += extra
                clock.total += extra
                self.lengthened.add(clock.key)
                return clock
        return None

    def kill(self, key: str) -> None:
        self.dead.add(key)
        self.running.pop(key, None)

    def clear(self) -> None:
        self.running.clear()
        self.paused.clear()

    def next_due(self) -> Clock | None:
        if not self.running:
            return None
        return min(self.running.values(), key=lambda c: c.deadline)

    def to_store(self) -> JSON:
        now = self.now()
        return {
            "running": {k: round(max(0.0, c.deadline - now), 3) for k, c in self.running.items()},
            "paused": {k: round(v, 3) for k, v in self.paused.items()},
        }

    def public(self) -> list[JSON]:
        """Deadlines as the table sees them: remaining seconds and a wall-clock end."""
        now = self.now()
        wall = time.time()
        out = []
        for c in sorted(self.running.values(), key=lambda c: c.deadline):
            remaining = max(0.0, c.deadline - now)
            out.append(
                {
                    "id": c.key,
                    "kind": c.kind,
                    "seat": c.seat,
                    "seconds": round(c.total, 3),
                    "remaining": round(remaining, 3),
                    "ends_at": round(wall + remaining, 3),
                }
            )
        return out
