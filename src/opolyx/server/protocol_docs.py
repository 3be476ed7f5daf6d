"""Keeps docs/protocol.md's JSON Schemas equal to the wire models.

``python -m opolyx.server.protocol_docs docs/protocol.md`` rewrites the generated part in place;
tests/server/test_server_protocol_docs.py fails when someone changes a model and forgets to.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from opolyx.protocol import errors as E
from opolyx.protocol.models import Action, ClientFrame, ServerFrame

BEGIN = "<!-- BEGIN GENERATED: do not edit; run python -m opolyx.server.protocol_docs docs/protocol.md -->"
END = "<!-- END GENERATED -->"


def _schema(title: str, adapter: TypeAdapter[Any]) -> str:
    text = json.dumps(adapter.json_schema(), indent=2, sort_keys=True)
    return f"### {title}\n\n```json\n{text}\n```\n"


def generated() -> str:
    codes = sorted(v for k, v in vars(E).items() if k.isupper() and isinstance(v, str))
    parts = [
        "## Error codes\n\n" + "\n".join(f"- `{c}`" for c in codes) + "\n",
        _schema("Client → server frames", TypeAdapter(ClientFrame)),
        _schema("Actions (the engine's vocabulary as clients send it)", TypeAdapter(Action)),
        _schema("Server → client frames", TypeAdapter(ServerFrame)),
    ]
    return "\n".join(parts)


def render(current: str) -> str:
    head, _, rest = current.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n\n{generated()}\n{END}{tail}"


def main(argv: list[str]) -> int:
    path = Path(argv[1] if len(argv) > 1 else "docs/protocol.md")
    path.write_text(render(path.read_text()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
