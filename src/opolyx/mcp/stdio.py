"""``opolyx mcp --server URL``: the MCP connector as a local process speaking MCP on stdin/stdout.

For desktop AI clients, which start the connector themselves. With a personal API key
(``--key`` or ``OPOLYX_API_KEY``) the agent plays as the key's owner. Without one it starts a guest
session and makes itself a key for this run only (so the table still sees an agent), revoking it on
exit. stdout carries MCP only; diagnostics go to stderr.
"""

from __future__ import annotations

import contextlib
import os

import typer

from opolyx import usage

KEY_ENV = "OPOLYX_API_KEY"


async def serve_stdio(server: str, key: str | None, nickname: str, language: str = "en") -> None:
    # Imported here so the other ``opolyx`` commands start without loading the MCP SDK.
    from opolyx.client import Client
    from opolyx.mcp.agent import AgentPlayer
    from opolyx.mcp.tools import build_server

    session = None
    made: str | None = None
    if key is None:
        session = Client(server)
        await session.start_guest(nickname, language)
        new = await session.create_key("opolyx mcp (this run)")
        key, made = new.key, new.id
    agent = AgentPlayer(Client(server, token=key))

    async def resolve(_ctx: object) -> AgentPlayer:
        return agent

    try:
        await build_server(resolve).run_stdio_async()
    finally:
        await agent.close()
        if session is not None:
            if made is not None:
                with contextlib.suppress(Exception):
                    await session.revoke_key(made)
            await session.close()


def mcp_command(
    server: str = typer.Option("http://127.0.0.1:8000", "--server", help="The opolyx server's address."),
    key: str | None = typer.Option(None, "--key", envvar=KEY_ENV, help="A personal API key."),
    nickname: str = typer.Option("Agent", "--nickname", help="Without a key: the guest's name at the table."),
    language: str = typer.Option("en", "--language", help="Without a key: the guest's language."),
) -> None:
    """Serve the MCP connector on stdin/stdout for an AI client (see docs/agents.md)."""
    # Imported here: the ``opolyx`` command loads this module, and anyio comes with the agents extra.
    import anyio

    from opolyx.client import OpolyxError
    from opolyx.i18n.catalog import LANGUAGES

    usage.http_url(server, "--server")
    usage.one_of(language, LANGUAGES, "--language", "language")

    try:
        anyio.run(serve_stdio, server.rstrip("/"), key or os.environ.get(KEY_ENV) or None, nickname, language)
    except OpolyxError as exc:
        # E.g. the server is down or refused the guest session: say so on stderr (stdout is MCP's).
        typer.echo(f"opolyx mcp: {exc}", err=True)
        raise typer.Exit(1) from exc
