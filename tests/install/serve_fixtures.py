# SPDX-License-Identifier: LGPL-2.1-or-later
"""serve_fixtures: what the configurations of test-serve-matrix.py refer to,
made or started by the test itself as a user would: a TLS certificate and
key (openssl), a game's API key and its SHA-256, the studio's ES256 key pair
and the join tokens it signs (openssl), the example manifest's hash, a
redis-server on a Unix socket, the fake OpenAI-compatible server, the
installed reference game on a free port.

Each fixture is made once per case (`Fixtures.value(NAME)`, NAME being the
@NAME@ a configuration uses) and everything started is stopped by
`Fixtures.close()`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import select
import signal
import socket
import subprocess
import time


def canonical_json(value) -> str:
    """RFC 8785 for what manifests hold (strings, integers, objects, arrays)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def der_ecdsa_to_raw(der: bytes, size: int = 32) -> bytes:
    """An ECDSA-Sig-Value (SEQUENCE {INTEGER r, INTEGER s}) as JWS's r || s."""
    if der[0] != 0x30:
        raise ValueError("not a DER sequence")
    offset = 2 if der[1] < 0x80 else 2 + (der[1] & 0x7F)
    parts = []
    for _ in range(2):
        if der[offset] != 0x02:
            raise ValueError("not a DER integer")
        length = der[offset + 1]
        value = der[offset + 2:offset + 2 + length]
        parts.append(value.lstrip(b"\0").rjust(size, b"\0"))
        offset += 2 + length
    return parts[0] + parts[1]


