"""The MCP connector: AI agents play opolyx through the Model Context Protocol (docs/agents.md).

``tools`` holds the tools and their descriptions, ``agent`` what they do (on top of ``opolyx.client``),
``summary`` the readable state, ``endpoint`` the streamable-HTTP endpoint mounted on the game server
at ``/mcp``, and ``stdio`` the ``opolyx mcp`` command for desktop AI clients.
"""
