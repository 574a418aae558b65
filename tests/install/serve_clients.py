# SPDX-License-Identifier: LGPL-2.1-or-later
"""serve_clients: one real client per front end of `gamegate serve`, as
test-serve-matrix.py drives them: a line client on the oam socket, the
official MCP TypeScript SDK over Streamable HTTP (tests/gamebridge/mcp-sdk/
http-call.mjs), a GABP bridge on the mod-side server found through the
bridge file, and a game's HTTP client of the A2G service: Python's
http.client on one keep-alive connection, over TLS where the service has
its own (verified against the test's certificate).

Every function returns what came back, parsed; the test compares it.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import ssl
import subprocess
import uuid
import warnings


class OamClient:
    """JSON-RPC lines on the daemon's oam socket."""

    def __init__(self, path: str, timeout: float):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buffer = b""
        self.next_id = 0

    def _line(self) -> dict:
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise AssertionError("the oam socket closed (the daemon answered %r so far)"
                                     % self.buffer.decode("utf-8", "replace"))
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def request(self, method: str, params: dict) -> dict:
        """The whole response to one request (notifications before it are skipped)."""
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.sock.sendall(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        while True:
            answer = self._line()
            if answer.get("id") == self.next_id and "method" not in answer:
                return answer

    def close(self) -> None:
        self.sock.close()


def mcp_call(sdk_dir: str, url: str, tool: str, arguments: dict, timeout: float) -> dict:
    """One agent run of the official SDK client: connect, list, call, close."""
    env = dict(os.environ, GB_SDK_TIMEOUT_MS=str(int(timeout * 1000)))
    proc = subprocess.run(["node", "http-call.mjs", url, tool, json.dumps(arguments)],
                          cwd=sdk_dir, env=env, capture_output=True, text=True, timeout=timeout * 2)
    if proc.returncode != 0:
        raise AssertionError("the MCP SDK client exited %d:\n%s%s"
                             % (proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:]))
    return json.loads(proc.stdout.strip().splitlines()[-1])


class GabpBridge:
    """A GABP bridge (as GABS is one) on the daemon's mod-side server."""

    def __init__(self, bridge_file: str, timeout: float):
        described = json.load(open(bridge_file, encoding="utf-8"))
        if described["transport"]["type"] != "tcp":
            raise AssertionError("bridge file: %r" % described)
        self.token = described["token"]
        self.sock = socket.create_connection(("127.0.0.1", int(described["transport"]["address"])),
                                             timeout=timeout)
        self.buffer = b""

    def _message(self) -> dict:
        while True:
            head, sep, rest = self.buffer.partition(b"\r\n\r\n")
            if sep:
                length = None
                for line in head.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                if length is None:
                    raise AssertionError("a GABP frame without Content-Length: %r" % head)
                if len(rest) >= length:
                    self.buffer = rest[length:]
                    return json.loads(rest[:length])
            chunk = self.sock.recv(65536)
            if not chunk:
                raise AssertionError("the GABP server closed the connection")
            self.buffer += chunk

    def request(self, method: str, params: dict) -> dict:
        """The response (events before it are skipped)."""
        request_id = str(uuid.uuid4())
        body = json.dumps({"v": "gabp/1", "id": request_id, "type": "request", "method": method,
                           "params": params}, separators=(",", ":")).encode()
        self.sock.sendall(b"Content-Length: %d\r\nContent-Type: application/json\r\n\r\n" % len(body)
                          + body)
        while True:
            answer = self._message()
            if answer.get("id") == request_id and answer.get("type") == "response":
                return answer

    def hello(self) -> dict:
        return self.request("session/hello", {"token": self.token, "bridgeVersion": "1.0.0",
                                              "platform": "linux", "launchId": str(uuid.uuid4())})

    def close(self) -> None:
        self.sock.close()


class A2gConnection:
    """A game's requests to the A2G service on one keep-alive connection.

    `exchange()` fails when the connection was not kept: the service closed
    it (with or without `Connection: close`) or http.client had to open a
    new one.
    """

    def __init__(self, url: str, cafile: str | None, timeout: float):
        scheme, _, address = url.partition("://")
        host, _, port = address.rstrip("/").rpartition(":")
        if scheme == "https":
            context = ssl.create_default_context(cafile=cafile)
            self.conn = http.client.HTTPSConnection(host, int(port), timeout=timeout, context=context)
        else:
            self.conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
        self.tls = scheme == "https"
        self.sock = None
        self.requests = 0

    def exchange(self, path: str, body: dict, bearer: str | None) -> tuple[int, dict, dict]:
        """(status, headers with lowercase names, JSON body) of one POST."""
        headers = {"Content-Type": "application/json"}
        if bearer is not None:
            headers["Authorization"] = "Bearer " + bearer
        try:
            self.conn.request("POST", path, body=json.dumps(body, separators=(",", ":")).encode(),
                              headers=headers)
            if self.sock is not None and self.conn.sock is not self.sock:
                raise AssertionError("request %d (%s) needed a new connection" % (self.requests + 1, path))
            self.sock = self.conn.sock
            response = self.conn.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException) as error:
            raise AssertionError("request %d (%s) on the kept-alive %s connection failed: %s: %s"
                                 % (self.requests + 1, path, "TLS" if self.tls else "TCP",
                                    error.__class__.__name__, error)) from None
        self.requests += 1
        answer_headers = {k.lower(): v for k, v in response.getheaders()}
        if self.conn.sock is None:
            raise AssertionError("the service closed the connection after request %d (%s)%s"
                                 % (self.requests, path,
                                    " (Connection: close)" if answer_headers.get("connection") == "close"
                                    else ""))
        try:
            answer = json.loads(raw)
        except ValueError:
            raise AssertionError("%s answered %d with %r" % (path, response.status, raw[:200])) from None
        return response.status, answer_headers, answer

    def tls_version(self) -> str | None:
        return self.sock.version() if self.tls and self.sock is not None else None

    def close(self) -> None:
        self.conn.close()


def tls_handshake_at_most_1_1(address: str, timeout: float) -> str:
    """What a TLS 1.0/1.1-only client (an old scanner's ClientHello) gets:
    the version negotiated, or the handshake's error as text."""
    host, _, port = address.partition("://")[2].rstrip("/").rpartition(":")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        context.minimum_version = ssl.TLSVersion.TLSv1
        context.maximum_version = ssl.TLSVersion.TLSv1_1
        context.set_ciphers("DEFAULT:@SECLEVEL=0")
    with socket.create_connection((host, int(port)), timeout=timeout) as raw:
        try:
            with context.wrap_socket(raw, server_hostname=host) as tls:
                return tls.version()
        except (ssl.SSLError, OSError) as error:
            return "%s: %s" % (error.__class__.__name__, error)
