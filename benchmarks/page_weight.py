"""Page weight and time to a usable lobby of the web client, measured in Chromium against a real server.

    .venv/bin/python benchmarks/page_weight.py [--runs 5]

Prints the bytes transferred on a first (cold-cache) load, per kind of resource, what gzip would make of
the same files, and the time from navigation until the lobby can be used (the room list and the create
button are on screen) for a returning guest, median of several cold loads. Needs /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "web"))
sys.path.insert(0, str(ROOT / "src"))

from conftest import CHROMIUM_ARGS, ensure_chromium  # noqa: E402
from live_server import ThreadServer, quick_settings  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    path = ensure_chromium()
    if path is None:
        sys.exit("Chromium is missing at /usr/bin/chromium")
    from playwright.sync_api import sync_playwright

    with (
        tempfile.TemporaryDirectory() as tmp,
        ThreadServer(quick_settings(Path(tmp))) as server,
        sync_playwright() as p,
    ):
        browser = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)

        # 1. First load of a new visitor: everything the start screen needs.
        ctx = browser.new_context(base_url=server.base)
        page = ctx.new_page()
        cdp = ctx.new_cdp_session(page)
        cdp.send("Network.enable")
        sizes: dict[str, tuple[str, int]] = {}
        urls: dict[str, str] = {}
        cdp.on("Network.responseReceived", lambda e: urls.__setitem__(e["requestId"], e["response"]["url"]))
        def finished(e: dict[str, object]) -> None:
            rid = str(e["requestId"])
            sizes[rid] = (urls.get(rid, "?"), int(e["encodedDataLength"]))  # type: ignore[call-overload]

        cdp.on("Network.loadingFinished", finished)
        t0 = time.perf_counter()
        page.goto("/")
        page.wait_for_selector("input[name=nickname]")
        start_ms = (time.perf_counter() - t0) * 1000
        page.wait_for_load_state("networkidle")
        first_load = dict(sizes.values())
        # Sign in: the lobby's own requests (session, rooms, catalogs are cached by then).
        page.fill("input[name=nickname]", "Bench")
        page.click("[data-action=play]")
        page.wait_for_selector(".lobby-screen [data-action=create]")
        cookies = ctx.cookies()
        ctx.close()

        # 2. Returning guest, cold cache: time from navigation to a usable lobby.
        times = []
        for _ in range(args.runs):
            ctx = browser.new_context(base_url=server.base)
            ctx.add_cookies(cookies)
            # A returning browser keeps its local storage with its cookies: the client asks for the session
            # only when it has signed in before (so a first visit logs no 401).
            ctx.add_init_script("localStorage.setItem('opolyx.nickname', 'Bench')")
            page = ctx.new_page()
            t0 = time.perf_counter()
            page.goto("/#/lobby")
            page.wait_for_selector(".lobby-screen [data-action=create]")
            page.wait_for_selector(".lobby-screen .rooms")
            times.append((time.perf_counter() - t0) * 1000)
            ctx.close()
        browser.close()

    web = ROOT / "src" / "opolyx" / "web"
    total = sum(first_load.values())
    by_kind: dict[str, int] = {}
    gz = 0
    for url, n in first_load.items():
        kind = "vendor" if "/vendor/" in url else "catalog" if "/i18n/" in url else "rules" if "/rules/" in url \
            else "js" if url.endswith(".js") else "css" if url.endswith(".css") else "html/other"
        by_kind[kind] = by_kind.get(kind, 0) + n
        local = url.split(server.base, 1)[-1].split("?")[0].split("#")[0]
        if local in ("", "/"):
            local = "/index.html"
        candidates = [web / local.lstrip("/"), ROOT / "src" / "opolyx" / "i18n" / "catalogs" / Path(local).name,
                      ROOT / "src" / "opolyx" / "rules" / "data" / Path(local).name]
        for c in candidates:
            if c.is_file() and ("/data/" not in local or c.parent.name in ("catalogs", "data")):
                gz += len(gzip.compress(c.read_bytes(), 6))
                break
    print(f"first load (new visitor, start screen): {len(first_load)} requests, {total / 1024:.1f} KiB transferred")
    for kind, n in sorted(by_kind.items(), key=lambda kv: -kv[1]):
        print(f"  {kind:<10} {n / 1024:7.1f} KiB")
    print(f"  the same files gzip-compressed (level 6) are {gz / 1024:.1f} KiB; the server gzips answers of "
          "1 KiB or more (OPOLYX_GZIP_MINIMUM_SIZE)")
    print(f"time to the start screen (first load): {start_ms:.0f} ms")
    print(f"time to a usable lobby (returning guest, cold cache, median of {len(times)}): "
          f"{statistics.median(times):.0f} ms (min {min(times):.0f}, max {max(times):.0f})")


if __name__ == "__main__":
    main()
