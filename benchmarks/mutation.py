"""Mutation testing of the security and fairness code (issue 46): does a test fail when a guard changes?

Cosmic Ray's own operators (``cosmic-ray operators``: comparison and boolean operators swapped, ``not``
added, numbers moved by one, ``True``/``False`` flipped, loops run zero times, decorators and caught
exceptions replaced...) make one-change copies ("mutants") of a module; each mutant is put on disk in
turn and tests run against it. A mutant that makes a test fail is *killed*; one that passes every test
*survived*, meaning a change there goes unnoticed. Not part of CI: a module takes minutes.

What this script adds to Cosmic Ray is orchestration, so a run takes minutes rather than hours:

- each module has its own test files (``TARGETS`` below), never the whole suite;
- those files run once under coverage with one context per test, and each mutant then runs only the tests
  that execute its line (``pytest -x``: the first failure kills it). A line no test executes survives
  without a run. A line executed only at import (a ``def``, a module constant) runs all the module's
  tests;
- mutants inside type annotations are not made (under ``from __future__ import annotations`` they are
  never evaluated, and where pydantic or FastAPI evaluate them any test fails at import), nor of
  ``if TYPE_CHECKING:`` (imports for annotations only);
- ``mutation_equivalent.toml`` beside this file lists the *equivalent* mutants: changes that cannot alter
  behaviour (so no test can kill them), each with its reason. They are not run and count as neither
  killed nor survived.

Prints per module the score (killed / (killed + survived)) and every surviving mutant as a diff line.
Results are kept in ``benchmarks/.mutation/`` (git-ignored) so ``--report`` prints them again without a run.

    PYTHONPATH=$PWD/src nice .venv/bin/python benchmarks/mutation.py fairness accounts.sessions
    PYTHONPATH=$PWD/src .venv/bin/python benchmarks/mutation.py --list
    PYTHONPATH=$PWD/src .venv/bin/python benchmarks/mutation.py --report [MODULE...]

Run it in a clean work tree and nothing else in it meanwhile: the mutant is written over the module's
file for the duration of its test (and put back after, also on Ctrl-C).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import difflib
import fcntl
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STATE = ROOT / "benchmarks" / ".mutation"
EQUIVALENT_FILE = ROOT / "benchmarks" / "mutation_equivalent.toml"
HAND_FILE = ROOT / "benchmarks" / "mutation_hand.toml"
SRC = "src/opolyx/"


@dataclass(frozen=True)
class Target:
    path: str  # relative to SRC
    files: tuple[str, ...]

    @property
    def tests(self) -> tuple[str, ...]:
        """The test files that exist (a module's list may name one another branch adds)."""
        return tuple(f for f in self.files if (ROOT / f).exists())


_ACCOUNT_HTTP = (
    "tests/security/test_guard_sessions.py",
    "tests/server/test_security_guards.py",
    "tests/server/test_server_accounts.py",
    "tests/server/test_server_apikeys.py",
    "tests/server/test_security_signin.py",
    "tests/server/test_security_keys.py",
    "tests/server/test_security_findings.py",
    "tests/server/test_server_progression.py",
)
_PROGRESSION = (
    "tests/security/test_guard_progression.py",
    "tests/security/test_guard_credit_edges.py",
    "tests/progression/test_progression_booking.py",
    "tests/progression/test_progression_credits.py",
    "tests/progression/test_progression_farming.py",
    "tests/progression/test_progression_levels.py",
    "tests/progression/test_progression_xp.py",
)

_PLAY = (
    "tests/security/test_guard_play.py",
    "tests/progression/test_progression_play.py",
    "tests/security/test_guard_progression.py",
    "tests/progression/test_progression_credits.py",
)
# The moderation routes run in a live server; the cluster's tests need Redis and are left out.
_MODERATION = (
    "tests/security/test_guard_moderation.py",
    "tests/server/test_security_moderation.py",
    "tests/server/test_server_moderation.py",
)

# Module -> the tests that guard it. Keep these narrow: every mutant runs (a subset of) them.
TARGETS: dict[str, Target] = {
    "fairness": Target(
        "fairness.py",
        ("tests/security/test_guard_fairness.py", "tests/server/test_security_findings.py"),
    ),
    "accounts.sessions": Target("server/accounts/sessions.py", _ACCOUNT_HTTP),
    "accounts.apikeys": Target("server/accounts/apikeys.py", _ACCOUNT_HTTP),
    "accounts.identity": Target("server/accounts/identity.py", _ACCOUNT_HTTP),
    "accounts.session_routes": Target(
        "server/accounts/session_routes.py", (*_ACCOUNT_HTTP, "tests/security/test_guard_account_routes.py")
    ),
    "accounts.apikey_routes": Target("server/accounts/apikey_routes.py", _ACCOUNT_HTTP),
    "accounts.routes": Target(
        "server/accounts/routes.py", ("tests/security/test_guard_account_routes.py", *_ACCOUNT_HTTP)
    ),
    "http.guard": Target(
        "server/http/guard.py",
        (
            "tests/security/test_guard_http.py",
            "tests/server/test_security_transport.py",
            "tests/server/test_security_paths.py",
        ),
    ),
    "http.ratelimit": Target(
        "server/http/ratelimit.py",
        (
            "tests/security/test_guard_http.py",
            "tests/server/test_security_guards.py",
            "tests/server/test_server_rate_refs.py",
        ),
    ),
    "play.xp_credit": Target(
        "server/play/xp_credit.py",
        (
            "tests/security/test_guard_xp_credit.py",
            "tests/security/test_guard_progression.py",
            "tests/server/test_server_progression.py",
            "tests/server/test_server_farming.py",
        ),
    ),
    "play.seat_perks": Target(
        "server/play/seat_perks.py",
        (
            "tests/security/test_guard_storage.py",
            "tests/server/test_server_progression.py",
            "tests/server/test_server_farming.py",
        ),
    ),
    "progression.booking": Target("progression/booking.py", _PROGRESSION),
    "progression.credits": Target("progression/credits.py", _PROGRESSION),
    "progression.drops": Target("progression/drops.py", _PROGRESSION),
    "progression.farming": Target("progression/farming.py", _PROGRESSION),
    "progression.levels": Target("progression/levels.py", _PROGRESSION),
    "progression.table": Target("progression/table.py", _PROGRESSION),
    "progression.xp": Target("progression/xp.py", _PROGRESSION),
    "progression.play": Target("progression/play.py", _PLAY),
    "progression.terms": Target(
        "progression/terms.py",
        (
            "tests/security/test_guard_play.py",
            "tests/server/test_server_house_rules.py",
            "tests/server/test_server_farming_routes.py",
        ),
    ),
    "progression.skill": Target(
        "progression/skill.py",
        ("tests/security/test_guard_ratings.py", "tests/progression/test_progression_skill.py"),
    ),
    "moderation.enforcement": Target("server/moderation/enforcement.py", _MODERATION),
    "moderation.actions": Target("server/moderation/actions.py", _MODERATION),
    "moderation.operators": Target("server/moderation/operators.py", _MODERATION),
    "moderation.room_calls": Target("server/moderation/room_calls.py", _MODERATION),
    "moderation.operator_routes": Target("server/moderation/operator_routes.py", _MODERATION),
    "moderation.social_routes": Target("server/moderation/social_routes.py", _MODERATION),
    "moderation.wordfilter": Target(
        "server/moderation/wordfilter.py",
        (
            "tests/security/test_guard_moderation.py",
            "tests/server/test_wordfilter_properties.py",
            "tests/server/test_server_moderation.py",
        ),
    ),
    "play.quickplay_queue": Target(
        "server/play/quickplay_queue.py",
        ("tests/security/test_guard_quickplay.py", "tests/server/test_quickplay_queue.py"),
    ),
    "play.quickplay_routes": Target(
        "server/play/quickplay_routes.py",
        (
            "tests/security/test_guard_quickplay_routes.py",
            "tests/security/test_guard_quickplay.py",
            "tests/security/test_guard_account_routes.py",
            "tests/server/test_server_quickplay.py",
        ),
    ),
    "play.team_choice": Target(
        "server/play/team_choice.py",
        ("tests/security/test_guard_teams.py", "tests/server/test_server_team_choice.py"),
    ),
    "play.rating_credit": Target(
        "server/play/rating_credit.py",
        ("tests/security/test_guard_ratings.py", "tests/server/test_server_quickplay.py"),
    ),
    "rules.house": Target(
        "rules/house.py",
        (
            "tests/security/test_guard_house.py",
            "tests/engine/property/test_house_rules.py",
            "tests/server/test_server_house_rules.py",
        ),
    ),
    "storage.accounts_sql": Target(
        "storage/accounts_sql.py",
        (
            "tests/security/test_guard_storage.py",
            "tests/security/test_guard_accounts_store.py",
            "tests/security/test_guard_sessions.py",
            "tests/storage/test_storage_accounts.py",
        ),
    ),
}

# Operators not used: the variable operators need hand-given arguments (which variable to replace).
EXCLUDED_OPERATORS = (
    "core/VariableInserter",
    "core/VariableReplacer",
)
# Of Cosmic Ray's 132 arithmetic and 56 comparison replacements, the conventional ones (the set mutmut and
# most mutation tools use): each operator to its counterpart, each comparison to its boundary, its negation
# and its reverse. The others (``a + b`` to ``a << b``, ``a == b`` to ``a <= b``...) die at the first test
# with a TypeError or give the same verdict, and on two shared cores each mutant costs seconds.
KEPT_BINARY = {
    ("Add", "Sub"), ("Sub", "Add"), ("Mul", "Div"), ("Div", "Mul"), ("FloorDiv", "Div"), ("Mod", "Div"),
    ("Pow", "Mul"), ("BitOr", "BitAnd"), ("BitAnd", "BitOr"), ("BitXor", "BitAnd"), ("LShift", "RShift"),
    ("RShift", "LShift"),
}  # fmt: skip
KEPT_COMPARISON = {
    ("Eq", "NotEq"), ("NotEq", "Eq"), ("Is", "IsNot"), ("IsNot", "Is"),
    ("Lt", "LtE"), ("Lt", "GtE"), ("Lt", "Gt"), ("LtE", "Lt"), ("LtE", "Gt"), ("LtE", "GtE"),
    ("Gt", "GtE"), ("Gt", "LtE"), ("Gt", "Lt"), ("GtE", "Gt"), ("GtE", "Lt"), ("GtE", "LtE"),
}  # fmt: skip


def operator_used(name: str) -> bool:
    if name in EXCLUDED_OPERATORS:
        return False
    for family, kept in (
        ("core/ReplaceBinaryOperator_", KEPT_BINARY),
        ("core/ReplaceComparisonOperator_", KEPT_COMPARISON),
    ):
        if name.startswith(family):
            a, b = name[len(family) :].split("_")
            return (a, b) in kept
    return True


PYTEST = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
TIMEOUT = 300.0


# ---------------------------------------------------------------------------------------------------
# Mutants


@dataclass
class Mutant:
    key: str
    operator: str
    occurrence: int
    line: int
    col: int
    end_line: int
    text: str  # the source line, stripped: how the allow-list names a mutant


def annotation_spans(source: str) -> list[tuple[int, int, int, int]]:
    """(line, col, end line, end col) of every annotation in the module."""
    spans = []
    for node in ast.walk(ast.parse(source)):
        notes: list[ast.expr | None] = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = node.args
            notes = [x.annotation for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
            notes += [a.vararg.annotation if a.vararg else None, a.kwarg.annotation if a.kwarg else None]
            notes.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            notes = [node.annotation]
        for n in notes:
            if n is not None:
                spans.append((n.lineno, n.col_offset, n.end_lineno or n.lineno, n.end_col_offset or 0))
    return spans


def _inside(pos: tuple[int, int], span: tuple[int, int, int, int]) -> bool:
    return (span[0], span[1]) <= pos < (span[2], span[3])


def mutants(key: str) -> list[Mutant]:
    """Every mutant Cosmic Ray's operators make of the module (as ``cosmic-ray init`` enumerates them)."""
    import cosmic_ray.plugins
    from cosmic_ray.ast import ast_nodes, get_ast_from_path

    path = ROOT / SRC / TARGETS[key].path
    source = path.read_text()
    lines = source.splitlines()
    notes = annotation_spans(source)
    module_ast = get_ast_from_path(path)
    found = []
    for name in cosmic_ray.plugins.operator_names():
        if not operator_used(name):
            continue
        operator = cosmic_ray.plugins.get_operator(name)()
        positions = (p for node in ast_nodes(module_ast) for p in operator.mutation_positions(node))
        for occurrence, (start, end) in enumerate(positions):
            # parso columns count characters like ast's (for this code base's ASCII sources)
            if any(_inside(start, s) for s in notes) or lines[start[0] - 1].strip() == "if TYPE_CHECKING:":
                continue  # annotations, and imports made for them only
            found.append(Mutant(key, name, occurrence, start[0], start[1], end[0], lines[start[0] - 1].strip()))
    return found


def load_equivalent() -> list[dict[str, str]]:
    if not EQUIVALENT_FILE.exists():
        return []
    return list(tomllib.loads(EQUIVALENT_FILE.read_text()).get("equivalent", []))


def mutated_line(m: Mutant) -> str:
    """The mutant's first changed line, stripped (how an allow-list entry tells apart two mutants of one
    operator on one line)."""
    import cosmic_ray.plugins
    from cosmic_ray.mutating import mutate_code

    source = (ROOT / SRC / TARGETS[m.key].path).read_text()
    code = mutate_code(source, cosmic_ray.plugins.get_operator(m.operator)(), m.occurrence)
    if code is None:
        return ""
    changed = _changed_lines(source, code)
    return changed[1][1:].strip() if len(changed) > 1 else ""


def equivalent_reason(m: Mutant, allow: list[dict[str, str]]) -> str | None:
    """The allow-list's reason for this mutant: same module, operator (a prefix) and source line, and
    when the entry gives ``mutated``, the same line after the change."""
    for entry in allow:
        same = entry["module"] == m.key and m.operator.startswith(entry["operator"]) and entry["line"] == m.text
        if same and ("mutated" not in entry or entry["mutated"] == mutated_line(m)):
            return entry["reason"]
    return None


# ---------------------------------------------------------------------------------------------------
# Which tests run which line


class _PerTest:
    """pytest plugin: one coverage context per test, so a line maps to the tests that execute it."""

    def __init__(self, cov: Any) -> None:
        self.cov = cov

    def pytest_runtest_setup(self, item: Any) -> None:
        self.cov.switch_context(item.nodeid)

    def pytest_runtest_teardown(self, item: Any) -> None:
        self.cov.switch_context("")


def coverage_map(keys: list[str]) -> None:
    """Run the modules' tests (one list, shared by ``keys``) once under coverage, in this process (call it
    in a fresh one), and keep each module's lines -> tests in STATE."""
    import coverage
    import pytest

    targets = {k: str(ROOT / SRC / TARGETS[k].path) for k in keys}
    cov = coverage.Coverage(data_file=None, include=list(targets.values()))
    cov.start()
    code = pytest.main([*PYTEST[3:], *TARGETS[keys[0]].tests], plugins=[_PerTest(cov)])
    cov.stop()
    data = cov.get_data()
    for key, target in targets.items():
        by_line = data.contexts_by_lineno(target)
        analysis = cov.analysis2(target)
        found = {"exit": int(code), "statements": analysis[1], "lines": {str(k): sorted(v) for k, v in by_line.items()}}
        (STATE / f"{key}.coverage.json").write_text(json.dumps(found))


def map_coverage(keys: list[str]) -> None:
    """One coverage run per distinct list of test files among ``keys``."""
    STATE.mkdir(parents=True, exist_ok=True)
    groups: dict[tuple[str, ...], list[str]] = {}
    for k in keys:
        groups.setdefault(TARGETS[k].tests, []).append(k)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    for tests, group in groups.items():
        made = [STATE / f"{k}.coverage.json" for k in group]
        inputs = [ROOT / t for t in tests] + [ROOT / SRC / TARGETS[k].path for k in group]
        if all(f.exists() for f in made) and min(f.stat().st_mtime for f in made) > max(
            f.stat().st_mtime for f in inputs
        ):
            continue  # neither the tests nor the modules changed since
        print(f"  coverage of {', '.join(group)} by their tests...", file=sys.stderr)
        subprocess.run(
            [sys.executable, __file__, "--_map", ",".join(group)],
            cwd=ROOT,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )


def statement_line(source: str) -> dict[int, int]:
    """Each line -> the first line of the innermost statement holding it (what coverage records)."""
    first: dict[int, int] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.stmt):
            end = node.end_lineno or node.lineno
            body = getattr(node, "body", None)
            # a compound statement holds its header lines only; its body's statements map themselves
            if isinstance(body, list) and body:
                end = body[0].lineno - 1
            for ln in range(node.lineno, end + 1):
                if ln not in first or first[ln] < node.lineno:
                    first[ln] = node.lineno
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                for d in node.decorator_list:
                    for ln in range(d.lineno, (d.end_lineno or d.lineno) + 1):
                        first[ln] = node.lineno
    return first


def function_headers(source: str) -> dict[int, tuple[int, int]]:
    """Each line of a function's header (decorators, signature) -> the lines of its body. A mutant there
    (a decorator removed, a default or a ``*`` changed) acts when the function is called, so the tests
    that run the body are the ones to run, not every test that imports the module."""
    headers: dict[int, tuple[int, int]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            body = (node.body[0].lineno, node.end_lineno or node.body[0].lineno)
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            for ln in range(start, node.body[0].lineno):
                headers[ln] = body
    return headers


def tests_for(
    m: Mutant, cmap: dict[str, Any], first: dict[int, int], headers: dict[int, tuple[int, int]]
) -> list[str] | None:
    """The tests to run against a mutant: [] when none executes its line, None for "all of them"."""
    chosen: set[str] = set()
    if m.line in headers:
        lo, hi = headers[m.line]
        ran = False
        for ln in range(lo, hi + 1):
            contexts = cmap["lines"].get(str(ln), ())
            ran = ran or bool(contexts)
            chosen |= {c for c in contexts if c}
        if ran and not chosen:
            return None  # the body ran during collection only (a cached function): all the tests
        return sorted(chosen)
    statements = set(cmap["statements"])
    for raw in range(m.line, m.end_line + 1):
        ln = first.get(raw, raw)
        # Python 3.11 records the lines of a multi-line condition itself, coverage's statements the first.
        contexts = cmap["lines"].get(str(raw), cmap["lines"].get(str(ln)))
        if contexts is None:
            if ln in statements and not any(str(x) in cmap["lines"] for x in range(ln, raw + 1)):
                continue  # a statement no test reaches
            return None  # not a line coverage knows: be safe
        named = {c for c in contexts if c}
        if not named:
            return None  # executed at import only
        chosen |= named
    return sorted(chosen)


# ---------------------------------------------------------------------------------------------------
# Running


# Third-party modules every test run imports: loaded once here, then each mutant's pytest runs in a fork
# of this process (the project's own modules are imported afresh in the fork, mutant included).
PRELOAD = (
    "pytest",
    "hypothesis",
    "fastapi",
    "starlette",
    "pydantic",
    "sqlalchemy",
    "sqlalchemy.ext.asyncio",
    "alembic",
    "aiosqlite",
    "httpx",
    "websockets",
    "uvicorn",
    "redis",
    "orjson",
    "itsdangerous",
)


# The project's own modules below a target in the layer order (benchmarks/layout.py keeps imports from
# pointing up), so they never hold a reference to it: safe to import once in the parent too.
PRELOAD_BELOW = {
    "server": (
        "opolyx.jsontypes", "opolyx.engine", "opolyx.rules", "opolyx.bots", "opolyx.fairness",
        "opolyx.progression", "opolyx.storage", "opolyx.storage.testing", "opolyx.protocol.models",
    ),
    "storage": ("opolyx.jsontypes", "opolyx.engine", "opolyx.rules", "opolyx.progression"),
    "progression": ("opolyx.jsontypes", "opolyx.engine", "opolyx.rules"),
    "fairness.py": ("opolyx.jsontypes", "opolyx.engine", "opolyx.rules"),
}  # fmt: skip


def preload(keys: list[str]) -> None:
    """Import once what every fork would import the same: third-party libraries, and the project's modules
    below every target of this run (never a target, nor anything importing one)."""
    import importlib

    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    layers = [PRELOAD_BELOW.get(TARGETS[k].path.split("/")[0], ()) for k in keys]
    common = set(layers[0]).intersection(*layers[1:]) if layers else set()
    for name in sorted(common):
        importlib.import_module(name)
    for k in keys:
        target = "opolyx." + TARGETS[k].path.removesuffix(".py").replace("/", ".")
        if target in sys.modules:
            raise SystemExit(f"{target} was imported by the preload: a fork would not see its mutant")


def run_forked(args: list[str], timeout: float) -> tuple[str, str]:
    """pytest ``args`` in a fork of this process: ("killed" | "survived" | "error", output)."""
    out = tempfile.TemporaryFile()  # noqa: SIM115 - shared with the fork, closed below
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 3
        try:
            os.setsid()
            os.dup2(out.fileno(), 1)
            os.dup2(out.fileno(), 2)
            sys.dont_write_bytecode = True  # a mutant's bytecode must never be cached
            import pytest

            code = int(pytest.main(args))
        finally:
            os._exit(code)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "killed", "timeout"
        time.sleep(0.05)
    out.seek(0)
    output = out.read().decode(errors="replace")
    out.close()
    code = os.waitstatus_to_exitcode(status)
    # 0 passed; 1 a test failed; 2 collection broke (the mutant fails at import); 4/5: our selection is wrong
    return ("survived" if code == 0 else "killed" if code in (1, 2, 3) or code < 0 else "error"), output


def run_module(key: str, *, limit: int | None = None, again: bool = False) -> dict[str, Any]:
    """Every mutant of the module against its tests; with ``again``, only those that did not die in the
    last run (the others keep their result, if their source line is unchanged)."""
    import cosmic_ray.plugins
    from cosmic_ray.mutating import use_mutation

    target = TARGETS[key]
    path = ROOT / SRC / target.path
    original = path.read_bytes()
    STATE.mkdir(parents=True, exist_ok=True)
    cmap_file = STATE / f"{key}.coverage.json"
    started = time.monotonic()
    os.environ["PYTHONPATH"] = str(ROOT / "src")
    # Run again, survivors only: every test of the module for each (no coverage run; they are few).
    cmap = {"exit": 0, "statements": [], "lines": {}} if again else json.loads(cmap_file.read_text())
    if cmap["exit"] != 0:
        raise SystemExit(f"{key}: its tests fail without any mutant (pytest exit {cmap['exit']})")
    first = statement_line(path.read_text())
    headers = function_headers(path.read_text())
    allow = load_equivalent()
    results: list[dict[str, Any]] = []
    before_rows: dict[tuple[str, int, str], dict[str, Any]] = {}
    last = STATE / f"{key}.json"
    if again and last.exists():
        for r in json.loads(last.read_text())["mutants"]:
            if r["outcome"] in ("killed", "incompetent", "skipped"):
                before_rows[(r["operator"], r["occurrence"], r["text"])] = r
    todo = mutants(key)[:limit] if limit else mutants(key)
    try:
        for n, m in enumerate(todo, 1):
            row: dict[str, Any] = {
                "operator": m.operator,
                "occurrence": m.occurrence,
                "line": m.line,
                "text": m.text,
            }
            reason = equivalent_reason(m, allow)
            tests = None if again else tests_for(m, cmap, first, headers)
            kept = before_rows.get((m.operator, m.occurrence, m.text))
            if reason is None and kept is not None:
                row = kept
            elif reason is not None:
                row.update(outcome="equivalent", reason=reason)
            elif tests == []:
                row.update(outcome="survived", why="no test executes this line")
            else:
                operator = cosmic_ray.plugins.get_operator(m.operator)()
                with use_mutation(path, operator, m.occurrence) as (before, after):
                    if after is None:
                        row.update(outcome="skipped", why="the operator made no change here")
                    elif not _compiles(after, path):
                        row.update(outcome="incompetent", why="the mutant is not valid Python")
                        row["diff"] = _changed_lines(before, after)
                    else:
                        outcome, output = "survived", ""
                        plan = stages(tests or list(target.tests), target.tests)
                        if tests and m.operator == "core/RemoveDecorator":
                            # A decorator acts beyond its body's callers (a cache serves the next test):
                            # when those tests miss it, all of them run.
                            plan.append(list(target.tests))
                        for stage in plan:
                            outcome, output = run_forked([*PYTEST[3:], *stage], TIMEOUT)
                            if outcome != "survived":
                                break
                        row.update(outcome=outcome)
                        row["diff"] = _changed_lines(before, after)
                        if outcome == "killed":
                            row["by"] = _first_failure(output)
                        elif outcome == "error":
                            row["why"] = output[-600:]
            results.append(row)
            print(f"  {key} {n}/{len(todo)} {row['outcome']:<10} :{m.line} {m.operator}", file=sys.stderr)
            if n % 10 == 0:  # an interrupted run resumes with --survivors
                _save(key, target, started, results)
    finally:
        if path.read_bytes() != original:  # Ctrl-C between the write and the restore
            path.write_bytes(original)
    return _save(key, target, started, results)


def run_hand() -> int:
    """The hand-made mutants of ``mutation_hand.toml`` (the survivors issue 46 listed): each must be killed."""
    entries = tomllib.loads(HAND_FILE.read_text())["mutant"]
    os.environ["PYTHONPATH"] = str(ROOT / "src")
    alive = 0
    for n, entry in enumerate(entries, 1):
        path = ROOT / SRC / TARGETS[entry["module"]].path
        original = path.read_text()
        if original.count(entry["find"]) != 1:
            print(f"{n:>2} STALE     {entry['module']}: the text to change is not in the module once: {entry['why']}")
            alive += 1
            continue
        try:
            path.write_text(original.replace(entry["find"], entry["replace"]))
            outcome, _ = run_forked([*PYTEST[3:], *entry["tests"]], TIMEOUT)
        finally:
            path.write_text(original)
        alive += outcome != "killed"
        print(f"{n:>2} {outcome.upper():<9} {entry['module']}: {entry['why']}")
    print(f"{len(entries) - alive} of {len(entries)} hand-made mutants killed")
    return alive


def _save(key: str, target: Target, started: float, results: list[dict[str, Any]]) -> dict[str, Any]:
    report = {
        "module": key,
        "path": SRC + target.path,
        "seconds": round(time.monotonic() - started),
        "mutants": results,
    }
    STATE.mkdir(parents=True, exist_ok=True)
    (STATE / f"{key}.json").write_text(json.dumps(report, indent=1))
    return report


def stages(tests: list[str], order: tuple[str, ...]) -> list[list[str]]:
    """The tests grouped by file, in the order of TARGETS (fast files first): a mutant's run stops at
    the first group that kills it, so a slow server test file runs only for mutants the fast ones miss."""
    groups: dict[str, list[str]] = {}
    for t in tests:
        groups.setdefault(t.split("::")[0], []).append(t)
    rank = {f: i for i, f in enumerate(order)}
    return [groups[f] for f in sorted(groups, key=lambda f: rank.get(f, len(order)))]


def _compiles(code: str, path: Path) -> bool:
    try:
        compile(code, str(path), "exec")
    except SyntaxError:
        return False
    return True


def _changed_lines(before: str, after: str) -> list[str]:
    """The removed and added lines ("-..." then "+..."), stripped after their sign."""
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
    return [ln[0] + ln[1:].strip() for ln in diff if ln[:1] in "+-" and ln[:3] not in ("+++", "---") and ln[1:].strip()]


def _first_failure(output: str) -> str:
    for ln in output.splitlines():
        if ln.startswith(("FAILED ", "ERROR ")):
            return ln.split(" ", 1)[1].split(" - ")[0]
    return "timeout" if output == "timeout" else ""


def summarise(report: dict[str, Any]) -> tuple[int, int, int]:
    rows = report["mutants"]
    killed = sum(r["outcome"] in ("killed", "incompetent") for r in rows)
    survived = sum(r["outcome"] == "survived" for r in rows)
    equivalent = sum(r["outcome"] == "equivalent" for r in rows)
    return killed, survived, equivalent


def print_report(reports: list[dict[str, Any]]) -> None:
    print(f"{'module':<28} {'killed':>7} {'survived':>9} {'equiv.':>7} {'score':>7} {'time':>6}")
    for rep in reports:
        k, s, e = summarise(rep)
        score = 100.0 * k / (k + s) if k + s else 100.0
        print(f"{rep['module']:<28} {k:>7} {s:>9} {e:>7} {score:>6.1f}% {rep['seconds']:>5}s")
    for rep in reports:
        alive = [r for r in rep["mutants"] if r["outcome"] == "survived"]
        if not alive:
            continue
        print(f"\nsurvivors in {rep['path']}:")
        for r in alive:
            change = " / ".join(r.get("diff") or []) or r.get("why", "")
            print(f"  :{r['line']} {r['operator']} #{r['occurrence']}: {r['text']}")
            if change:
                print(f"      {change}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("modules", nargs="*", help="keys of TARGETS (default: all)")
    parser.add_argument("--list", action="store_true", help="list the modules and their mutant counts")
    parser.add_argument("--report", action="store_true", help="print the last results without running")
    parser.add_argument("--limit", type=int, help="only the first N mutants (a smoke test of the script)")
    parser.add_argument(
        "--survivors", action="store_true", help="run again only what survived last time (after new tests)"
    )
    parser.add_argument("--hand", action="store_true", help="run the hand-made mutants of mutation_hand.toml")
    parser.add_argument("--_map", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args._map:
        coverage_map(args._map.split(","))
        return
    keys = args.modules or list(TARGETS)
    unknown = [k for k in keys if k not in TARGETS]
    if unknown:
        parser.error(f"unknown module(s) {unknown}; known: {', '.join(TARGETS)}")
    if args.list:
        for k in keys:
            print(f"{k:<28} {len(mutants(k)):>4} mutants  {SRC}{TARGETS[k].path}")
        return
    if args.report:
        print_report([json.loads((STATE / f"{k}.json").read_text()) for k in keys if (STATE / f"{k}.json").exists()])
        return
    if subprocess.run(["git", "diff", "--quiet", "--", "src"], cwd=ROOT, capture_output=True).returncode == 1:
        raise SystemExit("src/ has uncommitted changes: commit or stash them first (mutants are written over it)")
    STATE.mkdir(parents=True, exist_ok=True)
    lock = (STATE / "lock").open("w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SystemExit("another mutation run is going on in this tree: two would see each other's mutants") from None
    preload([] if args.hand else keys)
    if args.hand:
        raise SystemExit(1 if run_hand() else 0)
    if not args.survivors:
        map_coverage(keys)
    reports = [run_module(k, limit=args.limit, again=args.survivors) for k in keys]
    print_report(reports)


if __name__ == "__main__":
    main()
