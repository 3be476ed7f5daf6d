from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """The contract suite runs on asyncio, the only loop the server runs on."""
    return "asyncio"
