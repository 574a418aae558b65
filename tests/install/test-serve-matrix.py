#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The daemon as users configure it (TAP output).

Installs the build under test (`meson install --destdir`), then, for each
configuration in CASES_DIR (one gamegate.conf per case, the ways
data/gamegate.conf and the README show), runs the installed `gamegate serve`
with that file as the user's ~/.config/gamegate/gamegate.conf, in a home,
XDG_CONFIG_HOME and XDG_RUNTIME_DIR of its own, every listener on a free
port, GLib criticals fatal, and the daemon under $GAMEGATE_TEST_WRAPPER
(valgrind) when set; an ASan build's daemon reports through its exit
status. Then every front end the configuration serves is used once by a
real client and its answers are compared exactly:

  oam    initialize, session/create with the model "system" and one turn,
         on the daemon's oam.sock (a line client);
  mcp    one tool call through the official MCP TypeScript SDK over
         Streamable HTTP;
  gabp   session/hello and one request as a GABP bridge, with the port and
         token of the bridge file (sent again while its tool is unknown:
         a launched or polled game joins the bus after READY=1, so this
         comes before the MCP call);
  a2g    a session (with the profile's credential: none, the game's API
         key, a join token the studio signed), a decision and (for a
         decision, not a FALLBACK) its report on one keep-alive
         connection, HTTPS where the service has its TLS: then also TLS
         1.2 or later negotiated, HSTS on every answer, and a ClientHello
         offering at most TLS 1.1 refused with a protocol_version alert;
         with `redis` its keys are in that Redis.

Last, SIGTERM: the daemon must exit 0 with nothing in its log from a
sanitizer, valgrind or GLib (criticals, warnings), and leave no process
behind.

A case file is a gamegate.conf. `@NAME@` in it is made by the test
(serve_fixtures.py: TLS_CERT, TLS_KEY, API_KEY_SHA256, MANIFEST_HASH,
JOIN_KEY_ES256, REDIS, OPENAI_URL, OPENAI_MODEL, GABP_MOD, REFGAME_PORT).
What the clients must get is written in it as comments, one line per front
end the daemon must serve (a front end without its line must not be
served); `#+` lines continue the line before:

  #= oam: RESULT                 the result of the turn (prompt "Who goes there?")
  #= oam-model: MODEL            initialize's `model` (default {"available":true})
  #= mcp: TOOL ARGUMENTS -> RESULT   the tool's structuredContent
  #= gabp: METHOD PARAMS -> RESULT   the response's result
  #= a2g: DECISION               the decision for pirate-7, without decision_id

The JSON may use the fixtures' @NAME@, @HOME@ and @VERSION@, and the
string "<any>" for a value that depends on the machine (ports found free).

Usage: test-serve-matrix.py SOURCE_DIR BUILD_DIR CASES_DIR PROGRAM=PATH... [CASE...]
  (PROGRAM: gabp-mod, fake-openai-serve, mcp-sdk)