def first_line(process: subprocess.Popen, timeout: float, what: str) -> str:
    """The first line a child prints on stdout, within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    data = b""
    fd = process.stdout.fileno()
    while b"\n" not in data:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise AssertionError("%s printed no line in %.0f s" % (what, timeout))
        chunk = os.read(fd, 4096)
        if not chunk:
            raise AssertionError("%s exited (status %s) before printing a line"
                                 % (what, process.wait()))
        data += chunk
    return data.split(b"\n", 1)[0].decode("utf-8", "replace")


class Fixtures:
    """The @NAME@ values of the configurations, each made on first use."""

    # What the fake OpenAI server answers to every completion: an A2G
    # decision (the oam turn gets the same text).
    OPENAI_MODEL = "qwen2.5-7b-instruct"
    OPENAI_TEXT = json.dumps({"reason": "Alone and badly hurt; the medicine is not worth dying for.",
                              "action": "flee", "confidence": 72}, separators=(",", ":"))

    def __init__(self, work: str, manifest_path: str, programs: dict[str, str], env: dict[str, str],
                 timeout_scale: float):
        self.work = work
        self.manifest = json.load(open(manifest_path, encoding="utf-8"))
        self.programs = programs    # gabp-mod, fake-openai-serve, refgame
        self.env = env              # the user's environment (the installed tree's libraries)
        self.scale = timeout_scale
        self.values: dict[str, str] = {}
        self.processes: list[tuple[str, subprocess.Popen]] = []
        self.api_key = secrets.token_hex(32)
        self.es_private = None

    def value(self, name: str) -> str:
        if name not in self.values:
            maker = getattr(self, "make_" + name.lower(), None)
            if maker is None:
                raise KeyError("no fixture @%s@" % name)
            maker()
        return self.values[name]

    def _path(self, name: str) -> str:
        return os.path.join(self.work, name)

    def _openssl(self, *args: str, input: bytes | None = None) -> bytes:
        proc = subprocess.run(["openssl", *args], input=input, capture_output=True, timeout=60)
        if proc.returncode != 0:
            raise AssertionError("openssl %s: %s" % (" ".join(args), proc.stderr.decode()))
        return proc.stdout

    # -- files ------------------------------------------------------------

    def make_tls_cert(self) -> None:
        """A self-signed P-256 certificate for 127.0.0.1, its own CA."""
        cert, key = self._path("a2g-cert.pem"), self._path("a2g-key.pem")
        self._openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                      "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
                      "-addext", "subjectAltName=IP:127.0.0.1")
        os.chmod(key, 0o600)
        self.values["TLS_CERT"], self.values["TLS_KEY"] = cert, key

    make_tls_key = make_tls_cert

    def make_api_key_sha256(self) -> None:
        self.values["API_KEY_SHA256"] = hashlib.sha256(self.api_key.encode()).hexdigest()

    def make_manifest_hash(self) -> None:
        digest = hashlib.sha256(canonical_json(self.manifest).encode("utf-8")).hexdigest()
        self.values["MANIFEST_HASH"] = "sha256:" + digest

    def make_join_key_es256(self) -> None:
        """The studio's key pair; the service gets the public half."""
        self.es_private = self._path("studio-es256.pem")
        public = self._path("studio-es256.pub.pem")
        self._openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                      "-out", self.es_private)
        self._openssl("pkey", "-in", self.es_private, "-pubout", "-out", public)
        self.values["JOIN_KEY_ES256"] = public

    def join_token(self, kid: str, audience: str, subject: str = "p_7f3a9c") -> str:
        """A join token the studio's backend would hand a player (ES256)."""
        self.value("JOIN_KEY_ES256")
        header = {"alg": "ES256", "typ": "JWT", "kid": kid}
        claims = {"aud": audience, "game": self.manifest["game"],
                  "manifest_hash": self.value("MANIFEST_HASH"), "sub": subject,
                  "exp": int(time.time()) + 600, "jti": "j_" + secrets.token_hex(12)}
        signing_input = b64url(canonical_json(header).encode()) + "." + b64url(canonical_json(claims).encode())
        der = self._openssl("dgst", "-sha256", "-sign", self.es_private, input=signing_input.encode())
        return signing_input + "." + b64url(der_ecdsa_to_raw(der))

    # -- servers ----------------------------------------------------------

    def _start(self, name: str, argv: list[str], **kwargs) -> subprocess.Popen:
        process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, **kwargs)
        self.processes.append((name, process))
        return process

    def make_redis(self) -> None:
        directory = self._path("redis")
        os.makedirs(directory, mode=0o700)
        sock = os.path.join(directory, "redis.sock")
        self._start("redis-server", ["redis-server", "--unixsocket", sock, "--unixsocketperm", "700",
                                     "--port", "0", "--save", "", "--appendonly", "no",
                                     "--dir", directory])
        deadline = time.monotonic() + 10 * self.scale
        while not os.path.exists(sock):
            if time.monotonic() > deadline:
                raise AssertionError("redis-server made no socket")
            time.sleep(0.02)
        self.values["REDIS"] = "unix:" + sock

    def redis_keys(self, pattern: str) -> list[str]:
        """KEYS pattern on the fixture's redis-server (RESP over its socket)."""
        words = [b"KEYS", pattern.encode()]
        command = b"*%d\r\n" % len(words) + b"".join(b"$%d\r\n%s\r\n" % (len(w), w) for w in words)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(10 * self.scale)
            sock.connect(self.value("REDIS")[len("unix:"):])
            sock.sendall(command)
            reader = sock.makefile("rb")
            header = reader.readline()
            if not header.startswith(b"*"):
                raise AssertionError("redis answered %r" % header)
            keys = []
            for _ in range(int(header[1:])):
                length = int(reader.readline()[1:])
                keys.append(reader.read(length + 2)[:-2].decode())
            return sorted(keys)

    def make_openai_url(self) -> None:
        process = self._start("fake-openai-serve",
                              [self.programs["fake-openai-serve"], "--model", self.OPENAI_MODEL,
                               "--text", self.OPENAI_TEXT])
        self.values["OPENAI_URL"] = first_line(process, 10 * self.scale, "fake-openai-serve")

    def make_openai_model(self) -> None:
        self.values["OPENAI_MODEL"] = self.OPENAI_MODEL

    def make_gabp_mod(self) -> None:
        self.values["GABP_MOD"] = self.programs["gabp-mod"]

    def make_refgame_port(self) -> None:
        """The installed reference game, as a player starts it, on a free port."""
        process = self._start("gamegate-refgame",
                              [self.programs["refgame"], "--debug-port", "0", "--no-registry"],
                              env=self.env)
        line = first_line(process, 20 * self.scale, "gamegate-refgame")
        prefix = "refgame: listening on 127.0.0.1:"
        if not line.startswith(prefix):
            raise AssertionError("gamegate-refgame said %r" % line)
        self.values["REFGAME_PORT"] = line[len(prefix):]

    def close(self) -> None:
        for name, process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            try:
                process.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
        self.processes.clear()
