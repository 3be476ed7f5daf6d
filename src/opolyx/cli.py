"""The ``opolyx`` command."""

from __future__ import annotations

import typer

from opolyx.mcp.stdio import mcp_command
from opolyx.server.cli import serve
from opolyx.sim.cli import simulate_command
from opolyx.story import story
from opolyx.usage import OneLineErrors
from opolyx.verify_cli import verify_command

# Every command's bad input is told in one line on stderr, exit 2 (opolyx.usage).
app = typer.Typer(help="opolyx: a Monopoly-style board game.", no_args_is_help=True, cls=OneLineErrors)
app.command("serve")(serve)
app.command("simulate")(simulate_command)
app.command("story")(story)
app.command("mcp")(mcp_command)
app.command("verify")(verify_command)


@app.command("play")
def play(
    port: int = typer.Option(8000, min=0, max=65535, help="Port to listen on, 0-65535."),
) -> None:
    """Start a local server and open it in the browser."""
    serve(host=None, port=port, database=None, data_dir=None, open_browser=True)


if __name__ == "__main__":
    app()
