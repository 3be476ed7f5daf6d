"""Schemathesis over the server's own OpenAPI document: every documented route, with generated (valid
and invalid) parameters and bodies, as a signed-in guest. No 5xx; every documented answer matches its
schema; every refusal carries a stable ``code``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance
from server_kit import Person

from live_server import ThreadServer


def test_openapi_routes_hold_up(server: ThreadServer, people: Callable[[str], Person]) -> None:
    guest = people("Fuzzy")
    schema = schemathesis.openapi.from_url(server.base + "/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 10

    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def run(case: Any) -> None:
            response = case.call_and_validate(
                headers={"Authorization": f"Bearer {guest.token}"},
                checks=[not_a_server_error, response_schema_conformance],
            )
            if response.status_code >= 400:
                assert isinstance(response.json().get("code"), str), (case.operation.label, response.text)

        run()
