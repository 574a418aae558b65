#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""test-sdk.py: the Python game SDK example (examples/a2g/python) end to end
against the real `gamegate a2g`:

  - the example game (pirates.py) plays against the service: decisions of
    the model, the cache and forced ones, FALLBACK entries (the scripted
    model's answer is not always legal) falling back to the game's own AI,
    every executed action legal, the SDK's counts matching /v1/usage, and
    the same game twice giving the same output;
  - the service down from the start: the game plays on its own AI, exit 0;
  - the service stopped mid-game and started again on the same port: native
    choices while it is away, then 409 unknown_session, a reopened session
    and decisions again;
  - the client's reactions one by one: renewal before expires_in, 401 (a
    token the service does not know) reopens the session, 403 (an Origin the
    local profile refuses) stops all calls, 409 reopens the session, 429
    backs off for Retry-After, TTL and epoch checks make a decision unusable.

Usage: test-sdk.py EXAMPLES_DIR (the directory holding pirates.py)
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from a2g_service import TIMEOUT_SCALE, Service, call, scripted_model  # noqa: E402

failures: list[str] = []
LINE = re.compile(r"^tick +(\d+) epoch (\d+) (pirate-\d+): (\S+) +(a2g (\w+) (\d+)|native \((\w+)\)) +"
                  r"of \[([a-z_,]+)\] -> (\w+) \(hp (\d+), (\w+)\)$")
SUMMARY = re.compile(r"^summary: ticks=(\d+) decisions=(\d+) a2g=(\d+) native=(\d+) \[(.*)\] ")


def check(condition: bool, what: str) -> None:
    if not condition:
        failures.append(what)
        print("FAIL: " + what)


def expect_equal(got: object, want: object, what: str) -> None:
    check(got == want, f"{what}: got {got!r}, want {want!r}")


def run_game(examples: str, url: str, *args: str) -> tuple[int, str]:
    result = subprocess.run([sys.executable, os.path.join(examples, "pirates.py"), "--url", url, *args],
                            capture_output=True, text=True, timeout=120 * TIMEOUT_SCALE)
    if result.stderr:
        print(result.stderr, file=sys.stderr)
    return result.returncode, result.stdout


def parse(output: str) -> tuple[list[re.Match], dict[str, int], re.Match | None]:
    lines, counts, summary = [], {}, None
    for text in output.splitlines():
        if text.startswith("  "):
            continue                      # the client's own log lines
        match = LINE.match(text)
        if match:
            lines.append(match)
            continue
        summary = SUMMARY.match(text)
        check(summary is not None, f"unexpected output line: {text!r}")
    if summary is not None:
        for item in summary.group(5).split(", "):
            if item:
                key, value = item.split("=")
                counts[key] = int(value)
    return lines, counts, summary


def check_lines(lines: list[re.Match], what: str) -> None:
    for line in lines:
        legal = line.group(9).split(",")
        check(line.group(4) in legal, f"{what}: {line.group(3)} did {line.group(4)!r}, not one of {legal}")
        if line.group(6) is not None:
            check(line.group(6) in ("model", "cache", "memory", "forced"), f"{what}: source {line.group(6)}")
            if line.group(6) == "forced":
                expect_equal(len(legal), 1, f"{what}: a forced decision had one legal action")
                expect_equal(line.group(7), "100", f"{what}: forced confidence")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# A model that wants to attack: legal often, not always (then the service
# retries once and answers FALLBACK error, and the game's own AI decides).
ATTACKER = scripted_model("attack", 81, "The freighter is slow and its escort is thin.")