"""
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from serve_clients import A2gConnection, GabpBridge, OamClient, mcp_call, tls_handshake_at_most_1_1  # noqa: E402
from serve_fixtures import Fixtures  # noqa: E402

SOURCE_DIR, BUILD_DIR, CASES_DIR = sys.argv[1:4]
PROGRAMS = dict(arg.split("=", 1) for arg in sys.argv[4:] if "=" in arg)
ONLY = [arg for arg in sys.argv[4:] if "=" not in arg]
WRAPPER = shlex.split(os.environ.get("GAMEGATE_TEST_WRAPPER", ""))
SCALE = max(1.0, float(os.environ.get("GAMEGATE_TEST_TIMEOUT_SCALE", "1") or "1"))
if WRAPPER:
    SCALE = max(SCALE, 20.0)
PROMPT = "Who goes there?"
CLIENT_ID = "c_5f1c9a27e04b7d13"
PIRATE = {"entity": "pirate-7", "type": "pirate", "legal_actions": ["attack", "flee", "surrender"],
          "observations": {"hp": 35, "target_distance": 900, "allies_near": 0, "cargo_seen": "medicine",
                           "cornered": False}}
# In this order: the GABP request waits for the case's game to join the bus
# (after READY=1), so the MCP call that follows finds it there.
FRONT_ENDS = ("oam", "gabp", "mcp", "a2g")
# What a sanitizer, valgrind or GLib writes when something is wrong.
LOG_PROBLEMS = re.compile(r"ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|"
                          r"^==\d+== |-CRITICAL \*\*|-WARNING \*\*|-ERROR \*\*", re.M)
results = []


class Skip(Exception):
    pass


def emit(ok, name, detail=""):
    results.append(ok)
    print("%s %d - %s%s" % ("ok" if ok else "not ok", len(results), name, detail), flush=True)


def run(argv, **kwargs):
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=600, **kwargs)
    if proc.returncode != 0:
        raise AssertionError("%s exited %d:\n%s%s" % (" ".join(argv), proc.returncode,
                                                      proc.stdout[-3000:], proc.stderr[-3000:]))
    return proc.stdout


def matches(expected, actual, where="$"):
    """None when `actual` is `expected` exactly ("<any>" matches anything),
    else where they first differ."""
    if expected == "<any>":
        return None
    if isinstance(expected, dict) and isinstance(actual, dict):
        if sorted(expected) != sorted(actual):
            return "%s: members %s, expected %s" % (where, sorted(actual), sorted(expected))
        for key in expected:
            problem = matches(expected[key], actual[key], "%s.%s" % (where, key))
            if problem:
                return problem
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return "%s: %d items, expected %d" % (where, len(actual), len(expected))
        for i, (e, a) in enumerate(zip(expected, actual)):
            problem = matches(e, a, "%s[%d]" % (where, i))
            if problem:
                return problem
        return None
    if type(expected) is not type(actual) or expected != actual:
        return "%s: %s, expected %s" % (where, json.dumps(actual), json.dumps(expected))
    return None


def assert_json(expected, actual, what):
    problem = matches(expected, actual)
    if problem:
        raise AssertionError("%s: %s\n  got:      %s\n  expected: %s"
                             % (what, problem, json.dumps(actual, sort_keys=True),
                                json.dumps(expected, sort_keys=True)))


# -- the installed tree ----------------------------------------------------

def install(work):
    """The build under test installed under WORK/dest; its paths."""
    options = {o["name"]: o["value"] for o in json.loads(run(["meson", "introspect", "--buildoptions",
                                                              BUILD_DIR]))}
    dest = os.path.join(work, "dest")
    run(["meson", "install", "-C", BUILD_DIR, "--no-rebuild", "--quiet", "--destdir", dest])
    root = dest + os.path.join(options["prefix"], "")
    libdir = os.path.join(root, options["libdir"])
    return {
        "gamegate": os.path.join(root, options["bindir"], "gamegate"),
        "libdir": libdir,
        "plugindir": os.path.join(libdir, "gamegate-1", "plugins"),
        "datadir": os.path.join(root, options["datadir"], "gamegate"),
        "refgame": os.path.join(root, options["libexecdir"], "gamegate", "gamegate-refgame"),
    }


def user_environment(tree, home, runtime):
    """A user's shell: none of the test setup's variables, the installed
    tree found where --destdir put it, sanitizer options kept."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GAMEGATE_", "GAME_BRIDGE_", "GABP_", "GABS_", "OAM_", "LD_", "G_DEBUG",
                                "G_SLICE", "MALLOC_", "XDG_", "NOTIFY_"))}
    env.update({
        "HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"), "XDG_RUNTIME_DIR": runtime,
        "LC_ALL": "C.UTF-8",
        # --destdir moved the tree away from the prefix it was built for.
        "LD_LIBRARY_PATH": tree["libdir"], "GAMEGATE_PLUGIN_PATH": tree["plugindir"],
        "GAMEGATE_GABP_SCHEMA_DIR": os.path.join(tree["datadir"], "gabp"),
        # Every listener on a free port (a case's file may still set one).
        "GAME_BRIDGE_HTTP_PORT": "0", "GAMEGATE_A2G_LISTEN": "127.0.0.1:0",
        # GLib's slice allocator would hide freed nodes from the sanitizers.
        "G_SLICE": "always-malloc", "G_DEBUG": "fatal-criticals,gc-friendly",
    })
    if "ASAN_OPTIONS" in env:
        # Whole allocation stacks: tests/tools/lsan.supp names frames
        # beyond g_malloc(), where the fast unwinder stops (GLib has no
        # frame pointers).
        env["ASAN_OPTIONS"] += ":fast_unwind_on_malloc=0"
    return env


