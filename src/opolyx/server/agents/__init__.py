"""AI agents on the game server: the MCP connector at ``/mcp``, which plays through the server's own public
protocol with a personal API key (the agent side itself lives in :mod:`opolyx.mcp`)."""
