#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench-a2g-peers: gamegate's A2G decide beside what else could answer the
same requests on this machine, all in one run, driven by wrk (keep-alive,
8 connections, one thread):

  gamegate a2g        the service ($GAMEGATE_BIN), its state in memory
  bare libsoup        bench-bare-soup: gamegate's own HTTP library answering
                      gamegate's answer bytes, nothing decided (the floor)
  nginx               the same bytes (the HTTP limit of this machine)
  FastAPI + pydantic  an A2G decide in Python as a studio would write it
  lean Python         the same on uvloop + httptools, plain json and hashlib
                      (both a2g-python-peer.py)

Two requests, the same bytes to every peer (only the session token
differs): 16 pirates, each in its own situation (distinct after the
manifest's buckets: hp, distance, allies, cargo, cornered, profile, legal
actions), and 1 pirate. Every answer of every run is checked by wrk's
script to hold one `"source":"cache"` per entity (nginx and libsoup answer
gamegate's bytes, so they pass the same check).

Printed per peer: requests/s, decisions/s, p50/p99 latency (wrk), and the
peer's CPU time per request (from /proc/PID/task/*/schedstat: time on a
CPU, meaningful on a machine other work keeps busy), each the best of
ROUNDS alternating rounds; then issue 22's aims beside the figures.
Peers that are not installed (nginx, wrk, fastapi, uvloop, httptools: `./quickstart
bench` installs them) are reported as skipped. Asserts nothing.

Usage: bench-a2g-peers.py BENCH_BARE_SOUP   ($GAMEGATE_BIN set, as meson does)
Last, gamegate's resident size over many decisions (16 distinct cache hits
per request, every decision recorded): VmRSS after each fifth of
GG_BENCH_DECISIONS (default 2,000,000; issue 22 says 10,000,000), which
should stay flat (records are bounded per session).

