"""GET /metrics: what an operator's Prometheus sees of rooms, sockets and actions, and who may read it."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from server_kit import Person, Table, metric, scrape

from live_server import ThreadServer
from opolyx.server.http.metrics import scrape_allowed


def wait_for(base: str, name: str, expected: float, **labels: str) -> None:
    deadline = time.monotonic() + 20
    while metric(scrape(base), name, **labels) != expected:
        assert time.monotonic() < deadline, f"{name}{labels} never became {expected}"
        time.sleep(0.05)


def test_metrics_follow_rooms_sockets_and_actions(server: ThreadServer, people: Callable[[str], Person]) -> None:
    before = scrape(server.base)
    assert metric(before, "opolyx_players_connected") == 0
    assert metric(before, "opolyx_rooms", status="running") == 0
    assert metric(before, "opolyx_actions_total") == 0

    ann, bob, cleo = people("Ann"), people("Bob"), people("Cleo")
    room = ann.create("blitz", 2)
    assert bob.post(f"/api/rooms/{room['id']}/join").status_code == 200
    for p in (ann, bob, cleo):  # Cleo only watches
        p.connect(room["id"])
        p.recv_until("snapshot")
    assert metric(scrape(server.base), "opolyx_rooms", status="waiting") == 1
    assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
    tables = [Table(ann, random.Random(1)), Table(bob, random.Random(2))]
    for t in tables:
        t.absorb(t.p.recv_until("snapshot"))
    actor = next(t for t in tables if t.my_turn())
    actor.p.send({"type": "action", "action": actor.legal[0], "ref": 7, "seq": actor.seq})
    actor.p.recv_until("events", ref=7)

    after = scrape(server.base)
    assert metric(after, "opolyx_players_connected") == 3
    assert metric(after, "opolyx_rooms", status="running") == 1
    assert metric(after, "opolyx_rooms", status="waiting") == 0
    assert metric(after, "opolyx_actions_total") == 1
    # One person's action: one latency observation, well inside the largest bucket.
    assert metric(after, "opolyx_action_latency_seconds_count") == 1
    assert metric(after, "opolyx_action_latency_seconds_bucket", le="5.0") == 1
    assert 0 < metric(after, "opolyx_action_latency_seconds_sum") < 5
    # A refused action is not an action: no count, no latency.
    actor.p.send({"type": "action", "action": {"type": "roll"}, "ref": 8, "seq": 0})
    actor.p.recv_until("error", ref=8)
    refused = scrape(server.base)
    assert metric(refused, "opolyx_actions_total") == 1
    assert metric(refused, "opolyx_action_latency_seconds_count") == 1
    # Without a cluster no lease ever moves.
    assert metric(refused, "opolyx_lease_moves_total", direction="taken") == 0

    cleo.disconnect()
    wait_for(server.base, "opolyx_players_connected", 2)


def test_metrics_are_refused_outside_the_allowed_networks_without_the_token(
    start_server: Callable[..., ThreadServer],
) -> None:
    server = start_server(metrics_allow="10.0.0.0/8", metrics_token="scrape-me")
    r = httpx.get(server.base + "/metrics")
    assert r.status_code == 401
    assert r.json()["code"] == "not_authenticated"
    assert "opolyx_" not in r.text
    wrong = httpx.get(server.base + "/metrics", headers={"Authorization": "Bearer guess"})
    assert wrong.status_code == 401
    assert metric(scrape(server.base, Authorization="Bearer scrape-me"), "opolyx_players_connected") == 0


def test_metrics_can_be_closed_to_everyone(start_server: Callable[..., ThreadServer]) -> None:
    server = start_server(metrics_allow="")
    assert httpx.get(server.base + "/metrics").status_code == 401
    assert httpx.get(server.base + "/metrics", headers={"Authorization": "Bearer x"}).status_code == 401


@pytest.mark.parametrize(
    ("address", "allow", "expected"),
    [
        ("127.0.0.1", "127.0.0.1/32,::1/128", True),
        ("::1", "127.0.0.1/32,::1/128", True),
        ("192.168.1.7", "127.0.0.1/32,::1/128", False),
        ("192.168.1.7", "10.0.0.0/8, 192.168.0.0/16", True),
        ("192.168.1.7", "192.168.1.7", True),
        ("testclient", "127.0.0.1/32", False),
        ("10.1.2.3", "not-a-network,10.0.0.0/8", True),
    ],
)
def test_scrape_allowed_by_network(address: str, allow: str, expected: bool) -> None:
    assert scrape_allowed(address, "", allow, "") is expected


@given(token=st.text(min_size=1, max_size=40).filter(lambda t: t.strip() == t and t.isprintable()), other=st.text())
def test_only_the_exact_token_opens_metrics_from_anywhere(token: str, other: str) -> None:
    assert scrape_allowed("203.0.113.9", f"Bearer {token}", "", token)
    assert scrape_allowed("203.0.113.9", f"bearer {token}", "", token)
    if other.strip() != token:
        assert not scrape_allowed("203.0.113.9", f"Bearer {other}", "", token)
    assert not scrape_allowed("203.0.113.9", f"Bearer {token}", "", "")
