"""Test kit for accounts: a real SMTP server on a loopback port, and direct database edits."""

from __future__ import annotations

import asyncio
import email
import re
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from email.policy import default
from typing import Any

from aiosmtpd.controller import Controller

from live_server import free_port
from opolyx.storage import SqlStore
from opolyx.storage.testing import TestDatabase

LINK = re.compile(r"(https?://\S+#/signin/([A-Za-z0-9_\-]+))")


class MailSink:
    """aiosmtpd's handler interface: keeps every message it is given."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.port = free_port()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        raw = envelope.original_content or envelope.content
        message = email.message_from_bytes(raw, policy=default)
        assert isinstance(message, EmailMessage)
        self.messages.append(message)
        return "250 OK"

    def wait(self, to: str, count: int = 1, timeout: float = 15.0) -> EmailMessage:
        """The ``count``-th message to ``to``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            mine = [m for m in self.messages if m["To"] == to]
            if len(mine) >= count:
                return mine[count - 1]
            time.sleep(0.05)
        raise TimeoutError(f"no mail number {count} to {to}")

    def link(self, to: str, count: int = 1) -> tuple[str, str]:
        """(the whole link, its secret) from the ``count``-th mail to ``to``."""
        body = self.wait(to, count).get_body(("plain",))
        assert body is not None
        found = LINK.search(body.get_content())
        assert found is not None, body.get_content()
        return found.group(1), found.group(2)


@contextmanager
def smtp_sink() -> Iterator[MailSink]:
    sink = MailSink()
    controller = Controller(sink, hostname="127.0.0.1", port=sink.port)
    controller.start()
    try:
        yield sink
    finally:
        controller.stop()


def with_store(database: TestDatabase, fn: Callable[[SqlStore], Awaitable[Any]]) -> Any:
    """Run ``fn`` against the test database from outside the server (a second connection)."""

    async def run() -> Any:
        store = await SqlStore.open(database.url, schema=database.schema)
        try:
            return await fn(store)
        finally:
            await store.close()

    return asyncio.run(run())
