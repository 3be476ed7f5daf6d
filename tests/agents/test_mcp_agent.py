"""The agent layer's own rules (issue 47), on a table built by hand: which events reach the agent, the
trade offer read from the template's keys, the jackpot as one entry, and the errors a model reads."""

from __future__ import annotations

from collections import deque
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from opolyx.client import Client, OpolyxError
from opolyx.mcp.agent import MAX_EVENTS, AgentPlayer, offer_from
from opolyx.mcp.tools import explain


class Table:
    """What the agent reads of a room socket."""

    def __init__(self, seat: int = 0) -> None:
        self.you = {"seat": seat}
        self.room = {"id": "r1", "mode": "blitz", "status": "running", "seats": 3, "players": [], "code": None}
        self.game: dict[str, Any] | None = None
        self.log: deque[dict[str, Any]] = deque(maxlen=2000)
        self.legal: list[dict[str, Any]] = []
        self.deadlines: list[dict[str, Any]] = []
        self.seq = 0
        self.error = None

    @property
    def seat(self) -> int:
        return int(self.you["seat"])

    @property
    def pending(self) -> list[dict[str, Any]]:
        return []

    @property
    def over(self) -> bool:
        return False

    @property
    def started(self) -> bool:
        return False

    @property
    def result(self) -> None:
        return None

    def my_turn(self) -> bool:
        return False


def agent_at(table: Table) -> AgentPlayer:
    agent = AgentPlayer(Client("http://127.0.0.1:9"))
    agent.table = table  # type: ignore[assignment]
    agent.room_id = "r1"
    return agent


def test_events_come_once_each_and_a_flood_keeps_what_concerns_the_seat() -> None:
    table = Table(seat=0)
    agent = agent_at(table)
    table.log.append({"seq": 1, "event": {"type": "trade_proposed", "id": 7, "from": 0, "to": 1}})
    first = agent.state()["events"]
    assert first == ["1 trade_proposed id=7 to=1"] or first[0].startswith("1 trade_proposed id=7")
    assert agent.state()["events"] == []  # nothing new: nothing repeated
    # A long wait: hundreds of other seats' events, the seat's own timeout and the answer to its offer.
    for seq in range(2, 302):
        table.log.append({"seq": seq, "event": {"type": "moved", "seat": 1 + seq % 2, "to": seq % 40}})
        if seq == 50:
            table.log.append({"seq": seq, "event": {"type": "turn_timed_out", "seat": 0, "missed": 1}})
        if seq == 60:
            table.log.append({"seq": seq, "event": {"type": "trade_declined", "trade": 7, "seat": 1}})
        if seq == 70:
            table.log.append({"seq": seq, "event": {"type": "seed_revealed", "seed": "x"}})
    events = agent.state()["events"]
    assert events[0].startswith("(") and "left out" in events[0]
    lines = events[1:]
    assert len(lines) == MAX_EVENTS
    assert "50 turn_timed_out seat=0 missed=1" in lines
    assert "60 trade_declined trade=7 seat=1" in lines
    assert lines[-1].startswith("301 moved")
    assert not any("seed_revealed" in e for e in lines)
    # Events of one seq that arrive later (a notice) still reach the agent.
    table.log.append({"seq": 301, "event": {"type": "bot_took_over", "seat": 2}})
    assert agent.state()["events"] == ["301 bot_took_over seat=2"]


def test_the_jackpot_is_one_parameterised_action() -> None:
    table = Table()
    table.legal = [{"type": "jackpot_bet", "numbers": [n]} for n in range(1, 7)] + [{"type": "jackpot_decline"}]
    legal = agent_at(table).state()["legal_actions"]
    assert [a["type"] for a in legal] == ["jackpot_bet", "jackpot_decline"]
    assert isinstance(legal[0]["numbers"], str) and "[2, 5]" in legal[0]["numbers"]


def test_a_trade_offer_is_read_from_the_templates_own_keys() -> None:
    template = {
        "type": "propose_trade", "template": True, "to": [2], "fairness_percent": 50,
        "give": {"cash_max": 12000, "cash": 500, "squares": [6]},
        "take": {"2": {"cash_max": 9000, "squares": [13]}},
    }
    assert offer_from(template) == {
        "type": "propose_trade", "to": 2, "give": {"cash": 500, "squares": [6]}, "take": {"squares": [13]}
    }
    # A plain offer goes through unchanged.
    plain = {"type": "propose_trade", "to": 1, "give": {"cash": 0, "squares": [6]},
             "take": {"cash": 900, "squares": []}}
    assert offer_from(plain) == plain
    # take keyed by seat, with "to" among several: the chosen seat's side.
    several = {"type": "propose_trade", "to": 1, "give": {"cash": 100},
               "take": {"1": {"squares": [3]}, "2": {"squares": [9]}}}
    assert offer_from(several)["take"] == {"squares": [3]}


def test_errors_name_their_code_and_what_helps() -> None:
    slow = str(explain(OpolyxError("rate_limited", "too many requests", status=429)))
    assert slow.startswith("rate_limited: ") and "retry_after=2 s" in slow
    told = str(explain(OpolyxError("rate_limited", "slow down", retry_after=7)))
    assert "retry_after=7 s" in told
    # Over stdio a revoked key reaches the lobby's "start a guest session first": say what happened.
    gone = str(explain(OpolyxError("not_authenticated", "start a guest session first", status=401)))
    assert gone.startswith("not_authenticated: ") and "revoked" in gone and "guest session" not in gone
    unfair = str(explain(OpolyxError("illegal_action", "unfair", reason="unfair_trade", data={"give_value": 1})))
    assert "(engine: unfair_trade)" in unfair and 'data={"give_value":1}' in unfair


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.tuples(st.just("event"), st.integers(0, 3), st.booleans()),
            st.tuples(st.just("read"), st.just(0), st.just(False)),
            st.tuples(st.just("notice"), st.integers(0, 3), st.just(False)),
        ),
        max_size=120,
    )
)
def test_every_event_reaches_the_agent_once_and_its_own_are_never_left_out(steps: list[tuple[str, int, bool]]) -> None:
    """However reads and events interleave (a new seq, or one more event of the current seq), each event is
    delivered at most once, in order, and every event of the seat's own is delivered."""
    table = Table(seat=0)
    agent = agent_at(table)
    seq, n, delivered = 0, 0, []
    mine: list[str] = []
    for kind, seat, new_seq in steps:
        if kind == "read":
            delivered += [e for e in agent.state()["events"] if not e.startswith("(")]
            continue
        if kind == "event" and new_seq:
            seq += 1
        n += 1
        event = {"type": "moved", "seat": seat, "n": n}
        table.log.append({"seq": seq, "event": event})
        if seat == 0:
            mine.append(f"{seq} moved n={n}")
    delivered += [e for e in agent.state()["events"] if not e.startswith("(")]
    numbers = [int(e.rsplit("n=", 1)[1]) for e in delivered]
    assert numbers == sorted(set(numbers))
    assert all(any(d.startswith(m.split(" ")[0] + " moved") and d.endswith(m.split(" ")[-1]) for d in delivered)
               for m in mine)
    if len(steps) <= MAX_EVENTS:
        assert numbers == list(range(1, n + 1))
