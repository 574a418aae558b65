#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""test-console-auth.py: the A2G console in a real browser outside the local
profile. Starts `gamegate a2g` in the server profile with TLS of its own (a
self-signed certificate made now with openssl) and a console credential,
and loads https://127.0.0.1:PORT/ in headless chromium
(--ignore-certificate-errors): without the credential the browser gets the
401 and nothing of the console; with it (given to the browser's own
login prompt, which the DevTools Fetch domain answers here) the page, its stylesheet and script load and the
live EventSource of /v1/console/events authenticates with the same
credential, which the browser re-sends without asking again: a decision made while the page listens shows up in it. Neither
the credential nor the API key reaches the service's log. Skips (77) only
when chromium is not installed.

Usage: test-console-auth.py
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import ssl
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "..", "examples", "a2g", "python")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "sdk"))
sys.path.insert(0, EXAMPLES)

import a2g_policy  # noqa: E402  (its RFC 8785 canonical JSON gives the manifest hash)
import headless_chromium  # noqa: E402
from a2g_service import TIMEOUT_SCALE, Service, scripted_model  # noqa: E402

CREDENTIAL = "cc_0f4d7b2e91a6c38e5d07b4a1f9c2"
API_KEY = "ak_console_auth_3b8e0c5d17f2a946"
CLIENT = "c_console_auth_0001"
OBS = {"hp": 35, "target_distance": 900, "allies_near": 0, "cargo_seen": "medicine", "cornered": False}

failures: list[str] = []


def check(condition: bool, what: str) -> None:
    if not condition:
        failures.append(what)
        print("FAIL: " + what)


class PromptingChromium(headless_chromium.Chromium):
    """Headless chromium cannot show its login prompt: the DevTools Fetch
    domain stands in for the person at it. Each challenge
    (Fetch.authRequired) is answered with `self.login` (user, password),
    or cancelled when it is None; every other request goes on unchanged.
    `self.challenges` lists the URLs challenged."""

    def __init__(self, *args, **kwargs):
        self.login: tuple[str, str] | None = None
        self.challenges: list[str] = []
        self._side_id = 1 << 30   # ids of the answers sent from here, apart from call()'s
        super().__init__(*args, **kwargs)

    def _answer(self, method: str, params: dict, session: str | None) -> None:
        self._side_id += 1
        message = {"id": self._side_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        self._send(message)

    def _receive(self, deadline: float) -> dict:
        # Answered as they arrive: a paused request may be what the command
        # being waited for (Page.navigate) waits for.
        while True:
            message = super()._receive(deadline)
            method, params = message.get("method"), message.get("params", {})
            if method == "Fetch.requestPaused":
                self._answer("Fetch.continueRequest", {"requestId": params["requestId"]}, message.get("sessionId"))
            elif method == "Fetch.authRequired":
                self.challenges.append(params.get("request", {}).get("url", ""))
                response = {"response": "CancelAuth"} if self.login is None else {
                    "response": "ProvideCredentials", "username": self.login[0], "password": self.login[1]}
                self._answer("Fetch.continueWithAuth", {"requestId": params["requestId"],
                                                        "authChallengeResponse": response}, message.get("sessionId"))
            else:
                return message


def https_call(port: int, method: str, path: str, body: object = None,
               bearer: str | None = None) -> tuple[int, dict | None]:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE   # the test's own self-signed certificate
    conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=30.0 * TIMEOUT_SCALE, context=context)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if bearer is not None:
        headers["Authorization"] = "Bearer " + bearer
    try:
        conn.request(method, path, body=json.dumps(body).encode() if body is not None else None, headers=headers)
        response = conn.getresponse()
        raw = response.read()
    finally:
        conn.close()
    return response.status, json.loads(raw) if raw else None


def decide(port: int, token: str, entity: str, hp: int) -> dict:
    status, answer = https_call(port, "POST", "/v1/decide", {
        "client_id": CLIENT, "epoch": 1, "entities": [{
            "entity": entity, "type": "pirate", "observations": dict(OBS, hp=hp),
            "legal_actions": ["attack", "flee", "surrender"]}]}, token)
    if status != 200 or answer is None:
        raise SystemExit(f"decide: HTTP {status}: {answer}")
    return answer["decisions"][0]


