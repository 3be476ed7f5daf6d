"""What a finished game, or a guest merged into an account, does to the account: the daily XP cap, the
level reached and the cards dropped on the way there.

The store reads an account's :class:`Standing` under its row lock, asks these functions what to write,
and writes it in the same transaction that marks the game finished: the rules decide, the store only
stores. So a crash credits each seat exactly once, and two games finishing at once for one person are
capped against each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from opolyx.jsontypes import JSON
from opolyx.progression.drops import CardDrop, draw_card, drop_levels_between
from opolyx.progression.levels import level_for
from opolyx.progression.table import ProgressionRules, load_progression

# The reason a seat earns nothing once the person's XP for the day has reached the cap.
DAILY_CAP = "daily_cap"


@dataclass(frozen=True, slots=True)
class Standing:
    """An account's progression as stored, read when something is credited to it."""

    xp: int
    level: int
    wins: int
    # The seed of the account's next drops (secret until they are made): each is re-drawable from
    # (seed, level), and the seed is revealed with them.
    drop_seed: int
    # XP already booked to the account within the daily cap's window (since ``Credit.cap_since``).
    xp_today: int = 0


@dataclass(frozen=True, slots=True)
class Totals:
    """An account's progression after a booking: what the store writes back to it."""

    xp: int
    level: int
    wins: int
    # The cards of the levels reached, drawn from the standing's ``drop_seed``.
    drops: tuple[CardDrop, ...] = field(default_factory=tuple)

    @property
    def seed_spent(self) -> bool:
        """Drops reveal the seed they were drawn from (so anyone can check them), and a revealed seed
        would tell every later drop: once a booking makes any, the account's next drops need a fresh,
        secret seed (opolyx.progression.drops)."""
        return bool(self.drops)


@dataclass(frozen=True, slots=True)
class Booking:
    """One seat's award (after the daily cap) and its account's new totals."""

    xp: int
    parts: JSON
    refused: str | None
    level_before: int
    totals: Totals


def promoted(standing: Standing, xp: int, wins: int, rules: ProgressionRules | None = None) -> Totals:
    """The account's totals with ``xp`` and ``wins`` added: levels never go down, and every drop level
    passed on the way draws its card from the account's seed."""
    rules = rules or load_progression()
    total = standing.xp + xp
    level = max(standing.level, level_for(total, rules))
    drops = tuple(draw_card(standing.drop_seed, lv, rules) for lv in drop_levels_between(standing.level, level, rules))
    return Totals(total, level, standing.wins + wins, drops)


def merged(account: Standing, guest_xp: int, guest_wins: int, rules: ProgressionRules | None = None) -> Totals:
    """An account taking over a guest's XP and wins. The daily cap holds however XP arrives: the XP added
    is at most what is left of the account's cap today (``account.xp_today``), so capped guests merged
    one after another add nothing more. The cards follow the resulting level exactly: the account draws
    the drops of the levels it newly reaches from its own committed seed, and the guest's cards are not
    added (a sum of both sides' cards would break the schedule; docs/accounts.md)."""
    rules = rules or load_progression()
    room = max(0, rules.farming.daily_xp_cap - account.xp_today)
    return promoted(account, min(max(0, guest_xp), room), guest_wins, rules)


@dataclass(frozen=True)
class Credit:
    """XP one seat has earned by the rules (before the daily cap), or the reason it earns none."""

    seat: int
    user_id: str
    xp: int
    parts: JSON
    won: bool
    refused: str | None = None
    # Earned by an AI agent's seat: booked for the agents' board, never to the person's XP or level.
    agent: bool = False

    @staticmethod
    def cap_since(now: datetime) -> datetime:
        """Where the daily cap's window starts: the XP booked since then counts against it (UTC days
        when ``now`` is in UTC, as the store's clock is)."""
        return now.replace(hour=0, minute=0, second=0, microsecond=0)

    def book(self, standing: Standing, rules: ProgressionRules | None = None) -> Booking:
        """What this credit does to an account standing so: the XP is cut to what is left of the
        day's cap (``parts["capped_from"]`` keeps the amount earned; nothing left is a refusal), and a
        win counts only when the seat was paid."""
        rules = rules or load_progression()
        xp, refused, parts = self.xp, self.refused, dict(self.parts)
        if self.agent:
            # The agents' board: points by the same rules, apart from people's XP, levels and cards.
            same = Totals(standing.xp, standing.level, standing.wins)
            return Booking(0 if refused else xp, parts, refused, standing.level, same)
        if refused is None and xp > 0:
            room = max(0, rules.farming.daily_xp_cap - standing.xp_today)
            if xp > room:
                parts["capped_from"] = xp
                xp = room
                if xp == 0:
                    refused = DAILY_CAP
        if refused is not None:
            xp = 0
        wins = 1 if self.won and refused is None else 0
        return Booking(xp, parts, refused, standing.level, promoted(standing, xp, wins, rules))
