#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""An A2G decide service written in Python the way a studio would write one,
for bench-a2g-peers.py to run beside gamegate: POST /v1/session and
POST /v1/decide of a2g-0.1.md for the cache path (each entity checked against
the manifest, its observations quantised by the manifest's buckets, its
situation key the SHA-256 of the canonical JSON of manifest, context,
profile, type, quantised observations and sorted legal actions, looked up in
an in-memory cache). A miss is "decided" by a fixed rule (flee when legal,
else the first action) and cached, as a model's answer would be.

Two variants, one file:
  fastapi  FastAPI with pydantic models, served by uvicorn (uvloop, httptools)
  lean     plain json and hashlib on uvloop with httptools' parser, keep-alive

Usage: a2g-python-peer.py fastapi|lean MANIFEST_FILE
Prints "listening on http://127.0.0.1:PORT" once it listens."""

import asyncio
import hashlib
import json
import re
import secrets
import socket
import sys
import time

ENTITY_ID = re.compile(r"^[a-z][a-z0-9_:.-]{0,63}$")


def canonical(value):
    # RFC 8785 for the values a situation holds (strings, integers, booleans).
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class Decider:
    """The decide pipeline's cache path, shared by both variants."""

    def __init__(self, manifest):
        self.manifest = manifest
        self.manifest_hash = "sha256:" + hashlib.sha256(canonical(manifest).encode()).hexdigest()
        self.context_hash = "sha256:" + hashlib.sha256(
            canonical({"chain": [], "profiles": {}}).encode()).hexdigest()
        self.types = manifest["entity_types"]
        self.profiles = {name: p["text"] for name, p in manifest.get("profiles", {}).items()}
        self.cache = {}
        self.sessions = {}

    def open_session(self, body):
        client_id = body.get("client_id")
        if not isinstance(client_id, str):
            return 400, {"a2g": "0.1", "ok": False, "error": "client_id: must be a string", "code": "invalid_request"}
        token = secrets.token_hex(16)
        self.sessions[client_id] = token
        return 200, {"a2g": "0.1", "session_id": "s_" + secrets.token_hex(8), "session_token": token,
                     "manifest_hash": self.manifest_hash, "expires_in_s": 3600}

    def authenticated(self, client_id, authorization):
        token = self.sessions.get(client_id)
        return token is not None and authorization is not None and secrets.compare_digest(
            authorization, "Bearer " + token)

    def quantise(self, spec, observations):
        out = {}
        for name, obs in spec["observations"].items():
            if name not in observations:
                continue
            value = observations[name]
            kind = obs["type"]
            if kind in ("integer", "number"):
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise ValueError("observations.%s: must be a number" % name)
                if value < obs.get("min", value) or value > obs.get("max", value):
                    raise ValueError("observations.%s: out of range" % name)
                bucket = obs.get("bucket")
                out[name] = int((value - obs.get("min", 0)) // bucket) if bucket else value
            elif kind == "boolean":
                if not isinstance(value, bool):
                    raise ValueError("observations.%s: must be a boolean" % name)
                out[name] = value
            elif kind == "enum":
                if value not in obs["values"]:
                    raise ValueError("observations.%s: must be one of the enum's values" % name)
                out[name] = value
            else:
                out[name] = str(value)
        return out

    def decide_entity(self, entity):
        spec = self.types[entity["type"]]
        try:
            quantised = self.quantise(spec, entity.get("observations") or {})
            legal = entity["legal_actions"]
            if not legal or len(set(legal)) != len(legal) or any(a not in spec["actions"] for a in legal):
                raise ValueError("legal_actions: not a subset of the type's actions")
        except ValueError as e:
            return {"entity": entity["entity"], "action": "FALLBACK", "code": "invalid", "message": str(e)}
        profile = entity.get("profile")
        key = hashlib.sha256(canonical({
            "context": self.context_hash, "legal_actions": sorted(legal), "manifest": self.manifest_hash,
            "observations": quantised, "profile": self.profiles.get(profile), "type": entity["type"],
        }).encode()).hexdigest()
        hit = self.cache.get(key)
        source = "cache"
        if hit is None or hit[0] < time.monotonic():
            action = "flee" if "flee" in legal else legal[0]
            hit = (time.monotonic() + spec.get("ttl_ms", 3000) / 1000.0, action, 72, "Alone and hurt.")
            self.cache[key] = hit
            source = "model"
        return {"entity": entity["entity"], "decision_id": "d_" + secrets.token_hex(8), "action": hit[1],
                "source": source, "confidence": hit[2], "ttl_ms": spec.get("ttl_ms", 3000), "reason": hit[3]}

    def decide(self, body, authorization):
        if not self.authenticated(body.get("client_id"), authorization):
            return 401, {"a2g": "0.1", "ok": False, "error": "Unknown session or token.", "code": "unauthorized"}
        entities = body.get("entities")
        if not isinstance(entities, list) or len(entities) > 16:
            return 400, {"a2g": "0.1", "ok": False, "error": "entities: must be an array of at most 16",
                         "code": "invalid_request"}
        for i, entity in enumerate(entities):
            if not isinstance(entity, dict) or not ENTITY_ID.match(str(entity.get("entity", ""))) or \
               entity.get("type") not in self.types:
                return 400, {"a2g": "0.1", "ok": False, "error": "entities[%d]: invalid" % i,
                             "code": "invalid_request"}
        answer = {"a2g": "0.1"}
        if "epoch" in body:
            answer["epoch"] = body["epoch"]
        answer["decisions"] = [self.decide_entity(e) for e in entities]
        return 200, answer


def listening_socket():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    print("listening on http://127.0.0.1:%d" % sock.getsockname()[1], flush=True)
    return sock


def run_fastapi(decider):
    from typing import Any, Dict, List, Optional

    import uvicorn
    from fastapi import FastAPI, Header, Request
    from fastapi.responses import JSONResponse
    from pydantic import BaseModel, Field

    class SessionRequest(BaseModel):
        a2g: str
        client_id: str
        game: str
        manifest_hash: Optional[str] = None
        manifest: Optional[dict] = None

    class Entity(BaseModel):
        entity: str = Field(regex=r"^[a-z][a-z0-9_:.-]{0,63}$")
        type: str
        profile: Optional[str] = None
        observations: Dict[str, Any] = {}
        legal_actions: List[str]
        deadline_ms: Optional[int] = None

    class DecideRequest(BaseModel):
        client_id: str
        epoch: Optional[int] = None
        request_id: Optional[str] = None
        entities: List[Entity] = Field(max_items=16)

    app = FastAPI()

    @app.post("/v1/session")
    async def session(request: SessionRequest):
        status, answer = decider.open_session(request.dict())
        return JSONResponse(answer, status_code=status)

    @app.post("/v1/decide")
    async def decide(request: DecideRequest, authorization: Optional[str] = Header(None)):
        status, answer = decider.decide(request.dict(exclude_none=True), authorization)
        return JSONResponse(answer, status_code=status)

    @app.get("/health")
    async def health(request: Request):
        return {"a2g": "0.1", "ok": True}

    sock = listening_socket()
    config = uvicorn.Config(app, loop="uvloop", http="httptools", log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    server.run(sockets=[sock])


class LeanProtocol(asyncio.Protocol):
    """HTTP/1.1 keep-alive over httptools' parser, one JSON body per request."""

    def __init__(self, decider):
        import httptools
        self.decider = decider
        self.parser = httptools.HttpRequestParser(self)
        self.transport = None
        self.url = b""
        self.headers = {}
        self.body = []

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        import httptools
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            self.transport.close()

    def on_message_begin(self):
        self.url = b""
        self.headers = {}
        self.body = []

    def on_url(self, url):
        self.url += url

    def on_header(self, name, value):
        self.headers[name.lower()] = value

    def on_body(self, body):
        self.body.append(body)

    def on_message_complete(self):
        try:
            body = json.loads(b"".join(self.body) or b"{}")
            if not isinstance(body, dict):
                raise ValueError("not an object")
        except ValueError:
            status, answer = 400, {"a2g": "0.1", "ok": False, "error": "The body must be a JSON object.",
                                   "code": "invalid_request"}
        else:
            authorization = self.headers.get(b"authorization")
            if self.url == b"/v1/decide":
                status, answer = self.decider.decide(body, authorization.decode() if authorization else None)
            elif self.url == b"/v1/session":
                status, answer = self.decider.open_session(body)
            else:
                status, answer = 404, {"a2g": "0.1", "ok": False, "error": "Not found.", "code": "not_found"}
        payload = json.dumps(answer, separators=(",", ":")).encode()
        head = b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (
            status, b"OK" if status == 200 else b"Error", len(payload))
        self.transport.write(head + payload)
        if not self.parser.should_keep_alive():
            self.transport.close()


def run_lean(decider):
    import uvloop

    async def serve():
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: LeanProtocol(decider), sock=listening_socket())
        await server.serve_forever()

    uvloop.install()
    asyncio.run(serve())


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("fastapi", "lean"):
        sys.exit("usage: a2g-python-peer.py fastapi|lean MANIFEST_FILE")
    with open(sys.argv[2], encoding="utf-8") as f:
        decider = Decider(json.load(f))
    (run_fastapi if sys.argv[1] == "fastapi" else run_lean)(decider)


if __name__ == "__main__":
    main()
