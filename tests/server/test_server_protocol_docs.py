"""docs/protocol.md carries JSON Schemas generated from the wire models; they must be current."""

from __future__ import annotations

from pathlib import Path

from opolyx.server.protocol_docs import BEGIN, END, render

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def test_protocol_doc_schemas_are_current() -> None:
    text = DOC.read_text()
    assert BEGIN in text and END in text
    assert render(text) == text, "run: python -m opolyx.server.protocol_docs docs/protocol.md"