Environment: GG_BENCH_SECONDS (per run, default 3), GG_BENCH_ROUNDS (default 2),
GG_BENCH_DECISIONS (default 2000000; 0 skips the memory run); GG_BENCH_BASELINE_BIN
and GG_BENCH_BASELINE_PLUGINS (its GAMEGATE_PLUGIN_PATH): another gamegate build
(main's, say) run beside as "gamegate baseline", for a before and after in one run."""

import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

CONNECTIONS = 8
SECONDS = float(os.environ.get("GG_BENCH_SECONDS", "3"))
ROUNDS = int(os.environ.get("GG_BENCH_ROUNDS", "2"))
DECISIONS = int(os.environ.get("GG_BENCH_DECISIONS", "2000000"))
CLIENT_ID = "c_bench_peers_0001"

MANIFEST = {
    "a2g": "0.1", "game": "orbital-freight", "version": "0.9.2",
    "world": "A cargo-hauling game on an orbital station. Pirates raid slow freighters.",
    "entity_types": {
        "pirate": {
            "description": "A raider in a small fast ship.",
            "observations": {
                "hp": {"type": "integer", "min": 0, "max": 100, "bucket": 10},
                "target_distance": {"type": "number", "min": 0, "max": 5000, "bucket": 250},
                "allies_near": {"type": "integer", "min": 0, "max": 16},
                "cargo_seen": {"type": "enum", "values": ["none", "ore", "medicine", "weapons"]},
                "cornered": {"type": "boolean"},
            },
            "actions": {
                "attack": {"description": "Close in and fire."},
                "flee": {"description": "Break off and run for the asteroid field."},
                "call_help": {"description": "Call nearby allies."},
                "surrender": {"description": "Power down and hail."},
            },
            "ttl_ms": 600000, "token_budget": 800, "cache": "game", "memory": 5, "min_confidence": 0,
        },
    },
    "scopes": {"station": {"text": "Station security patrols the inner ring."}},
    "profiles": {"coward": {"text": "Values its own life above loot."},
                 "veteran": {"text": "Has survived many raids; calm and calculating."}},
}

CONFIG = """[a2g]
model={"type":"scripted","fallback":{"json":{"reason":"Alone and hurt.","action":"flee","confidence":72}}}
max-sessions=1000
session-rate=100000000
session-burst=100000000
game-rate=100000000
game-burst=100000000
address-rate=100000000
address-burst=100000000
"""

# Counts the answers and those without one "source":"cache" per entity.
WRK_SCRIPT = r"""
local f = assert(io.open(os.getenv("BENCH_BODY"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN")
local expect = '"source":"cache"'
local want = tonumber(os.getenv("BENCH_ENTITIES"))
answers, wrong = 0, 0
local threads = {}
function setup(thread) table.insert(threads, thread) end
function response(status, headers, body)
  answers = answers + 1
  local n, at = 0, 1
  while true do
    local s = string.find(body, expect, at, true)
    if s == nil then break end
    n, at = n + 1, s + 1
  end
  if status ~= 200 or n ~= want then wrong = wrong + 1 end
end
function done(summary, latency, requests)
  local a, w = 0, 0
  for _, t in ipairs(threads) do a = a + t:get("answers"); w = w + t:get("wrong") end
  io.write(string.format("checked answers=%d wrong=%d\n", a, w))
end
"""


def pirate(n, k):
    cargo = ["none", "ore", "medicine", "weapons"][n % 4]
    legal = [["attack", "flee"], ["attack", "flee", "surrender"], ["flee", "call_help", "attack"]][n % 3]
    return {"entity": "pirate-%d" % k, "type": "pirate", "profile": "coward" if n % 2 == 0 else "veteran",
            "observations": {"hp": (n % 10) * 10 + 3, "target_distance": ((n * 7) % 21) * 250 + 40,
                             "allies_near": (n * 5) % 17, "cargo_seen": cargo, "cornered": n % 2 == 1},
            "legal_actions": legal}


def decide_body(entities, offset):
    body = {"client_id": CLIENT_ID, "epoch": 7, "entities": [pirate(offset + k, k) for k in range(entities)]}
    return json.dumps(body, separators=(",", ":"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_ns(pid):
    total = 0
    try:
        for task in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/schedstat" % (pid, task)) as f:
                total += int(f.read().split()[0])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return total


def post(port, path, body, token=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    conn.request("POST", path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    if response.status != 200:
        raise RuntimeError("%s %s: HTTP %d: %s" % (port, path, response.status, data[:200]))
    return data


class Peer:
    def __init__(self, name, argv, env=None, port=None):
        self.name = name
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, env=env, start_new_session=True)
        if port is None:
            line = self.proc.stdout.readline().decode()
            found = re.search(r"://127\.0\.0\.1:(\d+)", line)
            if not found:
                self.stop()
                raise RuntimeError("%s: no port in %r" % (name, line))
            port = int(found.group(1))
        else:
            deadline = time.monotonic() + 10
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or self.proc.poll() is not None:
                        self.stop()
                        raise RuntimeError("%s did not listen on %d" % (name, port))
                    time.sleep(0.05)
        self.port = port
        self.token = "unused"
        self.results = {}

    def open_session(self):
        body = json.dumps({"a2g": "0.1", "client_id": CLIENT_ID, "game": "orbital-freight", "manifest": MANIFEST})
        self.token = json.loads(post(self.port, "/v1/session", body))["session_token"]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def open_and_warm(peer, bodies):
    """A session on @peer, and each body sent twice: the second all cache hits."""
    peer.open_session()
    for n, path in bodies.items():
        with open(path) as f:
            body = f.read()
        post(peer.port, "/v1/decide", body, peer.token)
        if post(peer.port, "/v1/decide", body, peer.token).count(b'"source":"cache"') != n:
            raise RuntimeError("%s: the second answer is not %d cache hits" % (peer.name, n))


def python_with(modules):
    """An interpreter that has @modules: this one, python3 on PATH, Debian's."""
    for candidate in (sys.executable, shutil.which("python3"), "/usr/bin/python3"):
        if candidate and os.path.exists(candidate) and subprocess.run(
                [candidate, "-c", "import " + ", ".join(modules)], stderr=subprocess.DEVNULL).returncode == 0:
            return candidate
    return None


def vm_rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def memory_run(tmp, service, body_file, entities):
    """VmRSS after each fifth of DECISIONS decisions (wrk runs of a length
    measured from the rate of the first)."""
    print("\ngamegate's resident size over %d decisions (%d per request, cache hits, recorded):"
          % (DECISIONS, entities))
    done, rate, fifth = 0, None, DECISIONS / 5
    start = vm_rss_kib(service.proc.pid)
    print("  %12s decisions: VmRSS %7d KiB" % (0, start))
    while done < DECISIONS:
        seconds = 2.0 if rate is None else max(1.0, min(fifth, DECISIONS - done) / rate)
        r = run_wrk(tmp, service, body_file, entities, seconds=seconds)
        rate = r["rps"] * entities
        done += int(r["rps"] * max(1, round(seconds))) * entities
        if r["wrong"]:
            print("  (%d answers were not %d cache hits)" % (r["wrong"], entities))
        print("  %12d decisions: VmRSS %7d KiB" % (done, vm_rss_kib(service.proc.pid)))
    return start


def to_us(text):
    number, unit = re.match(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(number) * {"us": 1, "ms": 1000, "s": 1e6, "m": 6e7}[unit]


def run_wrk(tmp, peer, body_file, entities, seconds=SECONDS):
    env = dict(os.environ, BENCH_BODY=body_file, BENCH_TOKEN=peer.token, BENCH_ENTITIES=str(entities))
    script = os.path.join(tmp, "check.lua")
    before = cpu_ns(peer.proc.pid)
    out = subprocess.run(["wrk", "-t1", "-c%d" % CONNECTIONS, "-d%ds" % max(1, round(seconds)), "--latency", "-s", script,
                          "http://127.0.0.1:%d/v1/decide" % peer.port],
                         env=env, capture_output=True, text=True, check=True).stdout
    cpu = cpu_ns(peer.proc.pid) - before
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    checked = re.search(r"checked answers=(\d+) wrong=(\d+)", out)
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50": to_us(re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1)),
        "p99": to_us(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1)),
        "cpu_us": cpu / 1000.0 / max(requests, 1),
        "wrong": int(checked.group(2)) + (1 if int(checked.group(1)) == 0 else 0),
    }


def main():
    bare_soup = sys.argv[1] if len(sys.argv) > 1 else None
    gamegate = os.environ.get("GAMEGATE_BIN")
    if not gamegate or not bare_soup:
        sys.exit("usage: GAMEGATE_BIN=... bench-a2g-peers.py BENCH_BARE_SOUP")
    if shutil.which("wrk") is None:
        print("bench-a2g-peers: skipped: wrk is not installed (./quickstart bench)")
        return
    load_before = os.getloadavg()
    tmp = tempfile.mkdtemp(prefix="bench-a2g-peers-")
    peers, skipped, fixed = [], [], {}
    scenarios = [(16, "16 entities, distinct situations"), (1, "1 entity")]
    bodies = {}
    try:
        with open(os.path.join(tmp, "check.lua"), "w") as f:
            f.write(WRK_SCRIPT)
        manifest_file = os.path.join(tmp, "manifest.json")
        with open(manifest_file, "w") as f:
            json.dump(MANIFEST, f)
        config = os.path.join(tmp, "gamegate.conf")
        with open(config, "w") as f:
            f.write(CONFIG)
        for n, _ in scenarios:
            bodies[n] = os.path.join(tmp, "body-%d.json" % n)
            with open(bodies[n], "w") as f:
                f.write(decide_body(n, 100 if n == 1 else 0))

        service = Peer("gamegate a2g", [gamegate, "a2g", "--listen", "127.0.0.1:0"],
                       env=dict(os.environ, GAMEGATE_CONFIG=config))
        peers.append(service)
        service.open_session()
        answers = {}
        for n, _ in scenarios:
            with open(bodies[n]) as f:
                body = f.read()
            post(service.port, "/v1/decide", body, service.token)
            answers[n] = post(service.port, "/v1/decide", body, service.token)
            if answers[n].count(b'"source":"cache"') != n:
                raise RuntimeError("gamegate's second answer is not %d cache hits: %s" % (n, answers[n]))
        if os.environ.get("GG_BENCH_BASELINE_BIN"):
            baseline = Peer("gamegate baseline", [os.environ["GG_BENCH_BASELINE_BIN"], "a2g", "--listen", "127.0.0.1:0"],
                            env=dict(os.environ, GAMEGATE_CONFIG=config,
                                     GAMEGATE_PLUGIN_PATH=os.environ.get("GG_BENCH_BASELINE_PLUGINS", "")))
            peers.append(baseline)
            open_and_warm(baseline, bodies)

        def bytes_peer(name, start):
            per = {}
            for n, _ in scenarios:
                path = os.path.join(tmp, "answer-%d.json" % n)
                with open(path, "wb") as f:
                    f.write(answers[n])
                per[n] = start(n, path)
            return per

        # The bytes peers answer one fixed body each: one process per scenario.
        fixed["bare libsoup"] = bytes_peer("bare libsoup", lambda n, path: Peer("bare libsoup", [bare_soup, path]))
        if shutil.which("nginx") or os.path.exists("/usr/sbin/nginx"):
            nginx = shutil.which("nginx") or "/usr/sbin/nginx"

            def start_nginx(n, path):
                port = free_port()
                with open(path) as f:
                    text = f.read()
                assert "$" not in text and "'" not in text and "\\" not in text
                prefix = os.path.join(tmp, "nginx-%d" % n)
                os.makedirs(prefix)
                conf = os.path.join(prefix, "nginx.conf")
                with open(conf, "w") as f:
                    f.write("daemon off; master_process off; worker_processes 1; pid %s/nginx.pid;\n"
                            "error_log stderr error;\nevents { worker_connections 1024; }\n"
                            "http { access_log off; keepalive_requests 100000000; keepalive_timeout 60s;\n"
                            " client_body_temp_path %s/b; proxy_temp_path %s/p; fastcgi_temp_path %s/f;\n"
                            " uwsgi_temp_path %s/u; scgi_temp_path %s/s;\n"
                            " server { listen 127.0.0.1:%d; location / { default_type application/json;\n"
                            " return 200 '%s'; } } }\n" % ((prefix,) * 6 + (port, text)))
                return Peer("nginx", [nginx, "-e", "stderr", "-p", prefix, "-c", conf], port=port)
            fixed["nginx"] = bytes_peer("nginx", start_nginx)
        else:
            skipped.append("nginx (not installed)")
        peer_script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "a2g-python-peer.py")
        for variant, name, modules in (("fastapi", "FastAPI + pydantic", ["fastapi", "pydantic", "uvicorn"]),
                                       ("lean", "lean Python", ["uvloop", "httptools"])):
            python = python_with(modules)
            if python is None:
                skipped.append("%s (no python3 with %s)" % (name, ", ".join(modules)))
                continue
            peer = Peer(name, [python, peer_script, variant, manifest_file])
            peers.append(peer)
            open_and_warm(peer, bodies)

        order = [service] + [p for p in peers if p is not service]
        names = ["gamegate a2g", "bare libsoup"] + (["nginx"] if "nginx" in fixed else []) + \
                [p.name for p in peers if p is not service]
        best = {name: {} for name in names}
        for n, _ in scenarios:
            for name in names:
                peer = next((p for p in order if p.name == name), None) or fixed[name][n]
                run_wrk(tmp, peer, bodies[n], n, seconds=1)  # warm-up
            for _ in range(ROUNDS):
                for name in names:
                    peer = next((p for p in order if p.name == name), None) or fixed[name][n]
                    r = run_wrk(tmp, peer, bodies[n], n)
                    b = best[name].get(n)
                    if b is None:
                        best[name][n] = r
                    else:
                        if r["rps"] > b["rps"]:
                            b.update(rps=r["rps"], p50=r["p50"], p99=r["p99"])
                        b["cpu_us"] = min(b["cpu_us"], r["cpu_us"])
                        b["wrong"] += r["wrong"]
        load_after = os.getloadavg()

        print("A2G decide side by side: wrk, %d keep-alive connections, 1 thread; best of %d alternating "
              "%g s rounds (CPU: the least per request)" % (CONNECTIONS, ROUNDS, SECONDS))
        print("load average before %.2f, after %.2f (%d CPUs)" % (load_before[0], load_after[0], os.cpu_count()))
        for n, label in scenarios:
            print("\n%s (%d-byte body, %d-byte answer)" % (label, os.path.getsize(bodies[n]), len(answers[n])))
            print("%-20s %10s %12s %9s %9s %10s %s" % ("peer", "req/s", "decisions/s", "p50 us", "p99 us",
                                                   "CPU us/r", ""))
            for name in names:
                r = best[name][n]
                note = "" if r["wrong"] == 0 else "(%d answers not %d cache hits)" % (r["wrong"], n)
                decisions = "-" if name in fixed else "%.0f" % (r["rps"] * n)
                print("%-20s %10.0f %12s %9.0f %9.0f %10.1f %s" % (name, r["rps"], decisions, r["p50"], r["p99"],
                                                               r["cpu_us"], note))
        print("\nissue 22's aims (in this run):")
        g16, g1 = best["gamegate a2g"][16], best["gamegate a2g"][1]
        soup1 = best["bare libsoup"][1]
        print("  16 distinct cache hits: %.1f us CPU per request (aim <= 120)" % g16["cpu_us"])
        if "lean Python" in best:
            print("  16 distinct cache hits: %.1fx lean Python's decisions/s (aim >= 3x)"
                  % (g16["rps"] / best["lean Python"][16]["rps"]))
        print("  1 cache hit: %.1f us CPU per request (aim <= 60)" % g1["cpu_us"])
        print("  1 cache hit: %.0f%% of bare libsoup's req/s (aim >= 70%%), %.0f%% by CPU"
              % (100 * g1["rps"] / soup1["rps"], 100 * soup1["cpu_us"] / g1["cpu_us"]))
        if "gamegate baseline" in best:
            for n, label in scenarios:
                base = best["gamegate baseline"][n]
                print("  %s: %.0f%% of the baseline's CPU per request, %.1fx its req/s"
                      % (label, 100 * best["gamegate a2g"][n]["cpu_us"] / base["cpu_us"],
                         best["gamegate a2g"][n]["rps"] / base["rps"]))
        for item in skipped:
            print("skipped: %s" % item)
        if DECISIONS > 0:
            memory_run(tmp, service, bodies[16], 16)
    finally:
        for peer in peers:
            peer.stop()
        for per in fixed.values():
            for peer in per.values():
                peer.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
