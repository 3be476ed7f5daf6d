"""Sessions and API keys checked without a server (issue 46): which token names whom, and which names
nobody. Each case is a token an attacker could present."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from itsdangerous import URLSafeTimedSerializer

from opolyx.server import Settings
from opolyx.server.accounts import apikeys, sessions
from opolyx.server.accounts.identity import SessionSigner, new_user_id, request_token, resolve_secret
from opolyx.storage import SqlStore, Store
from opolyx.storage.testing import TestDatabase

pytestmark = pytest.mark.anyio


@pytest.fixture
async def store(database: TestDatabase) -> AsyncIterator[Store]:
    s = await SqlStore.open(database.url, schema=database.schema)
    try:
        yield s
    finally:
        await s.close()


def test_the_hashes_are_full_sha256_hex() -> None:
    assert sessions.token_hash("abc") == hashlib.sha256(b"abc").hexdigest()
    assert apikeys.key_digest("opx_abc") == hashlib.sha256(b"opx_abc").hexdigest()
    assert len(sessions.token_hash("")) == len(apikeys.key_digest("")) == 64


def test_only_keys_with_the_prefix_are_keys() -> None:
    assert apikeys.is_api_key("opx_x") and apikeys.KEY_PREFIX == "opx_"
    assert not apikeys.is_api_key(None) and not apikeys.is_api_key("") and not apikeys.is_api_key("xopx_")


def test_the_bearer_header_wins_over_the_cookie() -> None:
    cookies = {"opolyx_session": "from-cookie"}
    assert request_token(cookies, {"authorization": "Bearer  from-header "}, "opolyx_session") == "from-header"
    assert request_token(cookies, {"authorization": "bearer x"}, "opolyx_session") == "x"
    assert request_token(cookies, {"authorization": "Bearer "}, "opolyx_session") == "from-cookie"
    assert request_token(cookies, {"authorization": "Basic abc"}, "opolyx_session") == "from-cookie"
    assert request_token({}, {}, "opolyx_session") is None
    assert request_token({"opolyx_session": ""}, {}, "opolyx_session") is None


async def test_a_session_token_names_its_person_until_revoked_or_expired(store: Store) -> None:
    signer = SessionSigner("secret", 3600)
    await store.create_user("u", "U", "en")
    token, record = await sessions.open_session(store, signer, "u", user_agent="ua")
    assert record.user_id == "u" and record.user_agent == "ua"
    secret = signer.verify(token)
    assert secret is not None and len(secret) == 43, "32 random bytes, base64url"
    assert len(record.id) == 16 and int(record.id, 16) >= 0, "8 random bytes, hex"
    lifetime = record.expires_at - datetime.now(UTC)
    assert timedelta(seconds=3590) < lifetime <= timedelta(seconds=3600)
    found = await sessions.resolve(store, signer, token)
    assert found is not None and found[0].id == "u" and found[1].id == record.id
    user = await apikeys.authenticate(store, signer, token)
    assert user is not None and user.id == "u" and not user.agent
    # Forged: signed with another secret, or not signed at all, or nothing.
    for bad in (SessionSigner("other", 3600).sign("x" * 43), "x" * 43, "", None):
        assert await sessions.resolve(store, signer, bad) is None
        assert await apikeys.authenticate(store, signer, bad) is None
    # A validly signed secret with no session record behind it.
    assert await sessions.resolve(store, signer, signer.sign("made-up")) is None
    await store.revoke_sessions("u", only=record.id)
    assert await sessions.resolve(store, signer, token) is None
    assert await apikeys.authenticate(store, signer, token) is None


async def test_a_session_of_a_deleted_account_names_nobody(store: Store) -> None:
    signer = SessionSigner("secret", 3600)
    await store.create_user("u", "U", "en")
    token, _ = await sessions.open_session(store, signer, "u", user_agent=None)
    await store.delete_account("u")
    assert await sessions.resolve(store, signer, token) is None


async def test_a_key_names_its_owner_as_an_agent_until_revoked(store: Store) -> None:
    signer = SessionSigner("secret", 3600)
    await store.create_user("u", "U", "en")
    await store.create_api_key("k1", "u", "bot", apikeys.key_digest("opx_secret"))
    user = await apikeys.authenticate(store, signer, "opx_secret")
    assert user is not None and user.id == "u" and user.agent
    assert await apikeys.authenticate(store, signer, "opx_guess") is None
    # A key is never read as a session token, nor a session token's look-alike as a key.
    assert await sessions.resolve(store, signer, "opx_secret") is None
    assert await store.revoke_api_key("u", "k1")
    assert await apikeys.authenticate(store, signer, "opx_secret") is None


# --- identity: the server's secret and the signatures made with it ----------------------------------------


def test_the_secret_is_configured_or_made_once_and_kept_private(tmp_path: Path) -> None:
    assert resolve_secret(Settings(secret_key="configured", data_dir=tmp_path)) == "configured"
    assert not (tmp_path / "secret_key").exists()
    settings = Settings(secret_key="", data_dir=tmp_path / "data" / "deeper")
    made = resolve_secret(settings)
    path = tmp_path / "data" / "deeper" / "secret_key"
    assert len(made) == 64 and path.read_text() == made, "48 random bytes, base64url"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600, "only the server may read it"
    assert resolve_secret(settings) == made, "a restart keeps everyone signed in"
    path.write_text("  kept  \n")
    assert resolve_secret(settings) == "kept"


def test_a_signature_expires_and_binds_its_secret() -> None:
    token = SessionSigner("s", 100).sign("secret-value")
    assert SessionSigner("s", 100).verify(token) == "secret-value"
    assert SessionSigner("s", -1).verify(token) is None, "older than max_age"
    assert SessionSigner("t", 100).verify(token) is None
    assert SessionSigner("s", 100).verify(token[:-2]) is None
    assert SessionSigner("s", 100).verify(None) is None and SessionSigner("s", 100).verify("") is None
    not_text = URLSafeTimedSerializer("s", salt="opolyx-session").dumps(12345)
    assert SessionSigner("s", 100).verify(not_text) is None


def test_the_sign_in_requests_cookie_cannot_be_forged() -> None:
    signer = SessionSigner("s", 100)
    cookie = signer.sign_links(["d1", "d2"])
    assert signer.signed_links(cookie, 100) == ["d1", "d2"]
    assert signer.signed_links(cookie, -1) == [], "too old"
    assert SessionSigner("t", 100).signed_links(cookie, 100) == []
    assert signer.signed_links(None, 100) == [] and signer.signed_links("", 100) == []
    assert signer.signed_links(signer.sign("d1"), 100) == [], "a session signature is not a links cookie"
    links = URLSafeTimedSerializer("s", salt="opolyx-signin-requests")
    assert signer.signed_links(links.dumps("d1"), 100) == [], "not a list"
    assert signer.signed_links(links.dumps(["d1", 5, None]), 100) == ["d1"]


def test_user_ids_are_128_random_bits() -> None:
    ids = {new_user_id() for _ in range(50)}
    assert len(ids) == 50 and all(len(i) == 32 and int(i, 16) >= 0 for i in ids)


def test_two_processes_starting_at_once_share_one_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second process to create the file (O_EXCL refuses it) reads the first one's secret."""

    real_open = os.open

    def raced(path: str, flags: int, mode: int = 0o777) -> int:
        Path(path).write_text("theirs\n")  # the other process won the race just now
        return real_open(path, flags, mode)

    monkeypatch.setattr(os, "open", raced)  # the os module identity.py uses
    assert resolve_secret(Settings(secret_key="", data_dir=tmp_path)) == "theirs"
