#!/usr/bin/env python3
"""The Python binding (bindings/python/gamegate_oam.py) in-process, through
the built libgamegate-oam: the stdio client's cases (tests/oam/python) over
the C ABI, then NPCs, decisions, worlds, content, oam_call_blocking() from a
thread, and the README's example. No pytest: one line per case, exit 1 on a
failure.

    python3 test_gamegate_oam.py BINDING-DIR LIBRARY EXAMPLE

SPDX-License-Identifier: LGPL-2.1-or-later
"""

import asyncio
import os
import subprocess
import sys
import threading
import traceback

BINDING_DIR, LIBRARY, EXAMPLE = sys.argv[1:4]
sys.path.insert(0, BINDING_DIR)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "oam", "python"))

import gamegate_oam  # noqa: E402
from gamegate_oam import Bridge, BridgeError, ToolError  # noqa: E402
import test_oam_client as stdio_cases  # noqa: E402
from test_oam_client import expect_eq, expect_error, scripted, without_duration  # noqa: E402

SCALE = stdio_cases.SCALE


async def case_same_module(_bridge):
    """The stdio client of the tests is this binding."""
    import oam_client
    expect_eq(oam_client.Bridge is Bridge, True, "one Bridge class")
    expect_eq(gamegate_oam.__file__.startswith(os.path.abspath(BINDING_DIR)), True, "binding path")


async def case_pid_and_version(bridge):
    expect_eq(bridge.pid, os.getpid(), "in-process")
    hello = await bridge.request("initialize", {"protocolVersion": "1.0"})
    lib = gamegate_oam.load_library(LIBRARY)
    expect_eq(hello["server"]["version"], lib.oam_version().decode(), "oam_version")


async def case_npc(bridge):
    """An NPC with a client tool, streamed; its state saved and restored."""
    calls = []

    @bridge.tool("check_inventory", "Stock of an item.",
                 {"type": "object", "properties": {"item": {"type": "string"}}})
    def check_inventory(item):
        calls.append(item)
        return {"stock": 3}

    gorm = await bridge.create_npc(
        "smith", persona={"name": "Gorm", "role": "the village blacksmith"},
        tools=["check_inventory"], grounding_tool="check_inventory", reply_format="text",
        model=scripted({"toolCalls": [{"name": "check_inventory", "arguments": {"item": "sword"},
                                       "id": "c1"}]},
                       {"template": "[proud] Aye: {toolOutput}", "chunks": 2}))
    expect_eq((gorm.id, gorm.tools, gorm.warnings), ("smith", ["check_inventory"], []), "created")
    shown, events = [], []
    reply = await gorm.talk("Swords?", context="The player looks rich.",
                            on_line=shown.append, on_event=events.append)
    expect_eq(calls, ["sword"], "the tool ran in Python")
    expect_eq((reply["line"], reply["emotion"]), ('Aye: {"stock":3}', "proud"), "reply")
    expect_eq(shown[-1], reply["line"], "deltas add up to the line")
    expect_eq([e["type"] for e in events][:2], ["toolCallStarted", "toolCallCompleted"], "events")
    expect_eq(without_duration(reply["toolCalls"]),
              [{"call": {"id": "c1", "name": "check_inventory", "arguments": {"item": "sword"}},
                "output": {"stock": 3}, "isError": False}], "toolCalls")
    expect_eq(await gorm.update(memory={"relationship": 40}), [], "update warnings")
    state = await gorm.state()
    expect_eq(state["memory"]["relationship"], 40, "saved relationship")
    await gorm.delete()
    again = await bridge.restore_npc(state, model=scripted({"text": "[happy] Welcome back."}))
    expect_eq(again.id, "smith", "restored id")
    reply = await again.talk("Hello")
    expect_eq((reply["line"], reply["emotion"], reply["relationship"]),
              ("Welcome back.", "happy", 40), "restored reply")
    bark = await bridge.create_npc("crier", persona={"name": "Crier"},
                                   model=scripted({"text": "Hear ye!"}))
    expect_eq(await bark.bark("Market day."), "Hear ye!", "bark")
    expect_eq(await bark.cancel(), 0, "nothing to cancel")
    await bark.reset(clear_memory=True)


async def case_decisions(bridge):
    decision = await bridge.decide(
        "A knight charges.", [{"id": "flee", "description": "Run into the woods"}, "fight"],
        actor={"name": "Snik", "role": "a goblin"}, context={"hp": 3},
        model=scripted({"json": {"reasoning": "Snik is timid.", "optionID": "flee", "confidence": 75}}))
    expect_eq((decision["optionID"], decision["reasoning"], decision["confidence"]),
              ("flee", "Snik is timid.", 75), "decide")
    results = await bridge.decide_many(
        [{"situation": "a", "options": ["x"]}, {"situation": "b", "options": ["y", "z"]}],
        max_concurrency=2, model=scripted({"json": {"reasoning": "r", "optionID": "z", "confidence": 5}}))
    expect_eq([r["optionID"] for r in results], ["x", "z"], "decideMany")
    await expect_error(bridge.decide("x", []), -32602, "invalid_params")


