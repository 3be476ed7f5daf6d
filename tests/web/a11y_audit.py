"""axe-core in the browser tests: the vendored, pinned axe-core (tests/web/data/axe-core) injected into
the page and run against WCAG 2.0/2.1/2.2 A and AA rules; any serious or critical violation fails.

The file is checked against its pinned version and sha256 first, so a changed or truncated copy fails
loudly instead of auditing with something else. It is injected through DevTools (``page.evaluate``),
which the server's Content-Security-Policy does not govern, so the page under test is the real one.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

AXE_DIR = Path(__file__).resolve().parent / "data" / "axe-core"
AXE_VERSION = "4.14.1"
AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
BLOCKING = {"serious", "critical"}

_source: str | None = None


def axe_source() -> str:
    global _source
    if _source is None:
        data = (AXE_DIR / "axe.min.js").read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        assert digest == AXE_SHA256, f"tests/web/data/axe-core/axe.min.js is not the pinned axe-core {AXE_VERSION}"
        text = data.decode("utf-8")
        assert f"axe v{AXE_VERSION}" in text[:200]
        _source = text
    return _source


def run_axe(page: Any) -> list[dict[str, Any]]:
    """All violations axe finds on the page as it stands (every impact)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(axe_source() + "\n;0")
    result = page.evaluate(
        """async (tags) => {
            // Cash floats (+/− next to a figure for 1.8 s, aria-hidden) fade through every contrast on their way
            // out; the figure beside them says the same amount at full contrast.
            const r = await window.axe.run({ exclude: [['.float']] },
                { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
            return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: n.failureSummary })) }));
        }""",
        TAGS,
    )
    return list(result)


def describe(violations: list[dict[str, Any]]) -> str:
    lines = []
    for v in violations:
        lines.append(f"[{v['impact']}] {v['id']}: {v['help']}")
        for n in v["nodes"][:6]:
            lines.append(f"    {n['target']}: {(n['summary'] or '').splitlines()[-1:]}")
    return "\n".join(lines)


def assert_accessible(page: Any, where: str) -> list[dict[str, Any]]:
    """Fails on any serious or critical violation; returns the lesser ones (for a look, not a failure)."""
    violations = run_axe(page)
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    assert not blocking, f"axe-core {AXE_VERSION} on {where}:\n{describe(blocking)}"
    return violations
