# SPDX-License-Identifier: LGPL-2.1-or-later
"""a2g_service: starts the built `gamegate a2g` for a Python test, on a free
port, with a scripted model and any other [a2g] settings, and stops it in
order; plus a small JSON-over-HTTP helper for driving it as a game would.

The service runs behind $GAMEGATE_TEST_WRAPPER when that is set (valgrind),
with timeouts scaled to match.
"""

from __future__ import annotations

import http.client
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

TIMEOUT_SCALE = 10.0 if os.environ.get("GAMEGATE_TEST_WRAPPER") else 1.0
TIMEOUT_SCALE *= float(os.environ.get("GAMEGATE_TEST_TIMEOUT_SCALE", "1") or "1")


def scripted_model(action: str = "flee", confidence: int = 72,
                   reason: str = "Alone and badly hurt; the medicine is not worth dying for.",
                   delay_ms: int = 0) -> dict[str, Any]:
    """A scripted model that gives the same structured answer every time."""
    step: dict[str, Any] = {"json": {"reason": reason, "action": action, "confidence": confidence}}
    if delay_ms:
        step["delayMs"] = delay_ms
    return {"type": "scripted", "fallback": step}


class Service:
    """One `gamegate a2g` process listening on 127.0.0.1 at `self.port`."""


    def __init__(self, model: dict[str, Any] | None = None, settings: dict[str, str] | None = None,
                 port: int = 0):
        binary = os.environ.get("GAMEGATE_BIN")
        if not binary:
            raise RuntimeError("GAMEGATE_BIN is not set (run through meson test)")
        lines = ["[a2g]", "model=" + json.dumps(model or scripted_model(), separators=(",", ":"))]
        lines += [f"{key}={value}" for key, value in (settings or {}).items()]
        self.config = tempfile.NamedTemporaryFile("w", prefix="a2g-test-", suffix=".conf", delete=False)
        self.config.write("\n".join(lines) + "\n")
        self.config.close()
        wrapper = os.environ.get("GAMEGATE_TEST_WRAPPER", "").split()
        env = dict(os.environ, GAMEGATE_CONFIG=self.config.name)
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            wrapper + [binary, "a2g", "--listen", f"127.0.0.1:{port}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.stderr, env=env)
        line = self._first_line(20.0 * TIMEOUT_SCALE)
        # https with tls-certificate and tls-key (the server profile's own TLS).
        scheme = "https" if line.startswith("a2g: listening on https://") else "http"
        prefix = f"a2g: listening on {scheme}://127.0.0.1:"
        if not line.startswith(prefix):
            self.stop()
            raise RuntimeError(f"unexpected first line {line!r}; stderr: {self.stderr_text()}")
        self.port = int(line[len(prefix):])
        self.url = f"{scheme}://127.0.0.1:{self.port}"


    def _first_line(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        data = b""
        fd = self.process.stdout.fileno()
        while b"\n" not in data:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise RuntimeError("gamegate a2g did not say where it listens in time; stderr: "
                                   + self.stderr_text())
            chunk = os.read(fd, 4096)
            if not chunk:
                raise RuntimeError("gamegate a2g exited early; stderr: " + self.stderr_text())
            data += chunk
        return data.split(b"\n", 1)[0].decode("utf-8", "replace")

    def stderr_text(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace")

    def stop(self) -> int:
        """SIGTERM, then the exit status (0 for an orderly exit)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20.0 * TIMEOUT_SCALE)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stdout.close()
        if os.path.exists(self.config.name):
            os.unlink(self.config.name)
        return self.process.returncode

    def __enter__(self) -> "Service":
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        status = self.stop()
        if exc_type is not None:
            print(f"gamegate a2g (exit status {status}) stderr:\n{self.stderr_text()}", file=sys.stderr)
        self.stderr.close()


def call(port: int, method: str, path: str, body: Any = None, token: str | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any] | None]:
    """One request on a fresh connection: (status, the JSON answer or None)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30.0 * TIMEOUT_SCALE)
    all_headers = dict(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode("utf-8")
        all_headers.setdefault("Content-Type", "application/json")
    if token is not None:
        all_headers["Authorization"] = "Bearer " + token
    try:
        conn.request(method, path, body=data, headers=all_headers)
        response = conn.getresponse()
        raw = response.read()
    finally:
        conn.close()
    try:
        return response.status, json.loads(raw) if raw else None
    except ValueError:
        return response.status, None