# -- cases -----------------------------------------------------------------

class Case:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)[:-len(".conf")]
        self.text = open(path, encoding="utf-8").read()
        self.expect = {}
        last = None
        for line in self.text.splitlines():
            if line.startswith("#= "):
                key, _, value = line[3:].partition(":")
                if key not in FRONT_ENDS + ("oam-model",):
                    raise ValueError("%s: unknown expectation %r" % (path, key))
                last = key
                self.expect[key] = value.strip()
            elif line.startswith("#+") and last is not None:
                self.expect[last] += " " + line[2:].strip()
            else:
                last = None
        # What the configuration itself refers to (the fixtures it needs).
        config = "\n".join(l for l in self.text.splitlines() if not l.startswith(("#=", "#+")))
        self.placeholders = sorted(set(re.findall(r"@([A-Z0-9_]+)@", config)))

    def group(self, config, group):
        """The key=value lines of [group] (as the daemon's key file reads them)."""
        values, current = {}, None
        for line in config.splitlines():
            line = line.strip()
            if line.startswith("[") and line.endswith("]"):
                current = line[1:-1]
            elif current == group and line and not line.startswith("#") and "=" in line:
                key, _, value = line.partition("=")
                values[key.strip()] = value.strip()
        return values


def substitute(text, values):
    return re.sub(r"@([A-Z0-9_]+)@", lambda m: values[m.group(1)], text)


def expected_json(case, key, values):
    return json.loads(substitute(case.expect[key], values))


def split_call(text):
    """`NAME {ARGS} -> {RESULT}` as (NAME, ARGS JSON text, RESULT JSON text)."""
    head, arrow, result = text.partition(" -> ")
    name, _, arguments = head.strip().partition(" ")
    if not arrow or not name:
        raise ValueError("expected NAME ARGUMENTS -> RESULT, got %r" % text)
    return name, arguments.strip() or "{}", result.strip()


