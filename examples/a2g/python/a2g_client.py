# SPDX-License-Identifier: LGPL-2.1-or-later
"""a2g_client: a small A2G 0.1 client for games (Python 3.11, standard library only).

The game keeps its own AI and asks the decision service only at decision
points. Whatever goes wrong (the service is down, slow, over a limit, the
session was lost, the answer is stale or not one of the legal actions), the
client says so and the game runs its own choice: an A2G call never breaks the
game.

    client = A2GClient("http://127.0.0.1:8787", manifest)
    client.open_session()
    client.telemetry(tick, [{"entity": "pirate-7", "type": "pirate", "pos": [1, 2]}])
    choices = client.decide(epoch, [EntityRequest(...), ...])
    for choice in choices:          # one per entity, in request order
        action = choice.action_or(native_choice)   # validated, or the fallback
    client.report([Outcome(choice.decision_id, "pirate-7", "success")])

HTTP errors follow a2g-security.md: 401 reopens the session, 403 stops
calling the service (no automatic retry), 409 reopens the session, 429 backs
off for Retry-After seconds; every one of them means the native choice for
the request that met it.
"""

from __future__ import annotations

import dataclasses
import http.client
import json
import secrets
import socket
import time
import urllib.parse
from typing import Any, Callable, Iterable

A2G_VERSION = "0.1"

# How the client explains a native choice. FALLBACK codes from the service
# (busy, budget, timeout, unavailable, invalid, low_confidence, error) are
# passed through as they come; these are the client's own.
NATIVE_DISABLED = "disabled"          # a 403 earlier: the service refused this game
NATIVE_BACKOFF = "backoff"            # inside a 429's Retry-After, or after a failure
NATIVE_NO_SESSION = "no_session"      # the session could not be opened
NATIVE_HTTP = "http_error"            # the request failed (status or network)
NATIVE_EPOCH = "stale_epoch"          # the answer's epoch is not the request's
NATIVE_ILLEGAL = "illegal_action"     # the action is not one the game offered
NATIVE_EXPIRED = "expired"            # the decision's TTL ran out before it was used
NATIVE_MALFORMED = "malformed"        # the answer is not an A2G decision


class A2GError(Exception):
    """One failed request: `status` is the HTTP status (0 for network
    errors), `code` the A2G error code when the body had one."""

    def __init__(self, message: str, status: int = 0, code: str | None = None,
                 retry_after: float | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.retry_after = retry_after


@dataclasses.dataclass
class EntityRequest:
    """One entity of a decide request."""
    entity: str
    type: str
    observations: dict[str, Any]
    legal_actions: list[str]
    profile: str | None = None
    deadline_ms: int | None = None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"entity": self.entity, "type": self.type,
                                "observations": self.observations,
                                "legal_actions": list(self.legal_actions)}
        if self.profile is not None:
            body["profile"] = self.profile
        if self.deadline_ms is not None:
            body["deadline_ms"] = self.deadline_ms
        return body


@dataclasses.dataclass
class Choice:
    """The service's answer for one entity, already validated, or the reason
    the game must use its own choice (`native` is set then).

    `expires_at` is on the client's monotonic clock: a decision may be acted
    on until then (its ttl_ms counted from when the answer arrived)."""
    entity: str
    legal_actions: list[str]
    epoch: int
    action: str | None = None
    source: str | None = None
    confidence: int | None = None
    reason: str | None = None
    decision_id: str | None = None
    expires_at: float = 0.0
    native: str | None = None          # why the native choice applies
    message: str | None = None         # the service's or the client's detail
    clock: Callable[[], float] = dataclasses.field(default=time.monotonic, repr=False)

    @property
    def is_fallback(self) -> bool:
        return self.native is not None

    def usable(self, epoch: int, now: float | None = None) -> bool:
        """True when the game may still act on this decision: it decided
        something, for the game's current epoch, within its TTL, and its
        action is one the game offered. Marks the choice native otherwise."""
        if self.native is not None:
            return False
        if epoch != self.epoch:
            self.native, self.message = NATIVE_EPOCH, f"decided for epoch {self.epoch}, now {epoch}"
            return False
        if (now if now is not None else self.clock()) > self.expires_at:
            self.native, self.message = NATIVE_EXPIRED, "the decision's ttl_ms ran out"
            return False
        if self.action not in self.legal_actions:
            self.native, self.message = NATIVE_ILLEGAL, f"{self.action!r} was not offered"
            return False
        return True

    def action_or(self, native_action: str, epoch: int | None = None) -> str:
        """The decided action when usable at `epoch` (default: the request's
        epoch) and now, else `native_action`."""
        return self.action if self.usable(self.epoch if epoch is None else epoch) else native_action