def main() -> int:
    if headless_chromium.find_chromium() is None:
        print("SKIP: chromium is not installed")
        return 77
    with open(os.path.join(EXAMPLES, "orbital-freight.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    manifest_hash = "sha256:" + hashlib.sha256(a2g_policy.canonical_json(manifest).encode()).hexdigest()
    with tempfile.TemporaryDirectory(prefix="a2g-console-auth-") as directory:
        cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        settings = {
            "profile": "server", "tls-certificate": cert, "tls-key": key, "games": "orbital-freight",
            "orbital-freight.api-key-sha256": hashlib.sha256(API_KEY.encode()).hexdigest(),
            "orbital-freight.manifests": manifest_hash,
            "console-credential-sha256": hashlib.sha256(CREDENTIAL.encode()).hexdigest(),
            # The handshake's deadline as the tests' own: slower under valgrind.
            "tls-handshake-timeout": str(int(10 * TIMEOUT_SCALE)),
        }
        with Service(scripted_model("flee", 72, "Outgunned."), settings) as service:
            port = service.port
            check(service.url == f"https://127.0.0.1:{port}", f"served over https: {service.url}")
            status, session = https_call(port, "POST", "/v1/session", {
                "a2g": "0.1", "client_id": CLIENT, "game": "orbital-freight", "manifest": manifest}, API_KEY)
            if status != 200 or session is None:
                raise SystemExit(f"session: HTTP {status}: {session}")
            token = session["session_token"]
            check(decide(port, token, "pirate-1", 35).get("source") == "model", "the first decision is the model's")

            wait = 15.0 * TIMEOUT_SCALE
            with PromptingChromium(1280, 800, timeout=30.0 * TIMEOUT_SCALE,
                                   flags=["--ignore-certificate-errors"]) as browser:
                browser.page("Fetch.enable", {"patterns": [{"urlPattern": "*"}], "handleAuthRequests": True})
                # The prompt cancelled: the browser shows the 401 answer and
                # none of the console.
                browser.page("Page.navigate", {"url": service.url + "/"})
                body = browser.wait_for("document.readyState === 'complete' && location.href !== 'about:blank' && "
                                        "document.body && document.body.innerText", wait)
                check("The console credential is required." in body, f"the 401 body without a credential: {body!r}")
                check(browser.evaluate("document.getElementById('status') === null"), "no console without it")
                check(browser.challenges == [service.url + "/"], f"one challenge: {browser.challenges}")

                # The credential typed in (any user name): the page, its
                # files and the event stream.
                browser.login = ("ops", CREDENTIAL)
                browser.challenges.clear()
                browser.page("Page.navigate", {"url": service.url + "/"})
                browser.wait_for("document.getElementById('status') !== null && "
                                 "document.getElementById('status').dataset.state === 'live' && "
                                 "document.getElementById('count-model').textContent === '1'", wait)
                print(f"challenges with the credential: {browser.challenges}")
                check(browser.challenges == [service.url + "/"],
                      f"asked once, then re-sent by the browser for the files and the stream: {browser.challenges}")
                check(browser.evaluate("document.getElementById('profile').textContent") == "server",
                      "the console says the profile")
                check(browser.evaluate("document.styleSheets.length === 1 && "
                                       "document.styleSheets[0].href.endsWith('/console.css') && "
                                       "document.styleSheets[0].cssRules.length > 0"), "its stylesheet loaded")
                # A decision while the page listens: over the authenticated stream.
                check(decide(port, token, "pirate-2", 95).get("source") == "model", "a second model decision")
                browser.wait_for("document.querySelectorAll('#decisions-body tr').length === 1 && "
                                 "document.querySelector('#decisions-body tr').dataset.entity === 'pirate-2'", wait)
                browser.wait_for("document.getElementById('count-model').textContent === '2'", wait)
                check(CREDENTIAL not in browser.evaluate("document.documentElement.outerHTML"),
                      "the page does not show the credential")
                problems = [p for p in browser.problems() if "401" not in p]
                check(problems == [], f"script errors, console errors and CSP violations: {problems}")
            status = service.stop()
            check(status == 0, f"gamegate a2g exit status {status}")
            log = service.stderr_text()
            for secret in (CREDENTIAL, API_KEY, token):
                check(secret not in log, "a secret in the service's log")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("console over TLS with the console credential: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