class Daemon:
    """The installed `gamegate serve` of one case, and what it logged."""

    def __init__(self, tree, env, work):
        self.log_path = os.path.join(work, "gamegate.log")
        notify_path = os.path.join(work, "notify")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        listener.bind(notify_path)
        listener.settimeout(30 * SCALE)
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(WRAPPER + [tree["gamegate"], "serve"],
                                            env=dict(env, NOTIFY_SOCKET=notify_path),
                                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=log)
        self.status = None
        # Open until the daemon has exited: it says STOPPING=1 there too.
        self.listener = listener
        try:
            while True:
                try:
                    message = listener.recv(4096).decode()
                except socket.timeout:
                    raise AssertionError("no READY=1 within %.0f s" % (30 * SCALE)) from None
                if "READY=1" in message:
                    break
        except AssertionError:
            self.stop()
            raise

    def text(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as log:
            return log.read()

    def listening(self):
        """What each front end said it serves, from the log."""
        text = self.text()
        found = {}
        for key, pattern in (("oam", r"oam: listening on (\S+)"),
                             ("mcp", r"MCP over Streamable HTTP on (http://\S+/mcp)"),
                             ("gabp", r"GABP server listening on 127\.0\.0\.1:(\d+)"),
                             ("a2g", r"A2G decision service on (https?://\S+)")):
            match = re.search(pattern, text)
            if match:
                found[key] = match.group(1)
        return found

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.status = self.process.wait(timeout=60 * SCALE)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.status = self.process.wait()
            raise AssertionError("gamegate did not exit within %.0f s of SIGTERM" % (60 * SCALE))
        finally:
            self.listener.close()
        return self.status


def oam_turn(address, case, values):
    client = OamClient(address, 30 * SCALE)
    try:
        initialized = client.request("initialize", {"protocolVersion": "1.0"})
        # What the bridge can do is the oam tests' business; the model
        # "system" stands for is the configuration's.
        model = expected_json(case, "oam-model", values) if "oam-model" in case.expect else {"available": True}
        assert_json({"jsonrpc": "2.0", "id": 1, "result": {
            "protocolVersion": "1.0", "server": {"name": "gamegate", "version": values["VERSION"]},
            "capabilities": "<any>", "model": model}}, initialized, "initialize")
        created = client.request("session/create", {"session": "s1", "model": "system"})
        assert_json({"jsonrpc": "2.0", "id": 2, "result": {"session": "s1", "warnings": []}}, created,
                    "session/create")
        answered = client.request("session/respond", {"session": "s1", "prompt": PROMPT})
        assert_json({"jsonrpc": "2.0", "id": 3, "result": expected_json(case, "oam", values)}, answered,
                    "session/respond")
    finally:
        client.close()


def mcp_session(address, case, values):
    tool, arguments, result = split_call(substitute(case.expect["mcp"], values))
    seen = mcp_call(PROGRAMS["mcp-sdk"], address, tool, json.loads(arguments), 60 * SCALE)
    assert_json({"server": "gamegate", "protocolVersion": "2025-11-25", "session": True,
                 "tools": ["list_instances", "launch_instance", "stop_instance", "list_toolsets",
                           "describe_toolset", "call_tool", "instance_log"],
                 "result": json.loads(result), "errors": []}, seen, "MCP SDK client")


def gabp_session(env, case, values):
    bridge_file = os.path.join(env["XDG_CONFIG_HOME"], "gabp", "bridge.json")
    method, params, result = split_call(substitute(case.expect["gabp"], values))
    bridge = GabpBridge(bridge_file, 30 * SCALE)
    try:
        welcome = bridge.hello()
        assert_json({"agentId": "gamegate", "app": {"name": "gamegate", "version": values["VERSION"]},
                     "capabilities": {"methods": ["session/hello", "tools/list", "tools/call",
                                                  "events/subscribe", "events/unsubscribe"],
                                      "events": [], "limits": {"maxMessageSize": 1048576}},
                     "schemaVersion": "1.0",
                     "serverInfo": {"name": "gamegate", "version": values["VERSION"]}},
                    welcome.get("result", welcome), "session/hello")
        # A game gamegate launched or polls joins the bus after READY=1:
        # until then its tools are unknown (-31002) and the request is sent
        # again.
        deadline = time.monotonic() + 30 * SCALE
        while True:
            answer = bridge.request(method, json.loads(params))
            if answer.get("error", {}).get("code") != -31002 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert_json(json.loads(result), answer.get("result", answer), method)
    finally:
        bridge.close()


def a2g_session(address, case, config, fixtures, values):
    settings = case.group(config, "a2g")
    profile = settings.get("profile", "local")
    cafile = settings.get("tls-certificate")
    connection = A2gConnection(address, cafile, 30 * SCALE)
    hsts = profile != "local"
    try:
        if profile == "local":
            credential = None
        elif profile == "server":
            credential = fixtures.api_key
        else:
            kid = settings[fixtures.manifest["game"] + ".join-keys"].split(":", 1)[0]
            credential = fixtures.join_token(kid, settings["service-id"])
        status, headers, opened = connection.exchange(
            "/v1/session", {"a2g": "0.1", "client_id": CLIENT_ID, "game": fixtures.manifest["game"],
                            "manifest": fixtures.manifest}, credential)
        assert status == 200, (status, opened)
        assert_json({"a2g": "0.1", "ok": True, "manifest_hash": fixtures.value("MANIFEST_HASH"),
                     "session_token": "<any>", "expires_in": int(settings.get("session-ttl", "3600")),
                     "limits": {"entities_per_request": 16, "max_body_bytes": 262144}}, opened,
                    "/v1/session")
        token = opened["session_token"]
        assert re.fullmatch(r"s_[A-Za-z0-9_-]{22,}", token), token
        assert ("strict-transport-security" in headers) == hsts, headers

        status, headers, decided = connection.exchange(
            "/v1/decide", {"client_id": CLIENT_ID, "epoch": 1, "entities": [PIRATE]}, token)
        assert status == 200, (status, decided)
        # A decision has a decision_id (random), a FALLBACK none.
        decision = dict(decided["decisions"][0]) if decided.get("decisions") else {}
        decision_id = decision.pop("decision_id", None)
        assert_json({"a2g": "0.1", "epoch": 1, "decisions": [expected_json(case, "a2g", values)]},
                    dict(decided, decisions=[decision]), "/v1/decide")
        assert (decision_id is None) == (decision.get("action") == "FALLBACK"), decided
        assert ("strict-transport-security" in headers) == hsts, headers

        if decision_id is not None:
            assert re.fullmatch(r"d_[A-Za-z0-9_-]+", decision_id), decided
            status, headers, reported = connection.exchange(
                "/v1/report", {"client_id": CLIENT_ID, "reports": [
                    {"decision_id": decision_id, "entity": "pirate-7", "outcome": "success", "reward": 0.5}]},
                token)
            assert_json({"a2g": "0.1", "ok": True, "accepted": 1, "ignored": []}, reported, "/v1/report")
            assert status == 200, status
            assert ("strict-transport-security" in headers) == hsts, headers
        if connection.tls:
            assert connection.tls_version() in ("TLSv1.2", "TLSv1.3"), connection.tls_version()
        if "redis" in settings:
            # The state went where the configuration says.
            prefix = settings.get("redis-prefix", "a2g:")
            assert fixtures.redis_keys(prefix + "*"), "nothing under %s in Redis" % prefix
    finally:
        connection.close()


def a2g_old_tls(address):
    """TLS 1.2 or later only: an old client's handshake fails."""
    answer = tls_handshake_at_most_1_1(address, 30 * SCALE)
    if "NO_PROTOCOLS_AVAILABLE" in answer or "no protocols available" in answer:
        raise Skip("this machine's OpenSSL cannot offer TLS 1.1")
    assert "alert protocol version" in answer.lower() or "ALERT_PROTOCOL_VERSION" in answer, \
        "a ClientHello offering at most TLS 1.1 got: %s" % answer


def leftover_processes(marker):
    """Processes whose environment carries this case's marker (killed)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/environ" % pid, "rb") as environ:
                if marker.encode() in environ.read().split(b"\0"):
                    found.append(int(pid))
                    os.kill(int(pid), signal.SIGKILL)
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


def run_case(case, tree, version, work_root):
    work = tempfile.mkdtemp(prefix=case.name + "-", dir=work_root)
    home = os.path.join(work, "home")
    runtime = os.path.join(work, "run")
    os.makedirs(os.path.join(home, ".config", "gamegate"))
    os.makedirs(runtime, mode=0o700)
    env = user_environment(tree, home, runtime)
    fixtures = Fixtures(work, os.path.join(SOURCE_DIR, "examples", "a2g", "python", "orbital-freight.json"),
                        dict(PROGRAMS, refgame=tree["refgame"]), dict(env), SCALE)
    # The daemon and what it launches carry this; the fixtures do not.
    marker = "GG_SERVE_MATRIX_CASE=" + work
    env["GG_SERVE_MATRIX_CASE"] = work
    daemon = None
    started = time.monotonic()
    try:
        try:
            values = {"HOME": home, "VERSION": version}
            values.update({name: fixtures.value(name) for name in case.placeholders if name not in values})
            config = substitute(case.text, values)
            with open(os.path.join(home, ".config", "gamegate", "gamegate.conf"), "w", encoding="utf-8") as f:
                f.write(config)
            daemon = Daemon(tree, env, work)
            served = daemon.listening()
            expected = sorted(key for key in case.expect if key in FRONT_ENDS)
            assert sorted(served) == expected, \
                "front ends served: %s, the case expects %s" % (sorted(served), expected)
            emit(True, "%s: gamegate serve is ready" % case.name)
        except Exception:
            print("# " + traceback.format_exc().replace("\n", "\n# "))
            if daemon is not None:
                try:
                    daemon.stop()
                finally:
                    print("# " + daemon.text().replace("\n", "\n# "))
            emit(False, "%s: gamegate serve is ready" % case.name)
            return

        clients = {
            "oam": ("one oam turn on oam.sock",
                    lambda: oam_turn(served["oam"], case, values)),
            "mcp": ("one MCP tool call through the official SDK over HTTP",
                    lambda: mcp_session(served["mcp"], case, values)),
            "gabp": ("a GABP bridge's hello and request",
                     lambda: gabp_session(env, case, values)),
            "a2g": ("an A2G session and decision (and report) on one keep-alive connection",
                    lambda: a2g_session(served["a2g"], case, config, fixtures, values)),
        }
        steps = [clients[key] for key in FRONT_ENDS if key in case.expect]
        if served.get("a2g", "").startswith("https://"):
            steps.append(("the A2G service refuses a ClientHello offering at most TLS 1.1",
                          lambda: a2g_old_tls(served["a2g"])))
        for what, client in steps:
            try:
                if daemon.process.poll() is not None:
                    raise AssertionError("gamegate exited (status %d) before this" % daemon.process.returncode)
                client()
                emit(True, "%s: %s" % (case.name, what))
            except Skip as skip:
                emit(True, "%s: %s" % (case.name, what), " # SKIP %s" % skip)
            except Exception:
                print("# " + traceback.format_exc().replace("\n", "\n# "))
                emit(False, "%s: %s" % (case.name, what))

        name = "%s: SIGTERM, exit status 0, no sanitizer, valgrind or GLib report, nothing left" % case.name
        try:
            status = daemon.stop()
            text = daemon.text()
            problems = [line for line in text.splitlines() if LOG_PROBLEMS.search(line)]
            left = leftover_processes(marker)
            assert status == 0 and not problems and not left, \
                "exit status %d, %d problem line(s), processes left: %s" % (status, len(problems), left)
            emit(True, name, " (%.1f s)" % (time.monotonic() - started))
        except Exception:
            print("# " + traceback.format_exc().replace("\n", "\n# "))
            print("# " + daemon.text().replace("\n", "\n# "))
            emit(False, name)
    finally:
        if daemon is not None and daemon.process.poll() is None:
            daemon.process.kill()
            daemon.process.wait()
        fixtures.close()
        leftover_processes(marker)


def main():
    for tool in ("node", "openssl"):
        if shutil.which(tool) is None:
            print("1..0 # SKIP no %s" % tool)
            return 0
    cases = [Case(os.path.join(CASES_DIR, f)) for f in sorted(os.listdir(CASES_DIR)) if f.endswith(".conf")]
    if ONLY:
        cases = [c for c in cases if c.name in ONLY]
    work_root = tempfile.mkdtemp(prefix="gg-serve-")
    try:
        started = time.monotonic()
        tree = install(work_root)
        env = user_environment(tree, work_root, work_root)
        version = run([tree["gamegate"], "--version"], env=env).split()[1]
        print("# installed in %.1f s; %d configurations" % (time.monotonic() - started, len(cases)),
              flush=True)
        for case in cases:
            if "REDIS" in case.placeholders and shutil.which("redis-server") is None:
                emit(True, "%s" % case.name, " # SKIP no redis-server")
                continue
            run_case(case, tree, version, work_root)
    finally:
        shutil.rmtree(work_root, ignore_errors=True)
    print("1..%d" % len(results), flush=True)
    return 0 if all(results) else 1


sys.exit(main())