async def case_world(bridge):
    """A world: paths, merge patches, a subscription's notifications."""
    village = await bridge.create_world("village", {"player": {"gold": 60}})
    changes = []
    subscription = await village.subscribe(changes.append, path="player")
    expect_eq(await village.get("player.gold"), 60, "get")
    await village.set("player.gold", 45)
    await village.merge({"name": "Aria"}, path="player")
    expect_eq(await village.remove("player.name"), "Aria", "remove")
    expect_eq(await village.snapshot(), {"player": {"gold": 45}}, "snapshot")
    expect_eq([(c["path"], c.get("oldValue"), c.get("newValue")) for c in changes],
              [("player.gold", 60, 45), ("player.name", None, "Aria"), ("player.name", "Aria", None)],
              "changes")
    await village.unsubscribe(subscription)
    await village.set("player.gold", 1)
    expect_eq(len(changes), 3, "no change after unsubscribe")
    await village.delete()
    await expect_error(village.get(), -32052, "world_not_found")


async def case_content(bridge):
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "damage": {"type": "integer"}},
              "required": ["name", "damage"]}
    content = await bridge.generate("A sword.", schema,
                                    model=scripted({"json": {"name": "Ember", "damage": 7}}))
    expect_eq(content, {"name": "Ember", "damage": 7}, "content")


async def case_call_blocking(bridge):
    """oam_call_blocking() from a thread of the caller's while the loop runs;
    a timeout cancels the request."""
    await bridge.create_session("blocking", model=scripted({"text": "slow", "delayMs": 600000},
                                                           {"text": "quick"}))
    outcome = {}

    def worker():
        try:
            bridge.call_blocking("session/respond", {"session": "blocking", "prompt": "a"}, timeout=0.2)
        except BridgeError as error:
            outcome["timeout"] = (error.code, error.name)
        outcome["next"] = bridge.call_blocking("session/respond", {"session": "blocking", "prompt": "b"},
                                               timeout=10 * SCALE)["text"]
    thread = threading.Thread(target=worker)
    thread.start()
    while thread.is_alive():
        await asyncio.sleep(0.01)
    expect_eq(outcome, {"timeout": (-32024, "timeout"), "next": "quick"}, "blocking calls")


async def case_tool_error_in_python(bridge):
    @bridge.tool("broken", "Fails.")
    def broken():
        raise ToolError({"why": "rusted"})

    s = await bridge.create_session("err", tools=["broken"], model=scripted(
        {"toolCalls": [{"name": "broken", "arguments": {}, "id": "b1"}]}, {"template": "{toolOutput}"}))
    result = await s.respond("try")
    expect_eq(without_duration(result["toolCalls"]),
              [{"call": {"id": "b1", "name": "broken", "arguments": {}}, "output": {"why": "rusted"},
                "isError": True}], "isError")


def run_example() -> None:
    """The README's example, as a user runs it."""
    env = dict(os.environ, OAM_LIBRARY=LIBRARY, PYTHONPATH=BINDING_DIR)
    out = subprocess.run([sys.executable, EXAMPLE], env=env, capture_output=True, text=True,
                         timeout=60 * SCALE)
    expect_eq((out.returncode, out.stdout),
              (0, "  … No luck: the portcullis chain is jammed.\n"
                  "Brom (angry): No luck: the portcullis chain is jammed.\n"), "example output")


SHARED = [stdio_cases.case_events_and_tool_round, stdio_cases.case_concurrent_routing,
          stdio_cases.case_tool_reply_forms, stdio_cases.case_schema_turn,
          stdio_cases.case_cancel_running_turn, stdio_cases.case_cancel_outstanding_tool,
          stdio_cases.case_transcript_and_history, stdio_cases.case_errors,
          stdio_cases.case_session_settings, stdio_cases.case_npc_talk, stdio_cases.case_notify_ping]
CASES = [case_same_module, case_pid_and_version] + SHARED + [
    case_npc, case_decisions, case_world, case_content, case_call_blocking, case_tool_error_in_python]


async def run_all() -> tuple[int, int]:
    bridge = await Bridge.open(LIBRARY)
    passed, failed = await stdio_cases.run_cases(bridge, CASES)
    expect_eq(await bridge.close(), 0, "close")
    try:
        await bridge.request("ping")
    except BridgeError as error:
        expect_eq(error.name, "shut_down", "closed bridge")
    return passed, failed


def main() -> int:
    passed, failed = asyncio.run(run_all())
    try:
        run_example()
        passed += 1
        print("ok - example")
    except Exception:
        failed += 1
        print("not ok - example")
        traceback.print_exc(file=sys.stdout)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