def test_game(examples: str) -> None:
    outputs = []
    for run in range(2):
        with Service(ATTACKER) as service:
            status, output = run_game(examples, service.url, "--ticks", "12")
            expect_equal(status, 0, f"game run {run} exit status")
            lines, counts, summary = parse(output)
            check(summary is not None, f"game run {run} has a summary")
            check_lines(lines, f"game run {run}")
            for source in ("model", "cache"):
                check(counts.get("a2g:" + source, 0) > 0, f"game run {run}: some {source} decisions: {counts}")
            check(counts.get("native:error", 0) > 0, f"game run {run}: some FALLBACK error entries: {counts}")
            for line in lines:
                if line.group(8) == "error":
                    check("attack" not in line.group(9).split(","),
                          f"FALLBACK error only where attack was not legal: {line.group(0)}")
            st, usage = call(service.port, "GET", "/v1/usage")
            expect_equal(st, 200, "GET /v1/usage")
            if usage is not None:
                for source in ("model", "cache", "memory", "forced"):
                    expect_equal(counts.get("a2g:" + source, 0), usage["decisions"][source],
                                 f"{source} decisions: the game's count and /v1/usage")
                for code, n in usage["fallbacks"].items():
                    expect_equal(counts.get("native:" + code, 0), n, f"FALLBACK {code}: game and /v1/usage")
            expect_equal(service.stop(), 0, "gamegate a2g exit status")
            outputs.append(output)
    expect_equal(outputs[0], outputs[1], "the same game twice gives the same output")
    print(outputs[0], end="")


def test_service_down(examples: str) -> None:
    status, output = run_game(examples, f"http://127.0.0.1:{free_port()}", "--ticks", "12")
    expect_equal(status, 0, "game without a service: exit status")
    lines, counts, summary = parse(output)
    check(summary is not None and summary.group(3) == "0", "without a service nothing came from a2g")
    check(len(lines) > 0 and all(line.group(8) is not None for line in lines), "every choice native")
    check("cannot reach the service: ConnectionRefusedError" in output, "the client says why")
    check_lines(lines, "game without a service")


def test_service_restart(examples: str) -> None:
    first = Service(ATTACKER)
    port = first.port
    game = subprocess.Popen([sys.executable, os.path.join(examples, "pirates.py"), "--url", first.url,
                             "--ticks", "40", "--tick-ms", f"{100 * TIMEOUT_SCALE:.0f}",
                             "--failure-backoff", f"{0.25 * TIMEOUT_SCALE:g}",
                             "--freighters", "8", "--pirates", "4"],
                            stdout=subprocess.PIPE, text=True)
    output = []
    second = None
    stopped_after = restarted_after = -1
    try:
        for text in game.stdout:
            output.append(text)
            match = LINE.match(text.rstrip("\n"))
            tick = int(match.group(1)) if match else -1
            if tick == 1 and first is not None:
                expect_equal(first.stop(), 0, "first service exit status")
                first.stderr.close()
                first = None
                stopped_after = tick
            if tick == 4 and second is None:
                second = Service(ATTACKER, port=port)
                restarted_after = tick
        expect_equal(game.wait(timeout=60 * TIMEOUT_SCALE), 0, "game across a restart: exit status")
    finally:
        if first is not None:
            first.stop()
        if second is not None:
            expect_equal(second.stop(), 0, "second service exit status")
            second.stderr.close()
    text = "".join(output)
    lines, counts, summary = parse(text)
    check_lines(lines, "game across a restart")
    by_tick: dict[int, list[str]] = {}
    for line in lines:
        by_tick.setdefault(int(line.group(1)), []).append("native" if line.group(8) else "a2g")
    check("a2g" in by_tick.get(0, []), f"decisions before the stop: {by_tick.get(0)}")
    # The game runs ahead of the lines read here, so a tick or two after the
    # stop may still have been decided by the service: from the first tick
    # the game played natively until the restart, every choice is native.
    away = [t for t in range(stopped_after + 1, restarted_after + 1) if t in by_tick]
    native_from = next((i for i, t in enumerate(away) if set(by_tick[t]) == {"native"}), None)
    check(native_from is not None and all(kind == "native" for t in away[native_from:] for kind in by_tick[t]),
          f"native choices while the service is away: {[(t, by_tick[t]) for t in away]}")
    check("HTTP 409 unknown_session" in text, "the restarted service did not know the session (409)")
    later = [t for t in by_tick if t > restarted_after and "a2g" in by_tick[t]]
    check(bool(later), "decisions again after the restart")
    if failures:
        print(text, end="")


