"""The one name for a JSON object as this project's modules pass it around: the engine's snapshots and
events, the server's frames and records, the agents' answers."""

from __future__ import annotations

from typing import Any, TypeAlias

#: A decoded JSON object.
JSON: TypeAlias = dict[str, Any]
