#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""test-tls-keepalive.py: HTTPS keep-alive on the A2G service's own TLS
(server profile, tls-certificate and tls-key), with the clients a game
uses: Python's http.client over ssl (OpenSSL), as the SDK example does.

  - 1,000 requests on one HTTPSConnection: the session, then 999 decisions
    of distinct pirates in distinct situations, every answer compared
    exactly; no `Connection: close`, the client connected once, and the
    service's log shows one TLS handshake;
  - the SDK's own A2GClient (examples/a2g/python) over https: 200
    decisions on its one keep-alive connection, no reconnect.

The certificate (self-signed, for IP 127.0.0.1) is made here with
openssl and trusted through SSL_CERT_FILE, as a studio would install its
own CA.

Usage: test-tls-keepalive.py EXAMPLES_DIR (the directory holding a2g_client.py)
"""

from __future__ import annotations

import copy
import hashlib
import http.client
import json
import os
import ssl
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from a2g_service import TIMEOUT_SCALE, Service, scripted_model  # noqa: E402

API_KEY = "ak_orbital_7c1e9d20b44f6a83e5d1"
CLIENT_ID = "c_5f1c9a27e04b7d13"
ACCEPTED = "a2g: TLS connection accepted ("
REASON = "The freighter is slow and its escort is thin."
failures: list[str] = []


def check(condition: bool, what: str) -> None:
    if not condition:
        failures.append(what)
        print("FAIL: " + what)


def make_certificate(directory: str) -> tuple[str, str]:
    certificate = os.path.join(directory, "cert.pem")
    key = os.path.join(directory, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    return certificate, key


def tls_service(examples: str, manifest: dict, certificate: str, key: str) -> Service:
    sys.path.insert(0, examples)
    from a2g_policy import canonical_json
    manifest_hash = "sha256:" + hashlib.sha256(canonical_json(manifest).encode("utf-8")).hexdigest()
    settings = {
        "profile": "server", "tls-certificate": certificate, "tls-key": key,
        "games": "orbital-freight",
        "orbital-freight.api-key-sha256": hashlib.sha256(API_KEY.encode("utf-8")).hexdigest(),
        "orbital-freight.manifests": manifest_hash,
        # The service, not its rate limits, under test.
        "session-rate": "100000", "session-burst": "100000", "game-rate": "100000", "game-burst": "100000",
        "session-token-budget": "0", "game-token-budget": "0",
        # The handshake's deadline as the tests' own: slower under valgrind.
        "tls-handshake-timeout": str(int(10 * TIMEOUT_SCALE)),
    }
    return Service(scripted_model("attack", 81, REASON), settings)


class CountingConnection(http.client.HTTPSConnection):
    """An HTTPSConnection that counts the TCP+TLS connections it opens."""

    connects = 0

    def connect(self) -> None:
        CountingConnection.connects += 1
        super().connect()


def situation(i: int) -> dict:
    """The i-th of 3,927 situations distinct after the manifest's buckets."""
    return {"hp": (i % 11) * 10, "target_distance": ((i // 11) % 21) * 250, "allies_near": (i // 231) % 17,
            "cargo_seen": ["none", "ore", "medicine", "weapons"][i % 4], "cornered": i % 2 == 0}


def legal(i: int) -> list[str]:
    return [["attack", "flee"], ["attack", "call_help", "surrender"], ["flee", "attack"]][i % 3]


def post(conn: http.client.HTTPSConnection, path: str, body: dict, bearer: str) -> tuple[int, str, dict]:
    conn.request("POST", path, body=json.dumps(body, separators=(",", ":")).encode("utf-8"),
                 headers={"Content-Type": "application/json", "Authorization": "Bearer " + bearer})
    response = conn.getresponse()
    raw = response.read()
    return response.status, response.getheader("Connection", ""), json.loads(raw)


def test_http_client(examples: str, manifest: dict, certificate: str, key: str) -> None:
    with tls_service(examples, manifest, certificate, key) as service:
        context = ssl.create_default_context(cafile=certificate)
        conn = CountingConnection("127.0.0.1", service.port, context=context, timeout=30.0 * TIMEOUT_SCALE)
        status, connection, answer = post(conn, "/v1/session", {"a2g": "0.1", "client_id": CLIENT_ID,
                                                                "game": "orbital-freight", "manifest": manifest},
                                          API_KEY)
        check(status == 200 and connection == "", f"session: {status} {connection!r} {answer}")
        token = answer.pop("session_token", "")
        check(token.startswith("s_") and len(token) == 34, "a session token")
        check(answer == {"a2g": "0.1", "ok": True, "manifest_hash": answer.get("manifest_hash"),
                         "expires_in": 3600, "limits": {"entities_per_request": 16, "max_body_bytes": 262144}},
              f"session answer {answer}")
        sock = conn.sock
        for i in range(1, 1000):
            entities = [{"entity": f"pirate-{i}", "type": "pirate", "observations": situation(i),
                         "legal_actions": legal(i)}]
            status, connection, answer = post(conn, "/v1/decide", {"client_id": CLIENT_ID, "epoch": i,
                                                                   "request_id": f"q_{i}", "entities": entities},
                                              token)
            decision_id = answer["decisions"][0].pop("decision_id", "") if status == 200 else ""
            want = {"entity": f"pirate-{i}", "action": "attack", "source": "model", "confidence": 81,
                    "ttl_ms": 3000, "reason": REASON}
            if not (status == 200 and connection == "" and decision_id.startswith("d_") and
                    answer == {"a2g": "0.1", "epoch": i, "decisions": [want]}):
                check(False, f"decide {i}: {status} {connection!r} {answer}")
                break
            if conn.sock is not sock:
                check(False, f"decide {i}: the connection was replaced")
                break
        conn.close()
        check(CountingConnection.connects == 1, f"1,000 requests on {CountingConnection.connects} connection(s)")
        status = service.stop()
        check(status == 0, f"exit status {status}")
        handshakes = service.stderr_text().count(ACCEPTED)
        check(handshakes == 1, f"the service accepted {handshakes} TLS connection(s)")


def test_sdk_client(examples: str, manifest: dict, certificate: str, key: str) -> None:
    sys.path.insert(0, examples)
    from a2g_client import A2GClient, EntityRequest
    # The SDK uses the default trust store: the test's certificate is its CA.
    os.environ["SSL_CERT_FILE"] = certificate
    with tls_service(examples, manifest, certificate, key) as service:
        client = A2GClient(service.url, manifest, client_id=CLIENT_ID, timeout=10.0 * TIMEOUT_SCALE,
                           credential=lambda: API_KEY)
        conn = sock = None
        for i in range(1, 201):
            choices = client.decide(i, [EntityRequest(f"pirate-{i}", "pirate", situation(i), legal(i))])
            choice = choices[0]
            if conn is None:
                conn, sock = client._conn, client._conn.sock if client._conn is not None else None
            if not (choice.native is None and choice.action == "attack" and choice.source == "model" and
                    choice.confidence == 81 and choice.reason == REASON and client._conn is conn and
                    conn.sock is sock):
                check(False, f"SDK decide {i}: {choice} (connection kept: {client._conn is conn})")
                break
        check(client.requests == 201, f"the SDK sent {client.requests} requests (a session and 200 decides)")
        client.close()
        service.stop()
        handshakes = service.stderr_text().count(ACCEPTED)
        check(handshakes == 1, f"the SDK's requests took {handshakes} TLS connection(s)")


def main(examples: str) -> int:
    with open(os.path.join(examples, "orbital-freight.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    # The service's log says when it accepts a TLS connection.
    os.environ["G_MESSAGES_DEBUG"] = "gamegate-a2g"
    with tempfile.TemporaryDirectory(prefix="a2g-tls-") as directory:
        certificate, key = make_certificate(directory)
        for test in (test_http_client, test_sdk_client):
            before = len(failures)
            test(examples, copy.deepcopy(manifest), certificate, key)
            print(f"{test.__name__}: {'ok' if len(failures) == before else 'FAILED'}")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
