#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""test-console.py: the A2G console in a real browser. Starts `gamegate a2g`
with a scripted model, makes decisions of every source and a fallback as a
game would, loads GET / in headless chromium (DevTools protocol over a pipe)
and asserts on the rendered DOM: the snapshot figures, the live decision
rows arriving over server-sent events, text inserted as text (a reason with
markup in it stays text), no script error or CSP violation, a layout that
fits 1280x800. Writes a screenshot (the first argument) for a person to
look at. Skips (77) only when chromium is not installed.

Usage: test-console.py SCREENSHOT.png
"""

from __future__ import annotations

import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "sdk"))

import headless_chromium  # noqa: E402
from a2g_service import TIMEOUT_SCALE, Service, call, scripted_model  # noqa: E402

MANIFEST_PATH = os.path.join(HERE, "..", "..", "..", "examples", "a2g", "python", "orbital-freight.json")
REASON = "Alone <b>and</b> hurt & the medicine is not worth dying for."
CLIENT = "c_console_test_0001"
OBS = {"hp": 35, "target_distance": 900, "allies_near": 0, "cargo_seen": "medicine", "cornered": False}
LEGAL = ["attack", "flee", "surrender"]

failures: list[str] = []


def check(condition: bool, what: str) -> None:
    if not condition:
        failures.append(what)
        print("FAIL: " + what)


def expect_equal(got: object, want: object, what: str) -> None:
    check(got == want, f"{what}: got {got!r}, want {want!r}")


def entity(name: str, legal: list[str] = LEGAL, **observations: object) -> dict:
    return {"entity": name, "type": "pirate", "observations": {**OBS, **observations},
            "legal_actions": legal}


def decide(port: int, token: str | None, epoch: int, entities: list[dict]) -> list[dict]:
    status, answer = call(port, "POST", "/v1/decide",
                          {"client_id": CLIENT, "epoch": epoch, "entities": entities}, token)
    if status != 200 or answer is None:
        raise SystemExit(f"decide: HTTP {status}: {answer}")
    return answer["decisions"]


def png_size(data: bytes) -> tuple[int, int]:
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise SystemExit("the screenshot is not a PNG")
    return struct.unpack(">II", data[16:24])


def main(screenshot: str) -> int:
    if headless_chromium.find_chromium() is None:
        print("SKIP: chromium is not installed")
        return 77
    import json
    with open(MANIFEST_PATH, encoding="utf-8") as f:
        manifest = json.load(f)

    with Service(scripted_model("flee", 72, REASON)) as service:
        port = service.port
        status, session = call(port, "POST", "/v1/session",
                               {"a2g": "0.1", "client_id": CLIENT, "game": "orbital-freight",
                                "manifest": manifest})
        if status != 200 or session is None:
            raise SystemExit(f"session: HTTP {status}: {session}")
        token = session.get("session_token")

        # Before the page: a model decision, a cache hit, a forced one, an invalid one.
        before = decide(port, token, 1, [entity("pirate-1")])
        expect_equal(before[0].get("source"), "model", "first decision's source")
        before = decide(port, token, 1, [entity("pirate-2"), entity("pirate-3", ["flee"]),
                                         entity("pirate-4", hp=500)])
        expect_equal([d.get("source", d.get("code")) for d in before], ["cache", "forced", "invalid"],
                     "sources before the page loads")

        with headless_chromium.Chromium(1280, 800, timeout=30.0 * TIMEOUT_SCALE) as browser:
            browser.navigate(service.url + "/")
            wait = 15.0 * TIMEOUT_SCALE
            browser.wait_for("document.getElementById('status').dataset.state === 'live' && "
                             "document.getElementById('count-model').textContent === '1'", wait)
            expect_equal(browser.evaluate("document.title"), "A2G console · gamegate", "title")
            expect_equal(browser.evaluate("document.getElementById('profile').textContent"), "local",
                         "profile")
            expect_equal(browser.evaluate("document.getElementById('sessions').textContent"), "1",
                         "live sessions")
            expect_equal(browser.evaluate("document.querySelectorAll('#decisions-body tr').length"), 0,
                         "no decision rows before any decision event")

            # While the page listens: a cache hit, then a forced one and an
            # invalid one (the rows come newest first).
            after = decide(port, token, 2, [entity("pirate-5")])
            expect_equal(after[0].get("source"), "cache", "source while the page listens")
            browser.wait_for("document.querySelectorAll('#decisions-body tr').length === 1", wait)
            after = decide(port, token, 2, [entity("pirate-6", ["surrender"]),
                                            entity("pirate-7", cargo_seen="gold")])
            expect_equal([d.get("source", d.get("code")) for d in after], ["forced", "invalid"],
                         "sources while the page listens")
            browser.wait_for("document.querySelectorAll('#decisions-body tr').length === 3", wait)
            rows = browser.evaluate("""Array.from(document.querySelectorAll('#decisions-body tr')).map(r => ({
                entity: r.dataset.entity,
                fallback: r.classList.contains('fallback'),
                cells: Array.from(r.cells).map(c => c.textContent),
                entityName: r.querySelector('.entity').firstChild.textContent,
                badge: r.querySelector('.badge') && r.querySelector('.badge').textContent,
                reasonTitle: r.querySelector('.reason').getAttribute('title'),
            }))""")
            by_entity = {row["entity"]: row for row in rows}
            expect_equal(sorted(by_entity), ["pirate-5", "pirate-6", "pirate-7"], "rows by entity")
            # Newest first: the entities of one request settle in any order.
            expect_equal(rows[2]["entity"] if len(rows) == 3 else None, "pirate-5", "the oldest row last")
            cached = by_entity.get("pirate-5", {"cells": [""] * 8})
            expect_equal(cached.get("entityName"), "pirate-5", "cache row entity")
            expect_equal(cached["cells"][2], "pirate-5pirate", "cache row entity cell (name and type)")
            expect_equal(cached["cells"][3], "flee", "cache row action")
            expect_equal(cached.get("badge"), "cache", "cache row source")
            expect_equal(cached["cells"][5], "72", "cache row confidence")
            expect_equal(cached["cells"][6], REASON, "cache row reason, markup shown as text")
            expect_equal(cached.get("reasonTitle"), REASON, "cache row reason tooltip")
            check(len(cached["cells"][1]) == 8 and all(c in "0123456789abcdef" for c in cached["cells"][1]),
                  f"session cell is 8 hex digits: {cached['cells'][1]!r}")
            check(len(cached["cells"][0]) == 12 and cached["cells"][0][2] == ":",
                  f"time cell is HH:MM:SS.mmm: {cached['cells'][0]!r}")
            forced = by_entity.get("pirate-6", {"cells": [""] * 8})
            expect_equal(forced["cells"][3], "surrender", "forced row action")
            expect_equal(forced.get("badge"), "forced", "forced row source")
            expect_equal(forced["cells"][5], "100", "forced row confidence")
            invalid = by_entity.get("pirate-7", {"cells": [""] * 8})
            expect_equal(invalid.get("fallback"), True, "fallback row marked")
            expect_equal(invalid["cells"][3], "FALLBACK", "fallback row action")
            expect_equal(invalid.get("badge"), "invalid", "fallback row code")
            expect_equal(invalid["cells"][5], "", "fallback row has no confidence")
            check("cargo_seen" in invalid["cells"][6], f"fallback message names the field: {invalid['cells'][6]!r}")
            expect_equal(browser.evaluate("document.querySelectorAll('#decisions-body b').length"), 0,
                         "no element made from event text")
            expect_equal(browser.evaluate("document.getElementById('decisions-empty').hidden"), True,
                         "the waiting note is gone")

            # The next snapshot counts them all.
            browser.wait_for("document.getElementById('count-cache').textContent === '2'", wait)
            figures = browser.evaluate("""Object.fromEntries(['sessions', 'count-model', 'count-cache',
                'count-memory', 'count-forced', 'decisions-total', 'fallback-invalid', 'fallback-busy',
                'fallbacks-total', 'cache-hits', 'cache-misses', 'cache-hit-rate', 'tokens-input',
                'tokens-output', 'tokens-total', 'dropped', 'decisions-shown']
                .map(id => [id, document.getElementById(id).textContent]))""")
            want = {"sessions": "1", "count-model": "1", "count-cache": "2", "count-memory": "0",
                    "count-forced": "2", "decisions-total": "5", "fallback-invalid": "2",
                    "fallback-busy": "0", "fallbacks-total": "2", "cache-hits": "2", "cache-misses": "1",
                    "cache-hit-rate": "66.7%", "dropped": "0", "decisions-shown": "3"}
            for key, value in want.items():
                expect_equal(figures.get(key), value, "#" + key)
            # Rates over the last 10 s: each source's figure, their sum, and
            # bars as long as the figures relative to the highest.
            rates = browser.evaluate("""['model', 'cache', 'memory', 'forced'].map(s => [
                document.getElementById('dps-' + s).textContent,
                parseFloat(document.getElementById('dps-bar-' + s).style.width)])
                .concat([[document.getElementById('dps-total').textContent, 0]])""")
            check(all(re.fullmatch(r"\d+\.\d", text) for text, _ in rates), f"rates shown as x.y: {rates}")
            parts = [float(text) for text, _ in rates[:4]]
            # (The model decision came before the page loaded, maybe more than 10 s ago.)
            check(parts[1] > 0 and parts[3] > 0 and parts[2] == 0,
                  f"cache and forced rates above 0, memory 0: {rates}")
            check(abs(float(rates[4][0]) - sum(parts)) <= 0.15, f"the total rate is the sum: {rates}")
            expect_equal(max(width for _, width in rates[:4]), 100.0, "the highest rate's bar is full")
            expect_equal(rates[2][1], 0.0, "no memory bar")
            tokens_in = int(figures.get("tokens-input", "0").replace(",", "") or 0)
            tokens_out = int(figures.get("tokens-output", "0").replace(",", "") or 0)
            check(tokens_in > 0 and tokens_out > 0, f"token figures: {figures.get('tokens-input')!r}, "
                                                    f"{figures.get('tokens-output')!r}")
            expect_equal(figures.get("tokens-total"), f"{tokens_in + tokens_out:,}", "#tokens-total")
            status, usage = call(port, "GET", "/v1/usage")
            if status == 200 and usage is not None:
                expect_equal(tokens_in, usage["tokens"]["input"], "input tokens match /v1/usage")
                budgets = browser.evaluate("Array.from(document.querySelectorAll('#budgets li'))"
                                           ".map(li => [li.dataset.scope, li.querySelector('.budget-figures')"
                                           ".textContent])")
                want_budgets = [[b["scope"], f"{b['used']:,} / {b['limit']:,} per {b['window']}"]
                                for b in usage.get("budgets", [])]
                expect_equal(budgets, want_budgets, "budgets as /v1/usage has them")
            else:
                check(False, f"GET /v1/usage: HTTP {status}")

            size = browser.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            check(size[0] <= 1280 and size[1] <= 800, f"the page fits 1280x800 without scrolling: {size}")
            problems = browser.problems()
            expect_equal(problems, [], "script errors, console errors and CSP violations")

            # For the picture: a few more decisions of every kind, as a game
            # would make them (new situations for the model, repeats for the
            # cache, single choices, a bad value).
            for round_ in range(3):
                decide(port, token, 3 + round_, [
                    entity(f"pirate-{10 + i}", LEGAL if i % 4 else ["flee"],
                           hp=10 + 20 * ((i + round_) % 5), target_distance=250 * (i % 3))
                    for i in range(8)] + [entity("raider-1", hp=-5)])
            # Let the highlight of new rows fade, then the picture.
            browser.evaluate("new Promise(r => setTimeout(r, 1500))")
            data = browser.screenshot(screenshot)
            expect_equal(png_size(data), (1280, 800), "screenshot size")
            print(f"screenshot: {screenshot}")

        status = service.stop()
        expect_equal(status, 0, "gamegate a2g exit status")
        if status != 0:
            print("gamegate a2g stderr:\n" + service.stderr_text())
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("console: all checks passed")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
