# SPDX-License-Identifier: LGPL-2.1-or-later
"""headless_chromium: drives Debian's `chromium` in headless mode over the
DevTools protocol on a pipe (--remote-debugging-pipe: commands on fd 3,
answers and events on fd 4, each a NUL-terminated JSON message), so a test
can load a page, wait for what it renders, read the DOM and take a
screenshot. Standard library only.

The machine running the tests has no network: every background service
chromium would contact is switched off, and a fresh profile directory is
used for each run.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from typing import Any

FLAGS = [
    "--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--disable-default-apps", "--no-default-browser-check",
    "--disable-features=Translate,MediaRouter,OptimizationHints",
    "--metrics-recording-only", "--mute-audio", "--hide-scrollbars",
    "--remote-debugging-pipe",
]


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


class ChromiumError(Exception):
    pass


class Chromium:
    """One headless chromium with one page (a fresh target) attached."""

    def __init__(self, width: int = 1280, height: int = 800, timeout: float = 30.0,
                 flags: list[str] | None = None):
        binary = find_chromium()
        if binary is None:
            raise ChromiumError("chromium is not installed")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="a2g-console-chromium-")
        self.events: list[dict[str, Any]] = []
        self._next_id = 0
        self._buffer = b""
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire_fds() -> None:
            # Copies first: either pipe end may itself be fd 3 or 4.
            read_end, write_end = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        args = [binary, *FLAGS, *(flags or []), f"--user-data-dir={self.profile}",
                f"--window-size={width},{height}", "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=self.stderr, preexec_fn=wire_fds, close_fds=False)
        os.close(to_child_r)
        os.close(from_child_w)
        try:
            target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            self.session = self.call("Target.attachToTarget",
                                     {"targetId": target, "flatten": True})["sessionId"]
            self.page("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
            for domain in ("Page", "Runtime", "Log"):
                self.page(domain + ".enable")
        except Exception:
            self.close()
            raise

    # -- protocol ---------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message).encode("utf-8") + b"\0"
        while data:
            written = os.write(self._to_child, data)
            data = data[written:]

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ChromiumError("chromium did not answer in time")
            ready, _, _ = select.select([self._from_child], [], [], left)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise ChromiumError("chromium closed the DevTools pipe: " + self.stderr_text()[-2000:])
                self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def call(self, method: str, params: dict[str, Any] | None = None,
             session: str | None = None) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        self._send(message)
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._receive(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise ChromiumError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            if "method" in answer:
                self.events.append(answer)

    def page(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.call(method, params, self.session)

    # -- what tests use ---------------------------------------------------

    def navigate(self, url: str) -> None:
        """Loads `url` and waits until its document has loaded."""
        result = self.page("Page.navigate", {"url": url})
        if result.get("errorText"):
            raise ChromiumError(f"cannot load {url}: {result['errorText']}")
        self.wait_for(f"location.href === {json.dumps(url)} && document.readyState === 'complete'",
                      self.timeout)

    def evaluate(self, expression: str) -> Any:
        result = self.page("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise ChromiumError(f"{expression}: {result['exceptionDetails'].get('text')}"
                                f" {result['exceptionDetails'].get('exception', {}).get('description', '')}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 10.0) -> Any:
        """Evaluates `expression` until it is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = self.evaluate(expression)
            except ChromiumError as error:   # the page is not there yet
                value = error
            if value and not isinstance(value, ChromiumError):
                return value
            if time.monotonic() > deadline:
                raise ChromiumError(f"timed out waiting for: {expression} (last value {value!r})")
            time.sleep(0.05)

    def screenshot(self, path: str) -> bytes:
        data = base64.b64decode(self.page("Page.captureScreenshot", {"format": "png"})["data"])
        with open(path, "wb") as f:
            f.write(data)
        return data

    def problems(self) -> list[str]:
        """Script exceptions, console errors and browser log errors (CSP
        violations among them) seen so far."""
        self.evaluate("0")   # collect the events that arrived meanwhile
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append("exception: " + json.dumps(params.get("exceptionDetails", {}))[:500])
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append("console." + params["type"] + ": " + json.dumps(params.get("args"))[:500])
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                entry = params["entry"]
                # The browser asks for /favicon.ico by itself; a page cannot
                # stop it under default-src 'self' without serving one.
                if entry.get("url", "").endswith("/favicon.ico"):
                    continue
                found.append("log: " + entry.get("text", "") + " " + entry.get("url", ""))
        return found

    def stderr_text(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace")

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self._next_id += 1
                self._send({"id": self._next_id, "method": "Browser.close", "params": {}})
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        self.stderr.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> "Chromium":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