@dataclasses.dataclass
class Outcome:
    """One report entry: what came of an executed decision."""
    decision_id: str
    entity: str
    outcome: str                       # success, failure or interrupted
    reward: float | None = None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"decision_id": self.decision_id, "entity": self.entity,
                                "outcome": self.outcome}
        if self.reward is not None:
            body["reward"] = max(-1.0, min(1.0, self.reward))
        return body


def new_client_id() -> str:
    """A client_id with 96 bits of randomness (the spec asks for at least 64)."""
    return "c_" + secrets.token_hex(12)


class A2GClient:
    """A2G over one keep-alive HTTP/1.1 connection.

    `base_url` is `http://host:port` (https for the server and client
    profiles). `manifest` is the game's manifest as a dict. `timeout` bounds
    every request in seconds on top of the entities' deadlines. `clock` is a
    monotonic clock in seconds (tests may pass their own). `headers` are
    extra request headers (a browser-hosted game would have an Origin).
    `credential` is the Bearer credential for /v1/session outside the local
    profile (an API key on a server, a join token on a client): a callable,
    since a join token is fetched fresh from the studio's backend each time.
    `failure_backoff` is how long (seconds) the client answers with native
    choices without calling after a network failure or a 5xx.
    """

    def __init__(self, base_url: str, manifest: dict[str, Any], *, client_id: str | None = None,
                 timeout: float = 2.0, clock: Callable[[], float] = time.monotonic,
                 headers: dict[str, str] | None = None,
                 credential: Callable[[], str | None] | None = None,
                 failure_backoff: float = 1.0,
                 log: Callable[[str], None] | None = None):
        url = urllib.parse.urlsplit(base_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self._scheme = url.scheme
        self._host = url.hostname
        self._port = url.port or (443 if url.scheme == "https" else 80)
        self.manifest = manifest
        self.game = manifest.get("game")
        self.client_id = client_id or new_client_id()
        self.timeout = timeout
        self._clock = clock
        self._headers = dict(headers or {})
        self._credential = credential
        self.failure_backoff = failure_backoff
        self._log = log or (lambda line: None)
        self._conn: http.client.HTTPConnection | None = None
        self._token: str | None = None
        self._manifest_hash: str | None = None
        self._renew_at = 0.0
        self._backoff_until = 0.0
        self._reopen = False
        self.disabled = False            # a 403: this game may not use the service
        self.requests = 0                # HTTP requests sent (for tests and logs)
        self._next_request = 0

    # -- sessions ---------------------------------------------------------

    def open_session(self) -> bool:
        """Opens (or renews) the session. Sends the full manifest the first
        time and its hash afterwards. False when it failed; the client then
        keeps answering with native choices and tries again later."""
        if self.disabled or self._clock() < self._backoff_until:
            return False
        body: dict[str, Any] = {"a2g": A2G_VERSION, "client_id": self.client_id, "game": self.game}
        if self._manifest_hash is not None:
            body["manifest_hash"] = self._manifest_hash
        else:
            body["manifest"] = self.manifest
        headers = {}
        if self._credential is not None:
            credential = self._credential()
            if credential:
                headers["Authorization"] = "Bearer " + credential
        try:
            answer = self._post("/v1/session", body, headers=headers, auth=False)
        except A2GError as error:
            if error.status == 403 and "manifest_hash" in body:
                # The hash is not known (any more): send the manifest itself once.
                self._manifest_hash = None
                return self.open_session()
            self._failed(error, "/v1/session")
            return False
        if answer.get("ok") is not True or not isinstance(answer.get("manifest_hash"), str):
            self._failed(A2GError("the session answer is not an A2G session"), "/v1/session")
            return False
        self._manifest_hash = answer["manifest_hash"]
        token = answer.get("session_token")
        self._token = token if isinstance(token, str) else None
        expires_in = answer.get("expires_in")
        if isinstance(expires_in, (int, float)) and expires_in > 0:
            # Renew well before it runs out; the service accepts the old token
            # for 30 s after a renewal, so requests in flight are not lost.
            self._renew_at = self._clock() + max(1.0, expires_in * 0.8)
        else:
            self._renew_at = float("inf")
        self._reopen = False
        return True

    def _ensure_session(self) -> bool:
        if self.disabled or self._clock() < self._backoff_until:
            return False
        if self._manifest_hash is None or self._reopen or self._clock() >= self._renew_at:
            return self.open_session()
        return True

    # -- requests ---------------------------------------------------------

    def decide(self, epoch: int, entities: Iterable[EntityRequest],
               request_id: str | None = None) -> list[Choice]:
        """One Choice per entity, in order. Never raises for service trouble:
        every failure is a native Choice saying why."""
        entities = list(entities)
        choices = [Choice(e.entity, list(e.legal_actions), epoch, clock=self._clock) for e in entities]
        if not entities:
            return choices
        if self.disabled:
            return self._all_native(choices, NATIVE_DISABLED, "the service refused this game (403)")
        if self._clock() < self._backoff_until:
            return self._all_native(choices, NATIVE_BACKOFF, "backing off after an earlier failure")
        if not self._ensure_session():
            return self._all_native(choices, NATIVE_NO_SESSION, "no session")
        if request_id is None:
            self._next_request += 1
            request_id = f"q_{self._next_request}"
        body = {"client_id": self.client_id, "epoch": epoch, "request_id": request_id,
                "entities": [e.to_json() for e in entities]}
        deadline = max((e.deadline_ms or 2000) for e in entities) / 1000.0
        try:
            answer = self._post("/v1/decide", body, timeout=self.timeout + deadline,
                                retry_same=True)
        except A2GError as error:
            self._failed(error, "/v1/decide")
            return self._all_native(choices, NATIVE_HTTP, str(error))
        received = self._clock()
        decisions = answer.get("decisions")
        if answer.get("epoch") != epoch:
            return self._all_native(choices, NATIVE_EPOCH, f"answer for epoch {answer.get('epoch')!r}")
        if not isinstance(decisions, list) or len(decisions) != len(entities):
            return self._all_native(choices, NATIVE_MALFORMED, "not one decision per entity")
        for choice, decision in zip(choices, decisions):
            self._fill(choice, decision, received)
        return choices

    def report(self, outcomes: Iterable[Outcome]) -> dict[str, Any] | None:
        """Reports outcomes (up to 64 per request; longer lists are split).
        Returns the last answer, or None when a request failed (reports are
        best effort: the game goes on either way)."""
        outcomes = [o for o in outcomes if o.decision_id]
        answer: dict[str, Any] | None = {"a2g": A2G_VERSION, "ok": True, "accepted": 0, "ignored": []}
        for start in range(0, len(outcomes), 64):
            answer = self._session_post("/v1/report", {
                "client_id": self.client_id,
                "reports": [o.to_json() for o in outcomes[start:start + 64]]})
            if answer is None:
                return None
        return answer

    def telemetry(self, tick: int, entities: list[dict[str, Any]]) -> dict[str, Any] | None:
        """Sends scalar state (16 entities per request; longer lists are
        split). None when a request failed."""
        answer = None
        for start in range(0, max(1, len(entities)), 16):
            answer = self._session_post("/v1/telemetry", {
                "client_id": self.client_id, "tick": tick, "entities": entities[start:start + 16]})
            if answer is None:
                return None
        return answer

    def context(self, scopes: list[str] | None = None, profiles: dict[str, str] | None = None,
                texts: dict[str, str] | None = None) -> dict[str, Any] | None:
        body: dict[str, Any] = {"client_id": self.client_id}
        if scopes is not None:
            body["scopes"] = scopes
        if profiles is not None:
            body["profiles"] = profiles
        if texts is not None:
            body["texts"] = texts
        return self._session_post("/v1/context", body)

    def health(self) -> dict[str, Any] | None:
        try:
            return self._request("GET", "/health", None, {}, self.timeout)
        except A2GError:
            return None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # -- plumbing ---------------------------------------------------------

    def _session_post(self, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
        if not self._ensure_session():
            return None
        try:
            return self._post(path, body)
        except A2GError as error:
            self._failed(error, path)
            return None

    def _fill(self, choice: Choice, decision: Any, received: float) -> None:
        if not isinstance(decision, dict) or decision.get("entity") != choice.entity:
            choice.native, choice.message = NATIVE_MALFORMED, "decision for another entity"
            return
        action = decision.get("action")
        if action == "FALLBACK":
            code = decision.get("code")
            choice.native = code if isinstance(code, str) else "error"
            message = decision.get("message")
            choice.message = message if isinstance(message, str) else None
            return
        ttl_ms = decision.get("ttl_ms")
        confidence = decision.get("confidence")
        if not isinstance(action, str) or not isinstance(ttl_ms, int) or ttl_ms <= 0:
            choice.native, choice.message = NATIVE_MALFORMED, "no action or ttl_ms"
            return
        choice.action = action
        choice.source = decision.get("source") if isinstance(decision.get("source"), str) else None
        choice.confidence = confidence if isinstance(confidence, int) else None
        choice.reason = decision.get("reason") if isinstance(decision.get("reason"), str) else None
        choice.decision_id = decision.get("decision_id") if isinstance(decision.get("decision_id"), str) else None
        choice.expires_at = received + ttl_ms / 1000.0
        if action not in choice.legal_actions:
            choice.native, choice.message = NATIVE_ILLEGAL, f"{action!r} was not offered"

    @staticmethod
    def _all_native(choices: list[Choice], why: str, message: str) -> list[Choice]:
        for choice in choices:
            choice.native, choice.message = why, message
            choice.action = choice.source = choice.decision_id = None
        return choices

    def _failed(self, error: A2GError, path: str) -> None:
        """What a failed request means for later ones (a2g-security.md, Errors)."""
        self._log(f"a2g: {path}: {error}")
        if error.status == 401:
            # Credential or token no longer good: reopen the session next time.
            self._token = None
            self._reopen = True
        elif error.status == 403:
            # Not allowed: native AI from now on, no automatic retry.
            self.disabled = True
        elif error.status == 409:
            # The service does not know this session (it restarted, or the
            # session expired): open it again next time.
            self._token = None
            self._reopen = True
        elif error.status == 429:
            self._backoff_until = self._clock() + (error.retry_after if error.retry_after is not None else 1.0)
        elif error.status == 0 or error.status >= 500:
            # Network trouble or the service is going away: try again in a while.
            self._backoff_until = self._clock() + self.failure_backoff
            self.close()

    def _post(self, path: str, body: dict[str, Any], *, headers: dict[str, str] | None = None,
              auth: bool = True, timeout: float | None = None, retry_same: bool = False) -> dict[str, Any]:
        request_headers = {"Content-Type": "application/json"}
        if auth and self._token is not None:
            request_headers["Authorization"] = "Bearer " + self._token
        request_headers.update(headers or {})
        data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        return self._request("POST", path, data, request_headers, timeout or self.timeout, retry_same)

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        if self._conn is None:
            if self._scheme == "https":
                self._conn = http.client.HTTPSConnection(self._host, self._port, timeout=timeout)
            else:
                self._conn = http.client.HTTPConnection(self._host, self._port, timeout=timeout)
        self._conn.timeout = timeout
        if self._conn.sock is not None:
            self._conn.sock.settimeout(timeout)
        return self._conn

    def _request(self, method: str, path: str, data: bytes | None, headers: dict[str, str],
                 timeout: float, retry_same: bool = True) -> dict[str, Any]:
        headers = {**self._headers, **headers}
        # A keep-alive connection the service closed while idle fails on first
        # use: one retry on a fresh connection. For /v1/decide the retry
        # carries the same request_id, so the service answers it without
        # deciding twice.
        for attempt in (0, 1):
            reused = self._conn is not None and self._conn.sock is not None
            conn = self._connection(timeout)
            try:
                self.requests += 1
                conn.request(method, path, body=data, headers=headers)
                response = conn.getresponse()
                raw = response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as error:
                self.close()
                if attempt == 0 and reused and retry_same:
                    continue
                raise A2GError(f"connection lost: {error}") from None
            except (OSError, http.client.HTTPException) as error:
                self.close()
                if isinstance(error, socket.timeout):
                    raise A2GError("timed out") from None
                raise A2GError(f"cannot reach the service: {error.__class__.__name__}") from None
            if response.getheader("Connection", "").lower() == "close":
                self.close()
            return self._answer(response, raw)
        raise AssertionError("unreachable")

    @staticmethod
    def _answer(response: http.client.HTTPResponse, raw: bytes) -> dict[str, Any]:
        try:
            answer = json.loads(raw.decode("utf-8")) if raw else None
        except (UnicodeDecodeError, ValueError):
            answer = None
        if response.status != 200:
            code = answer.get("code") if isinstance(answer, dict) else None
            error = answer.get("error") if isinstance(answer, dict) else None
            retry_after = None
            header = response.getheader("Retry-After")
            if header is not None:
                try:
                    retry_after = max(0.0, float(header))
                except ValueError:
                    retry_after = None
            raise A2GError(f"HTTP {response.status}" + (f" {code}" if code else "") +
                           (f": {error}" if isinstance(error, str) else ""),
                           response.status, code if isinstance(code, str) else None, retry_after)
        if not isinstance(answer, dict) or answer.get("a2g") != A2G_VERSION:
            raise A2GError("the answer is not A2G 0.1 JSON", response.status)
        return answer