def expires_in(port: int, client) -> float:
    """The session's expires_in as the service says it (one more renewal)."""
    _, answer = call(port, "POST", "/v1/session", {"a2g": "0.1", "client_id": client.client_id,
                                                   "game": "orbital-freight",
                                                   "manifest_hash": client._manifest_hash})
    client._token = answer["session_token"]
    return float(answer["expires_in"])


def test_client_reactions(examples: str) -> None:
    sys.path.insert(0, examples)
    from a2g_client import (NATIVE_BACKOFF, NATIVE_DISABLED, NATIVE_EPOCH, NATIVE_EXPIRED, NATIVE_HTTP,
                            A2GClient, EntityRequest, Outcome)
    with open(os.path.join(examples, "orbital-freight.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    obs = {"hp": 35, "target_distance": 900, "allies_near": 0, "cargo_seen": "medicine", "cornered": False}
    ask = [EntityRequest("pirate-1", "pirate", obs, ["attack", "flee"])]
    now = [1000.0]

    with Service(scripted_model("flee", 70)) as service:
        log: list[str] = []
        client = A2GClient(service.url, manifest, clock=lambda: now[0], log=log.append)
        check(client.open_session(), "open a session")
        expect_equal(client.telemetry(1, [
            {"entity": "pirate-1", "type": "pirate", "pos": [1.0, 0.0], "faction": "raiders", "hp": 35},
            {"entity": "freighter-1", "type": "freighter", "pos": [100.0, 0.0], "faction": "haulers",
             "name": {"not": "a scalar"}}]),
            {"a2g": "0.1", "ok": True, "accepted": 2, "dropped": 1}, "telemetry through the client")
        scoped = client.context(scopes=["station", "inner_ring"], profiles={"pirate-1": "coward"})
        expect_equal(scoped and scoped.get("scope_chain"), ["station", "inner_ring"], "context through the client")
        choice = client.decide(5, ask)[0]
        expect_equal((choice.native, choice.action, choice.source), (None, "flee", "model"), "a decision")
        expect_equal(choice.action_or("attack", 5), "flee", "usable at once")
        outcome = Outcome(choice.decision_id, "pirate-1", "success", reward=2.0)   # sent clamped to 1
        expect_equal(client.report([outcome]), {"a2g": "0.1", "ok": True, "accepted": 1, "ignored": []},
                     "a report through the client")
        expect_equal(client.report([outcome, Outcome("d_never_issued", "pirate-1", "failure")]),
                     {"a2g": "0.1", "ok": True, "accepted": 0, "ignored": [
                         {"decision_id": choice.decision_id, "reason": "already_reported"},
                         {"decision_id": "d_never_issued", "reason": "unknown"}]},
                     "reports the service ignores")
        expect_equal(client.decide(6, ask)[0].action_or("attack", 7), "attack", "a stale epoch is not used")
        late = client.decide(8, ask)[0]
        now[0] += 3.001                      # the type's ttl_ms is 3000
        expect_equal(late.action_or("attack", 8), "attack", "an expired decision is not used")
        expect_equal(late.native, NATIVE_EXPIRED, "why: expired")
        expect_equal(client.decide(6, ask)[0].native, None, "cache hit")
        stale = client.decide(6, ask)[0]
        stale.usable(7)
        expect_equal(stale.native, NATIVE_EPOCH, "why: stale epoch")

        # Renewal: past 80% of expires_in the next request first renews the
        # session (a new token, the same session: the cache still answers).
        lifetime = expires_in(service.port, client)
        first_token = client._token
        now[0] += 0.81 * lifetime
        renewed = client.decide(6, ask)[0]
        check(client._token is not None and client._token != first_token, "renewed: a new token")
        expect_equal(renewed.source, "cache", "the renewed session keeps its context")
        _, answer = call(service.port, "POST", "/v1/decide", {"client_id": client.client_id, "epoch": 1,
                                                             "entities": [ask[0].to_json()]}, first_token)
        check(answer is not None and "decisions" in answer, f"the previous token works for 30 s: {answer}")

        # 401: a token the service does not know; the session is reopened next time.
        client._token = "s_not_a_token_of_this_service"
        failed = client.decide(9, ask)[0]
        expect_equal((failed.native, failed.action_or("attack")), (NATIVE_HTTP, "attack"), "401: native")
        check(any("HTTP 401" in line for line in log), f"401 logged: {log}")
        again = client.decide(9, ask)[0]
        expect_equal(again.native, None, "after a 401 the session is reopened and decisions come again")
        report = client.report([])
        check(report is not None, "an empty report is fine")
        client.close()

        # 403: an Origin the local profile refuses: no session, no more calls.
        hostile = A2GClient(service.url, manifest, headers={"Origin": "http://evil.example"}, log=log.append)
        check(not hostile.open_session(), "a refused Origin opens no session")
        expect_equal(hostile.disabled, True, "403 disables the client")
        sent = hostile.requests
        for _ in range(3):
            expect_equal(hostile.decide(1, ask)[0].native, NATIVE_DISABLED, "after a 403: native")
        expect_equal(hostile.requests, sent, "after a 403 nothing more is sent")
        hostile.close()

        # 409: a client_id the service never saw, with no session opened.
        lost = A2GClient(service.url, manifest, log=log.append)
        lost._manifest_hash, lost._renew_at = "sha256:" + "0" * 64, float("inf")
        expect_equal(lost.decide(1, ask)[0].native, NATIVE_HTTP, "409: native")
        check(any("HTTP 409 unknown_session" in line for line in log), f"409 logged: {log}")
        lost._backoff_until = 0
        expect_equal(lost.decide(1, ask)[0].native, None, "after a 409 the session is reopened")
        lost.close()
        expect_equal(service.stop(), 0, "gamegate a2g exit status")

    # 429: over the per-address request rate; the client backs off for
    # Retry-After seconds without sending anything, then decides again.
    # (One request per 2 s refills the bucket: slow enough under valgrind too.)
    rate = f"{0.5 / TIMEOUT_SCALE:g}"
    with Service(scripted_model("flee", 70), {"address-rate": rate, "address-burst": "2"}) as service:
        log = []
        client = A2GClient(service.url, manifest, log=log.append)
        check(client.open_session(), "open a session (1 of the burst of 2)")
        expect_equal(client.decide(1, ask)[0].native, None, "a decision (2 of 2)")
        limited = client.decide(1, ask)[0]
        expect_equal(limited.native, NATIVE_HTTP, "429: native")
        check(any("HTTP 429 rate_limited" in line for line in log), f"429 logged: {log}")
        retry_after = client._backoff_until - time.monotonic()
        check(0 < retry_after <= 60, f"backing off for Retry-After seconds: {retry_after:.2f}")
        sent = client.requests
        expect_equal(client.decide(1, ask)[0].native, NATIVE_BACKOFF, "inside Retry-After: native")
        expect_equal(client.requests, sent, "inside Retry-After nothing is sent")
        time.sleep(max(0.0, retry_after) + 0.05)
        expect_equal(client.decide(1, ask)[0].native, None, "after Retry-After: decisions again")
        client.close()
        expect_equal(service.stop(), 0, "gamegate a2g exit status")


def main(examples: str) -> int:
    for test in (test_game, test_service_down, test_service_restart, test_client_reactions):
        before = len(failures)
        started = time.monotonic()
        test(examples)
        print(f"{test.__name__}: {'ok' if len(failures) == before else 'FAILED'}"
              f" ({time.monotonic() - started:.1f} s)")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
