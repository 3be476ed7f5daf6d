"""``opolyx admin``: an operator bans, lists and lifts from a shell, against a running server's database,
and every step is in the audit log; the server refuses the banned person at once."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from server_kit import Person
from typer.testing import CliRunner

from live_server import ThreadServer
from opolyx.cli import app


def test_admin_commands_ban_list_lift_and_audit(
    server: ThreadServer, people: Callable[[str], Person], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPOLYX_DATABASE_URL", server.settings.resolved_database_url())
    monkeypatch.setenv("OPOLYX_DATABASE_SCHEMA", server.settings.database_schema)
    monkeypatch.delenv("OPOLYX_REDIS_URL", raising=False)
    bob, ann = people("Bob"), people("Ann")
    room = ann.create()
    runner = CliRunner()

    def admin(*args: str) -> str:
        result = runner.invoke(app, ["admin", *args])
        assert result.exit_code == 0, result.output
        return result.output

    said = admin("ban", "--user", bob.id, "--minutes", "30", "--reason", "cheating", "--operator", "ops@example.org")
    assert said.startswith("ban ") and "30 minutes" in said
    # Bob's session ended with the ban.
    assert bob.http.get("/api/session").status_code == 401
    active = json.loads(admin("sanctions"))
    assert [(s["kind"], s["user_id"], s["reason"]) for s in active] == [("ban", bob.id, "cheating")]
    listed = json.loads(admin("rooms"))
    assert [r["id"] for r in listed] == [room["id"]] and listed[0]["players"][0]["name"] == "Ann"
    admin("lift", str(active[0]["id"]), "--reason", "appeal upheld")
    assert json.loads(admin("sanctions")) == []
    log = json.loads(admin("audit"))
    assert [(e["operator"], e["action"], e["reason"]) for e in log] == [
        ("cli:" + log[0]["operator"][4:], "lift_ban", "appeal upheld"),
        ("ops@example.org", "ban", "cheating"),
    ]
    refused = runner.invoke(app, ["admin", "ban", "--minutes", "5", "--reason", "x"])
    assert refused.exit_code != 0
