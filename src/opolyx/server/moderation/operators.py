"""Who is an operator (set by configuration: ``OPOLYX_OPERATORS``, account ids or e-mail addresses), and
the route class every operator route is made with.

The check runs before FastAPI reads the request's body or parameters, so anyone else, signed in or not,
with a personal API key or a malformed body, gets the very 404 an unknown path gets: the operator routes
cannot be told apart from routes that do not exist.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute

from opolyx.protocol import errors as E
from opolyx.server.accounts import sessions
from opolyx.server.accounts.apikeys import is_api_key
from opolyx.server.accounts.identity import request_token
from opolyx.server.settings import Settings
from opolyx.storage import UserRecord

PREFIX = "/api/operator"


def is_operator(settings: Settings, user: UserRecord | None) -> bool:
    if user is None or user.agent:
        return False
    chosen = settings.operator_ids()
    return user.id in chosen or (user.email is not None and user.email.lower() in chosen)


def operator_name(user: UserRecord) -> str:
    """How the audit log names an operator: their e-mail address (what configuration appoints), else id."""
    return user.email or user.id


def not_found() -> JSONResponse:
    # The same answer as a path no route serves (app.py's handler of Starlette's 404).
    return JSONResponse({"code": E.NOT_FOUND, "message": "Not Found"}, status_code=404)


async def operator_of(request: Request) -> UserRecord | None:
    """The operator behind the request's session (never an API key), or None."""
    svc = request.app.state.services
    token = request_token(request.cookies, request.headers, svc.settings.session_cookie)
    if token is None or is_api_key(token):
        return None
    found = await sessions.resolve(svc.store, svc.signer, token)
    if found is None or not is_operator(svc.settings, found[0]):
        return None
    return found[0]


class OperatorRoute(APIRoute):
    """An operator route: 404 for everyone but a signed-in operator, before anything else is looked at."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def guarded(request: Request) -> Response:
            user = await operator_of(request)
            if user is None:
                return not_found()
            request.state.operator = user
            return await handler(request)

        return guarded


def current_operator(request: Request) -> UserRecord:
    """(A dependency of operator routes.) The operator the route class let through."""
    user: UserRecord = request.state.operator
    return user
