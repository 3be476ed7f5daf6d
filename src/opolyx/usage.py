"""What the ``opolyx`` commands accept, checked one way for all of them: bad input is one line and exit 2.

Every command checks its input with the helpers here (or with Typer's own types and ranges) before it does
any work, and refuses with ``typer.BadParameter`` or click's ``UsageError`` (:func:`fail`). :class:`OneLineErrors`,
the class of the ``opolyx`` command group, prints each refusal — Typer's conversions, ranges, unknown
options and missing arguments included — as ``opolyx <command>: <what is wrong>`` on stderr, with no
traceback, and exits with 2. Output files are tried before the first game, so a long run is never thrown
away at its end for a path that cannot be written.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import urlsplit

import typer
from typer.core import TyperGroup

# The exceptions of the click that Typer runs on: recent Typer carries its own copy of click, older Typer
# uses the click package; ``typer.BadParameter`` is always one of them.
_click_errors: Any = sys.modules[typer.BadParameter.__module__]
ClickException: type[Exception] = _click_errors.ClickException
UsageError: type[Exception] = _click_errors.UsageError
NoArgsIsHelpError: Any = getattr(_click_errors, "NoArgsIsHelpError", ())


class OneLineErrors(TyperGroup):
    """The ``opolyx`` group: any usage error of any command is printed as one line on stderr, exit 2."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except NoArgsIsHelpError as exc:  # plain ``opolyx``: the help (Rich prints it as the error is made)
            help_text = exc.format_message()
            if help_text:
                typer.echo(help_text, err=True)
            sys.exit(exc.exit_code)
        except ClickException as exc:
            typer.echo(one_line(exc), err=True)
            sys.exit(getattr(exc, "exit_code", 2))
        except (typer.Abort, _click_errors.Abort):
            typer.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


def one_line(exc: Exception) -> str:
    """``opolyx <command>: <message>``, the message's lines and spaces run together."""
    names: list[str] = []
    ctx: Any = getattr(exc, "ctx", None)
    while ctx is not None and ctx.parent is not None:
        names.append(str(ctx.info_name))
        ctx = ctx.parent
    where = " ".join(["opolyx", *reversed(names)])
    message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    return f"{where}: {' '.join(message.split())}"


def fail(message: str, option: str | None = None) -> NoReturn:
    """Refuse the command's input: ``option`` names what was wrong (``--bots``), else the message says it."""
    if option is not None:
        raise typer.BadParameter(message, param_hint=f"'{option}'")
    raise UsageError(message)


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``1 game``, ``2 games``."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


# ---------------------------------------------------------------------- lists and names


def names(text: str, option: str) -> tuple[str, ...]:
    """A comma-separated list in which every entry names something (``normal,,hard`` is refused)."""
    entries = tuple(part.strip() for part in text.split(","))
    if not all(entries):
        fail(f"an empty entry in {text!r}; separate the names with single commas", option)
    return entries


def strengths(text: str, option: str) -> tuple[str, ...]:
    """Bot strengths, one per seat or fewer (a shorter list repeats over the seats)."""
    from opolyx.bots import STRENGTHS

    given = names(text, option)
    unknown = [s for s in given if s not in STRENGTHS]
    if unknown:
        fail(f"unknown strength(s) {', '.join(unknown)}; strengths: {', '.join(STRENGTHS)}", option)
    return given


def per_seat(given: Sequence[str], seats: int, option: str, noun: str) -> tuple[str, ...]:
    """One entry per seat: a shorter list repeats (``normal`` fills every seat); a longer one is refused."""
    if len(given) > seats:
        fail(f"{plural(len(given), noun)} for {plural(seats, 'seat')}", option)
    return tuple(given[k % len(given)] for k in range(seats))


def one_of(value: str, allowed: Collection[str], option: str, what: str) -> str:
    if value not in allowed:
        fail(f"unknown {what} {value!r}; {what}s: {', '.join(allowed)}", option)
    return value


def table(mode: str, seats: int, *, mode_option: str = "--mode", seats_option: str = "--seats") -> None:
    """A mode that exists, for a number of seats it is played by (the engine's own check and words)."""
    from opolyx.engine import IllegalAction, new_game
    from opolyx.rules import mode_names

    one_of(mode, mode_names(), mode_option, "mode")
    try:
        new_game(mode, seats, 1)
    except IllegalAction as exc:
        fail(str(exc), seats_option)


# ---------------------------------------------------------------------- numbers, addresses, files


def non_negative(value: float | None, option: str) -> None:
    """A finite number of at least 0 (``nan`` and ``inf`` are refused), or nothing."""
    if value is not None and not (math.isfinite(value) and value >= 0):
        fail(f"{value} is not a number of 0 or more", option)


def http_url(url: str, option: str) -> None:
    """An ``http://`` or ``https://`` address with a host."""
    try:
        parts = urlsplit(url)
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
        _ = parts.port  # a port that is not a number raises here
    except ValueError:
        ok = False
    if not ok:
        fail(f"{url!r} is not an address like http://127.0.0.1:8000", option)


def output_file(path: Path | None, option: str, suffixes: Collection[str] | None = None) -> None:
    """A file that can be written, tried now (and left as it was); ``suffixes``: the formats it may end in."""
    if path is None:
        return
    if suffixes is not None and path.suffix.lower().lstrip(".") not in suffixes:
        fail(f"{str(path)!r} does not end in a known format: {', '.join('.' + s for s in sorted(suffixes))}",
             option)
    if path.is_dir():
        fail(f"{path} is a directory; give a file name", option)
    existed = path.exists()
    try:
        with path.open("ab"):
            pass
    except OSError as exc:
        fail(f"cannot write {path}: {exc.strerror or exc}", option)
    if not existed:
        path.unlink(missing_ok=True)
