"""The protocol's shared vocabulary, beneath both ends of the wire: the pydantic models of every HTTP and
WebSocket message (``models``, whose action models are generated from the engine's vocabulary), the stable
error codes and refusals (``errors``), and the cleaning of the text people type (``text``). The server
validates with them and ``opolyx.client`` and the MCP tools read their answers with them, so neither end
imports the other."""
